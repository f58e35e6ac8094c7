(() => {
  const plots = () => [...document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')];
  // What plotly.js drew from holds decoded arrays (typed, or arrays of them for a heatmap's rows);
  // a typed-array spec as the server sent it is kept without what plotly.js adds to it.
  const plain = (v) => {
    if (ArrayBuffer.isView(v)) return Array.from(v);
    if (Array.isArray(v)) return v.some((item) => ArrayBuffer.isView(item) || Array.isArray(item)) ? v.map(plain) : v;
    if (v && typeof v === 'object' && 'bdata' in v) return { dtype: v.dtype, bdata: v.bdata, shape: v.shape };
    return v;
  };
  // The traces plotly.js computed its drawing from (``_fullData``), not the figure it was handed:
  // a chart left stale shows here.
  const drawn = (gd) => (gd._fullData && gd._fullData.length ? gd._fullData : gd.data);
  const signatures = new WeakMap();
  // ECharts charts (st.echarts_chart, drawn as SVG): the option is read from the props React
  // handed the chart's component (the element the server sent), what is drawn from the SVG.
  const CHARTS = '[data-testid="stPlotlyChart"], [data-testid="stEChartsChart"]';
  const isECharts = (el) => el.dataset.testid === 'stEChartsChart';
  // A DOM node keeps the fiber it was created with, which after later renders may be the stale
  // alternate: the current tree is searched from the root React holds (FiberRoot.current).
  const currentFiberOf = (el) => {
    const container = document.getElementById('root');
    const key = container && Object.keys(container).find((name) => name.startsWith('__reactContainer$'));
    const root = key && container[key].stateNode ? container[key].stateNode.current : null;
    const stack = root ? [root] : [];
    while (stack.length) {
      const fiber = stack.pop();
      if (fiber.stateNode === el) return fiber;
      if (fiber.sibling) stack.push(fiber.sibling);
      if (fiber.child) stack.push(fiber.child);
    }
    return null;
  };
  const echartsOption = (el) => {
    for (let fiber = currentFiberOf(el); fiber; fiber = fiber.return) {
      const element = fiber.memoizedProps && fiber.memoizedProps.element;
      if (element && typeof element.spec === 'string') return JSON.parse(element.spec);
    }
    return null;
  };
  const echartsTexts = (el) => [...el.querySelectorAll('svg text')].map((text) => text.textContent);
  const echartsDrawn = (el) => el.querySelector('svg path') !== null && echartsOption(el) !== null;
  const echart = (el) => {
    const option = echartsOption(el);
    const texts = echartsTexts(el);
    const title = (option && option.title) || {};
    return {
      layout: {
        // What the SVG shows: the option's title and subtitle where they were drawn.
        title: texts.includes(title.text) ? title.text : null,
        subtitle: texts.includes(title.subtext) ? title.subtext : null,
        xaxis_type: option && option.xAxis ? option.xAxis.type : null,
        margins_widened: [],  // ECharts lays a chart out once, from the option's grid
      },
      echarts: option,
    };
  };
  const helpers = {
    // The script run has finished, the page is connected, it has a title, every element has
    // loaded, and `charts` chart elements (any number if null) each hold plotted data; no stale
    // element is left over.
    // A run that ended in an exception is finished too: the caller looks for the exception.
    ready(charts) {
      const app = document.querySelector('[data-testid="stApp"]');
      if (!app || app.dataset.testScriptState !== 'notRunning') return false;
      if (app.dataset.testConnectionState !== 'CONNECTED') return false;
      if (!document.querySelector('[data-testid="stMain"] h1')) return false;
      if (document.querySelector('[data-testid="stException"]')) return true;
      // Elements whose code is still loading (plotly, metrics, ...) stand as skeletons.
      if (document.querySelector('[data-testid="stSkeleton"]')) return false;
      const elements = document.querySelectorAll(CHARTS);
      if (charts !== null && elements.length !== charts) return false;
      return [...elements].every((el) => {
        if (isECharts(el)) return echartsDrawn(el);
        const gd = el.querySelector('.js-plotly-plot');
        return gd && Array.isArray(gd.data) && gd.data.length > 0 && gd._fullLayout;
      });
    },
    // ready() has held for `quietMs` in a row (a rerun can follow a run at once).
    settled(charts, token, quietMs) {
      const now = performance.now();
      if (!helpers.ready(charts)) { helpers._quiet = null; return false; }
      if (!helpers._quiet || helpers._quiet.token !== token) helpers._quiet = { token, since: now };
      return now - helpers._quiet.since >= quietMs;
    },
    chart(gd) {
      return {
        layout: {
          title: gd.layout && gd.layout.title ? (gd.layout.title.text ?? gd.layout.title) : null,
          subtitle: gd.layout && gd.layout.title && gd.layout.title.subtitle ? gd.layout.title.subtitle.text : null,
          xaxis_type: gd._fullLayout && gd._fullLayout.xaxis ? gd._fullLayout.xaxis.type : null,
          // Sides whose margin plotly.js had to widen for what the chart puts there.
          margins_widened: gd._fullLayout && gd._fullLayout._size
            ? ['l', 'r', 't', 'b'].filter(
              (side) => Math.round(gd._fullLayout._size[side]) > gd._fullLayout.margin[side])
            : null,
        },
        data: drawn(gd).map((trace) => {
          const out = {};
          for (const key of ['type', 'name', 'mode', 'x', 'y', 'z', 'customdata']) {
            if (trace[key] !== undefined) out[key] = plain(trace[key]);
          }
          return out;
        }),
      };
    },
    // Every chart in the page's order, plotly's as chart() reads them, ECharts' as echart() does.
    charts() {
      return [...document.querySelectorAll(CHARTS)].map((el) => (
        isECharts(el) ? echart(el) : helpers.chart(el.querySelector('.js-plotly-plot'))));
    },
    // A string that changes when any chart's drawn data or title changes. plotly.js makes a new
    // _fullData array with each draw, so a chart's string is computed once per draw.
    signature() {
      const drawnECharts = [...document.querySelectorAll('[data-testid="stEChartsChart"]')]
        .map((el) => JSON.stringify([echartsOption(el), echartsTexts(el)]));
      return drawnECharts.concat(plots().map((gd) => {
        let text = signatures.get(drawn(gd));
        if (text === undefined) {
          text = JSON.stringify(helpers.chart(gd));
          signatures.set(drawn(gd), text);
        }
        return text;
      })).join('\n');
    },
  };
  helpers.echartsOption = echartsOption;
  window.__sde = helpers;
})();
