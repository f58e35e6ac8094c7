"""expected_tokens, speedup, optimal_k and the Leviathan et al. conversions."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import specmath as sm
from specmath.speedup import MAX_DRAFT_LENGTH

# The chapter's "Optimal draft length for different configurations" table, as printed.
CHAPTER_TABLE = [
    (0.6, 10, 3, "1.67"),
    (0.6, 20, 4, "1.92"),
    (0.6, 50, 6, "2.17"),
    (0.7, 10, 4, "1.98"),
    (0.7, 20, 6, "2.35"),
    (0.7, 50, 8, "2.76"),
    (0.8, 10, 6, "2.47"),
    (0.8, 20, 8, "3.09"),
    (0.8, 50, 11, "3.82"),
    (0.9, 10, 10, "3.43"),
    (0.9, 20, 13, "4.67"),
    (0.9, 50, 19, "6.37"),
]

alphas = st.floats(0.0, 1.0)
draft_lengths = st.integers(0, 200)
cost_ratios = st.one_of(st.floats(1e-3, 1e6), st.just(np.inf))


def chapter_expected_tokens(alpha, k):
    """The chapter's scalar formula, valid for alpha < 1."""
    return (1 - alpha ** (k + 1)) / (1 - alpha)


def chapter_find_optimal_k(alpha, c, max_k=20):
    """The chapter's strict-greater scan, on this package's scalar speedup."""
    best_k, best = 1, sm.speedup(alpha, 1, c)
    for k in range(2, max_k + 1):
        s = sm.speedup(alpha, k, c)
        if s > best:
            best_k, best = k, s
    return best_k, best


@pytest.mark.parametrize(("alpha", "c", "k_printed", "speedup_printed"), CHAPTER_TABLE)
def test_chapter_optimal_draft_length_table(alpha, c, k_printed, speedup_printed):
    k, s = sm.optimal_k(alpha, c)
    assert k == k_printed
    assert f"{s:.2f}" == speedup_printed


def test_chapter_table_in_one_broadcast_call():
    alpha = np.array([row[0] for row in CHAPTER_TABLE])
    c = np.array([row[1] for row in CHAPTER_TABLE])
    k, s = sm.optimal_k(alpha, c)
    assert k.tolist() == [row[2] for row in CHAPTER_TABLE]
    assert [f"{v:.2f}" for v in s] == [row[3] for row in CHAPTER_TABLE]


def test_expected_tokens_edges_are_exact():
    for k in (0, 1, 5, 64, 1000):
        assert sm.expected_tokens(1.0, k) == k + 1
        assert sm.expected_tokens(0.0, k) == 1.0
    for alpha in (0.0, 0.37, 0.999999, 1.0):
        assert sm.expected_tokens(alpha, 0) == 1.0


@pytest.mark.parametrize("k", [1, 4, 20, 64])
def test_expected_tokens_stable_next_to_one(k):
    # The naive formula gives 0/0 at alpha = 1 and loses ~4 digits to cancellation at 1 - 1e-12.
    for gap in (1e-6, 1e-9, 1e-12, 1e-15):
        alpha = 1 - gap
        exact = float(sum(Fraction(alpha) ** i for i in range(k + 1)))  # exact rational sum
        assert sm.expected_tokens(alpha, k) == pytest.approx(exact, rel=1e-13, abs=0)


def test_expected_tokens_matches_geometric_sum():
    rng = np.random.default_rng(0)
    alpha = rng.uniform(0, 0.999, size=200)
    k = rng.integers(0, 40, size=200)
    direct = np.array([sum(a**i for i in range(kk + 1)) for a, kk in zip(alpha, k, strict=True)])
    np.testing.assert_allclose(sm.expected_tokens(alpha, k), direct, rtol=1e-13)


def test_scalars_in_give_scalars_out():
    assert np.ndim(sm.expected_tokens(0.8, 4)) == 0
    assert np.ndim(sm.speedup(0.8, 4, 20)) == 0
    k, s = sm.optimal_k(0.8, 20)
    assert np.ndim(k) == 0 and np.ndim(s) == 0
    assert isinstance(float(sm.speedup(0.8, 4, 20)), float)


def test_speedup_no_speculation_and_free_draft():
    assert sm.speedup(0.3, 0, 7.5) == 1.0
    assert sm.speedup(0.8, 4, np.inf) == sm.expected_tokens(0.8, 4)
    assert sm.speedup(1.0, 4, np.inf) == 5.0


def test_speedup_matches_leviathan_formula():
    # Leviathan et al. (2023), Theorem 3.8: (1 - a^(g+1)) / ((1 - a)(g c + 1)), c = draft/target.
    rng = np.random.default_rng(1)
    a, g, c = rng.uniform(0, 0.99, 100), rng.integers(0, 30, 100), rng.uniform(1, 100, 100)
    c_lev = sm.to_leviathan_cost(c)
    paper = (1 - a ** (g + 1)) / ((1 - a) * (g * c_lev + 1))
    np.testing.assert_allclose(sm.speedup(a, g, c), paper, rtol=1e-12)


