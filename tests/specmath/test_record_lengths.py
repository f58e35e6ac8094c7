"""draft_lengths and predicted_acceptance_rate: what an engine's counts say its drafts really were,
and the share of their tokens an i.i.d. alpha accepts."""

import numpy as np
import pytest

import specmath as sm
from tests.specmath.test_alpha_fit import mixture_counts


def accepted_share(alpha, mix):
    """accepted / drafted of ``mix`` ({length: drafts}) by brute force: every position of every draft."""
    accepted = sum(n * sum(alpha**i for i in range(1, d + 1)) for d, n in mix.items())
    return accepted / sum(d * n for d, n in mix.items())


@pytest.mark.parametrize("alpha", [0.2, 0.7, 0.95])
def test_the_range_holds_every_mix_with_that_mean_and_its_ends_are_mixes(alpha):
    rng = np.random.default_rng(33)
    k = 6
    for _ in range(200):
        mix = dict(zip(range(1, k + 1), rng.integers(0, 50, k).tolist(), strict=True))
        mix = {d: n for d, n in mix.items() if n} or {1: 1}
        counts = mixture_counts(alpha, mix | {k: mix.get(k, 0) + 1}, per_position=False)
        lengths = sm.draft_lengths(**counts | {"k": k})
        if not lengths.shorter:
            continue
        low, high = sm.predicted_acceptance_rate(alpha, lengths)
        rate = accepted_share(alpha, mix | {k: mix.get(k, 0) + 1})
        assert low - 1e-12 <= rate <= high + 1e-12
    # The ends: drafts of 1 and k only, and drafts all of one whole length, reach them.
    for mix, end in (({1: 3, 6: 3}, 0), ({3: 10, 6: 0}, 1)):
        counts = mixture_counts(alpha, {d: n for d, n in mix.items() if n}, per_position=False) | {"k": k}
        assert sm.predicted_acceptance_rate(alpha, sm.draft_lengths(**counts))[end] == pytest.approx(
            accepted_share(alpha, mix)
        )


def test_a_mix_the_engine_reported_gives_its_rate_exactly():
    mix = {2: 500, 3: 200, 4: 300}
    reached = tuple(sum(n for d, n in mix.items() if d >= i) for i in range(1, 5))
    counts = mixture_counts(0.6, mix) | {"position_drafts": reached}
    lengths = sm.draft_lengths(**counts)
    assert dict(lengths.mix) == mix
    assert lengths.draft_length == pytest.approx(sum(d * n for d, n in mix.items()) / 1000)
    assert sm.predicted_acceptance_rate(0.6, lengths) == pytest.approx((accepted_share(0.6, mix),) * 2)
    by_length = tuple((d, n, 0) for d, n in mix.items())
    assert sm.draft_lengths(**counts | {"position_drafts": None, "by_draft_length": by_length}).mix == lengths.mix


def test_a_simulated_engines_share_matches_the_mix_prediction():
    """Drafts drawn one by one (simulate_iid_blocks): the printed accepted / drafted is the prediction, within 4 σ."""
    mix = {4: 3000, 2: 5000}
    counts = mixture_counts(0.7, mix, rng=np.random.default_rng(7))
    reached = tuple(sum(n for d, n in mix.items() if d >= i) for i in range(1, 5))
    lengths = sm.draft_lengths(**counts | {"position_drafts": reached})
    (rate, _) = sm.predicted_acceptance_rate(0.7, lengths)
    drafted = sum(d * n for d, n in mix.items())
    # Each draft's accepted count has variance at most d² / 4: a loose, honest bound.
    sigma = np.sqrt(sum(n * d * d / 4 for d, n in mix.items())) / drafted
    assert abs(counts["accepted"] / drafted - rate) < 4 * sigma


def test_full_drafts_are_k_long_and_predict_the_chapters_share():
    counts = mixture_counts(0.8, {5: 1000})
    lengths = sm.draft_lengths(**counts)
    assert (lengths.draft_length, lengths.shorter, lengths.drafts, lengths.counted) == (5.0, False, 1000.0, True)
    rate = float(sm.draft_acceptance_rate(0.8, 5))
    assert sm.predicted_acceptance_rate(0.8, lengths) == (rate, rate)
    # No draft tokens in the record: nothing says the drafts were shorter, k is assumed.
    assert sm.draft_lengths(**counts | {"draft_tokens": None}).draft_length == 5.0


def test_a_printed_mean_within_its_rounding_of_full_drafts_is_not_shorter():
    # 1,850 accepted, mean 2.85 printed: 1000 drafts, give or take the rounding; 3000 = 3 × 1000.
    lengths = sm.draft_lengths(1850, None, 3, draft_tokens=2998, mean_acceptance_length=2.85)
    assert not lengths.shorter and lengths.draft_length == 3.0


def test_drafts_not_counted_are_the_whole_number_nearest_the_mean_among_those_the_record_fits():
    """1142 / (2.43 − 1) = 798.6 drafts by the mean; where the parser says the printed values fit
    801 to 803 only, the nearest of those, 801, is assumed, and said."""
    counts = {"accepted": 1142, "drafts": None, "k": 4, "draft_tokens": 2200, "mean_acceptance_length": 2.43}
    counts["drafts_allowed"] = (801, 803)
    lengths = sm.draft_lengths(**counts)
    assert lengths.drafts == 801 and not lengths.counted and lengths.draft_length == pytest.approx(2200 / 801)
    assert lengths.notes == (
        "The record does not count its drafts: assuming 801, nearest accepted / (mean acceptance length − 1) "
        "= 1,142 / 1.43 = 798.6 among the 801 to 803 its printed values fit.",
    )
    # Shorter only if every count the record fits is: 3,204 tokens are 4 × 801, so 801 full drafts fit.
    assert not sm.draft_lengths(**counts | {"draft_tokens": 3204}).shorter
    assert sm.draft_lengths(**counts | {"draft_tokens": 3203}).shorter
    # Counted drafts are counts: nothing assumed, nothing said.
    assert not sm.draft_lengths(**counts | {"drafts": 800, "drafts_allowed": None}).notes


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sm.draft_lengths(1, 1, None), "^k must be a whole number within 1 to 1024, got None"),
        (
            lambda: sm.draft_lengths(None, None, 2, mean_acceptance_length=3.5),
            "^the mean acceptance length 3.500 is impossible for k = 2",
        ),
        (
            lambda: sm.draft_lengths(5, None, 2, draft_tokens=9, mean_acceptance_length=2.0, drafts_allowed=(6, 5)),
            r"^drafts_allowed must be None or two whole numbers 1 <= fewest <= most, got \(6, 5\)",
        ),
        (lambda: sm.draft_lengths(5, 3, 2, per_position=[[0.5]]), r"^per_position must be one number per position"),
        (
            lambda: sm.draft_lengths(5, 3, 2, by_draft_length=[(2, 3)]),
            r"^by_draft_length must be \(d, steps, accepted\)",
        ),
        (lambda: sm.predicted_acceptance_rate(0.5, (4, 2.0)), "^lengths must be a DraftLengths, got tuple"),
        (lambda: sm.predicted_acceptance_rate(1.5, sm.draft_lengths(**mixture_counts(0.5, {2: 9}))), "^alpha"),
        (
            lambda: sm.predicted_acceptance_rate([0.5, 0.6], sm.draft_lengths(**mixture_counts(0.5, {2: 9}))),
            r"^alpha must be one number, got an array of shape \(2,\)",
        ),
    ],
)
def test_bad_arguments_name_what_is_wrong(call, message):
    with pytest.raises(ValueError, match=message):
        call()
