"""fit_alpha: the i.i.d. alpha of an engine's counts, from drafts of k tokens or of a mix of lengths."""

import numpy as np
import pytest

import specmath as sm


def mixture_counts(alpha, mix, *, per_position=True, rng=None) -> dict:
    """The counts an engine would print for drafts of several lengths, as fit_alpha's keyword
    arguments: ``mix`` is {length: drafts}.

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
    return {
        "accepted": int(counts.sum()),
        "drafts": drafts,
        "k": k,
        "draft_tokens": sum(length * n for length, n in mix.items()),
        "mean_acceptance_length": 1 + counts.sum() / drafts,
        "per_position": tuple(counts / drafts) if per_position else None,
    }


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
    fit = sm.fit_alpha(**mixture_counts(alpha, mix))
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
    fit = sm.fit_alpha(**mixture_counts(alpha, mix, rng=np.random.default_rng(seed)), confidence=0.999)
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
    fit = sm.fit_alpha(**mixture_counts(alpha, mix, per_position=False) | {"k": k})
    assert fit.low - 2e-3 <= alpha <= fit.high + 2e-3, (mix, alpha, fit)
    assert "whatever the mix" in fit.notes[0]


def test_an_acceptance_rate_alone_says_it_assumed_full_drafts():
    fit = sm.fit_alpha(None, None, 3, accept_rate=0.5)
    assert fit.alpha == pytest.approx(float(sm.iid_blocks.fit_alpha_from_acceptance_length(2.5, 3)))
    assert "assuming every draft had k = 3" in fit.notes[0]


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ({"accepted": 12, "drafts": 10, "k": 0}, "^k must be a whole number within 1 to 1024, got 0"),
        ({"accepted": None, "drafts": None, "k": 3}, "^no acceptance counts, mean acceptance length, per-position"),
        ({"accepted": 12.5, "drafts": 10, "k": 3}, "^accepted must be an integer, got 12.5"),
        ({"accepted": 12, "drafts": -1, "k": 3}, "^drafts must be >= 0, got -1"),
        (
            {"accepted": None, "drafts": None, "k": 3, "mean_acceptance_length": 5.0},
            r"^the mean acceptance length 5\.000",
        ),
    ],
)
def test_bad_counts_name_what_is_wrong(counts, message):
    with pytest.raises(ValueError, match=message):
        sm.fit_alpha(**counts)


def test_confidence_is_validated():
    with pytest.raises(ValueError, match=r"^confidence must be within \(0, 1\), got 1"):
        sm.fit_alpha(12, 10, 3, confidence=1)


def test_rates_that_are_not_numbers_leave_the_mix_unknown():
    # A V1 interval can print "nan" rates; they say nothing of where drafts ended.
    counts = mixture_counts(0.7, {4: 300, 2: 500}) | {"per_position": (float("nan"),) * 4}
    fit = sm.fit_alpha(**counts)
    assert "whatever the mix" in fit.notes[0] and fit.low <= 0.7 + 2e-3 and 0.7 - 2e-3 <= fit.high
