"""The acceptance-length curve of a sweep's runs, its profile and the measured schedule, from plain arrays."""

import numpy as np
import pytest

import specmath as sm


@pytest.mark.parametrize("seed", range(4))
def test_the_curves_interval_holds_the_true_length(seed):
    # Runs drawn from i.i.d. acceptance: b requests of t tokens, N per step from simulate_iid_blocks.
    rng = np.random.default_rng(seed)
    alpha, runs = 0.6, []
    for b in (1, 4):
        for k in (1, 2, 4):
            emitted = sm.simulate_iid_blocks(alpha, k, 300 * b, rng=rng)
            tokens = emitted.sum() / b  # each request's mean output, so that b t / L = the steps drawn
            runs.append((k, emitted.mean(), b, tokens))
    k, length, batch, tokens = zip(*runs, strict=True)
    curve = sm.acceptance_curve(k, length, batch=batch, output_tokens=tokens, confidence=0.999)
    truth = sm.expected_tokens(alpha, curve.k)
    assert ((curve.low <= truth) & (truth <= curve.high)).all(), (curve, truth)


def test_runs_without_output_tokens_give_a_plain_average_and_no_interval():
    curve = sm.acceptance_curve([2, 2], [2.0, 2.2], batch=[1, 8])
    assert curve.mean_length[0] == pytest.approx(2.1) and np.isnan(curve.low[0]) and curve.steps[0] == 0
    curve = sm.acceptance_curve([2, 2], [2.0, 2.2], batch=[1, 8], output_tokens=[float("nan"), 100.0])
    assert curve.mean_length[0] == pytest.approx(2.1) and np.isnan(curve.low[0]) and curve.steps[0] == 0


def test_the_profile_of_iid_lengths_is_alpha_to_the_i():
    k = np.arange(1, 7)
    profile, adjusted = sm.sweep.profile_from_curve(k, sm.expected_tokens(0.7, k))
    np.testing.assert_allclose(profile, 0.7**k, rtol=1e-12)
    assert not adjusted


def test_the_profile_spreads_a_gap_and_pools_what_rises():
    # L(1) = 1.8, L(3) = 2.8: positions 2 and 3 share the rise of 1.0 evenly.
    profile, adjusted = sm.sweep.profile_from_curve([1, 3], [1.8, 2.8])
    np.testing.assert_allclose(profile, [0.8, 0.5, 0.5])
    assert not adjusted
    # Rises 0.5, 0.7, 0.2 cannot be a profile: the first two pool to their mean 0.6.
    profile, adjusted = sm.sweep.profile_from_curve([1, 2, 3], [1.5, 2.2, 2.4])
    np.testing.assert_allclose(profile, [0.6, 0.6, 0.2])
    assert adjusted
    # A length that falls gives a rise below 0, clipped to 0.
    profile, _ = sm.sweep.profile_from_curve([1, 2], [1.5, 1.4])
    np.testing.assert_allclose(profile, [0.5, 0.0])
    assert sm.expected_tokens(sm.acceptance(per_position=profile), 2) == pytest.approx(1.5)


@pytest.mark.parametrize(
    ("k", "lengths", "message"),
    [
        ([2, 1], [1.5, 1.8], r"^k must be strictly increasing"),
        ([0, 1], [1.0, 1.8], r"^k must be >= 1"),
        ([1, 2], [1.5], r"^k and mean_length must be 1-D and of one length"),
        ([1, 2], [1.5, float("nan")], r"^mean_length must be finite and >= 1"),
        ([1, 2], [0.5, 1.8], r"^mean_length must be finite and >= 1, got 0.5"),
    ],
)
def test_profile_from_curve_validates(k, lengths, message):
    with pytest.raises(ValueError, match=message):
        sm.sweep.profile_from_curve(k, lengths)


def test_only_chain_runs_with_a_draft_make_the_curve():
    # A baseline (k = 0) and a tree (topk 4) are left out; the two chains of k = 2 pool.
    curve = sm.acceptance_curve([0, 2, 2, 3], [1.0, 2.0, 2.2, 2.9], topk=[0, 1, 1, 4])
    np.testing.assert_array_equal(curve.k, [2])
    assert curve.mean_length[0] == pytest.approx(2.1)


def test_the_schedule_divides_the_plain_step_by_the_speculative_one():
    # Batch 1: plain 10 ms, k = 2 in 12 ms at L = 2.4 → 2.0×; batch 8: 20 ms against 60 ms → 0.8×, k = 0.
    batch, k, time = [1, 1, 8, 8], [0, 2, 0, 2], [0.010, 0.012, 0.020, 0.060]
    curve = sm.acceptance_curve(k, [1.0, 2.4, 1.0, 2.4])
    schedule = sm.measured_schedule(batch, k, time, curve)
    np.testing.assert_allclose(schedule.speedup[:, 0], [2.4 * 10 / 12, 2.4 * 20 / 60])
    assert schedule.schedule == [(1, 7, 2), (8, 8, 0)]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: sm.acceptance_curve([1, 2], [1.5]),
            r"^mean_acceptance_length must be 1-D with one entry per run \(2\)",
        ),
        (lambda: sm.acceptance_curve([1.5], [1.5]), r"^draft_length must be whole numbers >= 0, got 1.5"),
        (lambda: sm.acceptance_curve([1], [1.5], output_tokens=[9.0]), r"^batch is needed with output_tokens"),
        (lambda: sm.acceptance_curve_from_counts([2], [10], [-1]), r"^accepted must be whole numbers >= 0, got -1"),
        (lambda: sm.measured_schedule([1], [0], [0.01], "a curve"), r"^curve must be an AcceptanceCurve, got str"),
    ],
)
def test_bad_runs_name_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()
