() => {
  const plain = (v) => ArrayBuffer.isView(v) ? Array.from(v) : Array.isArray(v) ? v.map(plain) : v;
  const pick = (trace) => Object.fromEntries(['type', 'name', 'x', 'y', 'z', 'customdata']
    .filter((key) => trace[key] !== undefined).map((key) => [key, plain(trace[key])]));
  return [...document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')].map((gd) => ({
    sent: window.__sent.has(gd) ? window.__sent.get(gd).map(pick) : null,
    drawn: (gd._fullData || []).map(pick),
  }));
}
