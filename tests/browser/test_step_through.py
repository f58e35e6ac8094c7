"""The Step through page in Chromium: Next and Back (and a clicker's PageDown and PageUp) move the
step and the address, the browser's Back returns to the step before, a link's step past the end
is corrected in the address, and presenter mode collapses the sidebar and enlarges the buttons."""

from __future__ import annotations

from tests.browser.helpers import PAGES, assert_shows_its_address

STEP = PAGES["step_through"]


def _click(tab, name: str) -> None:
    before = tab.signature()
    tab.page.locator(f".st-key-step_{name} button").click()
    tab.settle(changed_from=before)


def _press(tab, key: str) -> None:
    before = tab.signature()
    tab.page.mouse.click(5, tab.page.viewport_size["height"] - 5)  # the page, not a widget, has the focus
    tab.page.keyboard.press(key)
    tab.settle(changed_from=before)


def _toggle_presenter(tab, on: bool) -> None:
    """Click the presenter mode toggle; wait for the address to say so and the run to finish.

    (The charts' data stay the same: only their type grows.)"""
    tab.page.get_by_text("Presenter mode").click()
    tab.page.wait_for_url(lambda url: ("presenter=true" in url) == on)
    tab.settle()


def _sidebar_width(tab) -> float:
    return tab.page.evaluate("() => document.querySelector('[data-testid=stSidebar]').getBoundingClientRect().width")


def test_next_back_and_the_clickers_keys_move_the_step_and_the_address(tab):
    tab.open(STEP)
    _click(tab, "next")
    assert tab.params() == {"step": ["2"]}
    assert_shows_its_address(tab)
    _press(tab, "PageDown")
    _press(tab, "PageDown")
    assert tab.params() == {"step": ["4"]}
    _press(tab, "PageUp")
    _click(tab, "back")
    assert tab.params() == {"step": ["2"]}
    assert_shows_its_address(tab)
    # Each step is one entry in the browser's history.
    tab.page.go_back()
    tab.page.wait_for_url(lambda url: "step=3" in url)
    tab.settle()
    assert_shows_its_address(tab)


def test_a_links_step_past_the_end_is_corrected_in_the_address(tab):
    tab.open(STEP, "step=15&k=3")
    assert tab.params() == {"step": ["9"], "k": ["3"]}
    (warning,) = tab.warnings()
    assert "step = 15 is outside 1 to 9; using step 9 of 9 (k = 3)." in warning
    assert_shows_its_address(tab)


def test_presenter_mode_collapses_the_sidebar_and_enlarges_the_buttons(tab):
    tab.open(STEP, "step=12")
    assert _sidebar_width(tab) > 200
    small = tab.page.locator(".st-key-step_next button").bounding_box()["height"]
    _toggle_presenter(tab, True)
    assert tab.params() == {"step": ["12"], "presenter": ["true"]}
    tab.page.wait_for_function(
        "() => document.querySelector('[data-testid=stSidebar]').getBoundingClientRect().width < 1"
    )
    assert tab.page.locator(".st-key-step_next button").bounding_box()["height"] > 1.5 * small
    assert_shows_its_address(tab)
    # A link in presenter mode opens with the sidebar collapsed; turning it off opens the sidebar.
    tab.open(STEP, "presenter=true&step=3")
    assert _sidebar_width(tab) < 1
    _toggle_presenter(tab, False)
    tab.page.wait_for_function(
        "() => document.querySelector('[data-testid=stSidebar]').getBoundingClientRect().width > 200"
    )


def test_the_verification_and_the_proposal_are_chosen_in_the_sidebar_and_kept_in_the_address(tab):
    tab.open(STEP, "step=17")
    for label, option, query in (
        ("block", "block", "step_verification"),
        ("greedy_draft", "greedy_draft", "step_proposal"),
    ):
        before = tab.signature()
        tab.page.get_by_test_id("stSidebar").get_by_text(label, exact=True).click()
        tab.page.wait_for_url(lambda url, query=query, option=option: f"{query}={option}" in url)
        tab.settle(changed_from=before)
    assert tab.params() == {"step": ["17"], "step_verification": ["block"], "step_proposal": ["greedy_draft"]}
    assert_shows_its_address(tab)
    tab.reload()
    assert_shows_its_address(tab)
