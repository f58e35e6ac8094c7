"""Every page in Chromium: it draws its charts, plotly.js holding the figures the server built for
the address, shows no exception, logs no console error, asks nothing of the internet; a slider
moved with the keyboard writes the address bar, the view is what that address builds, and
reloading that address gives the same view.

Each page is visited once (load, use a slider, reload) by a module-scoped fixture that records
everything; the tests below each check one aspect of that visit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from tests.browser.helpers import (
    PAGES,
    AppTab,
    PageSpec,
    assert_drawn_as_served,
    next_slider_value,
    query_params,
    served_charts,
)


@dataclass
class Visit:
    spec: PageSpec
    charts: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    exceptions: list = field(default_factory=list)
    url_after_press: str | None = None
    charts_after_press: list | None = None
    signature_after_press: str | None = None
    url_after_reload: str | None = None
    signature_after_reload: str | None = None
    requests: list = field(default_factory=list)
    foreign_requests: list = field(default_factory=list)
    console_errors: list = field(default_factory=list)
    page_errors: list = field(default_factory=list)


@pytest.fixture(scope="module", params=list(PAGES), ids=list(PAGES))
def visit(request, warm_tab: AppTab) -> Visit:
    """Load the page, draw every tab's chart, move its slider, reload; record it all."""
    spec = PAGES[request.param]
    tab = warm_tab
    record = Visit(spec)
    tab.open(spec)
    # Charts kept in tabs. By position: two tab groups may share labels (each engine's config,
    # then its synthetic run, under their own headings).
    tabs = tab.page.get_by_role("tab")
    for number in range(tabs.count()):
        tabs.nth(number).click()
        tab.settle()
    if tabs.count():
        # Back to the first: a page's lazy tabs (Hardware's) draw only the open one's charts.
        tabs.first.click()
        tab.settle()
    record.charts = tab.charts()
    record.warnings = tab.warnings()
    record.exceptions = tab.exceptions()
    if spec.slider and not record.exceptions:
        tab.press(spec.slider, "ArrowRight")
        tab.page.wait_for_function("(key) => new URL(location.href).searchParams.has(key)", arg=spec.slider_key)
        record.url_after_press = tab.url
        record.charts_after_press = tab.charts()
        record.signature_after_press = tab.signature()
        tab.reload()
        record.url_after_reload = tab.url
        record.signature_after_reload = tab.signature()
    record.requests = list(tab.requests)
    record.foreign_requests = tab.foreign_requests()
    record.console_errors = tab.unexpected_console_errors()
    record.page_errors = list(tab.page_errors)
    return record


def _has_data(trace: dict) -> bool:
    if trace.get("type") == "image":  # the Optimal k map's picture (as_figure)
        return bool(trace.get("source"))
    arrays = [np.asarray(trace[key]) for key in ("x", "y", "z") if key in trace]
    return any(a.size > 0 for a in arrays)


def test_charts_are_laid_out_in_one_pass(visit):
    """At the tests' 1600 px every chart's margins already hold its colour bar, tick labels and
    legend: a margin plotly.js has to widen makes it lay the whole chart out again, which
    doubled the sampling chart's draw."""
    for chart in visit.charts + (visit.charts_after_press or []):
        assert chart["layout"]["margins_widened"] == [], chart["layout"]["title"]


def test_page_draws_its_charts_with_data(visit):
    if visit.spec.charts is None:
        assert len(visit.charts) >= 1
    else:
        assert len(visit.charts) == visit.spec.charts
    for chart in visit.charts:
        assert chart["data"], "a chart without traces"
        assert all(_has_data(trace) for trace in chart["data"]), [t.get("name") for t in chart["data"]]


def test_default_view_holds_the_figures_the_server_built(visit):
    assert_drawn_as_served(visit.charts, served_charts(visit.spec.id, {}))


def test_no_streamlit_exception_or_warning(visit):
    assert visit.exceptions == []
    assert visit.warnings == []


def test_no_console_errors_beyond_base_path_probes(visit):
    """Streamlit's probes of ``<page>/_stcore/health`` and ``host-config`` on a deep link (404)
    are the only console errors allowed; no uncaught error either."""
    assert visit.console_errors == []
    assert visit.page_errors == []


def test_every_request_goes_to_the_local_server(visit):
    """No CDN, web font, telemetry or IP look-up while loading and using the page."""
    assert visit.requests, "no request recorded"
    assert visit.foreign_requests == []


def test_slider_key_press_writes_the_address_bar(visit):
    if not visit.spec.slider:
        pytest.skip(f"page {visit.spec.id} has no slider")
    params = query_params(visit.url_after_press)
    assert params == {visit.spec.slider_key: [next_slider_value(visit.spec.slider_key)]}
    assert_drawn_as_served(visit.charts_after_press, served_charts(visit.spec.id, params))


def test_reloading_the_address_gives_the_same_view(visit):
    if not visit.spec.slider:
        pytest.skip(f"page {visit.spec.id} has no slider")
    assert visit.url_after_reload == visit.url_after_press
    assert visit.signature_after_reload == visit.signature_after_press
