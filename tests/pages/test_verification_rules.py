"""The Verification rules page under AppTest: its tables and charts at the presets and temperatures."""

import numpy as np
import pytest

from tests.app_helpers import open_page, page_charts, trace, values, warnings

PAGE = "verification"


def _table(at, index: int):
    return at.dataframe[index].value


def test_binary_preset_shows_the_papers_10_9_and_11_9_at_k_2():
    at = open_page(PAGE, vr_preset="binary", k="2")
    assert not at.exception
    speed = _table(at, 1).set_index("rule")
    # Tokens per iteration are 1 + accepted: 1 + 10/9 and 1 + 11/9.
    assert speed.loc["rejection sampling", "tokens per iteration"] == pytest.approx(19 / 9)
    assert speed.loc["block verification", "tokens per iteration"] == pytest.approx(20 / 9)
    block = page_charts(at)[3]
    assert values(trace(block, "block verification")["y"])[-1] == pytest.approx(11 / 9)
    assert values(trace(block, "token verification")["y"])[-1] == pytest.approx(10 / 9)


def test_at_temperature_zero_greedy_draft_accepts_as_rejection_sampling():
    """A one-hot draft: its argmax is what it samples, so both rules keep it with p(argmax q)."""
    at = open_page(PAGE, vr_preset="overconfident", vr_temperature="0")
    assert not at.exception and not warnings(at)
    bars = trace(page_charts(at)[0], "α")
    alpha = dict(zip(bars["x"], values(bars["y"]), strict=True))
    assert alpha["greedy draft"] == alpha["rejection sampling"]


def test_lossless_rules_sit_on_p_and_typical_acceptance_does_not():
    at = open_page(PAGE, vr_preset="close", vr_temperature="1")
    laws = _table(at, 0).set_index("rule")
    for rule in ("rejection sampling", "greedy draft", "exact match", "SGLang thresholds (1, 1)"):
        assert laws.loc[rule, "TV(law, p)"] < 1e-12, rule
    assert laws.loc["typical (Medusa defaults ε 0.09, δ 0.3)", "TV(law, p)"] > 0.1


def test_block_verification_stops_at_the_enumeration_cap():
    at = open_page(PAGE, vr_preset="close", k="12")
    assert not at.exception
    # V = 5: 5**8 = 390,625 blocks fit under 10**6, 5**9 do not.
    assert any("stops at k = 8" in info.value for info in at.info)
    block = page_charts(at)[3]
    np.testing.assert_array_equal(values(trace(block, "block verification")["x"]), np.arange(1, 9))


def test_bad_typed_logits_warn_with_the_literal_text_and_fall_back():
    at = open_page(PAGE, vr_preset="typed", lp="1,**bold**", lq="0,1")
    assert not at.exception
    messages = warnings(at)
    # In a code span, so the Markdown shows the stars instead of bold text.
    assert any("` **bold** ` is not a number" in w and "binary preset instead" in w for w in messages), messages
    assert at.dataframe  # the page still runs, on the binary pair


def test_typed_logits_are_used():
    at = open_page(PAGE, vr_preset="typed", lp="0,0,0", lq="5,0,0")
    assert not at.exception and not warnings(at)
    bars = trace(page_charts(at)[0], "α")
    alpha = dict(zip(bars["x"], values(bars["y"]), strict=True))
    assert alpha["greedy draft"] == pytest.approx(1 / 3)
