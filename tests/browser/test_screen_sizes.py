"""Every page readable on a projector's screen: at 1024 × 768, 1280 × 720, 1920 × 1080 and the
tests' 1600 × 900, with the sidebar open as Streamlit opens it, no chart's legend covers its
title, no table hides a column, no metric or button label is cut short; chart titles and formulas
fit their boxes.

``js/screen_fit.js`` compares the element boxes the browser laid out at each (size, page); one
test item per visit checks every property of that measurement, naming each that fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard.registry import PAGES as REGISTRY
from scripts import live_app
from tests.browser.helpers import PAGES, AppTab, query_params, served

#: The JavaScript this module runs in the page, kept in .js files beside it.
JS = Path(__file__).with_name("js")
SCREEN_FIT_JS = (JS / "screen_fit.js").read_text(encoding="utf-8")
CHARTS_AT_WIDTH_JS = (JS / "charts_at_width.js").read_text(encoding="utf-8")

#: The three of the issue, and the size the other browser tests and the page reference's pictures use.
SIZES = [(1024, 768), (1280, 720), (1920, 1080), (live_app.VIEWPORT["width"], live_app.VIEWPORT["height"])]

#: What the measurement must find on these pages, so that a selector Streamlit renamed cannot
#: make the checks pass on nothing: the p/q editor, the chapter's table, the pages' metrics.
AT_LEAST = {
    "sampling": {"tables": 1, "metrics": 5},
    "optimal_k": {"tables": 1, "metrics": 3},
    "hardware": {"metrics": 8},  # on every tab; the schedule's table is on one
}


#: Views beyond a page's defaults whose charts and titles differ: the registry's (the Step
#: through page's phases), and for that page greedy checks, block checks, a greedy draft's
#: check and presenter mode's larger type.
VIEWS = {page_id: tuple(query for _, query in page.views) for page_id, page in REGISTRY.items()}
VIEWS["step_through"] += (
    "k=8&step=10&greedy=true",
    "k=8&step=9&presenter=true",
    "k=8&step=10&greedy=true&presenter=true",
    "k=8&step=19&presenter=true",
    "k=8&step=17&step_verification=block",
    "k=8&step=17&step_verification=block&step_proposal=greedy_draft&presenter=true",
    "k=8&step=11&step_proposal=greedy_draft&presenter=true",
)

#: Each view is loaded once, at the first size, then measured at each size in turn: a page load
#: costs seconds, a new size a redraw (the layout is CSS and the widths Streamlit measures).
VISITS = [(page_id, query, size) for page_id in PAGES for query in ("", *VIEWS.get(page_id, ())) for size in SIZES]


@pytest.fixture(scope="module")
def tab(browser, app_server):
    context = browser.new_context(viewport=live_app.VIEWPORT)
    yield AppTab(context, app_server.url)
    context.close()


def measure(tab, page_id: str, query: str, width: int, height: int) -> dict:
    """The page at its defaults (or the view ``query``) on a screen of that size, as ``screen_fit.js`` measured it."""
    tab.page.set_viewport_size({"width": width, "height": height})
    if (tab.spec, tab.query) != (PAGES[page_id], query):
        tab.open(PAGES[page_id], query)
    else:
        tab.page.wait_for_function(CHARTS_AT_WIDTH_JS)
        tab.settle()
    assert tab.exceptions() == []
    return tab.page.evaluate(SCREEN_FIT_JS)


@pytest.mark.parametrize(
    ("page_id", "query", "size"),
    VISITS,
    ids=[f"{w}x{h}-{page_id}" + (f"?{query}" if query else "") for page_id, query, (w, h) in VISITS],
)
def test_the_page_fits_the_screen(page_id, query, size, tab):
    """The app asks for an expanded sidebar, which Streamlit opens at any width (presenter mode
    collapses it); the measurement found the page's charts, tables and metrics; and none of them
    is covered, clipped or cut."""
    fit = measure(tab, page_id, query, *size)
    assert fit["sidebarOpen"] is ("presenter=true" not in query)
    spec = PAGES[page_id]
    if spec.charts is None:  # as many as the server sends for the view (none on Hardware's Engine configs)
        assert fit["charts"] == len(served(page_id, query_params("?" + query)).charts)
    else:
        assert fit["charts"] == spec.charts
    for kind, least in AT_LEAST.get(page_id, {}).items():
        assert fit[kind] >= least, kind
    problems = {
        "a legend covers its chart's title": fit["legendOverTitle"],
        "a table hides a column": fit["tablesClipped"],
        "a metric is cut short": fit["metricsCut"],
        "a button label is cut short": fit["buttonsCut"],
        "a chart title leaves its chart": fit["titleOutsideChart"],
        "a formula is cut": fit["formulasCut"],
    }
    assert {what: found for what, found in problems.items() if found} == {}
