// Every chart has been drawn again at the width its element has now (after a resize).
() => [...document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')]
  .every((gd) => gd._fullLayout && Math.abs(gd._fullLayout.width - gd.getBoundingClientRect().width) < 1)
