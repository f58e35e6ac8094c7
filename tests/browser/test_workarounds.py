"""The page-link workaround (``dashboard.workarounds.page_link_script``) and the bug it works around.

With the workarounds off (``SDE_WORKAROUNDS=off``), Streamlit's own handling of a page-link click
runs; on the pinned version it pushes two history entries for one click, so Back does not return
to the view left. When an upgrade fixes that, the bug test fails and says the workaround can go.
"""

from __future__ import annotations

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
    tab.follow_link(PAGES["kl"].title, PAGES["kl"])
    tab.page.wait_for_timeout(500)  # a second entry, if any, follows the first at once
    return tab.page.evaluate("history.length") - before, left


def test_a_page_link_is_one_history_entry(open_tab, app_server):
    # A new tab: the browser keeps at most 50 history entries, and a tab that has reached them
    # drops the oldest on each new one, so its history.length no longer grows.
    added, _ = _click_a_link_after_a_move(open_tab(app_server))
    assert added == 1


@ON_PINNED_STREAMLIT
def test_bug_streamlits_own_page_link_pushes_two_entries_and_back_loses_the_view(open_tab):
    with live_app.StreamlitServer(env={"SDE_WORKAROUNDS": "off"}) as server:
        tab = open_tab(server)
        added, left = _click_a_link_after_a_move(tab)
        tab.page.go_back()
        tab.page.wait_for_timeout(1500)
        back_at = (tab.path, tab.params())
    assert added == 2, "Streamlit's own page link now adds one history entry: the workaround may go"
    assert back_at != (f"/{PAGES['speedup'].path}", left), "Back now returns to the view left"


@ON_PINNED_STREAMLIT
def test_bug_streamlits_own_page_link_keeps_the_links_values_but_repeats_them(open_tab):
    """The other Streamlit 1.67 bug the workaround was written for: a link's α and c were lost
    when the page left had bound them too. With α and c the entry script's widgets they survive
    Streamlit's own click now, but the address it writes repeats them."""
    shared = {"alpha": ["0.5"], "c": ["50"]}
    with live_app.StreamlitServer(env={"SDE_WORKAROUNDS": "off"}) as server:
        tab = open_tab(server).open(PAGES["speedup"], "alpha=0.5&c=50")
        tab.follow_link(PAGES["optimal_k"].title, PAGES["optimal_k"])
        tab.page.wait_for_timeout(1000)
        shown, params = tab.slider_values(), tab.params()
    assert shown[PARAMS["alpha"].label] == "0.50" and shown[PARAMS["c"].label] == "50"
    assert params == {key: value * 2 for key, value in shared.items()}, "the address no longer repeats them"
