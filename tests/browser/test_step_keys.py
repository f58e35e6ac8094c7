"""The Step through page on a projector and under a clicker (issue 30, items 3 and 9).

In presenter mode at 1024 × 768 every step is one screen: its chart, metrics and explanation are on
it and the page does not scroll, every text of the chart and the explanation at least 18 px; a
click and a clicker's key leave no focus ring framing the page. Step 1's x-axis (tick labels and
title) is on the first screen at 1920 × 1080 and 1280 × 720; the legend is drawn opaque in the
role colours. PageDown, PageUp and the arrow keys
(``dashboard/js/step_keys.js``) move the step with the Step slider, the k slider or nothing
focused, and change no widget; the address keeps the step, so a reload shows it again.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dashboard.charts import ROLE_COLOURS
from dashboard.charts.step_through import MIN_LARGE_FONT
from dashboard.features.step_through import CHECK, OUTCOME, next_step, shown, step_at, total_steps
from dashboard.params import PARAMS
from scripts import live_app
from tests.browser.helpers import PAGES

STEP = PAGES["step_through"]
STEP_FIT_JS = (Path(__file__).with_name("js") / "step_fit.js").read_text(encoding="utf-8")


@pytest.fixture
def sized(tab):
    """The session's tab, resized by ``sized(width, height)``; back to the tests' size after."""

    def resize(width: int, height: int):
        tab.page.set_viewport_size({"width": width, "height": height})
        return tab

    yield resize
    tab.page.set_viewport_size(live_app.VIEWPORT)


def _inside(box, viewport) -> bool:
    left, top, right, bottom = box
    return left >= 0 and top >= 0 and right <= viewport[0] + 0.5 and bottom <= viewport[1] + 0.5


def _rgb(colour: str) -> str:
    return "rgb({}, {}, {})".format(*(int(colour[i : i + 2], 16) for i in (1, 3, 5)))


#: Greedy decoding, and block verification of a greedy draft, beside the default (sampling, token by token).
VARIANTS = {"sampled": "", "greedy": "&greedy=true", "block": "&step_verification=block&step_proposal=greedy_draft"}


#: Every step at the default k = 8: whatever it shows must fit.
STEPS = range(1, total_steps(8) + 1)

#: The last position each variant checks at the default draft: sampled, its third word is
#: rejected and Next skips the later checks; greedy every check passes; block checks them all.
LAST_CHECKED = {"sampled": 2, "greedy": 7, "block": 7}


def _assert_fits_one_screen(tab, step: int, variant: str) -> None:
    """Step ``step``, shown in presenter mode at 1024 × 768, is one screen legible from the back."""
    fit = tab.page.evaluate(STEP_FIT_JS)
    where = (variant, step, fit)
    assert fit["scroll"] <= 0.5, where  # nothing below the screen
    assert fit["chart"] is not None and _inside(fit["chart"], fit["viewport"]), where
    assert fit["explanation"] is not None and _inside(fit["explanation"], fit["viewport"]), where
    assert all(_inside(metric, fit["viewport"]) for metric in fit["metrics"]), where
    assert fit["titleUncovered"], where  # the page's title, in the header bar, is not under Streamlit's header
    assert fit["titles"] and all(title[2] <= fit["chart"][2] for title in fit["titles"]), where  # titles not cut
    # Sampled, the default draft's third word is rejected: the later checks are never made.
    at = step_at(step, 8)
    if at.phase == OUTCOME or (at.phase == CHECK and at.position <= LAST_CHECKED[variant]):
        assert fit["metrics"], ("this step has metrics", *where)
    # Legible from the back of a room: the chart's words and the explanation.
    assert fit["explanationFont"] >= MIN_LARGE_FONT, where
    assert fit["chartFonts"] and [t for t in fit["chartFonts"] if t["size"] < MIN_LARGE_FONT] == [], where
    # The legend is drawn opaque, each line in its role's colour (their contrast: a unit test).
    legend = {line["text"]: (line["color"], line["opacity"]) for line in fit["legend"]}
    assert legend["drawn from the residual"] == (_rgb(ROLE_COLOURS["resampled"]), 1), where
    assert len(legend) == len(ROLE_COLOURS) and {opacity for _, opacity in legend.values()} == {1}, where


@pytest.mark.parametrize("variant", VARIANTS)
def test_presenter_mode_shows_each_step_on_one_projector_screen(sized, variant):
    """Greedy, every check passes: the last steps are the bonus word's. Under block verification
    every position is checked: each check has its numbers. The steps are walked as a presenter
    walks them, with the clicker's PageDown from step 1; the checks Next skips are opened by
    their address."""
    query = "presenter=true" + VARIANTS[variant]
    tab = sized(1024, 768).open(STEP, query + "&step=1")
    step = 1
    while step is not None:
        _assert_fits_one_screen(tab, step, variant)
        step = next_step(step, 8, LAST_CHECKED[variant])
        if step is not None:
            before = tab.signature()
            tab.page.keyboard.press("PageDown")
            tab.page.wait_for_url(lambda url, step=step: f"step={step}" in url)
            tab.settle(changed_from=before)
            assert _shown_step(tab) == step
    for skipped in (s for s in STEPS if not shown(s, 8, LAST_CHECKED[variant])):
        _assert_fits_one_screen(tab.open(STEP, query + f"&step={skipped}"), skipped, variant)


#: The main area's focus ring: Streamlit draws it as an inset box shadow of a ``::before`` of the
#: focusable ``stMain`` while it matches ``:focus-visible``.
MAIN_RING_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  return { focused: main.matches(':focus-visible'), ring: getComputedStyle(main, '::before').boxShadow };
}"""


