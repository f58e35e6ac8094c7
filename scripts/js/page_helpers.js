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
      const elements = document.querySelectorAll('[data-testid="stPlotlyChart"]');
      if (charts !== null && elements.length !== charts) return false;
      return [...elements].every((el) => {
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
    charts() {
      return plots().map(helpers.chart);
    },
    // A string that changes when any chart's drawn data or title changes. plotly.js makes a new
    // _fullData array with each draw, so a chart's string is computed once per draw.
    signature() {
      return plots().map((gd) => {
        let text = signatures.get(drawn(gd));
        if (text === undefined) {
          text = JSON.stringify(helpers.chart(gd));
          signatures.set(drawn(gd), text);
        }
        return text;
      }).join('\n');
    },
  };
  window.__sde = helpers;
})();
