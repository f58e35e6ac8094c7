"""Hand-edited links with impossible values: every page warns about each bad parameter by name
and still draws its charts with the values it uses instead.

The links come from the parameter table (``tests/links.py``). Each parameter's refusal of every
kind of bad value is a unit test (``tests/dashboard/test_units.py``) and each page's reading of a
bad link an AppTest (``tests/pages/test_every_page.py``); here the links go through the browser's
address bar: each page once, the kinds taking turns (a value out of range, a word where a number
belongs, an empty value, an enormous one), so that each kind reaches two or three pages.
"""

from __future__ import annotations

import dataclasses
import re
from urllib.parse import urlencode

import pytest

from dashboard.address import WORD_JOINER, literal
from tests.browser.helpers import ENGINE_BLOCKS, PAGES, AppTab
from tests.dashboard.test_address import read_back
from tests.links import CATEGORIES, HOSTILE, bad_link, hostile_link

#: Each page with parameters and the kind of bad value its link carries, the kinds taking turns.
KINDS = {
    page_id: CATEGORIES[turn % len(CATEGORIES)]
    for turn, page_id in enumerate(page_id for page_id, spec in PAGES.items() if spec.params)
}
CASES = [
    pytest.param(page_id, category, *bad_link(PAGES[page_id].params, category), id=f"{page_id}-{category}")
    for page_id, category in KINDS.items()
]

#: Hand-encoded parameters: the rejection-sampling page's p and q.
PQ_CASES = {
    "out_of_range": "p=-0.5,1.5&q=0.5,0.5",
    "non_numeric": "p=x,y&q=0.5,0.5",
    "empty": "p=&q=",
    "enormous": "p={0}&q={0}".format(",".join(["0.0005"] * 2000)),
}


def named(warnings: list[str], key: str) -> bool:
    """Whether a warning is about ``key``: its text starts with it (``k=2.5 is not…``)."""
    return any(re.match(rf"\W*{re.escape(key)}\b", text) for text in warnings)


def assert_page_works(tab: AppTab) -> None:
    assert tab.exceptions() == []
    charts = tab.charts()
    if tab.spec.charts is not None:
        assert len(charts) == tab.spec.charts
    for chart in charts:
        assert chart["data"], "a chart without traces"


@pytest.mark.parametrize(("page_id", "category", "link", "keys"), CASES)
def test_bad_values_warn_by_name_and_the_page_still_works(page_id, category, link, keys, tab):
    link = dict(link)
    if category == "out_of_range":
        link["bogus_param"] = ["1"]  # a parameter the page does not have is named too
    tab.open(PAGES[page_id], urlencode(link, doseq=True))
    warnings = tab.warnings()
    for key in keys:
        assert named(warnings, key), f"no warning about {key}: {warnings}"
    if "bogus_param" in link:
        assert any("bogus_param" in text for text in warnings), warnings
    assert_page_works(tab)


@pytest.mark.parametrize("category", list(PQ_CASES))
def test_bad_p_and_q_in_the_link_warn_and_fall_back_to_the_preset(category, tab):
    tab.open(PAGES["sampling"], PQ_CASES[category])
    warnings = tab.warnings()
    assert any(re.search(r"(?<!\w)[pq](?!\w)", text) for text in warnings), warnings
    assert_page_works(tab)


def test_home_names_parameters_it_does_not_have(tab):
    tab.open(PAGES["home"], "alpha=0.5&foo=1")
    (warning,) = tab.warnings()
    assert "alpha" in warning and "foo" in warning


def test_comma_separated_comparison_set_is_not_silently_dropped(tab):
    """The multiselect's link form repeats the key; a comma list is not it and must be named."""
    tab.open(PAGES["speedup"], "compare=0.3,0.95")
    assert named(tab.warnings(), "compare"), tab.warnings()
    assert_page_works(tab)


#: What a crafted link could try to put on the page through a message: links, images, headings,
#: HTML (``tests.links.HOSTILE``, as in the AppTest check).
PLANTED_JS = """(engines) => {
  const alerts = [...document.querySelectorAll('[data-testid="stAlert"]')];
  // The engines' rules and notes cite their own flags and files in code spans.
  const about = alerts.filter((alert) => !alert.closest(engines));
  return {
    alerts: alerts.length,
    planted: alerts.flatMap((alert) => [...alert.querySelectorAll('a, img, h1, h2, h3, h4, h5, h6, iframe')])
      .map((element) => element.outerHTML.slice(0, 200)),
    code: about.flatMap((alert) => [...alert.querySelectorAll('code')]).map((element) => element.innerText),
    longest: Math.max(0, ...alerts.map((alert) => alert.innerText.length)),
  };
}"""


@pytest.mark.parametrize("page_id", list(PAGES))
def test_a_crafted_link_puts_nothing_on_the_page_and_fetches_nothing(page_id, tab):
    spec = PAGES[page_id]
    keys = spec.params + spec.url_params
    tab.open(spec, urlencode(hostile_link(keys)))
    seen = tab.page.evaluate(PLANTED_JS, ENGINE_BLOCKS)
    assert seen["alerts"] > 0, "the crafted link passed without a warning"
    assert seen["planted"] == [], seen["planted"]
    # Code spans hold the page's own parameter names and the link's text, exactly as it came.
    shown = (
        set(keys) | {read_back(literal(text)) for text in HOSTILE} | {read_back(literal(text[:40])) for text in HOSTILE}
    )
    assert {text.replace(WORD_JOINER, "") for text in seen["code"]} <= shown, seen["code"]

    assert seen["longest"] < 800
    assert tab.foreign_requests() == []
    assert tab.exceptions() == []


@pytest.mark.parametrize(
    ("path", "words"), [("Nope", ["There is no page", "Nope"]), ("speedup", ["Did you mean Speedup?"])]
)
def test_an_unknown_page_says_it_does_not_exist(path, words, tab):
    # st.navigation shows the home page for a path it does not know; the page says why.
    tab.open(dataclasses.replace(PAGES["home"], path=path))
    warnings = tab.warnings()
    assert any(all(word in text for word in words) for text in warnings), warnings
    assert tab.exceptions() == []
