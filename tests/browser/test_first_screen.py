"""The first screen of a 1024 × 768 projector (issue 30), measured as ``test_screen_sizes.py``
measures it, from the boxes the browser laid out, nothing scrolled:

- on every page that reads them, the shared α, k, c sliders are on it, under the sidebar's list
  of pages (a closed expander: open, its links filled the screen), which once opened stays open
  from page to page;
- the Speedup chart, with and without the published points, starts on it with its whole plot
  area, its legend under the plot (off the curves);
- the optimal-k map's speedup labels, "15×" in its top right corner among them, are drawn whole
  inside the map, where plotly.js would clip them, and none over another;
- on a 1366 × 768 laptop the home page's first cards are the chapter's four views, whole on the
  first screen, the other pages' after them (the sidebar's list of pages is closed: the cards are
  a newcomer's way in).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import specmath
from dashboard.charts.contours import speedup_contours
from dashboard.features import home
from dashboard.features.optimal_k import GRID_ALPHA, GRID_C
from dashboard.params import PARAMS, SHARED_KEYS
from dashboard.registry import PAGES as REGISTRY
from tests.browser.helpers import NAVIGATION, PAGES, AppTab, assert_shows_its_address

FIRST_SCREEN_JS = (Path(__file__).with_name("js") / "first_screen.js").read_text(encoding="utf-8")

SIZE = {"width": 1024, "height": 768}
#: A box may reach this far past another's edge (sub-pixel layout) and still be inside it.
SLACK = 0.5

#: Pages whose sidebar holds the shared α, k, c (the router's widgets), and which of them.
SHARED_PAGES = {
    page_id: [PARAMS[key].label for key in page.app_params if key in SHARED_KEYS]
    for page_id, page in REGISTRY.items()
    if any(key in SHARED_KEYS for key in page.app_params)
}


@pytest.fixture(scope="module")
def tab(browser, app_server):
    context = browser.new_context(viewport=SIZE)
    yield AppTab(context, app_server.url)
    context.close()


def first_screen(tab: AppTab, page_id: str, query: str = "") -> dict:
    """Page ``page_id`` with ``query`` at 1024 × 768, as ``js/first_screen.js`` measured it."""
    tab.open(PAGES[page_id], query)
    assert tab.exceptions() == [] and tab.warnings() == []
    return tab.page.evaluate(FIRST_SCREEN_JS)


def inside(inner: dict, outer: dict) -> bool:
    return (
        inner["left"] >= outer["left"] - SLACK
        and inner["right"] <= outer["right"] + SLACK
        and inner["top"] >= outer["top"] - SLACK
        and inner["bottom"] <= outer["bottom"] + SLACK
    )


def overlap(a: dict, b: dict) -> bool:
    return (
        min(a["right"], b["right"]) - max(a["left"], b["left"]) > SLACK
        and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > SLACK
    )


SCREEN = {"left": 0, "top": 0, "right": SIZE["width"], "bottom": SIZE["height"]}


@pytest.mark.parametrize("page_id", SHARED_PAGES)
def test_alpha_k_c_are_on_the_first_screen(page_id, tab):
    sliders = first_screen(tab, page_id)["sliders"]
    labels = SHARED_PAGES[page_id]
    assert set(labels) <= set(sliders), "a shared slider is missing from the sidebar"
    assert {label: sliders[label] for label in labels if not inside(sliders[label], SCREEN)} == {}


def test_the_list_of_pages_once_opened_stays_open(tab):
    """Opened once, the list costs no click on the next page, nor on Back."""
    tab.open(PAGES["speedup"])
    details = tab.page.locator(f"{NAVIGATION} details")
    assert details.get_attribute("open") is None
    tab.follow_link(PAGES["kl"].title, PAGES["kl"])  # opens the list, then clicks
    assert details.get_attribute("open") is not None
    tab.page.go_back()
    tab.page.wait_for_url(lambda url: f"/{PAGES['speedup'].path}" in url)
    tab.spec = PAGES["speedup"]
    tab.settle()
    assert details.get_attribute("open") is not None


@pytest.mark.parametrize("query", ["", "published=true"], ids=["curves", "published"])
def test_the_speedup_chart_and_its_plot_area_are_on_the_first_screen(query, tab):
    fit = first_screen(tab, "speedup", query)
    assert_shows_its_address(tab)  # the points are drawn, or not, as the server built them
    (chart,) = fit["charts"]
    assert chart["box"]["top"] < SIZE["height"]
    assert inside(chart["plot"], SCREEN), chart["plot"]
    assert chart["legend"]["top"] >= chart["plot"]["bottom"], "the legend is not under the plot"


@pytest.mark.parametrize("max_k", [PARAMS["max_k"].default, 64])
def test_the_optimal_k_maps_labels_are_whole_inside_the_map(max_k, tab):
    best = specmath.optimal_k(GRID_ALPHA, GRID_C[:, None], max_k=max_k)[1]
    labels = speedup_contours(GRID_ALPHA, GRID_C, best)[1]["text"]
    if max_k == PARAMS["max_k"].default:
        assert labels[-1] == "15×"
    fit = first_screen(tab, "optimal_k", "" if max_k == PARAMS["max_k"].default else f"max_k={max_k}")
    (chart,) = fit["charts"]
    drawn = chart["labels"]
    assert [label["text"] for label in drawn] == labels
    assert [label["text"] for label in drawn if not inside(label["box"], chart["plot"])] == []
    assert [
        (a["text"], b["text"]) for i, a in enumerate(drawn) for b in drawn[i + 1 :] if overlap(a["box"], b["box"])
    ] == []


LAPTOP = {"width": 1366, "height": 768}


def test_the_home_pages_first_cards_are_the_chapters_four_views_on_a_laptops_first_screen(browser, app_server):
    context = browser.new_context(viewport=LAPTOP)
    try:
        tab = AppTab(context, app_server.url).open(PAGES["home"])
        links = tab.page.evaluate(FIRST_SCREEN_JS)["links"]
    finally:
        context.close()
    views, others = home.chapter_views(), home.other_pages()
    assert [page.title for page in views] == [
        "Speedup vs draft length",
        "Optimal draft length map",
        "Rejection sampling",
        "Acceptance vs divergence",
    ]
    assert [link["label"] for link in links] == [page.title for page in views + others]
    screen = {"left": 0, "top": 0, "right": LAPTOP["width"], "bottom": LAPTOP["height"]}
    assert [link["label"] for link in links[:4] if not inside(link["card"], screen)] == []
