"""Calibrate's paragraph on the verification rule as a cause of low acceptance: its numbers are
specmath's on the Verification rules page's close pair, and the engine fact it cites is one that
page's table cites with its source."""

import numpy as np

from dashboard.features import calibrate
from dashboard.features.verification_rules import ENGINE_RULES, LOGIT_PRESETS


def _softmax(logits, temperature):
    weights = np.exp(np.asarray(logits) / temperature)
    return weights / weights.sum()


def test_a_greedy_draft_keeps_p_of_the_drafts_argmax_not_the_overlap():
    text, query = calibrate.rule_cause()
    target, draft = LOGIT_PRESETS[calibrate.RULE_PRESET]
    p, q = _softmax(target, 1.0), _softmax(draft, 1.0)
    overlap, greedy = np.minimum(p, q).sum(), p[np.argmax(q)]
    assert overlap > 0.9 and greedy < 0.5, "a close pair, and a greedy draft loses half its acceptance"
    assert f"Σ min(p, q) = {overlap:.3f} but p(argmax q) = {greedy:.3f}" in text
    # At temperature 0 both models are point masses on the same token: both rules keep it.
    assert np.argmax(target) == np.argmax(draft) and "at temperature 0 both are 1." in text
    assert query == {"vr_preset": "close", "vr_temperature": "1"}


def test_the_engine_fact_is_one_the_verification_rules_table_sources():
    text, _ = calibrate.rule_cause()
    assert f"`{calibrate.SGLANG_KERNEL}`" in text
    sglang = [row for row in ENGINE_RULES if row["engine"].startswith("SGLang")]
    assert any(calibrate.SGLANG_KERNEL in row["source"] for row in sglang)
    assert any("greedy draft" in row["default"] or "argmax q" in row["default"] for row in sglang)
