"""expected_active_experts: the closed form against counted random routings, and its edges."""

from fractions import Fraction

import numpy as np
import pytest

import specmath as sm


def counted_active_experts(num_experts, experts_per_token, tokens, trials, rng):
    """Distinct experts woken in each of ``trials`` passes, every token picking a uniform k-subset."""
    active = np.zeros((trials, num_experts), dtype=bool)
    rows = np.arange(trials)[:, None]
    for _ in range(tokens):
        picks = rng.random((trials, num_experts)).argpartition(experts_per_token - 1, axis=1)[:, :experts_per_token]
        active[rows, picks] = True
    return active.sum(axis=1)


@pytest.mark.parametrize(
    ("num_experts", "experts_per_token", "tokens"),
    [(8, 2, 3), (64, 6, 5), (128, 8, 20), (256, 8, 64), (128, 4, 40), (32, 4, 1)],
)
def test_closed_form_against_counted_routings(num_experts, experts_per_token, tokens):
    # Tolerance: 5 standard errors of the mean count. "Expert i missed by every token" are
    # non-increasing functions of disjoint groups of negatively associated indicators (each
    # token's k-subset; tokens independent), hence negatively associated (Dubhashi and Ranjan
    # 1998): the count's variance is at most the binomial E p (1 - p), p = 1 - (1 - k/E)^T.
    trials = 4000
    rng = np.random.default_rng(20260)
    counts = counted_active_experts(num_experts, experts_per_token, tokens, trials, rng)
    expected = sm.expected_active_experts(num_experts, experts_per_token, tokens)
    p = expected / num_experts
    standard_error = np.sqrt(num_experts * p * (1 - p) / trials)
    assert counts.var() <= num_experts * p * (1 - p) * 1.2  # the bound holds in the sample too
    if standard_error == 0:  # one token: exactly k, every time
        assert (counts == experts_per_token).all() and expected == experts_per_token
    else:
        assert abs(counts.mean() - expected) <= 5 * standard_error


def test_edges_are_exact():
    e = np.array([8, 60, 128, 256])[:, None]
    k = np.array([2, 4, 8, 8])[:, None]
    assert (sm.expected_active_experts(e, k, 0) == 0).all()
    np.testing.assert_array_equal(sm.expected_active_experts(e, k, 1), k[:, 0][:, None].astype(float))
    t = np.array([1, 2, 7, 1000])
    np.testing.assert_array_equal(sm.expected_active_experts(e, e, t), np.broadcast_to(e, (4, 4)).astype(float))
    assert sm.expected_active_experts(8, 8, 0) == 0.0
    # Mixtral, two tokens: 8 (1 - (3/4)^2) = 3.5 exactly; many tokens wake every expert.
    assert sm.expected_active_experts(8, 2, 2) == 3.5
    assert sm.expected_active_experts(256, 8, 10**6) == 256.0


def test_small_passes_are_the_nearest_float_to_the_exact_rational():
    # E (1 - (1 - k/E)^T) = (E^T - (E - k)^T) / E^(T - 1) exactly; Fraction -> float rounds once.
    # Bit equality is right here: the value is computed in integers, whatever NumPy's SIMD path.
    e = np.array([2, 8, 60, 128, 256])[:, None, None]
    k = np.array([1, 2, 8])[None, :, None]
    t = np.arange(0, 80)[None, None, :]
    e, k, t = np.broadcast_arrays(e, k, t)
    ok = k <= e
    got = sm.expected_active_experts(e[ok], k[ok], t[ok])
    exact = [
        float(Fraction(a**c - (a - b) ** c, a ** (c - 1))) if c else 0.0
        for a, b, c in zip(e[ok].tolist(), k[ok].tolist(), t[ok].tolist(), strict=True)
    ]
    np.testing.assert_array_equal(got, exact)


def test_vectorized_rising_and_concave_in_tokens():
    t = np.arange(0, 2000)
    active = sm.expected_active_experts(256, 8, t)
    assert active.shape == t.shape
    assert (np.diff(active) >= 0).all() and (np.diff(active[:500]) > 0).all() and (np.diff(active, 2) <= 1e-9).all()
    assert (active <= 256).all() and (active[1:] >= 8).all()
    np.testing.assert_allclose(active, 256 * (1 - (1 - 8 / 256) ** t), rtol=1e-12)
    assert sm.expected_active_experts([8, 128], [2, 8], [[3], [5]]).shape == (2, 2)


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        ((0, 1, 1), "^num_experts must be >= 1, got 0"),
        ((8, 0, 1), "^experts_per_token must be >= 1, got 0"),
        ((8, 9, 1), "^experts_per_token must be <= num_experts, got 9 for 8 experts"),
        ((8, 2, -1), "^tokens must be non-negative, got -1"),
        ((8, 2, 1.5), "^tokens must be an integer, got 1.5"),
        ((8.5, 2, 1), "^num_experts must be an integer"),
        (("8", 2, 1), "^num_experts must be numeric"),
        ((8, 2, 10**15), "^tokens must be <="),
        (([8, 8], 2, [1, 2, 3]), "^num_experts, experts_per_token and tokens must broadcast"),
    ],
)
def test_bad_arguments_named(args, pattern):
    with pytest.raises(ValueError, match=pattern):
        sm.expected_active_experts(*args)
