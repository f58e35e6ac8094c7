// Every chart has been drawn again at the width its element has now (after a resize): plotly.js's
// layout, or ECharts' SVG.
() => [...document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')]
  .every((gd) => gd._fullLayout && Math.abs(gd._fullLayout.width - gd.getBoundingClientRect().width) < 1)
  && [...document.querySelectorAll('[data-testid="stEChartsChart"]')].every((el) => {
    const svg = el.querySelector('svg');
    return svg && Math.abs(svg.getBoundingClientRect().width - el.getBoundingClientRect().width) < 1;
  })
