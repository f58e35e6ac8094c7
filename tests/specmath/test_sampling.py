"""speculative_sample emits tokens distributed exactly as p, for every kind of pair."""

import numpy as np
import pytest
from scipy import stats

import specmath as sm
import specmath._kernels
from specmath.sampling import SAMPLE_CHUNK, _alias_table, _iid_categorical
from tests.helpers import CHAPTER_P, CHAPTER_Q, SIGNIFICANCE, assert_distributed_as, chi_square_pvalue

N = 1_000_000

EDGE_PAIRS = {
    "chapter example": (CHAPTER_P, CHAPTER_Q),
    "identical (p = q)": (CHAPTER_P, CHAPTER_P),
    "disjoint supports": (np.array([0.5, 0.3, 0.2, 0, 0, 0]), np.array([0, 0, 0, 0.1, 0.6, 0.3])),
    "draft misses tokens (q = 0 < p)": (np.array([0.4, 0.3, 0.2, 0.1]), np.array([0.7, 0.0, 0.3, 0.0])),
    "greedy one-hot draft": (CHAPTER_P, np.eye(10)[3]),
    "one-hot target": (np.eye(10)[7], CHAPTER_Q),
    "large vocabulary": (
        np.random.default_rng(5).dirichlet(np.full(2000, 0.5)),
        np.random.default_rng(6).dirichlet(np.full(2000, 0.5)),
    ),
}


@pytest.mark.parametrize("name", EDGE_PAIRS)
def test_output_is_distributed_as_target(name):
    p, q = EDGE_PAIRS[name]
    tokens, accepted = sm.speculative_sample(p, q, N, rng=2024)
    assert tokens.shape == accepted.shape == (N,)
    assert tokens.dtype == np.int64 and accepted.dtype == np.bool_
    assert_distributed_as(tokens, p / p.sum())


@pytest.mark.parametrize("name", EDGE_PAIRS)
def test_acceptance_rate_matches_alpha_within_binomial_bound(name):
    p, q = EDGE_PAIRS[name]
    _, accepted = sm.speculative_sample(p, q, N, rng=7)
    alpha = sm.acceptance_probability(p, q)
    if alpha in (0.0, 1.0):
        assert accepted.mean() == alpha
        return
    # Two-sided exact binomial test at the suite's level.
    result = stats.binomtest(int(accepted.sum()), N, alpha)
    assert result.pvalue > SIGNIFICANCE, f"observed {accepted.mean():.5f}, alpha {alpha:.5f}"


def test_accepted_and_resampled_tokens_have_their_own_laws():
    # Given acceptance the token is min(p, q)/alpha; given rejection, the residual.
    tokens, accepted = sm.speculative_sample(CHAPTER_P, CHAPTER_Q, N, rng=11)
    alpha = sm.acceptance_probability(CHAPTER_P, CHAPTER_Q)
    assert_distributed_as(tokens[accepted], np.minimum(CHAPTER_P, CHAPTER_Q) / alpha)
    assert_distributed_as(tokens[~accepted], sm.residual_distribution(CHAPTER_P, CHAPTER_Q))


def test_test_has_power_against_a_wrong_residual(monkeypatch):
    # Resampling from p instead of the residual outputs min(p, q) + (1 - alpha) p, not p.
    monkeypatch.setattr(specmath._kernels, "residual", lambda p, q: p)
    tokens, _ = sm.speculative_sample(CHAPTER_P, CHAPTER_Q, N, rng=2024)
    assert chi_square_pvalue(tokens, CHAPTER_P) < 1e-12


