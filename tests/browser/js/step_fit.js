// The Step through page's boxes in viewport pixels ([left, top, right, bottom]): its chart, the
// chart's x-axis tick labels and title, its title and subtitle, its metrics; the viewport; and each legend line's text
// colour with the opacity it is drawn at (the product of its own and its ancestors' opacity).
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
  const title = document.createRange();
  title.selectNodeContents(document.querySelector('[data-testid="stMain"] h1'));
  return {
    titleTop: title.getBoundingClientRect().top,
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
