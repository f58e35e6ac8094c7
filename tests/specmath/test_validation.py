"""Every kind of bad input raises ValueError whose message names the argument and the problem."""

import numpy as np
import pytest

import specmath as sm

GOOD = np.array([0.5, 0.5])

BAD_DISTRIBUTIONS = [
    (np.array([[0.5, 0.5]]), "1-D"),
    (0.5, "1-D"),
    (np.array([]), "empty"),
    (np.array([0.5, np.nan]), "NaN"),
    (np.array([np.inf, 0.5]), "infinite"),
    (np.array([1.5, -0.5]), "negative"),
    (np.array([0.5, 0.6]), "sums to 1.1"),
    (np.array([0.0, 0.0]), "sums to 0"),
    (["a", "b"], "numeric"),
    ("0.5,0.5", "numeric"),
    (None, "numeric"),
]


@pytest.mark.parametrize(("bad", "problem"), BAD_DISTRIBUTIONS)
@pytest.mark.parametrize(
    "func",
    [sm.acceptance_probability, sm.tv_distance, sm.kl_divergence, sm.residual_distribution],
)
def test_bad_distribution_named(func, bad, problem):
    with pytest.raises(ValueError, match=rf"^p .*{problem}|^p {problem}"):
        func(bad, GOOD)
    with pytest.raises(ValueError, match=rf"^q .*{problem}|^q {problem}"):
        func(GOOD, bad)


@pytest.mark.parametrize(("bad", "problem"), BAD_DISTRIBUTIONS)
def test_sampler_rejects_bad_distribution(bad, problem):
    with pytest.raises(ValueError, match=problem):
        sm.speculative_sample(bad, GOOD, 10)


def test_length_mismatch():
    with pytest.raises(ValueError, match="same length, got 2 and 3"):
        sm.acceptance_probability(GOOD, [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="same length"):
        sm.speculative_sample(GOOD, [0.2, 0.3, 0.5], 10)


def test_sum_tolerance_is_as_stated():
    within = [0.5, 0.5 + 0.9 * sm.SUM_TOLERANCE]
    assert sm.acceptance_probability(within, within) == pytest.approx(1.0)
    beyond = [0.5, 0.5 + 2 * sm.SUM_TOLERANCE]
    with pytest.raises(ValueError, match="not 1"):
        sm.acceptance_probability(beyond, GOOD)


@pytest.mark.parametrize(("alpha", "problem"), [(-0.1, r"\[0, 1\]"), (1.0001, r"\[0, 1\]"), (np.nan, "NaN")])
def test_bad_alpha(alpha, problem):
    for call in (
        lambda: sm.expected_tokens(alpha, 3),
        lambda: sm.speedup(alpha, 3, 10),
        lambda: sm.optimal_k(alpha, 10),
        lambda: sm.expected_tokens([0.5, alpha], 3),
    ):
        with pytest.raises(ValueError, match=rf"^alpha .*{problem}"):
            call()


@pytest.mark.parametrize(("k", "problem"), [(-1, "non-negative"), (2.5, "integer"), (True, "boolean"), ("3", "")])
def test_bad_k(k, problem):
    with pytest.raises(ValueError, match=rf"^k .*{problem}"):
        sm.expected_tokens(0.5, k)
    with pytest.raises(ValueError, match=rf"^k .*{problem}"):
        sm.speedup(0.5, k, 10)


def test_integral_float_k_accepted():
    assert sm.expected_tokens(0.5, 3.0) == sm.expected_tokens(0.5, 3)


@pytest.mark.parametrize(("c", "problem"), [(0, "> 0"), (-5, "> 0"), (np.nan, "NaN"), ("fast", "numeric")])
def test_bad_c(c, problem):
    with pytest.raises(ValueError, match=rf"^c .*{problem}"):
        sm.speedup(0.5, 3, c)
    with pytest.raises(ValueError, match=rf"^c .*{problem}"):
        sm.optimal_k(0.5, c)


def test_c_infinite_is_the_free_draft_limit():
    assert sm.speedup(0.5, 3, np.inf) == sm.expected_tokens(0.5, 3)
    assert sm.optimal_k(0.5, np.inf, max_k=10) == (10, sm.expected_tokens(0.5, 10))


@pytest.mark.parametrize(
    ("n", "problem"),
    [(0, ">= 1"), (-3, ">= 1"), (2.5, "integer"), ("10", "integer"), (None, "integer"), (True, "integer")],
)
def test_bad_sample_count(n, problem):
    with pytest.raises(ValueError, match=rf"^n .*{problem}"):
        sm.speculative_sample(GOOD, GOOD, n)


def test_sample_count_cap():
    with pytest.raises(ValueError, match=r"^n must be <= 50,000,000"):
        sm.speculative_sample(GOOD, GOOD, sm.MAX_SAMPLES + 1)


def test_bad_max_k():
    with pytest.raises(ValueError, match=r"^max_k must be >= 1"):
        sm.optimal_k(0.5, 10, max_k=0)
    with pytest.raises(ValueError, match=r"^max_k must be <="):
        sm.optimal_k(0.5, 10, max_k=sm.MAX_DRAFT_LENGTH + 1)


def test_bad_pair_generator_sizes():
    with pytest.raises(ValueError, match=r"^n_pairs must be >= 1"):
        sm.random_distribution_pairs(0)
    with pytest.raises(ValueError, match=r"^vocab_size must be >= 2"):
        sm.random_distribution_pairs(10, vocab_size=1)
    with pytest.raises(ValueError, match=r"^n_pairs \* vocab_size must be <="):
        sm.random_distribution_pairs(1_000_000, vocab_size=1000)


def test_bad_divergence_inputs():
    with pytest.raises(ValueError, match=r"^P must be a 2-D"):
        sm.divergences(GOOD, GOOD)
    with pytest.raises(ValueError, match=r"^Q row 1 sums to"):
        sm.divergences([GOOD, GOOD], [GOOD, [0.5, 0.7]])
    with pytest.raises(ValueError, match=r"^kl must be >= 0"):
        sm.pinsker_bound(-1.0)
