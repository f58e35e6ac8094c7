"""Links reproduce a view: the first visitor of each page on a fresh server, hand-encoded p and q, and the
shared α, k, c carried from page to page by the navigation."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from dashboard.params import PARAMS
from scripts import live_app
from tests.browser.helpers import PAGES, AppTab, assert_drawn_as_served, next_slider_value, query_params, served_charts
from tests.links import deep_link, widget_type

LINKED_PAGES = [page_id for page_id, spec in PAGES.items() if spec.params]


def _query(params: dict[str, list[str]]) -> str:
    return urlencode(params, doseq=True)


def check_linked_view(tab, params: dict[str, list[str]]) -> None:
    """The tab shows exactly the view ``params`` describe (the figures the server builds for them),
    and says nothing is wrong with it.

    An engine's rule message (vLLM dropping the schedule under the link's data parallelism) is
    the page at work on the linked settings, not a fault of the link: it is not counted."""
    spec = tab.spec
    assert tab.exceptions() == []
    assert tab.warnings(engines=False) == []
    assert tab.params() == params, "the address bar lost or changed a parameter of the link"
    shown = tab.slider_values()
    for key, value in params.items():
        param = PARAMS.get(key)
        if param is None or param.label not in shown:
            continue
        if widget_type(param) == "slider":
            assert float(shown[param.label]) == pytest.approx(float(value[0])), key
        elif widget_type(param) == "select_slider":
            assert shown[param.label] == value[0], key
    charts = tab.charts()
    if spec.charts is not None:
        assert len(charts) == spec.charts
    assert_drawn_as_served(charts, served_charts(spec.id, params))


#: The page whose link is the first script run of the first-visitor server.
FIRST_RUN = "speedup"


@pytest.fixture(scope="module")
def first_run(browser, first_visit_server):
    """The first-visitor server's first script run: a link to :data:`FIRST_RUN`, before any other visit."""
    spec = PAGES[FIRST_RUN]
    params = deep_link(spec.params)
    context = browser.new_context(viewport=live_app.VIEWPORT)
    yield AppTab(context, first_visit_server.url).open(spec, _query(params)), params
    context.close()


def test_the_first_run_of_a_fresh_server_gets_the_linked_view(first_run):
    """With a ``pages/`` folder beside ``app.py``, Streamlit 1.67 ran a server's first script run
    in its legacy multipage mode: "page not found", and widgets that did nothing (see ``app.py``)."""
    tab, params = first_run
    check_linked_view(tab, params)
    tab.press(tab.spec.slider, "ArrowLeft")  # and the page answers: a slider moves the chart and the address
    assert tab.params() != params


@pytest.mark.parametrize("page_id", [page_id for page_id in LINKED_PAGES if page_id != FIRST_RUN])
def test_first_visitor_of_a_page_gets_the_linked_view(page_id, first_run, first_visit_server, open_tab):
    """Each page as the first visitor of a new session, on a server whose caches hold no other visit of it."""
    spec = PAGES[page_id]
    params = deep_link(spec.params)
    tab = open_tab(first_visit_server).open(spec, _query(params))
    check_linked_view(tab, params)
    if spec.slider:  # and the page answers: a slider moves the chart and the address
        tab.press(spec.slider, "ArrowLeft")
        assert tab.params() != params


def test_sampling_link_with_its_own_distributions(tab):
    """Hand-encoded p and q (commas in the address) reach the page as written; what a pair or a
    preset in a link draws is the page tests' (``tests/pages/test_sampling.py``)."""
    query = "p=0.5,0.5&q=0.2,0.8&n=1k&seed=3"
    tab.open(PAGES["sampling"], query)
    params = query_params("?" + query)
    check_linked_view(tab, params)


