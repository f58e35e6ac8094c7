"""One plotly.js draw of each chart per rerun (``dashboard.workarounds.one_draw_script``).

Streamlit 1.67 remounts a chart whose figure changed and calls ``Plotly.react`` on it twice: once
before the chart's width is measured (hidden), once at that width with a copy of the figure. The
app's script draws the first call at the chart's width, shows it, and answers the second without
drawing. These tests count the draws that hold a figure's data in the real app, and check the
script's own rules on a blank page with a stand-in for plotly.js.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard import workarounds
from tests.browser.helpers import PAGES
from tests.helpers import ON_PINNED_STREAMLIT

#: The JavaScript this module runs in the page, kept in .js files beside it.
JS = Path(__file__).with_name("js")

#: Installed before the page loads: counts, per chart, the draws that ended holding data.
COUNT_DRAWS_JS = (JS / "count_draws.js").read_text(encoding="utf-8")

#: A stand-in for plotly.js that records its calls, and a maker of Streamlit-like figures.
STAND_IN_JS = (JS / "plotly_stand_in.js").read_text(encoding="utf-8")

SLIDER_PAGES = [page_id for page_id, spec in PAGES.items() if spec.slider]

ACTIVE_ONLY = pytest.mark.skipif(not workarounds.ACTIVE, reason="the one-draw script is off on this Streamlit")


@ACTIVE_ONLY
@pytest.mark.parametrize("page_id", SLIDER_PAGES)
def test_a_slider_press_draws_each_chart_once(page_id, open_tab, app_server):
    tab = open_tab(app_server)
    tab.context.add_init_script(COUNT_DRAWS_JS)
    spec = PAGES[page_id]
    tab.open(spec)
    tab.page.evaluate("window.__draws.clear()")
    tab.press(spec.slider, "ArrowRight")
    tab.page.wait_for_timeout(500)  # let any later draw of the same chart happen
    draws = tab.page.evaluate(
        "[...window.__draws.entries()].filter(([gd]) => gd.isConnected).map(([, count]) => count)"
    )
    assert draws, "no chart was redrawn"
    assert draws == [1] * len(draws)


#: Every chart has been drawn again at the width its element has now (after a resize).
CHARTS_AT_WIDTH_JS = (JS / "charts_at_width.js").read_text(encoding="utf-8")


@ACTIVE_ONLY
@pytest.mark.parametrize("page_id", ["speedup", "hardware"])
def test_a_window_resize_draws_each_chart_at_most_twice(page_id, open_tab, app_server):
    """Once at the new width, and once more where a row of two charts becomes a column."""
    tab = open_tab(app_server)
    tab.context.add_init_script(COUNT_DRAWS_JS)
    tab.open(PAGES[page_id])
    tab.page.evaluate("for (const chart of window.__draws.keys()) window.__draws.set(chart, 0)")
    tab.page.set_viewport_size({"width": 1024, "height": 768})
    tab.page.wait_for_function(CHARTS_AT_WIDTH_JS)
    tab.page.wait_for_timeout(500)  # let any later draw of the same chart happen
    draws = tab.page.evaluate("[...window.__draws.values()]")
    assert draws and all(1 <= count <= 2 for count in draws), draws


#: A blank page with the app's script, a hidden 800-pixel-wide element like Streamlit's chart,
#: and a stand-in for plotly.js that records its calls (Streamlit's chart code sets
#: ``window.Plotly`` after the script has run, as here).
BLANK_PAGE = f"""<div data-testid="stPlotlyChart" style="width: 800px">
  <div id="chart" style="visibility: hidden"></div>