def test_a_click_and_a_clickers_key_leave_no_frame_around_the_slide(sized):
    """A click on the page gives Streamlit's main area the focus; a key pressed then makes it
    ``:focus-visible``, which drew a grey ring inside the screen's edges."""
    tab = sized(1024, 768).open(STEP, "presenter=true&step=3")
    tab.page.mouse.click(700, 740)
    before = tab.signature()
    tab.page.keyboard.press("PageDown")
    tab.page.wait_for_url(lambda url: "step=4" in url)
    tab.settle(changed_from=before)
    assert tab.page.evaluate(MAIN_RING_JS) == {"focused": True, "ring": "none"}


@pytest.mark.parametrize("presenter", [False, True])
@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_step_1s_x_axis_is_on_the_first_screen(sized, size, presenter):
    tab = sized(*size).open(STEP, "presenter=true" if presenter else "")
    fit = tab.page.evaluate(STEP_FIT_JS)
    assert fit["xticks"] and fit["xtitle"], "the chart has x tick labels and an axis title"
    assert all(_inside(label, fit["viewport"]) for label in fit["xticks"] + fit["xtitle"]), fit


def _shown_step(tab) -> int:
    heading = tab.page.get_by_text(re.compile(r"^Step \d+ of 19 · ")).inner_text()
    return int(heading.split()[1])


def _focus(tab, target: str) -> None:
    if target == "nothing":
        tab.page.evaluate("() => document.activeElement && document.activeElement.blur()")
        assert tab.page.evaluate("() => document.activeElement === document.body")
    else:
        slider = tab.slider(PARAMS[target].label)
        slider.focus()
        assert slider.evaluate("(element) => element === document.activeElement")


@pytest.mark.parametrize("focus", ["step", "k", "nothing"])
def test_the_clickers_keys_move_the_step_wherever_the_focus_is_and_change_no_widget(tab, focus):
    tab.open(STEP, "step=3")
    k_label = PARAMS["k"].label
    assert tab.slider_values()[k_label] == "8"
    step = 3
    for key, move in [("PageDown", 1), ("ArrowRight", 1), ("ArrowDown", 1), ("PageUp", -1), ("ArrowLeft", -1)]:
        _focus(tab, focus)
        before = tab.signature()
        tab.page.keyboard.press(key)
        step += move
        tab.page.wait_for_url(lambda url, step=step: f"step={step}" in url)
        tab.settle(changed_from=before)
        assert tab.params() == {"step": [str(step)]}, key  # no other widget wrote to the address
        assert _shown_step(tab) == step
        sliders = tab.slider_values()
        assert (sliders[k_label], sliders[PARAMS["step"].label]) == ("8", str(step)), key
    _focus(tab, focus)
    before = tab.signature()
    tab.page.keyboard.press("ArrowUp")
    tab.page.wait_for_url(lambda url: "step=3" in url)
    tab.settle(changed_from=before)
    # The step is in the address: a reload shows the same step.
    tab.reload()
    assert tab.params() == {"step": ["3"]} and _shown_step(tab) == 3
