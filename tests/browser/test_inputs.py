"""Input pasted or typed in Chromium reaches the page whole and as written."""

from __future__ import annotations

from tests.browser.helpers import PAGES, AppTab
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