def test_leviathan_conversions_round_trip_and_limits():
    c = np.array([0.5, 1.0, 20.0, 1e6])
    np.testing.assert_allclose(sm.from_leviathan_cost(sm.to_leviathan_cost(c)), c)
    assert sm.to_leviathan_cost(20) == 0.05
    assert sm.to_leviathan_cost(np.inf) == 0.0
    assert sm.from_leviathan_cost(0.0) == np.inf
    with pytest.raises(ValueError, match="c_leviathan"):
        sm.from_leviathan_cost(-0.1)


def test_optimal_k_ties_resolve_to_the_shortest_draft():
    # alpha = 1, c = 1: S = (k + 1) / (1 + k) = 1 for every k.
    assert sm.optimal_k(1.0, 1.0) == (1, 1.0)
    # alpha = 0: nothing is ever accepted, every extra draft token only costs.
    k, s = sm.optimal_k(0.0, 10.0)
    assert k == 1 and s == pytest.approx(1 / 1.1)
    # alpha = 1 with a free draft: longer is always better.
    assert sm.optimal_k(1.0, np.inf, max_k=64) == (64, 65.0)


def test_optimal_k_heatmap_grid_matches_scalar_scan():
    alpha = np.linspace(0, 1, 21)
    c = np.geomspace(1, 200, 15)[:, None]
    k, s = sm.optimal_k(alpha, c, max_k=64)
    assert k.shape == s.shape == (15, 21)
    for i, ci in enumerate(c[:, 0]):
        for j, aj in enumerate(alpha):
            assert (k[i, j], s[i, j]) == chapter_find_optimal_k(aj, ci, max_k=64)


def exact_speedups(alpha: Fraction, c: Fraction, max_k: int) -> list[Fraction]:
    """S(k) = E[N](k) c / (c + k) for k = 1 … max_k in exact rational arithmetic."""
    tokens, power, out = Fraction(1), Fraction(1), []
    for k in range(1, max_k + 1):
        power *= alpha
        tokens += power
        out.append(tokens * c / (c + k))
    return out


def test_optimal_k_is_the_smallest_exact_maximizer_on_a_rational_grid():
    # alpha = i/20 and integer c hold exact ties, S(k) = S(k + 1) (six of them here, such as
    # alpha = 1/4, c = 19 and alpha = 1/5, c = 29, where 0.2 is stored as a bit more than 1/5).
    alpha = np.arange(21) / 20
    c = np.arange(1, 51)[:, None]
    k, s = sm.optimal_k(alpha, c, max_k=20)
    ties = 0
    for i in range(21):
        for j in range(50):
            exact = exact_speedups(Fraction(i, 20), Fraction(j + 1), 20)
            best = max(exact)
            ties += exact.count(best) > 1
            assert k[j, i] == exact.index(best) + 1, (i, j + 1)
            assert s[j, i] == sm.speedup(alpha[i], k[j, i], c[j, 0])
            assert s[j, i] == pytest.approx(float(best), rel=1e-15, abs=0)
    assert ties == 6


def test_optimal_k_ties_found_by_the_audit():
    # S(1) = (5/4) / (1 + 1/19) = 19/16 = S(2) = (21/16) / (1 + 2/19): a float scan picked 2.
    assert sm.optimal_k(0.25, 19) == (1, 19 / 16)
    assert sm.optimal_k(0.5, [5, 12, 27])[0].tolist() == [1, 2, 3]  # S(k) = S(k + 1) at k = 1, 2, 3
    assert sm.optimal_k(0.2, 29)[0] == 1  # tie at 1/5, though 0.2 is not 1/5 in binary
    # A real rise, however small next to S, is no tie: S(2) / S(1) - 1 = 5e-11 here.
    assert sm.optimal_k(0.25, [19 - 1e-9, 19 + 1e-9])[0].tolist() == [1, 2]


def test_optimal_k_free_draft_takes_the_longest():
    # At c = inf, S(k) = E[N](k) rises by alpha^(k+1) > 0 with every k; in floating point the
    # rise falls below the last digit of S (alpha = 0.1 from k = 16), where a scan stopped.
    assert sm.optimal_k(0.1, np.inf, 20) == (20, sm.expected_tokens(0.1, 20))
    alpha = np.array([1e-300, 1e-9, 0.01, 0.1, 0.5, 0.9, 1.0])
    for max_k in (1, 2, 20, 64, MAX_DRAFT_LENGTH):
        k, s = sm.optimal_k(alpha, np.inf, max_k)
        assert (k == max_k).all()
        np.testing.assert_array_equal(s, sm.expected_tokens(alpha, max_k))
    # alpha = 0: every k gives exactly 1, a tie the shortest draft wins.
    assert sm.optimal_k(0.0, np.inf, 20) == (1, 1.0)


def test_general_optimal_k_keeps_the_exact_search_under_free_verification():
    # t_draft = 1, t_target = 19: c = 19 and free verification, the audit's tie again.
    assert sm.general_optimal_k(0.25, 1.0, 19.0) == (1, 19 / 16)
    assert sm.general_optimal_k(0.1, 0.0, sm.FreeVerification(1.0)) == (20, sm.expected_tokens(0.1, 20))


