"""The Verification rules page in Chromium: a bad typed logit is named in a warning, as literal text."""

from __future__ import annotations

from urllib.parse import urlencode

from tests.browser.helpers import PAGES, AppTab, assert_shows_its_address

ALERT_JS = """() => [...document.querySelectorAll('[data-testid="stAlert"]')].map((alert) => ({
  text: alert.innerText,
  code: [...alert.querySelectorAll('code')].map((element) => element.innerText),
  markup: alert.querySelectorAll('strong, em, a, img').length,
}))"""


def test_a_bad_typed_logit_is_warned_about_literally_and_the_binary_pair_drawn(tab: AppTab):
    tab.open(PAGES["verification"], urlencode({"vr_preset": "typed", "lp": "1,**bold**", "lq": "0,1"}))
    (alert,) = tab.page.evaluate(ALERT_JS)
    assert "target logits logit 2" in alert["text"] and "showing the binary preset instead" in alert["text"], alert
    assert alert["code"] == ["**bold**"], alert["code"]  # the stars as typed, not bold text
    assert alert["markup"] == 0
    assert tab.exceptions() == []
    # The charts the server built for the link: the binary pair's (tests/pages checks the fallback).
    assert_shows_its_address(tab)
