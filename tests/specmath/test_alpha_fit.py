"""fit_alpha: the i.i.d. alpha of one engine record, from drafts of k tokens or of a mix of lengths."""

import doctest
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import engines
import specmath
import specmath as sm
import specmath.alpha_fit

FIXTURES = Path(__file__).parent.parent / "fixtures" / "engine_metrics"

# Issue 33's V1 line: 300 drafts of 4 and 500 of 2 at a true alpha of 0.70.
ISSUE_33 = (
    "INFO 11-29 10:15:01 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: 2.43, "
    "Accepted throughput: 11.44 tokens/s, Drafted throughput: 22.00 tokens/s, Accepted: 1144 tokens, "
    "Drafted: 2200 tokens, Per-position acceptance rate: 0.696, 0.512, 0.133, 0.089, "
    "Avg Draft acceptance rate: 52.0%\n"
)


def mixture_record(alpha, mix, *, per_position=True, rng=None):
    """The record an engine would print for drafts of several lengths: ``mix`` is {length: drafts}.

    Expected counts (exact, as floats rounded to whole counts) without ``rng``; with one, each
    draft's accepted prefix is drawn, min(geometric, length), by :func:`simulate_iid_blocks`.
    """
    k = max(mix)
    drafts = sum(mix.values())
    reached = np.zeros(k)  # drafts with at least i + 1 accepted
    for length, n in mix.items():
        if rng is None:
            reached[:length] += n * alpha ** np.arange(1, length + 1)
        else:
            prefix = sm.simulate_iid_blocks(alpha, length, n, rng=rng) - 1
            reached[:length] += (prefix[:, None] >= np.arange(1, length + 1)).sum(axis=0)
    counts = np.rint(reached).astype(int)
    return engines.EngineMetrics(
        "vLLM",
        "vLLM Prometheus",
        k,
        drafts,
        sum(length * n for length, n in mix.items()),
        int(counts.sum()),
        int(counts.sum()) + drafts,
        1 + counts.sum() / drafts,
        tuple(counts / drafts) if per_position else None,
    )


def test_the_issue_33_line_gives_the_true_alpha_and_says_why():
    metrics = engines.parse_engine_metrics(ISSUE_33)
    assert metrics.k == 4 and metrics.drafts is None  # the parser cannot pin the drafts: 799 to 801
    fit = sm.fit_alpha(metrics)
    assert abs(fit.alpha - 0.70) < 0.03
    assert fit.low < 0.70 < fit.high and fit.has_interval
    assert fit.k == 2  # drafts averaged 2200 / 800 = 2.75 tokens: positions 1 and 2 are in every draft
    assumed, note = fit.notes  # what draft_lengths assumed of the drafts, then the fit
    assert assumed.startswith("The record does not count its drafts: assuming 800 = ") and "799 to 801" in assumed
    assert "fewer than k = 4" in note and "positions 1 to 2" in note and "0.629" in note  # the old, low fit
    assert "2,200 draft tokens over the 800 drafts assumed" in note


@pytest.mark.parametrize(
    ("mix", "covered"),
    [
        ({4: 300, 2: 500}, 2),  # issue 33's schedule
        ({8: 1000, 3: 4000}, 3),
        ({5: 2000, 4: 2000, 2: 1000}, 2),
        ({4: 5000, 1: 5000}, 1),  # half the drafts one token long: position 2 is diluted, and seen to be
        ({6: 9000, 1: 1000}, 1),  # a tenth one token long: the bound allows 5, the rates say 1
        # 1.6% of drafts one token long dilute position 2 too little to be seen at a low alpha:
        # kept, and the fit is off by that little
        ({3: 3000, 2: 3000, 1: 100}, None),
    ],
)
@pytest.mark.parametrize("alpha", [0.35, 0.7, 0.9])
def test_known_mixtures_give_their_alpha_from_the_positions_every_draft_reached(mix, covered, alpha):
    fit = sm.fit_alpha(mixture_record(alpha, mix))
    if covered is not None:
        assert fit.k == covered
        assert fit.alpha == pytest.approx(alpha, abs=2e-3)  # expected counts, rounded to whole tokens
    else:
        assert fit.k in (1, 2) and fit.alpha == pytest.approx(alpha, abs=5e-3)
    assert fit.low <= alpha <= fit.high
    (note,) = fit.notes
    assert f"fewer than k = {max(mix)}" in note and "which every draft reached" in note


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("mix", [{4: 300, 2: 500}, {6: 2000, 3: 1000, 2: 1000}])
def test_simulated_mixtures_are_covered_by_the_interval(mix, seed):
    # Drawn counts, not expected ones: the 99.9% interval holds the truth (each seed fails with
    # probability 10^-3 if the fit is right; the cut test may keep a diluted position with about
    # that chance too).
    alpha = 0.7
    fit = sm.fit_alpha(mixture_record(alpha, mix, rng=np.random.default_rng(seed)), confidence=0.999)
    assert fit.low <= alpha <= fit.high, fit
    assert fit.k == min(mix)