def test_general_optimal_k_finds_the_global_maximum_of_any_cost_model():
    # Measured times need not make S unimodal: here S dips at k = 2 (a slow width 3) and peaks at
    # k = 4, so stopping at the first fall (k = 1) would be wrong; the general search does not.
    table = sm.Tabulated([1.0, 1.0, 3.0, 1.0, 1.0, 5.0])
    s = sm.general_speedup(0.9, np.arange(1, 6), 0.0, table)
    assert s[1] < s[0] < s[3] and int(np.argmax(s)) + 1 == 4
    assert sm.general_optimal_k(0.9, 0.0, table, max_k=5) == (4, s[3])


@given(alphas, draft_lengths)
def test_expected_tokens_between_one_and_k_plus_one(alpha, k):
    value = sm.expected_tokens(alpha, k)
    assert 1.0 <= value <= k + 1


@given(alphas, draft_lengths)
def test_expected_tokens_increasing_in_k(alpha, k):
    # Mathematically E(k+1) - E(k) = alpha^(k+1) >= 0; allow one rounding unit.
    assert sm.expected_tokens(alpha, k + 1) >= sm.expected_tokens(alpha, k) * (1 - 4e-16)


@given(alphas, alphas, draft_lengths)
def test_expected_tokens_increasing_in_alpha(a1, a2, k):
    lo, hi = sorted((a1, a2))
    assert sm.expected_tokens(hi, k) >= sm.expected_tokens(lo, k) * (1 - 1e-15)


@given(alphas, cost_ratios)
def test_speedup_without_speculation_is_one(alpha, c):
    assert sm.speedup(alpha, 0, c) == 1.0


@given(
    st.lists(alphas, min_size=1, max_size=6),
    st.lists(draft_lengths, min_size=1, max_size=6),
    st.lists(cost_ratios, min_size=1, max_size=6),
)
def test_broadcasting_equals_scalar_calls(alpha_list, k_list, c_list):
    a = np.array(alpha_list)[:, None, None]
    k = np.array(k_list)[None, :, None]
    c = np.array(c_list)[None, None, :]
    grid = sm.speedup(a, k, c)
    assert grid.shape == (len(alpha_list), len(k_list), len(c_list))
    for (i, j, m), value in np.ndenumerate(grid):
        assert value == sm.speedup(alpha_list[i], k_list[j], c_list[m])
    kk, ss = sm.optimal_k(np.array(alpha_list)[:, None], np.array(c_list)[None, :], max_k=30)
    for (i, m), value in np.ndenumerate(kk):
        assert (value, ss[i, m]) == sm.optimal_k(alpha_list[i], c_list[m], max_k=30)


@given(alphas, draft_lengths, cost_ratios)
def test_speedup_never_nan(alpha, k, c):
    assert np.isfinite(sm.speedup(alpha, k, c))


# --- draft_acceptance_rate ----------------------------------------------------------------------


def brute_force_share(alpha: float, k: int) -> float:
    # Accepted prefix j of a k-token draft: P(j) = alpha^j (1 - alpha) for j < k, alpha^k for j = k.
    mean = sum(j * alpha**j * (1 - alpha) for j in range(k)) + k * alpha**k
    return mean / k


@pytest.mark.parametrize("k", [1, 2, 3, 7, 20, 64])
@pytest.mark.parametrize("alpha", [0.0, 0.05, 0.3, 0.5, 0.74, 0.9, 0.999, 1.0])
def test_draft_acceptance_rate_is_the_mean_accepted_prefix_over_k(alpha, k):
    assert sm.draft_acceptance_rate(alpha, k) == pytest.approx(brute_force_share(alpha, k), rel=1e-12, abs=1e-15)
    if alpha < 1:
        closed = (alpha - alpha ** (k + 1)) / ((1 - alpha) * k)
        assert sm.draft_acceptance_rate(alpha, k) == pytest.approx(closed, rel=1e-12, abs=1e-15)


def test_draft_acceptance_rate_falls_with_k_and_equals_alpha_at_one():
    alpha = np.linspace(0.01, 0.99, 99)
    np.testing.assert_allclose(sm.draft_acceptance_rate(alpha, 1), alpha, rtol=1e-14)
    shares = sm.draft_acceptance_rate(alpha[:, None], np.arange(1, 33)[None, :])
    assert (np.diff(shares, axis=1) < 0).all()  # a longer draft always shows a lower share
    # vLLM issue 26191: alpha 0.74 per token shows about 36 % at k = 7.
    assert sm.draft_acceptance_rate(0.74, 7) == pytest.approx(0.357, abs=5e-4)


@pytest.mark.parametrize(
    ("alpha", "k", "message"),
    [
        (0.5, 0, "k must be >= 1"),
        (1.2, 3, r"alpha must be within \[0, 1\]"),
        (float("nan"), 3, "alpha contains NaN"),
        (0.5, 2.5, "k must be an integer"),
    ],
)
def test_draft_acceptance_rate_rejects_bad_arguments(alpha, k, message):
    with pytest.raises(ValueError, match=message):
        sm.draft_acceptance_rate(alpha, k)
