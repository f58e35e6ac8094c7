() => {
  const plots = () => [...document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')];
  const text = (gd) => JSON.stringify(window.__sde.chart(gd));
  const state = () => document.querySelector('[data-testid="stApp"]').dataset.testScriptState;
  // An ECharts chart (drawn as SVG) is updated in place: it shows new data once its visible paths
  // differ from those before the press, in shape, in place (a symbol that moves keeps its shape
  // and changes its transform) or in colour (a heatmap's cells keep both), or its texts do.
  const echarts = () => [...document.querySelectorAll('[data-testid="stEChartsChart"]')];
  const paths = (el) => [...el.querySelectorAll('svg path')]
    .filter((path) => getComputedStyle(path).visibility !== 'hidden')
    .map((path) => `${path.getAttribute('d')}@${path.getAttribute('transform') ?? ''}@${path.getAttribute('fill') ?? ''}`)
    .concat([...el.querySelectorAll('svg text')].map((t) => t.textContent)).join('|');
  const drawnBefore = new Map(echarts().map((el) => [el, paths(el)]));
  const seen = new WeakSet(plots().map((gd) => gd.data));
  const old = new Set(plots().map(text));
  const fresh = new WeakSet();  // charts holding new data, maybe still hidden
  window.__watch = new Promise((resolve) => {
    let keyAt = null, runAt = null, doneAt = null, chartAt = null;
    window.__keyAt = null;  // keys.js records the press
    const frame = (now) => {
      if (keyAt === null) keyAt = window.__keyAt;
      if (keyAt !== null) {
        if (runAt === null && state() === 'running') runAt = now;
        // A run too short to be seen between two frames still ends (run_start unknown then).
        if (doneAt === null && state() === 'notRunning' && (runAt !== null || typeof chartAt === 'number')) {
          doneAt = now;
        }
        if (chartAt === null) {
          for (const el of echarts()) {
            const now = paths(el);
            if (now.length > 0 && now !== drawnBefore.get(el)) {
              chartAt = 'painting';
              scheduler.postTask(() => { chartAt = performance.now(); }, { priority: 'user-blocking' });
              break;
            }
          }
        }
        if (chartAt === null) {
          for (const gd of plots()) {
            if (Array.isArray(gd.data) && !seen.has(gd.data)) {
              seen.add(gd.data);
              // New data, not a redraw of the old figure nor an empty placeholder plot.
              if (gd.data.length > 0 && !old.has(text(gd))) fresh.add(gd);
            }
            // Streamlit draws a remounted chart once with visibility: hidden before its width is
            // known: the new data counts once the chart holding it can be seen.
            if (fresh.has(gd) && gd._fullLayout && getComputedStyle(gd).visibility !== 'hidden') {
              // This frame paints the chart once its callbacks are done. A user-blocking task
              // posted now runs right after that paint, ahead of work the page queued earlier.
              chartAt = 'painting';
              scheduler.postTask(() => { chartAt = performance.now(); }, { priority: 'user-blocking' });
              break;
            }
          }
        }
      }
      if (chartAt === null && doneAt !== null && now - doneAt > 5000) {
        resolve(null);  // the run ended and no chart changed (a step of Step through may show the same chart)
      } else if (typeof chartAt === 'number' && doneAt !== null) {
        const received = window.__socketTimes.filter((t) => t >= keyAt && t <= doneAt);
        resolve({
          chart: chartAt - keyAt,
          run_start: runAt === null ? null : runAt - keyAt,
          run_end: doneAt - keyAt,
          last_message: received.length ? Math.max(...received) - keyAt : null,
        });
      } else {
        requestAnimationFrame(frame);
      }
    };
    requestAnimationFrame(frame);
    setTimeout(() => resolve(null), 60000);  // never hang the bench
  });
}
