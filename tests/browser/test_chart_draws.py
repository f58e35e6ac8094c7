"""One plotly.js draw of each chart per rerun (``dashboard.ui.CHART_SCRIPT``).

Streamlit 1.67 remounts a chart whose figure changed and calls ``Plotly.react`` on it twice: once
before the chart's width is measured (hidden), once at that width. The app's script turns the
first call into an empty plot. These tests count the draws that hold a figure's data in the real
app, and check the script's own rules on a blank page with a stand-in for plotly.js.
"""

from __future__ import annotations

import pytest

from dashboard.ui import CHART_SCRIPT
from tests.browser.helpers import PAGES

#: Installed before the page loads: counts, per chart, the draws that ended holding data.
COUNT_DRAWS_JS = r"""
(() => {
  window.__draws = new Map();  // chart element -> draws with data
  const watch = (gd) => {
    if (gd.__drawsWatched || typeof gd.on !== 'function') return;
    gd.__drawsWatched = true;
    window.__draws.set(gd, 0);
    gd.on('plotly_afterplot', () => {
      if (Array.isArray(gd.data) && gd.data.length > 0) window.__draws.set(gd, window.__draws.get(gd) + 1);
    });
  };
  new MutationObserver(() => document.querySelectorAll('.js-plotly-plot').forEach(watch))
    .observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
})();
"""

SLIDER_PAGES = [page_id for page_id, spec in PAGES.items() if spec.slider]


@pytest.mark.parametrize("page_id", SLIDER_PAGES)
def test_a_slider_press_draws_each_chart_once(page_id, open_tab, app_server):
    tab = open_tab(app_server)
    tab.context.add_init_script(COUNT_DRAWS_JS)
    spec = PAGES[page_id]
    tab.open(spec)
    tab.page.evaluate("window.__draws.clear()")
    tab.press(spec.slider, "ArrowRight")
    tab.page.wait_for_timeout(500)  # a postponed draw would come 300 ms after the first call
    draws = tab.page.evaluate(
        "[...window.__draws.entries()].filter(([gd]) => gd.isConnected).map(([, count]) => count)"
    )
    assert draws, "no chart was redrawn"
    assert draws == [1] * len(draws)


#: A blank page with the app's script, an element like Streamlit's chart, and a stand-in for
#: plotly.js that records its calls (Streamlit's chart code sets ``window.Plotly`` after the
#: script has run, as here).
BLANK_PAGE = f"""<div data-testid="stPlotlyChart"><div id="chart"></div></div><div id="other"></div>
{CHART_SCRIPT}
<script>
  window.__calls = [];
  window.Plotly = {{
    react(gd, ...args) {{
      const figure = args.length === 1 ? args[0] : {{ data: args[0], layout: args[1] }};
      window.__calls.push({{ id: gd.id, traces: figure.data.length, width: figure.layout.width ?? null }});
      gd._fullLayout = {{}};
      return Promise.resolve(gd);
    }},
  }};
</script>"""

FIGURE = "{data: [{y: [1, 2]}], layout: {height: 300}}"


@pytest.fixture
def blank(browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_content(BLANK_PAGE)
    yield page
    context.close()


def calls_after(page, script: str, wait_ms: int = 400) -> list[dict]:
    page.evaluate(script)
    page.wait_for_timeout(wait_ms)
    return page.evaluate("window.__calls")


def test_the_hidden_first_draw_becomes_an_empty_plot_and_the_measured_one_draws(blank):
    calls = calls_after(
        blank,
        f"""() => {{
          const gd = document.getElementById('chart');
          Plotly.react(gd, {FIGURE});
          Plotly.react(gd, {{data: [{{y: [1, 2]}}], layout: {{height: 300, width: 800}}}});
        }}""",
    )
    assert calls == [{"id": "chart", "traces": 0, "width": None}, {"id": "chart", "traces": 1, "width": 800}]


def test_a_chart_with_no_second_call_is_drawn_all_the_same(blank):
    calls = calls_after(blank, f"() => Plotly.react(document.getElementById('chart'), {FIGURE})")
    assert calls == [{"id": "chart", "traces": 0, "width": None}, {"id": "chart", "traces": 1, "width": None}]


def test_charts_outside_streamlit_and_charts_with_a_width_are_drawn_as_asked(blank):
    calls = calls_after(
        blank,
        f"""() => {{
          Plotly.react(document.getElementById('other'), {FIGURE});
          Plotly.react(document.getElementById('chart'), [{{y: [3]}}], {{width: 640}});
        }}""",
    )
    assert calls == [{"id": "other", "traces": 1, "width": None}, {"id": "chart", "traces": 1, "width": 640}]