def test_shared_alpha_k_c_follow_the_navigation(tab):
    speedup = PAGES["speedup"]
    tab.open(speedup)
    tab.press(PARAMS["alpha"].label, "ArrowLeft")
    tab.press(PARAMS["k"].label, "ArrowRight", times=2)
    tab.press(PARAMS["c"].label, "ArrowRight")
    shared = {key: [next_slider_value(key, steps)] for key, steps in (("alpha", -1), ("k", 2), ("c", 1))}
    assert tab.params() == shared
    check_linked_view(tab, shared)

    links = tab.nav_links()
    for spec in PAGES.values():
        (href,) = [href for text, href in links.items() if spec.title in text]
        carried = {key: value for key, value in shared.items() if key in spec.params}
        assert query_params(href) == carried, f"link to {spec.id}: {href}"

    tab.follow_link(PAGES["optimal_k"].title, PAGES["optimal_k"])
    check_linked_view(tab, {key: shared[key] for key in ("alpha", "c")})
    tab.follow_link(PAGES["kl"].title, PAGES["kl"])
    check_linked_view(tab, {})
    tab.follow_link(speedup.title, speedup)
    check_linked_view(tab, shared)


def test_shared_values_from_a_link_follow_the_navigation(tab):
    """A visitor who arrived by a shared link and moved nothing: the link's α, c go on too.

    Streamlit 1.67's own page-link click dropped them (they are bound on the page being left);
    see ``dashboard.workarounds.page_link_script`` and ``registry.APP_KEYS``."""
    shared = {"alpha": ["0.5"], "c": ["50"]}
    tab.open(PAGES["speedup"], _query(shared))
    tab.follow_link(PAGES["optimal_k"].title, PAGES["optimal_k"])
    check_linked_view(tab, shared)


def test_a_new_seed_keeps_the_linked_distributions(tab):
    """Only the random preset depends on the seed: a new seed keeps a linked or typed table."""
    tab.open(PAGES["sampling"], "p=0.5,0.5&q=0.2,0.8")
    tab.type_number(PARAMS["seed"].label, "7")
    check_linked_view(tab, {"p": ["0.5,0.5"], "q": ["0.2,0.8"], "seed": ["7"]})


def _go(tab, direction: str, spec) -> None:
    """Press the browser's Back or Forward button; wait until page ``spec`` has drawn."""
    getattr(tab.page, f"go_{direction}")()
    tab.page.wait_for_url(lambda url: f"/{spec.path}" in url)
    tab.spec = spec
    tab.settle()


def test_back_button_returns_to_the_view_left(tab):
    """A link is one step in the history: Back shows the view left, Forward the page it led to.

    Streamlit 1.67's own page-link click pushed two entries, the first the page left at its
    defaults."""
    speedup, kl = PAGES["speedup"], PAGES["kl"]
    tab.open(speedup)
    tab.press(PARAMS["k"].label, "ArrowRight", times=2)
    left = tab.params()
    tab.follow_link(kl.title, kl)
    _go(tab, "back", speedup)
    check_linked_view(tab, left)
    _go(tab, "forward", kl)
    check_linked_view(tab, {})


def test_back_button_between_pages_that_share_a_parameter(tab):
    """Both pages bind the seed: Back must not drop the seed of the page it returns to."""
    sampling, kl = PAGES["sampling"], PAGES["kl"]
    tab.open(sampling, "seed=3")
    tab.follow_link(kl.title, kl)
    tab.type_number(PARAMS["seed"].label, "5")
    _go(tab, "back", sampling)
    check_linked_view(tab, {"seed": ["3"]})
    seed_box = tab.page.locator(f'[data-testid="stSidebar"] input[aria-label="{PARAMS["seed"].label}"]')
    assert seed_box.input_value() == "3"


def test_the_distribution_table_follows_the_address(tab):
    """The typed p, q live in the session too; whenever the address changes under the page (a
    sidebar link without a table, Back to one with a table) the view is the address's."""
    sampling, kl = PAGES["sampling"], PAGES["kl"]
    linked = {"p": ["0.5,0.5"], "q": ["0.2,0.8"]}
    tab.open(sampling, _query(linked))
    tab.follow_link(kl.title, kl)
    tab.follow_link(sampling.title, sampling)
    check_linked_view(tab, {})  # the sidebar's link carries no table: the chapter's preset
    _go(tab, "back", kl)
    _go(tab, "back", sampling)
    check_linked_view(tab, linked)
