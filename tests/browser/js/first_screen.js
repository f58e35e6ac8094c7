() => {
  // Boxes in viewport pixels at the page's first screen (nothing scrolled).
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  // Each sidebar slider by its label: the label, the value above the thumb and the track.
  const sliders = Object.fromEntries(
    [...document.querySelectorAll('[data-testid="stSidebar"] [data-testid="stSlider"]')].map((el) => [
      el.querySelector('input[type=range]').getAttribute('aria-label'),
      box(el),
    ]),
  );
  // Each chart: the figure, its plot area (the drag layer spans it exactly), its legend and the
  // text its text traces draw, which plotly.js clips at the plot area.
  const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')].map((gd) => ({
    title: gd.querySelector('.g-gtitle')?.textContent ?? null,
    box: box(gd.querySelector('.svg-container')),
    plot: box(gd.querySelector('.draglayer .xy .nsewdrag')),
    legend: gd.querySelector('.legend') ? box(gd.querySelector('.legend')) : null,
    labels: [...gd.querySelectorAll('.scatterlayer .textpoint text')].map((t) => ({ text: t.textContent, box: box(t) })),
  }));
  // An ECharts map (the Optimal k page): its picture of the grid, the largest (its colour bar is
  // another), fills the plot area exactly, and its contour labels are the texts that read as a
  // speedup ("3×").
  const area = (el) => el.getBoundingClientRect().width * el.getBoundingClientRect().height;
  for (const el of document.querySelectorAll('[data-testid="stEChartsChart"]')) {
    const picture = [...el.querySelectorAll('svg image')].sort((a, b) => area(b) - area(a))[0];
    if (!picture) continue;
    const texts = [...el.querySelectorAll('svg text')];
    charts.push({
      title: texts.length ? texts[0].textContent : null,
      box: box(el),
      plot: box(picture),
      legend: null,
      labels: texts.filter((t) => /^[0-9.]+×$/.test(t.textContent)).map((t) => ({ text: t.textContent, box: box(t) })),
    });
  }
  // Each page link in the main area (the home page's cards): its label, its box and its card's,
  // the nearest ancestor with a border.
  const card = (el) => {
    for (let e = el.parentElement; e; e = e.parentElement) {
      if (parseFloat(getComputedStyle(e).borderTopWidth) > 0) return e;
    }
    return el;
  };
  const links = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stPageLink-NavLink"]')].map((a) => ({
    label: a.querySelector('[data-testid="stMarkdownContainer"]').innerText.trim(),
    box: box(a),
    card: box(card(a)),
  }));
  return { sliders, charts, links };
}