def test_same_seed_same_rounds():
    a = sm.speculative_sample(CHAPTER_P, CHAPTER_Q, 1000, rng=3)
    b = sm.speculative_sample(CHAPTER_P, CHAPTER_Q, 1000, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    c = sm.speculative_sample(CHAPTER_P, CHAPTER_Q, 1000, rng=4)
    assert not np.array_equal(a[0], c[0])


def test_single_round_and_single_token_vocabulary():
    tokens, accepted = sm.speculative_sample([1.0], [1.0], 1, rng=0)
    assert tokens.tolist() == [0] and accepted.tolist() == [True]


@pytest.mark.parametrize(
    "probs",
    [
        CHAPTER_Q,
        np.eye(5)[2],
        np.full(7, 1 / 7),
        np.array([0.0, 0.5, 0.0, 0.5, 0.0]),
        np.r_[0.999999, np.full(10_000, 1e-10)] / (0.999999 + 1e-6),
        np.random.default_rng(0).dirichlet(np.full(32_000, 0.1)),
    ],
    ids=["chapter q", "one-hot", "uniform", "zeros between", "one spike", "dirichlet 32k"],
)
def test_alias_table_reproduces_probabilities_exactly(probs):
    keep, alias = _alias_table(probs)
    assert ((keep >= 0) & (keep <= 1)).all()
    size = probs.size
    implied = (keep + np.bincount(alias, weights=1 - keep, minlength=size)) / size
    np.testing.assert_allclose(implied, probs, rtol=1e-9, atol=1e-15)
    # A token of probability 0 keeps nothing and is nobody's alias: it can never be drawn.
    zero = probs == 0
    assert (keep[zero] == 0).all()
    assert not zero[alias[keep < 1]].any()


def test_categorical_sampler_chi_square_on_large_vocabulary():
    probs = np.random.default_rng(1).dirichlet(np.full(500, 0.3))
    assert_distributed_as(_iid_categorical(probs, N, np.random.default_rng(9)), probs)


def test_counts_are_the_rounds_of_speculative_sample_for_one_chunk():
    tokens, accepted = sm.speculative_sample(CHAPTER_P, CHAPTER_Q, 123_457, rng=11)
    kept, resampled = sm.speculative_sample_counts(CHAPTER_P, CHAPTER_Q, 123_457, rng=11)
    np.testing.assert_array_equal(kept, np.bincount(tokens[accepted], minlength=10))
    np.testing.assert_array_equal(resampled, np.bincount(tokens[~accepted], minlength=10))


def test_counts_beyond_a_chunk_are_chunks_drawn_from_one_generator():
    n = SAMPLE_CHUNK + 4321
    rng = np.random.default_rng(3)
    parts = [sm.speculative_sample(CHAPTER_P, CHAPTER_Q, size, rng) for size in (SAMPLE_CHUNK, 4321)]
    tokens, accepted = (np.concatenate(a) for a in zip(*parts, strict=True))
    kept, resampled = sm.speculative_sample_counts(CHAPTER_P, CHAPTER_Q, n, rng=3)
    np.testing.assert_array_equal(kept, np.bincount(tokens[accepted], minlength=10))
    np.testing.assert_array_equal(resampled, np.bincount(tokens[~accepted], minlength=10))


def test_counts_follow_the_joint_multinomial_law():
    """The 2V cells (accepted x, resampled x) against n (min(p, q), max(0, p - q))."""
    n = 2 * SAMPLE_CHUNK + 99
    kept, resampled = sm.speculative_sample_counts(CHAPTER_P, CHAPTER_Q, n, rng=21)
    probs = np.concatenate([np.minimum(CHAPTER_P, CHAPTER_Q), np.maximum(CHAPTER_P - CHAPTER_Q, 0)])
    observed = np.concatenate([kept, resampled])
    cells = probs > 0
    assert observed[~cells].sum() == 0 and observed.sum() == n
    pvalue = stats.chisquare(observed[cells], n * probs[cells] / probs[cells].sum()).pvalue
    assert pvalue > SIGNIFICANCE


def test_counts_memory_does_not_grow_with_n():
    import tracemalloc

    def peak(n):
        tracemalloc.start()
        sm.speculative_sample_counts(CHAPTER_P, CHAPTER_Q, n, rng=0)
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    one, three = peak(SAMPLE_CHUNK), peak(3 * SAMPLE_CHUNK)
    assert three < 1.2 * one, (one, three)
    assert one < 40e6, one