</div>
<div data-testid="stPlotlyChart" style="display: none"><div id="unseen"></div></div>
<div id="other"></div>
{workarounds.one_draw_script() or ""}
<script>
{STAND_IN_JS}</script>"""


@pytest.fixture
def blank(browser):
    if not workarounds.ACTIVE:
        pytest.skip("the one-draw script is off on this Streamlit")
    context = browser.new_context()
    page = context.new_page()
    page.set_content(BLANK_PAGE)
    yield page
    context.close()


def calls_after(page, script: str) -> list[dict]:
    page.evaluate(script)
    page.wait_for_timeout(100)
    return page.evaluate("window.__calls")


def test_the_hidden_first_call_draws_at_the_charts_width_and_shows_it(blank):
    calls = calls_after(
        blank,
        """async () => {
          const gd = document.getElementById('chart');
          await Plotly.react(gd, figure('chart'));
          window.shown = gd.style.visibility;
          window.measured = figure('chart', 800);  // Streamlit's copy of the same figure
          await Plotly.react(gd, window.measured);
        }""",
    )
    assert calls == [{"id": "chart", "name": "chart", "width": 800}]
    assert blank.evaluate("window.shown") == ""  # visible once drawn, not hidden until the next call
    # The unanswered call's figure is the chart's now: Streamlit's update after it finds no change.
    assert blank.evaluate("document.getElementById('chart').data === window.measured.data")


def test_a_measured_width_that_differs_and_later_calls_are_drawn(blank):
    calls = calls_after(
        blank,
        """async () => {
          const gd = document.getElementById('chart');
          await Plotly.react(gd, figure('first'));
          await Plotly.react(gd, figure('measured', 640));
          await Plotly.react(gd, figure('zoomed', 640));
        }""",
    )
    assert calls == [
        {"id": "chart", "name": "first", "width": 800},
        {"id": "chart", "name": "measured", "width": 640},
        {"id": "chart", "name": "zoomed", "width": 640},
    ]


def test_after_a_first_draw_that_failed_the_measured_call_draws(blank):
    calls = calls_after(
        blank,
        """async () => {
          const gd = document.getElementById('chart');
          await Plotly.react(gd, figure('broken')).catch(() => null);
          await Plotly.react(gd, figure('measured', 800));
        }""",
    )
    assert calls == [
        {"id": "chart", "name": "broken", "width": 800},
        {"id": "chart", "name": "measured", "width": 800},
    ]


def test_charts_outside_streamlit_unmeasured_or_given_a_width_are_drawn_as_asked(blank):
    calls = calls_after(
        blank,
        """async () => {
          await Plotly.react(document.getElementById('other'), figure('other'));
          await Plotly.react(document.getElementById('unseen'), figure('unseen'));
          await Plotly.react(document.getElementById('chart'), [{y: [3], name: 'sized'}], {width: 640});
        }""",
    )
    assert calls == [
        {"id": "other", "name": "other", "width": None},
        {"id": "unseen", "name": "unseen", "width": None},
        {"id": "chart", "name": "sized", "width": 640},
    ]


def test_a_call_with_the_figure_the_chart_holds_is_not_drawn(blank):
    # Streamlit hands the chart's own figure back after each draw; a new config is drawn all the same.
    calls = calls_after(
        blank,
        """async () => {
          const gd = document.getElementById('chart');
          await Plotly.react(gd, figure('first'));
          await Plotly.react(gd, figure('resized', 640));
          await Plotly.react(gd, { data: gd.data, layout: gd.layout });
          await Plotly.react(gd, { data: gd.data, layout: gd.layout, config: { displaylogo: false } });
        }""",
    )
    assert calls == [
        {"id": "chart", "name": "first", "width": 800},
        {"id": "chart", "name": "resized", "width": 640},
        {"id": "chart", "name": "resized", "width": 640},
    ]


def test_plotly_writes_on_copies_not_on_the_figure_it_is_given(blank):
    # plotly.js keeps each decoded typed array on the array's spec object, and Streamlit copies
    # the figure it holds through JSON.stringify right after a chart mounts: a decoded array
    # would be copied one key per number.
    result = blank.evaluate(
        """async () => {
          const typed = () => ({ dtype: 'f8', bdata: 'AAAAAAAA8D8=' });
          const figure = (name, width) => ({
            data: [{ y: typed(), name }], layout: { height: 300, width, xaxis: { tickvals: typed() } },
          });
          const first = figure('first'), resized = figure('resized', 640), other = figure('other');
          const gd = document.getElementById('chart');
          await Plotly.react(gd, first);
          await Plotly.react(gd, resized);
          await Plotly.react(document.getElementById('other'), other);
          return {
            given: [first, resized, other].map((f) => JSON.stringify(f)),
            drawn: JSON.stringify([gd.data, gd.layout, document.getElementById('other').data]),
          };
        }"""
    )
    assert [call["name"] for call in blank.evaluate("window.__calls")] == ["first", "resized", "other"]
    assert not any("_inputArray" in given for given in result["given"])
    assert result["drawn"].count("_inputArray") == 3  # the copies drawn were decoded


def test_a_second_call_with_another_figure_at_the_same_width_is_drawn(blank):
    calls = calls_after(
        blank,
        """async () => {
          const gd = document.getElementById('chart');
          await Plotly.react(gd, figure('first'));
          await Plotly.react(gd, figure('newer', 800));
        }""",
    )
    assert calls == [
        {"id": "chart", "name": "first", "width": 800},
        {"id": "chart", "name": "newer", "width": 800},
    ]


#: Run in the page once it has loaded: from then on, the last figure Streamlit hands each chart
#: (outside the one-draw script, so whatever that script does with it). Typed arrays are kept as
#: the server sent them (``{dtype, bdata}``), without what plotly.js adds to them once decoded.
RECORD_SENT_JS = (JS / "record_sent.js").read_text(encoding="utf-8")

#: Per chart on screen: the traces of the last figure sent, and the traces plotly.js drew
#: (``_fullData``: what it computed its SVG from), as plain JSON.
SENT_AND_DRAWN_JS = (JS / "sent_and_drawn.js").read_text(encoding="utf-8")


def _same(sent, drawn) -> bool:
    import numpy as np

    from scripts.live_app import decode_array

    a, b = decode_array(sent), decode_array(drawn)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype.kind in "fiu" and b.dtype.kind in "fiu":
        return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a.astype(float)) & np.isnan(b.astype(float)))))
    return np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object))


def assert_drawn_as_sent(tab) -> None:
    charts = tab.page.evaluate(SENT_AND_DRAWN_JS)
    assert charts, "no chart on the page"
    for number, chart in enumerate(charts):
        assert chart["sent"] is not None, f"chart {number} was drawn from no figure this test saw"
        assert len(chart["drawn"]) == len(chart["sent"]), f"chart {number}: traces drawn differ from traces sent"
        for sent, drawn in zip(chart["sent"], chart["drawn"], strict=True):
            assert drawn["type"] == sent.get("type", "scatter")
            for key in ("name", "x", "y", "z", "customdata"):
                if key in sent:
                    assert _same(sent[key], drawn.get(key)), (
                        f"chart {number}, trace {sent.get('name')!r}: {key} drawn ≠ sent"
                    )


@pytest.mark.parametrize("page_id", SLIDER_PAGES)
def test_what_plotly_drew_is_the_figure_sent_after_every_press(page_id, open_tab, app_server):
    """Read back what plotly.js drew after each of several presses, both ways, on every page with a
    slider: a chart the one-draw script left stale would differ from the figure Streamlit sent."""
    tab = open_tab(app_server)
    spec = PAGES[page_id]
    tab.open(spec)
    tab.page.evaluate(RECORD_SENT_JS)
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft", "ArrowRight"):
        tab.press(spec.slider, key)
        assert_drawn_as_sent(tab)


@ON_PINNED_STREAMLIT
def test_bug_without_the_script_streamlit_draws_each_chart_twice_per_press(open_tab):
    from scripts import live_app

    with live_app.StreamlitServer(env={"SDE_WORKAROUNDS": "off"}) as server:
        tab = open_tab(server)
        tab.context.add_init_script(COUNT_DRAWS_JS)
        spec = PAGES["speedup"]
        tab.open(spec)
        tab.page.evaluate("window.__draws.clear()")
        tab.press(spec.slider, "ArrowRight")
        tab.page.wait_for_timeout(500)
        draws = tab.page.evaluate(
            "[...window.__draws.entries()].filter(([gd]) => gd.isConnected).map(([, count]) => count)"
        )
    assert draws == [2], "Streamlit now draws a changed chart once: the one-draw script may go"
