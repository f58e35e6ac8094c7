"""Input pasted or typed in Chromium reaches the page whole and as written."""

from __future__ import annotations

import json

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from dashboard.features.calibrate_examples import EXAMPLES
from dashboard.params import PARAMS
from dashboard.registry import hardware_tab
from tests.browser.helpers import PAGES, AppTab, assert_shows_its_address
from tests.helpers import long_engine_log


def test_a_paste_of_over_a_million_characters_is_read_from_its_end(tab: AppTab):
    """Pasted with Ctrl+V: with ``max_chars`` Streamlit's box dropped such a paste whole, unsaid."""
    text = long_engine_log()
    tab.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=tab.base_url)
    tab.open(PAGES["calibrate"])
    tab.page.evaluate("(text) => navigator.clipboard.writeText(text)", text)
    box = tab.page.locator('textarea[aria-label="Engine output"]')
    box.click()
    box.press("Control+v")
    tab.page.wait_for_function("(n) => document.querySelector('textarea').value.length === n", arg=len(text))
    before = tab.signature()
    box.press("Control+Enter")
    tab.settle(changed_from=before)
    captions = tab.page.locator('[data-testid="stCaptionContainer"]').all_inner_texts()
    assert any(line.startswith("Read the last ") and "of 1,234,567 characters" in line for line in captions), captions
    shown = tab.page.locator('[data-testid="stMetric"]', has_text="Mean acceptance length").inner_text()
    assert shown.endswith("2.560"), shown  # the latest report's, not the earlier one's 3.00
    assert tab.exceptions() == []


def test_a_pastes_counts_reach_the_address_and_the_k_slider(tab: AppTab):
    """The paste box is in the page's fragment, k's slider the router's: the paste's callback sets
    both from the paste and the whole app redraws, so the slider and the address show its k = 3."""
    example = EXAMPLES["llama.cpp"]  # n_draft = 3, n_drafted = 3000, n_accept = 1850
    tab.open(PAGES["calibrate"], "k=8")
    box = tab.page.locator('textarea[aria-label="Engine output"]')
    box.fill(example)
    before = tab.signature()
    box.press("Control+Enter")
    tab.settle(changed_from=before)
    tab.page.wait_for_url(lambda url: "k=3" in url)
    assert tab.params() == {"k": ["3"], "accepted": ["1850"]}  # 1,000 drafts is the default
    tab.wait_for_slider(PARAMS["k"].label, "3")
    assert tab.exceptions() == []


GRID_HAS_FOCUS = "() => !!document.activeElement?.closest('[data-testid=\"stDataFrame\"]')"

#: The chapter's p with its first and last cells retyped below, as 0,29 and 2e-2.
RETYPED_P = "0.29,0.25,0.15,0.1,0.08,0.05,0.03,0.02,0.01,0.02"


def test_numbers_typed_in_the_table_are_stored_as_written(tab: AppTab):
    """Streamlit's number cells stored a typed 1e-3 as -13 and 0,5 as 5; the text cells keep
    what was typed, and the sampler draws from exactly those numbers."""
    tab.open(PAGES["sampling"])
    before = tab.signature()
    keyboard = tab.page.keyboard
    # The arrow keys only move the grid's selection once it has the focus: a key pressed before
    # lands nowhere, and Enter then opens the token column's read-only editor.
    # A click before the grid is ready is lost, so click again until the focus condition holds.
    for _ in range(10):
        grid = tab.page.locator('[data-testid="stDataFrame"]').bounding_box()
        tab.page.mouse.click(grid["x"] + 20, grid["y"] + 35 + 17)  # token t0: below the 35-pixel header
        try:
            tab.page.wait_for_function(GRID_HAS_FOCUS, timeout=500)
            break
        except PlaywrightTimeout:
            continue
    else:
        raise AssertionError("the p/q table never took the keyboard focus")

    def retype(text: str) -> None:
        keyboard.press("Enter")  # opens the cell's editor; keys typed before it is there are lost
        editor = tab.page.locator("textarea.gdg-input")
        editor.wait_for()
        editor.fill(text)
        keyboard.press("Enter")  # commits and moves one row down

    keyboard.press("ArrowRight")  # p(t0)
    retype("0,29")
    tab.page.locator('[data-testid="stAlertContentError"]', has_text="p sums to 0.99, not 1").wait_for()
    for _ in range(8):
        keyboard.press("ArrowDown")
    retype("2e-2")
    tab.settle(changed_from=before)
    assert tab.params()["p"] == [RETYPED_P]
    assert_shows_its_address(tab)
    assert tab.page.locator('[data-testid="stAlertContentError"]').all_inner_texts() == []


