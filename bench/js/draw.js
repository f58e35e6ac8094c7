async ([cases, width, repeats]) => {
  const painted = () => new Promise((done) => requestAnimationFrame(
    () => scheduler.postTask(done, { priority: 'user-blocking' })));
  const figure = (text) => { const f = JSON.parse(text); f.layout.width = width; return f; };
  const host = document.createElement('div');
  host.style.cssText = `position: absolute; top: 0; left: 0; width: ${width}px`;
  document.body.appendChild(host);
  const out = cases.map(() => ({ anew: [], inPlace: [] }));
  for (let r = 0; r < repeats; r++) {
    for (const [i, [before, after]] of cases.entries()) {
      const div = host.appendChild(document.createElement('div'));
      let f = figure(after);
      await painted();
      let start = performance.now();
      await window.Plotly.newPlot(div, f.data, f.layout, f.config);
      await painted();
      out[i].anew.push(performance.now() - start);
      // A mounted chart keeps its config object: a new one makes Plotly.react start over.
      const config = f.config;
      f = figure(before);
      await window.Plotly.react(div, f.data, f.layout, config);
      await painted();
      f = figure(after);
      start = performance.now();
      await window.Plotly.react(div, f.data, f.layout, config);
      await painted();
      out[i].inPlace.push(performance.now() - start);
      window.Plotly.purge(div);
      div.remove();
    }
  }
  host.remove();
  return out;
}
