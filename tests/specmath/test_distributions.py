"""acceptance_probability, tv_distance, kl_divergence, residual_distribution and the pair generator."""

from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given

import specmath as sm
from tests.helpers import CHAPTER_P, CHAPTER_Q, distribution_pairs


def test_chapter_pair_values():
    assert sm.acceptance_probability(CHAPTER_P, CHAPTER_Q) == pytest.approx(0.85, abs=1e-15)
    assert sm.tv_distance(CHAPTER_P, CHAPTER_Q) == pytest.approx(0.15, abs=1e-15)
    expected_kl = float(np.sum(CHAPTER_P * np.log(CHAPTER_P / CHAPTER_Q)))
    assert sm.kl_divergence(CHAPTER_P, CHAPTER_Q) == pytest.approx(expected_kl, rel=1e-12)


def test_kl_known_closed_form():
    # KL(Bernoulli(a) || Bernoulli(b)) = a log(a/b) + (1-a) log((1-a)/(1-b)).
    a, b = 0.3, 0.6
    exact = a * np.log(a / b) + (1 - a) * np.log((1 - a) / (1 - b))
    assert sm.kl_divergence([a, 1 - a], [b, 1 - b]) == pytest.approx(exact, rel=1e-14)


def test_kl_infinite_exactly_when_draft_misses_target_support():
    assert sm.kl_divergence([0.5, 0.5], [1.0, 0.0]) == np.inf
    # The other way round is finite: tokens the target never emits cost nothing.
    assert sm.kl_divergence([1.0, 0.0], [0.5, 0.5]) == pytest.approx(np.log(2))


def _decimal(x: Fraction) -> Decimal:
    return Decimal(x.numerator) / Decimal(x.denominator)


def exact_kl(p: list[Fraction], q: list[Fraction]) -> Decimal:
    """KL(p || q) of exact rational distributions, to 50 significant digits."""
    with localcontext() as ctx:
        ctx.prec = 50
        return sum(_decimal(a) * (_decimal(a) / _decimal(b)).ln() for a, b in zip(p, q, strict=True) if a)


def close_pair(size: int, d: Fraction, seed: int) -> tuple[list[Fraction], list[Fraction]]:
    """Exact rationals: q with integer weights, p = q (1 +- d) renormalized, signs at random."""
    rng = np.random.default_rng(seed)
    weights = [Fraction(int(w)) for w in rng.integers(1, 1000, size)]
    q = [w / sum(weights) for w in weights]
    raw = [x * (1 + int(sign) * d) for x, sign in zip(q, rng.choice([-1, 1], size), strict=True)]
    return [x / sum(raw) for x in raw], q


@pytest.mark.parametrize("d", [Fraction(1, 10**2), Fraction(1, 10**4), Fraction(1, 10**6)])
@pytest.mark.parametrize("seed", range(5))
def test_kl_of_close_distributions_to_high_precision(d, seed):
    # KL is about sum q d^2 / 2 (5e-13 at d = 1e-6): p log(p/q) - p + q summed directly lost
    # 1e-16 / d^2 of it, a relative error of 3e-4 at d = 1e-6.
    p, q = close_pair(50, d, seed)
    reference = exact_kl(p, q)
    got = sm.kl_divergence([float(x) for x in p], [float(x) for x in q])
    assert abs(Decimal(float(got)) / reference - 1) <= Decimal("1e-9")
    rows = sm.divergences([[float(x) for x in p]] * 2, [[float(x) for x in q]] * 2).kl
    assert (rows == got).all()


def test_kl_far_and_near_terms_together_to_high_precision():
    # Ratios p/q from 0.1 to 10 and 1 +- 1e-7: both forms of the terms, in one sum.
    rng = np.random.default_rng(3)
    q = [Fraction(int(w)) for w in rng.integers(1, 1000, 40)]
    factors = [Fraction(1, 10), Fraction(1, 2), Fraction(9, 10), 1 - Fraction(1, 10**7), 1 + Fraction(1, 10**7), 2, 10]
    raw = [x * factors[i % len(factors)] for i, x in enumerate(q)]
    p, q = [x / sum(raw) for x in raw], [x / sum(q) for x in q]
    got = sm.kl_divergence([float(x) for x in p], [float(x) for x in q])
    assert abs(Decimal(float(got)) / exact_kl(p, q) - 1) <= Decimal("1e-14")


def test_kl_with_a_subnormal_draft_probability_is_finite():
    # p / q overflows to inf at q = 1e-320, but KL = 0.5 log 0.5 + 0.5 log(0.5 / 1e-320) = 368.1.
    p, q = [0.5, 0.5], [1.0, 1e-320]
    reference = exact_kl([Fraction(x) for x in p], [Fraction(x) for x in q])
    assert sm.kl_divergence(p, q) == pytest.approx(float(reference), rel=1e-14)


