"""The Exercises page's links in Chromium: each is the registry's address of its page with the
exercise's settings, and a click on it, after α, k and c were moved elsewhere, opens exactly that
view (the settings, the page's defaults for the rest) without a warning; Back returns.

The click goes through ``dashboard/js/page_links.js`` (``workarounds.page_link_script``), which
makes it a history step, where the address decides every bound widget. With the workarounds off,
Streamlit 1.67's own click keeps a moved α, k or c where the link asks for its default (the
binding drops a default value from the address and leaves the widget as it was).
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest

from dashboard.features.exercises import EXERCISES
from dashboard.params import PARAMS
from tests.browser.helpers import PAGES, assert_drawn_as_served, served_charts
from tests.links import url_text, widget_type

MAIN_LINKS = '[data-testid="stMain"] a[data-testid="stPageLink-NavLink"]'

#: Where the visitor comes from: α, k and c all moved away from the values the links set.
MOVED = "alpha=0.55&k=3&c=50"


def _to_exercises(tab) -> None:
    tab.open(PAGES["speedup"], MOVED)
    tab.follow_link(PAGES["exercises"].title, PAGES["exercises"])


def test_the_links_are_the_registrys_addresses(tab):
    _to_exercises(tab)
    hrefs = tab.page.eval_on_selector_all(MAIN_LINKS, "(links) => links.map((a) => a.getAttribute('href'))")
    assert hrefs == [f"{e.info.url_path}?{urlencode(e.query())}" for e in EXERCISES]


@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.id for e in EXERCISES])
def test_a_click_opens_the_exercises_view(exercise, tab):
    _to_exercises(tab)
    spec = PAGES[exercise.page]
    before = tab.signature()
    tab.page.locator(f'{MAIN_LINKS}[href="{exercise.info.url_path}?{urlencode(exercise.query())}"]').click()
    tab.page.wait_for_url(re.compile(rf"^{re.escape(tab.base_url)}/{re.escape(spec.path)}(\?.*)?$"))
    tab.spec = spec
    tab.settle(changed_from=before)

    assert tab.exceptions() == [] and tab.warnings() == []
    # The address holds the settings that are not the page's defaults (the binding drops the rest).
    shown = {
        key: [text] for key, text in exercise.query().items() if text != url_text(PARAMS[key], PARAMS[key].default)
    }
    assert tab.params() == shown
    # Every slider shows the exercise's value, or the page's default: none kept the moved α, k, c.
    sliders = tab.slider_values()
    for key in spec.params:
        param = PARAMS[key]
        if widget_type(param) in ("slider", "select_slider") and param.label in sliders:
            want = exercise.values()[key]
            if widget_type(param) == "slider":
                assert float(sliders[param.label]) == pytest.approx(float(want)), key
            else:
                assert sliders[param.label] == param.fmt(want), key
    assert_drawn_as_served(tab.charts(), served_charts(spec.id, shown))

    tab.page.go_back()
    tab.page.wait_for_url(re.compile(rf"^{re.escape(tab.base_url)}/{PAGES['exercises'].path}$"))
    tab.spec = PAGES["exercises"]
    tab.settle()
    assert tab.page.locator(MAIN_LINKS).count() == len(EXERCISES)
