// Run in the page before a key press: window.__watch resolves with the ms from the key press until
// the first chart, and until every chart, shows new data in a painted frame (null after 20 s).
// A plotly chart shows new data once plotly.js holds a new data array and the chart is visible
// (Streamlit draws a remounted chart hidden first); an ECharts chart drawn as SVG, once its
// visible paths differ from those before the press.
() => {
  const charts = () => [...document.querySelectorAll('[data-testid="stPlotlyChart"], [data-testid="stEChartsChart"]')];
  const visible = (el) => getComputedStyle(el).visibility !== 'hidden';
  const paths = (el) => [...el.querySelectorAll('svg path')].filter(visible).map((p) => p.getAttribute('d')).join('|');
  const plot = (el) => el.querySelector('.js-plotly-plot');
  const before = charts().map((el) => (plot(el) ? plot(el).data : paths(el)));
  window.__keyAt = null;  // keys.js records the press
  window.__watch = new Promise((resolve) => {
    let first = null;
    const changed = (el, i) => {
      const gd = plot(el);
      if (gd) return Array.isArray(gd.data) && gd.data !== before[i] && gd._fullLayout && visible(gd);
      const now = paths(el);
      return now.length > 0 && now !== before[i];
    };
    const stamp = (then) => scheduler.postTask(then, { priority: 'user-blocking' });
    const frame = () => {
      const keyAt = window.__keyAt;
      if (keyAt !== null) {
        const done = charts().map(changed);
        if (first === null && done.some(Boolean)) {
          first = 'painting';
          stamp(() => { first = performance.now() - keyAt; });
        }
        if (done.length > 0 && done.every(Boolean)) {
          stamp(() => resolve({ first: typeof first === 'number' ? first : performance.now() - keyAt, all: performance.now() - keyAt }));
          return;
        }
      }
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    setTimeout(() => resolve(null), 20000);
  });
}
