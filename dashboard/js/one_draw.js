// One plotly.js draw per chart and rerun (see dashboard/workarounds.py). Streamlit 1.67 remounts a
// chart whose figure changed and calls Plotly.react twice: first before the chart's width is
// measured (drawn hidden), then at that width with a copy of the same figure, which plotly.js
// draws again in full. This draws the first call at the width the chart's element already has,
// shows it, and answers the second call without drawing when it asks for that same width and
// height and holds the same figure (compared as JSON). A call that hands back the very figure the
// chart holds is answered without drawing too; any other call is drawn as asked. plotly.js draws
// from copies of the figure's objects, because it keeps each typed array it decodes on the array's
// spec object and Streamlit then copies the figure it holds through JSON.stringify.
(() => {
  if (window.__sdeCharts) return;
  window.__sdeCharts = true;
  const install = (Plotly) => {
    if (!Plotly || Plotly.__sdeOneDraw) return;
    Plotly.__sdeOneDraw = true;
    const react = Plotly.react;
    const drawnAt = new WeakMap();  // chart -> { width, figure as JSON } of its hidden first call
    const configs = new WeakMap();  // chart -> the config of the last call
    // The figure as JSON, its width left out: the second call differs from the first in it alone.
    const text = (figure, layout) => JSON.stringify([figure.data, { ...layout, width: undefined }, figure.frames]);
    const isPlain = (value) => value !== null && typeof value === 'object' && !Array.isArray(value)
      && Object.getPrototypeOf(value) === Object.prototype;
    // Plain objects copied, arrays of numbers shared: plotly.js writes on the copies only.
    const fresh = (value) => {
      if (Array.isArray(value)) {
        return value.some((item) => isPlain(item) || Array.isArray(item)) ? value.map(fresh) : value;
      }
      if (!isPlain(value)) return value;
      const copy = {};
      for (const key of Object.keys(value)) copy[key] = fresh(value[key]);
      return copy;
    };
    Plotly.react = function (gd, ...args) {
      const figure = args.length === 1 && args[0] && !Array.isArray(args[0])
        ? args[0] : { data: args[0], layout: args[1], config: args[2] };
      // After each draw Streamlit hands back the figure the chart holds (its onUpdate): drawing that
      // again made a new copy for it to hand back, a chain of redraws a resize could keep going for ever.
      if (gd.layout !== undefined && figure.data === gd.data && figure.layout === gd.layout
        && figure.config === configs.get(gd)) return Promise.resolve(gd);
      configs.set(gd, figure.config);
      const layout = figure.layout || {};
      const chart = gd instanceof Element && !gd._fullLayout && layout.width === undefined
        ? gd.closest('[data-testid="stPlotlyChart"]') : null;
      const width = chart ? chart.getBoundingClientRect().width : 0;
      const copied = (sized) => ({ ...figure, data: fresh(figure.data), layout: { ...fresh(layout), ...sized } });
      if (width > 0) {
        const first = text(figure, layout);
        return react.call(Plotly, gd, copied({ width })).then((drawn) => {
          drawnAt.set(gd, { width, first });  // only a draw that succeeded lets the second call go undrawn
          gd.style.visibility = '';
          return drawn;
        });
      }
      if (drawnAt.has(gd)) {
        const drawn = drawnAt.get(gd);
        drawnAt.delete(gd);
        if (layout.width === drawn.width && layout.height === gd.layout.height && text(figure, layout) === drawn.first) {
          gd.data = figure.data;
          gd.layout = figure.layout;
          return Promise.resolve(gd);
        }
      }
      return react.call(Plotly, gd, copied());
    };
  };
  if (window.Plotly) { install(window.Plotly); return; }
  let plotly;  // Streamlit's chart code loads on the first chart and sets window.Plotly
  Object.defineProperty(window, 'Plotly', {
    configurable: true, enumerable: true, get: () => plotly, set: (value) => { plotly = value; install(value); },
  });
})();