def test_disjoint_supports():
    p, q = [0.5, 0.5, 0, 0], [0, 0, 0.25, 0.75]
    assert sm.acceptance_probability(p, q) == 0.0
    assert sm.tv_distance(p, q) == 1.0
    assert sm.kl_divergence(p, q) == np.inf
    np.testing.assert_array_equal(sm.residual_distribution(p, q), p)


def test_residual_of_chapter_pair():
    r = sm.residual_distribution(CHAPTER_P, CHAPTER_Q)
    # max(0, p - q) = [0.1, 0.05, 0, ...], mass 0.15.
    np.testing.assert_allclose(r, [2 / 3, 1 / 3, 0, 0, 0, 0, 0, 0, 0, 0], atol=1e-15)


def test_residual_of_identical_pair_is_p():
    p = np.array([0.2, 0.3, 0.5])
    np.testing.assert_array_equal(sm.residual_distribution(p, p), p)
    # p = q up to rounding: a residual of mass ~1e-17 must not be blown up to a spike.
    q = p + np.array([1e-17, -1e-17, 0])
    np.testing.assert_allclose(sm.residual_distribution(p, q), p)


def test_residual_when_draft_misses_a_token():
    p, q = np.array([0.5, 0.5, 0.0]), np.array([0.5, 0.0, 0.5])
    np.testing.assert_array_equal(sm.residual_distribution(p, q), [0, 1, 0])


@given(distribution_pairs())
def test_alpha_is_one_minus_tv(pair):
    p, q = pair
    alpha = sm.acceptance_probability(p, q)
    assert 0.0 <= alpha <= 1.0
    assert alpha == pytest.approx(1.0 - sm.tv_distance(p, q), abs=1e-12)


@given(distribution_pairs())
def test_alpha_of_identical_is_one_and_kl_zero(pair):
    p, _ = pair
    assert sm.acceptance_probability(p, p) == pytest.approx(1.0, abs=1e-12)
    assert sm.kl_divergence(p, p) == 0.0


@given(distribution_pairs())
def test_kl_nonnegative_and_bounds_below_alpha(pair):
    p, q = pair
    kl = sm.kl_divergence(p, q)
    assert kl >= 0.0
    alpha = sm.acceptance_probability(p, q)
    # Pinsker and Bretagnolle-Huber lower-bound alpha = 1 - TV.
    assert sm.pinsker_bound(kl) <= alpha + 1e-12
    assert sm.bretagnolle_huber_bound(kl) <= alpha + 1e-12


@given(distribution_pairs())
def test_residual_completes_the_identity(pair):
    # min(p, q) + (1 - alpha) r = p: the algebra behind losslessness.
    p, q = pair
    r = sm.residual_distribution(p, q)
    assert r.sum() == pytest.approx(1.0, abs=1e-12)
    assert (r >= 0).all()
    alpha = sm.acceptance_probability(p, q)
    np.testing.assert_allclose(np.minimum(p, q) + (1 - alpha) * r, p, atol=1e-12)


def test_bounds_at_edges():
    assert sm.pinsker_bound(0.0) == 1.0
    assert sm.bretagnolle_huber_bound(0.0) == 1.0
    assert sm.pinsker_bound(8.0) == 0.0
    assert sm.bretagnolle_huber_bound(np.inf) == 0.0
    np.testing.assert_allclose(sm.pinsker_bound([0.02, 0.5]), [0.9, 0.5])


def test_random_pairs_shape_seed_and_mixture_floor():
    P, Q = sm.random_distribution_pairs(500, vocab_size=20, rng=42)
    assert P.shape == Q.shape == (500, 20)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(Q.sum(axis=1), 1.0)
    P2, Q2 = sm.random_distribution_pairs(500, vocab_size=20, rng=np.random.default_rng(42))
    np.testing.assert_array_equal(P, P2)
    np.testing.assert_array_equal(Q, Q2)
    d = sm.divergences(P, Q)
    # q = m p + (1 - m) noise with m >= 0.3, so min(p, q) >= 0.3 p and alpha >= 0.3.
    assert d.alpha.min() >= 0.3 - 1e-12
    assert d.alpha.max() < 1.0
    # The generator spans close to far pairs: a real spread of alpha.
    assert d.alpha.max() - d.alpha.min() > 0.4


def test_divergences_equal_per_pair_calls():
    P, Q = sm.random_distribution_pairs(50, vocab_size=7, rng=3)
    d = sm.divergences(P, Q)
    for i in range(50):
        assert d.alpha[i] == pytest.approx(sm.acceptance_probability(P[i], Q[i]), abs=1e-15)
        assert d.tv[i] == pytest.approx(sm.tv_distance(P[i], Q[i]), abs=1e-15)
        assert d.kl[i] == pytest.approx(sm.kl_divergence(P[i], Q[i]), rel=1e-12)