@pytest.mark.parametrize("seed", range(6))
def test_without_rates_the_range_holds_alpha_whatever_the_mix(seed):
    # Jensen: any mix of lengths with the same mean gives counts inside the bracket.
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 9))
    lengths = rng.choice(np.arange(1, k + 1), size=3, replace=False)
    mix = {int(length): int(n) for length, n in zip(lengths, rng.integers(100, 1000, 3), strict=True)}
    mix.setdefault(k, 10)
    alpha = float(rng.uniform(0.2, 0.95))
    fit = sm.fit_alpha(replace(mixture_record(alpha, mix, per_position=False), k=k))
    assert fit.low - 2e-3 <= alpha <= fit.high + 2e-3, (mix, alpha, fit)
    assert "whatever the mix" in fit.notes[0]


def test_a_record_of_full_drafts_gives_todays_fit_exactly():
    metrics = engines.parse_engine_metrics((FIXTURES / "vllm_v1_single.txt").read_text())
    assert metrics.draft_tokens == metrics.drafts * metrics.k
    fit = sm.fit_alpha(metrics)
    assert fit[:4] == sm.alpha_interval(metrics.accepted, metrics.drafts, metrics.k)[:4]
    assert fit.notes == () and fit.has_interval


def test_a_mean_alone_gives_the_inverted_mean_and_no_interval():
    metrics = engines.parse_engine_metrics((FIXTURES / "sglang.txt").read_text())
    fit = sm.fit_alpha(replace(metrics, k=4))
    alpha = float(sm.fit_alpha_from_acceptance_length(metrics.mean_acceptance_length, 4))
    assert (fit.alpha, fit.low, fit.high, fit.has_interval) == (alpha, alpha, alpha, False)


def test_an_acceptance_rate_alone_says_it_assumed_full_drafts():
    bare = engines.EngineMetrics("SGLang", "SGLang log", 3, None, None, None, None, None, None, (), 0.5)
    fit = sm.fit_alpha(bare)
    assert fit.alpha == pytest.approx(float(sm.fit_alpha_from_acceptance_length(2.5, 3)))
    assert "assuming every draft had k = 3" in fit.notes[0]


@pytest.mark.parametrize(
    ("metrics", "message"),
    [
        ("a paste", "^metrics must be an EngineMetrics, got str"),
        (engines.EngineMetrics("x", "y", None, 10, 30, 12, None, None, None), "^metrics.k is None"),
        (engines.EngineMetrics("x", "y", 0, 10, 30, 12, None, None, None), "^metrics.k must be a whole number"),
        (engines.EngineMetrics("x", "y", 3, None, None, None, None, None, None), "^metrics has no acceptance counts"),
        (engines.EngineMetrics("x", "y", 3, None, None, None, None, 5.0, None), "^the mean acceptance length 5.000"),
    ],
)
def test_bad_records_name_what_is_wrong(metrics, message):
    with pytest.raises(ValueError, match=message):
        sm.fit_alpha(metrics)


def test_confidence_is_validated():
    metrics = engines.EngineMetrics("x", "y", 3, 10, 30, 12, None, None, None)
    with pytest.raises(ValueError, match=r"^confidence must be within \(0, 1\), got 1"):
        sm.fit_alpha(metrics, confidence=1)


def test_rates_that_are_not_numbers_leave_the_mix_unknown():
    # A V1 interval can print "nan" rates; they say nothing of where drafts ended.
    record = replace(mixture_record(0.7, {4: 300, 2: 500}), per_position=(float("nan"),) * 4)
    fit = sm.fit_alpha(record)
    assert "whatever the mix" in fit.notes[0] and fit.low <= 0.7 + 2e-3 and 0.7 - 2e-3 <= fit.high


def test_the_docstring_example_holds():
    result = doctest.testmod(specmath.alpha_fit)
    assert result.attempted >= 1 and result.failed == 0
