// The Step through page's boxes in viewport pixels ([left, top, right, bottom]): its chart, the
// chart's x-axis tick labels and title, its title and subtitle, its metrics, the step's explanation;
// the viewport; each legend line's text colour with the opacity it is drawn at (the product of its
// own and its ancestors' opacity); the font size of each text the chart draws; whether the page's
// title is the element drawn at its middle (nothing covers it); and how far the main area scrolls.
() => {
  const box = (element) => {
    const r = element.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const chart = document.querySelector('[data-testid="stMain"] [data-testid="stPlotlyChart"]');
  const opacity = (element) => {
    let product = 1;
    for (let e = element; e instanceof Element; e = e.parentElement) product *= Number(getComputedStyle(e).opacity);
    return product;
  };
  const legend = [...document.querySelectorAll('.st-key-step_legend [data-testid="stMarkdownContainer"] span')]
    .filter((span) => span.innerText.trim())
    .map((span) => ({ text: span.innerText.trim(), color: getComputedStyle(span).color, opacity: opacity(span) }));
  // The page title's text (not its padded box) and the bottom of Streamlit's header over the page.
  const h1 = document.querySelector('[data-testid="stMain"] h1');
  const title = document.createRange();
  title.selectNodeContents(h1);
  const t = title.getBoundingClientRect();
  const main = document.querySelector('[data-testid="stMain"]');
  const explanation = document.querySelector('.st-key-step_text [data-testid="stMarkdownContainer"]');
  return {
    titleTop: t.top,
    titleUncovered: h1.contains(document.elementFromPoint((t.left + t.right) / 2, (t.top + t.bottom) / 2)),
    scroll: main.scrollHeight - main.clientHeight,
    explanation: explanation ? box(explanation) : null,
    explanationFont: explanation ? parseFloat(getComputedStyle(explanation.querySelector('p')).fontSize) : null,
    chartFonts: chart ? [...chart.querySelectorAll('svg text')].filter((e) => e.textContent.trim())
      .map((e) => ({ text: e.textContent, size: parseFloat(getComputedStyle(e).fontSize) })) : [],
    headerBottom: document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom,
    viewport: [window.innerWidth, window.innerHeight],
    chart: chart ? box(chart) : null,
    xticks: chart ? [...chart.querySelectorAll('.xaxislayer-above .xtick text')].map(box) : [],
    xtitle: chart ? [...chart.querySelectorAll('.g-xtitle text')].map(box) : [],
    titles: chart ? [...chart.querySelectorAll('.g-gtitle text')].map(box) : [],
    metrics: [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stMetric"]')].map(box),
    legend,
  };
}