def test_a_link_with_a_repeated_key_or_minus_zero_leaves_a_valid_address(tab: AppTab):
    """Streamlit's binding keeps both: a copied link carried ``seed=1&seed=2`` or ``alpha=-0`` on."""
    tab.open(PAGES["speedup"], "alpha=-0&k=3&k=5")
    assert any("k appears 2 times in the link (3,5); using 8." in text for text in tab.warnings()), tab.warnings()
    assert tab.params() == {"alpha": ["0"]}  # a repeated slider value is dropped: k is the default
    assert tab.slider_values()[PARAMS["alpha"].label] == "0.00"
    assert "α = 0, k = 8" in json.dumps(tab.charts()[0]["layout"], ensure_ascii=False)
    tab.open(PAGES["sampling"], "seed=1&seed=2")
    assert any("seed appears 2 times in the link" in text for text in tab.warnings()), tab.warnings()
    assert tab.params() == {"seed": ["2"]}


HEAD = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
DRAFTER_BOX = f'[data-testid="stSidebar"] input[aria-label="{PARAMS["drafter"].label}"]'


def _codes(tab: AppTab) -> list[str]:
    return tab.page.locator('[data-testid="stCode"]').all_inner_texts()


def test_a_drafter_name_typed_reaches_the_configs_and_the_address(tab: AppTab):
    """The box's binding writes what was typed to the address, and each rerun reads the address
    again: a refused name there gets the page's warning alone, not a bad link's as well."""
    tab.open(PAGES["hardware"], f"{hardware_tab('engines')}&method=eagle3")
    box = tab.page.locator(DRAFTER_BOX)
    box.fill("my head")
    box.press("Enter")
    tab.page.locator('[data-testid="stAlertContentWarning"]', has_text="The draft model name").wait_for()
    tab.settle()
    assert tab.params()["drafter"] == ["my head"]
    assert len(tab.warnings()) == 1, tab.warnings()
    tab.press_for_metrics(PARAMS["alpha"].label, "ArrowLeft")  # a whole rerun, the router reading the address
    (warning,) = tab.warnings()
    assert warning.startswith("The draft model name my head "), warning
    assert any('"model": "YOUR-EAGLE3-HEAD-FOR-Llama-3.1-8B"' in code for code in _codes(tab))
    box.fill(HEAD)
    box.press("Enter")
    tab.page.locator('[data-testid="stCode"]', has_text=HEAD).first.wait_for()
    tab.settle()
    assert tab.warnings() == []
    assert tab.params()["drafter"] == [HEAD]
    assert any(f'"model": "{HEAD}"' in code for code in _codes(tab))
    assert any(f"--speculative-draft-model-path {HEAD}" in code for code in _codes(tab))
    assert tab.exceptions() == []


def test_a_refused_drafter_name_in_a_link_leaves_the_address(tab: AppTab):
    tab.open(PAGES["hardware"], f"{hardware_tab('engines')}&drafter=two%20words")
    (warning,) = tab.warnings()
    assert "drafter = two words is not allowed" in warning, warning
    assert tab.params().get("drafter") in (None, [""])  # a copied link does not carry it on
    assert any("--speculative-draft-model-path meta-llama/Llama-3.2-1B" in code for code in _codes(tab))
