"""The page-link workaround (``dashboard.workarounds.page_link_script``) and the bug it works around.

With the workarounds off (``SDE_WORKAROUNDS=off``), Streamlit's own handling of a page-link click
runs; on the pinned version it pushes two history entries for one click, so Back does not return
to the view left. When an upgrade fixes that, the bug test fails and says the workaround can go.
"""

from __future__ import annotations

import pytest

from dashboard.params import PARAMS
from scripts import live_app
from tests.browser.helpers import PAGES
from tests.helpers import ON_PINNED_STREAMLIT


def _click_a_link_after_a_move(tab) -> tuple[int, dict]:
    """Open Speedup, move k, follow the link to α vs KL; the history entries the click added
    and the view left."""
    tab.open(PAGES["speedup"])
    tab.press(PARAMS["k"].label, "ArrowRight", times=2)
    left = tab.params()
    before = tab.page.evaluate("history.length")
    tab.follow_link(PAGES["kl"].title, PAGES["kl"])  # waits until the new page's run has finished
    return tab.page.evaluate("history.length") - before, left


def test_a_page_link_is_one_history_entry(open_tab, app_server):
    # A new tab: the browser keeps at most 50 history entries, and a tab that has reached them
    # drops the oldest on each new one, so its history.length no longer grows.
    added, _ = _click_a_link_after_a_move(open_tab(app_server))
    assert added == 1


@pytest.fixture(scope="module")
def workarounds_off(playwright_instance):
    """One server running Streamlit's own handling, for every test of the bugs worked around."""
    with live_app.StreamlitServer(env={"SDE_WORKAROUNDS": "off"}) as server:
        yield server


@ON_PINNED_STREAMLIT
def test_bug_streamlits_own_page_link_pushes_two_entries_and_back_loses_the_view(open_tab, workarounds_off):
    tab = open_tab(workarounds_off)
    added, left = _click_a_link_after_a_move(tab)
    at = tab.url
    tab.page.go_back()
    tab.page.wait_for_url(lambda url: url != at)
    live_app.wait_settled(tab.page, None)  # the run Back started has finished
    back_at = (tab.path, tab.params())
    assert added == 2, "Streamlit's own page link now adds one history entry: the workaround may go"
    assert back_at != (f"/{PAGES['speedup'].path}", left), "Back now returns to the view left"


@ON_PINNED_STREAMLIT
def test_bug_streamlits_own_page_link_keeps_the_links_values_but_repeats_them(open_tab, workarounds_off):
    """The other Streamlit 1.67 bug the workaround was written for: a link's α and c were lost
    when the page left had bound them too. With α and c the entry script's widgets they survive
    Streamlit's own click now, but the address it writes repeats them."""
    shared = {"alpha": ["0.5"], "c": ["50"]}
    tab = open_tab(workarounds_off).open(PAGES["speedup"], "alpha=0.5&c=50")
    tab.follow_link(PAGES["optimal_k"].title, PAGES["optimal_k"])  # waits until the new page's run has finished
    shown, params = tab.slider_values(), tab.params()
    assert shown[PARAMS["alpha"].label] == "0.50" and shown[PARAMS["c"].label] == "50"
    assert params == {key: value * 2 for key, value in shared.items()}, "the address no longer repeats them"
