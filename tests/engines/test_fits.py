"""engines.fits: a record handed to specmath's fits as its counts, on lines engines really printed."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import engines
import specmath as sm
from tests.specmath.test_record_lengths import accepted_share

FIXTURES = Path(__file__).parents[1] / "fixtures" / "engine_metrics"

# Issue 33's V1 line: 300 drafts of 4 and 500 of 2 at a true alpha of 0.70.
ISSUE_33 = (
    "INFO 11-29 10:15:01 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: 2.43, "
    "Accepted throughput: 11.44 tokens/s, Drafted throughput: 22.00 tokens/s, Accepted: 1144 tokens, "
    "Drafted: 2200 tokens, Per-position acceptance rate: 0.696, 0.512, 0.133, 0.089, "
    "Avg Draft acceptance rate: 52.0%\n"
)


def test_the_issue_33_line_gives_the_true_alpha_and_says_why():
    metrics = engines.parse_engine_metrics(ISSUE_33)
    assert metrics.k == 4 and metrics.drafts is None  # the parser cannot pin the drafts: 799 to 801
    fit = engines.fit_alpha(metrics)
    assert abs(fit.alpha - 0.70) < 0.03
    assert fit.low < 0.70 < fit.high and fit.has_interval
    assert fit.k == 2  # drafts averaged 2200 / 800 = 2.75 tokens: positions 1 and 2 are in every draft
    assumed, note = fit.notes  # what draft_lengths assumed of the drafts, then the fit
    assert assumed.startswith("The record does not count its drafts: assuming 800 = ") and "799 to 801" in assumed
    assert "fewer than k = 4" in note and "positions 1 to 2" in note and "0.629" in note  # the old, low fit
    assert "2,200 draft tokens over the 800 drafts assumed" in note


def test_a_record_of_full_drafts_gives_todays_fit_exactly():
    metrics = engines.parse_engine_metrics((FIXTURES / "vllm_v1_single.txt").read_text())
    assert metrics.draft_tokens == metrics.drafts * metrics.k
    fit = engines.fit_alpha(metrics)
    assert fit[:4] == sm.alpha_interval(metrics.accepted, metrics.drafts, metrics.k)[:4]
    assert fit.notes == () and fit.has_interval


def test_a_mean_alone_gives_the_inverted_mean_and_no_interval():
    metrics = engines.parse_engine_metrics((FIXTURES / "sglang.txt").read_text())
    fit = engines.fit_alpha(replace(metrics, k=4))
    alpha = float(sm.iid_blocks.fit_alpha_from_acceptance_length(metrics.mean_acceptance_length, 4))
    assert (fit.alpha, fit.low, fit.high, fit.has_interval) == (alpha, alpha, alpha, False)


def test_the_issue_33_line_drafted_2_75_tokens_a_step_and_alpha_brackets_its_rate():
    lengths = engines.draft_lengths(engines.parse_engine_metrics(ISSUE_33))
    assert lengths.k == 4 and not lengths.counted and lengths.shorter and lengths.mix is None
    assert lengths.drafts == pytest.approx(800) and lengths.draft_length == pytest.approx(2.75)
    assert lengths.acceptance_length == 2.43
    low, high = sm.predicted_acceptance_rate(0.70, lengths)
    # The true mix (300 of 4, 500 of 2) and the engine's printed 52.0 % lie inside; drafts of k = 4
    # (what the page said before) predict 45.2 %, outside.
    assert low < accepted_share(0.70, {4: 300, 2: 500}) < high
    assert low < 1144 / 2200 < high
    assert not low <= float(sm.draft_acceptance_rate(0.70, 4)) <= high


def test_a_record_is_handed_over_field_by_field():
    metrics = engines.parse_engine_metrics(ISSUE_33)
    counts = engines.record_counts(metrics)
    assert counts == {name: getattr(metrics, name) for name in counts}
    assert engines.fit_alpha(metrics) == sm.fit_alpha(**counts)


@pytest.mark.parametrize(
    ("metrics", "message"),
    [
        ("a paste", "^metrics must be an EngineMetrics, got str"),
        (engines.EngineMetrics("x", "y", None, 10, 30, 12, None, None, None), "^metrics.k is None"),
    ],
)
def test_a_record_the_fits_cannot_take_says_why(metrics, message):
    for fit in (engines.fit_alpha, engines.draft_lengths):
        with pytest.raises(ValueError, match=message):
            fit(metrics)


def _engine_texts(emitted, k):
    """Counters of a run at known alpha, printed the way each engine prints them."""
    drafts = emitted.size
    accepted = int((emitted - 1).sum())
    per_position = [(emitted - 1 >= i).sum() for i in range(1, k + 1)]
    rates = ", ".join(f"{n / drafts:.3f}" for n in per_position)
    v1 = (
        f"INFO 11-29 10:00:00 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: "
        f"{1 + accepted / drafts:.2f}, Accepted throughput: 10.00 tokens/s, Drafted throughput: 20.00 tokens/s, "
        f"Accepted: {accepted} tokens, Drafted: {k * drafts} tokens, Per-position acceptance rate: {rates}, "
        f"Avg Draft acceptance rate: {100 * accepted / (k * drafts):.1f}%\n"
    )
    prometheus = "".join(
        [
            f'vllm:spec_decode_num_drafts_total{{engine="0"}} {drafts}.0\n',
            f'vllm:spec_decode_num_draft_tokens_total{{engine="0"}} {k * drafts}.0\n',
            f'vllm:spec_decode_num_accepted_tokens_total{{engine="0"}} {accepted}.0\n',
        ]
        + [
            f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine="0",position="{i}"}} {n}.0\n'
            for i, n in enumerate(per_position)
        ]
    )
    return {"vLLM V1 log": v1, "vLLM Prometheus": prometheus}


@pytest.mark.parametrize("alpha", [0.45, 0.8])
def test_round_trip_simulate_print_parse_fit(alpha):
    # Simulate at a known alpha, print the counters as an engine would, parse, fit: alpha
    # comes back inside its 95% interval, and the parsed profile is the simulated one.
    k, drafts = 4, 5_000
    emitted = sm.simulate_iid_blocks(alpha, k, drafts, rng=31)
    for name, text in _engine_texts(emitted, k).items():
        record = engines.parse_engine_metrics(text)
        assert record.format == name
        assert (record.k, record.drafts, record.accepted) == (k, drafts, int((emitted - 1).sum()))
        fit = sm.alpha_interval(record.accepted, record.drafts, record.k)
        assert fit.low <= alpha <= fit.high, (name, fit)
        np.testing.assert_allclose(record.per_position, [(emitted - 1 >= i).mean() for i in range(1, k + 1)], atol=5e-4)
