() => {
  // Boxes in page pixels; a box is "cut" when what it holds is wider than it by more than this.
  const SLACK = 0.5;
  const box = (el) => el.getBoundingClientRect();
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > SLACK
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > SLACK;
  const inside = (inner, outer) => inner.left >= outer.left - SLACK && inner.right <= outer.right + SLACK
    && inner.top >= outer.top - SLACK && inner.bottom <= outer.bottom + SLACK;
  const rect = (r) => [r.left, r.top, r.right, r.bottom].map(Math.round);
  // The width the text inside `el` is laid out at, which CSS may clip and end with an ellipsis.
  const textWidth = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return Math.max(el.scrollWidth, range.getBoundingClientRect().width);
  };

  const legendOverTitle = [];
  const titleOutsideChart = [];
  document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot').forEach((gd) => {
    const chart = gd.querySelector('.svg-container');
    const title = gd.querySelector('.g-gtitle');
    if (!chart || !title || !title.textContent) return;
    const name = title.textContent;
    gd.querySelectorAll('.legend').forEach((legend) => {
      if (overlap(box(legend), box(title))) {
        legendOverTitle.push({ chart: name, legend: rect(box(legend)), title: rect(box(title)) });
      }
    });
    if (!inside(box(title), box(chart))) {
      titleOutsideChart.push({ chart: name, title: rect(box(title)), box: rect(box(chart)) });
    }
  });

  // An ECharts chart is one SVG: its title is the text the option names so, its legend the texts
  // naming its series.
  document.querySelectorAll('[data-testid="stEChartsChart"]').forEach((el) => {
    const svg = el.querySelector('svg');
    const option = window.__sde.echartsOption(el) || {};
    const heading = option.title || {};
    if (!svg || !heading.text) return;
    const texts = [...svg.querySelectorAll('text')];
    const names = new Set((option.series || []).map((series) => series.name));
    const titles = texts.filter((t) => t.textContent === heading.text || t.textContent === heading.subtext);
    for (const title of titles) {
      texts.filter((t) => names.has(t.textContent)).forEach((legend) => {
        if (overlap(box(legend), box(title))) {
          legendOverTitle.push({ chart: heading.text, legend: rect(box(legend)), title: rect(box(title)) });
        }
      });
      if (!inside(box(title), box(svg))) {
        titleOutsideChart.push({ chart: heading.text, title: rect(box(title)), box: rect(box(svg)) });
      }
    }
  });

  // st.dataframe and st.data_editor draw on a canvas inside a scroller: a scroller wider inside
  // than out hides columns behind a horizontal scrollbar. st.table is an HTML table in a box.
  const main = box(document.querySelector('[data-testid="stMainBlockContainer"]'));
  const tablesClipped = [];
  document.querySelectorAll('[data-testid="stDataFrame"]').forEach((el) => {
    const scroller = el.querySelector('.dvn-scroller');
    if (scroller && (scroller.scrollWidth > scroller.clientWidth || !inside(box(el), main))) {
      tablesClipped.push({ kind: 'grid', inner: scroller.scrollWidth, outer: scroller.clientWidth, box: rect(box(el)) });
    }
  });
  document.querySelectorAll('[data-testid="stTable"]').forEach((el) => {
    if (el.scrollWidth > el.clientWidth || !inside(box(el), main)) {
      tablesClipped.push({ kind: 'table', inner: el.scrollWidth, outer: el.clientWidth, box: rect(box(el)) });
    }
  });

  const metricsCut = [];
  document.querySelectorAll('[data-testid="stMetric"]').forEach((metric) => {
    for (const part of ['stMetricLabel', 'stMetricValue']) {
      const text = metric.querySelector(`[data-testid="${part}"] [data-testid="stMarkdownContainer"]`);
      if (text && textWidth(text) > text.clientWidth + SLACK) {
        metricsCut.push({ part, text: text.textContent, needs: Math.ceil(textWidth(text)), has: text.clientWidth });
      }
    }
  });

  // A button's label ends in an ellipsis where the button is narrower than its text.
  const buttonsCut = [...document.querySelectorAll('[data-testid="stMain"] button [data-testid="stMarkdownContainer"]')]
    .filter((el) => textWidth(el) > el.clientWidth + SLACK)
    .map((el) => ({ button: el.textContent, needs: Math.ceil(textWidth(el)), has: el.clientWidth }));

  // KaTeX scrolls a formula wider than its box.
  const formulasCut = [...document.querySelectorAll('.katex-display')]
    .filter((el) => el.scrollWidth > el.clientWidth)
    .map((el) => ({ formula: el.querySelector('annotation')?.textContent ?? el.textContent, needs: el.scrollWidth, has: el.clientWidth }));

  const sidebar = document.querySelector('[data-testid="stSidebar"]');
  return {
    sidebarOpen: sidebar !== null && sidebar.dataset.collapsed === 'false' && box(sidebar).right > 0,
    charts: document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot, [data-testid="stEChartsChart"] svg').length,
    tables: document.querySelectorAll('[data-testid="stDataFrame"], [data-testid="stTable"]').length,
    metrics: document.querySelectorAll('[data-testid="stMetric"]').length,
    legendOverTitle,
    titleOutsideChart,
    tablesClipped,
    metricsCut,
    buttonsCut,
    formulasCut,
  };
}
