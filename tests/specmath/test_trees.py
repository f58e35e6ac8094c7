"""Draft trees: the value of a tree, the best tree, a toy pair's acceptance.

Each result is checked against something computed another way: every tree up to 7 nodes
enumerated, a memoized recursion over the children front to back, the closed form of a chain,
the greedy top-m nodes, and per-context counts for the toy pairs.
"""

import functools
import itertools
import math

import numpy as np
import pytest

import specmath as sm
from specmath.trees import MAX_TREE_NODES
from specmath.verification import SUM_TOLERANCE

# ---- independent helpers -------------------------------------------------------------------


def rank_paths(parents):
    """Each node as its tuple of ranks from the root (root: ()), by plain counting."""
    paths, children = [()], {}
    for i in range(1, len(parents)):
        children[parents[i]] = children.get(parents[i], 0) + 1
        paths.append((*paths[parents[i]], children[parents[i]]))
    return paths


def value_of(parents, acceptance):
    """F(T) from the rank paths: the sum over nodes of the product of p_rank along the path."""
    return sum(math.prod(acceptance[r - 1] for r in path) for path in rank_paths(parents))


def depth_of(parents):
    return max(len(path) for path in rank_paths(parents))


def all_trees(n):
    """Every parent array of n nodes with 0 <= parents[i] < i: every ordered tree, some twice."""
    for rest in itertools.product(*(range(i) for i in range(1, n))):
        yield [-1, *rest]


def brute_force_table(acceptance, max_nodes, max_depth):
    table = np.full((max_nodes + 1, max_depth + 1), np.nan)
    for n in range(1, max_nodes + 1):
        for parents in all_trees(n):
            paths = rank_paths(parents)
            if max(max(path, default=0) for path in paths) > len(acceptance):
                continue
            value, depth = value_of(parents, acceptance), depth_of(parents)
            for d in range(depth, max_depth + 1):
                if not value <= table[n, d]:  # NaN or smaller
                    table[n, d] = value
    return table


def recursive_best(acceptance, m, d):
    """The best F by a recursion over a node's children front to back (rank 1 first)."""
    ranks = len(acceptance)

    @functools.cache
    def tree(size, depth):
        return 1.0 + forest(size - 1, depth, 1)

    @functools.cache
    def forest(size, depth, rank):  # children of ranks rank, rank + 1, ... sharing `size` nodes
        if size == 0:
            return 0.0
        if rank > ranks or depth == 0:
            return -math.inf
        options = [
            acceptance[rank - 1] * tree(s, depth - 1) + forest(size - s, depth, rank + 1)
            for s in range(1, size + 1)
            if tree(s, depth - 1) > -math.inf  # 0 * -inf would be NaN
        ]
        return max(options, default=-math.inf)

    return tree(m, d)


def random_vector(seed, ranks, monotone):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(ranks + 1))[:ranks]  # the last share is "none accepted"
    return np.sort(p)[::-1] if monotone else p


# ---- tree_expected_tokens and the chain ----------------------------------------------------


def test_value_matches_rank_paths_on_every_small_tree():
    p = [0.5, 0.25, 0.125]
    for n in range(1, 7):
        for parents in all_trees(n):
            if max(max(path, default=0) for path in rank_paths(parents)) <= len(p):
                assert sm.tree_expected_tokens(parents, p) == pytest.approx(value_of(parents, p), rel=1e-14)


def test_hand_computed_value():
    # root; children of ranks 1 and 2; a grandchild under the first: 1 + 0.6 + 0.3 + 0.36
    assert sm.tree_expected_tokens([-1, 0, 0, 1], [0.6, 0.3]) == pytest.approx(2.26, rel=1e-15)
    # the same shape listed depth first gives the same value
    assert sm.tree_expected_tokens([-1, 0, 1, 0], [0.6, 0.3]) == pytest.approx(2.26, rel=1e-15)


@pytest.mark.parametrize("alpha", [0.0, 0.3, 0.8, 0.99, 1.0])
@pytest.mark.parametrize("k", [0, 1, 5, 20])
def test_chain_is_expected_tokens(alpha, k):
    chain = [-1, *range(k)]
    want = sm.expected_tokens(alpha, k)
    assert sm.tree_expected_tokens(chain, [alpha]) == pytest.approx(want, rel=1e-12)
    # With one rank a tree is a chain: the table holds the chain at depth k, nothing shallower.
    table = sm.optimal_tree_table([alpha], k + 1, k)
    assert table[k + 1, k] == pytest.approx(want, rel=1e-12)
    assert np.isnan(table[k + 1, :k]).all()
    value, parents = sm.optimal_tree([alpha], k + 1)
    assert parents.tolist() == chain and value == pytest.approx(want, rel=1e-12)


# ---- the dynamic program -------------------------------------------------------------------


@pytest.mark.parametrize("monotone", [True, False])
@pytest.mark.parametrize(("seed", "ranks"), [(0, 1), (1, 2), (2, 3), (3, 3), (4, 6)])
def test_table_matches_brute_force_up_to_7_nodes(seed, ranks, monotone):
    p = random_vector(seed, ranks, monotone)
    want = brute_force_table(p, 7, 6)
    got = sm.optimal_tree_table(p, 7, 6)
    assert got.shape == (8, 7)
    assert np.isnan(got[0]).all()
    np.testing.assert_array_equal(np.isnan(got[1:]), np.isnan(want[1:]))
    np.testing.assert_allclose(got[1:], want[1:], rtol=1e-13)


def test_table_matches_recursion_beyond_brute_force():
    p = random_vector(5, 5, monotone=False)
    table = sm.optimal_tree_table(p, 24, 6)
    for m, d in [(10, 2), (16, 3), (24, 4), (24, 6), (6, 1)]:
        assert table[m, d] == pytest.approx(recursive_best(p, m, d), rel=1e-13)
    assert np.isnan(table[7, 1]) and recursive_best(p, 7, 1) == -math.inf  # 5 ranks: 6 nodes at depth 1


def test_sequoia_best_at_32_nodes_depth_9():
    value, _ = sm.optimal_tree(sm.SEQUOIA_ACCEPTANCE, 32, 9)
    assert value == pytest.approx(recursive_best(tuple(sm.SEQUOIA_ACCEPTANCE), 32, 9), rel=1e-13)
    assert value == pytest.approx(3.5007, abs=1e-4)  # the figure the issue asks for


@pytest.mark.parametrize("seed", [10, 11, 12])
def test_non_increasing_vector_best_tree_is_greedy_top_m(seed):
    p = random_vector(seed, 4, monotone=True)
    for depth in (2, 3, 4):
        nodes = [path for n in range(1, depth + 1) for path in itertools.product(range(1, 5), repeat=n)]
        scores = {path: math.prod(p[r - 1] for r in path) for path in nodes}
        ranked = sorted(nodes, key=lambda path: -scores[path])
        checked = 0
        for m in range(2, min(40, len(nodes) + 1)):
            if scores[ranked[m - 2]] <= scores[ranked[m - 1]] * (1 + 1e-12):
                continue  # a tie at the boundary (p1 p2 = p2 p1, to rounding): two greedy sets, both optimal
            value, parents = sm.optimal_tree(p, m, depth)
            assert set(rank_paths(parents)[1:]) == set(ranked[: m - 1]), (depth, m)
            assert value == pytest.approx(1 + sum(scores[path] for path in ranked[: m - 1]), rel=1e-13)
            checked += 1
        assert checked >= 8  # most sizes have a strict boundary


def test_rising_vector_beats_greedy():
    # p_2 > p_1: the greedy set would hold rank 2 without rank 1, not a tree; the best tree pays p_1.
    value, parents = sm.optimal_tree([0.1, 0.6], 2, 1)
    assert parents.tolist() == [-1, 0] and value == pytest.approx(1.1)
    value, parents = sm.optimal_tree([0.1, 0.6], 3, 1)
    assert parents.tolist() == [-1, 0, 0] and value == pytest.approx(1.7)


@pytest.mark.parametrize(
    ("p", "budget", "depth"),
    [(sm.SEQUOIA_ACCEPTANCE, 32, 9), (sm.SEQUOIA_ACCEPTANCE, 64, 4), (sm.SEQUOIA_ACCEPTANCE, 128, 16), ("rand", 40, 3)],
)
def test_optimal_tree_is_the_table_value_within_budget_and_depth(p, budget, depth):
    p = random_vector(7, 8, monotone=False) if isinstance(p, str) else p
    value, parents = sm.optimal_tree(p, budget, depth)
    table = sm.optimal_tree_table(p, budget, depth)
    assert len(parents) == budget and parents[0] == -1
    assert all(0 <= parents[i] < i for i in range(1, budget))
    assert depth_of(parents) <= depth
    assert value == table[budget, depth]
    assert sm.tree_expected_tokens(parents, p) == pytest.approx(value, rel=1e-12)
    assert value_of(parents, p) == pytest.approx(value, rel=1e-12)
    # More depth or more budget never hurts.
    assert np.all(np.diff(table[1:], axis=1)[~np.isnan(np.diff(table[1:], axis=1))] >= 0)
    assert np.all(np.diff(table[:, depth][1:]) >= 0)


def test_default_depth_is_unbounded():
    # p_1 close to 1: the best 12 nodes are a chain of 11, which a depth limit would forbid.
    value, parents = sm.optimal_tree([0.99, 0.001], 12)
    assert parents.tolist() == [-1, *range(11)]
    assert value == pytest.approx(sm.expected_tokens(0.99, 11))


# ---- acceptance_from_pair -------------------------------------------------------------------


def per_context_count(target, draft, pi):
    """p_r by looping over contexts: target top = first maximum; draft ranks ties by index."""
    vocab = len(target)
    out = [0.0] * vocab
    for s in range(vocab):
        top = max(range(vocab), key=lambda x: (target[s][x], -x))
        ranking = sorted(range(vocab), key=lambda x: (-draft[s][x], x))
        out[ranking.index(top)] += pi[s]
    return np.array(out)


def test_acceptance_from_pair_uniform_stationary_exact():
    # A doubly stochastic target (a mix of permutations) has the uniform stationary law, so
    # p_r is a count of contexts over V.
    rng = np.random.default_rng(3)
    vocab = 7
    weights = rng.dirichlet(np.ones(4))
    target = sum(w * np.eye(vocab)[rng.permutation(vocab)] for w in weights)
    draft = sm.draft_by_noise(target, 0.6) * rng.uniform(0.5, 1.5, (vocab, vocab))
    draft /= draft.sum(axis=1, keepdims=True)
    counts = per_context_count(target, draft, [1] * vocab)
    got = sm.acceptance_from_pair(target, draft)
    np.testing.assert_allclose(got, counts / vocab, atol=1e-14)
    assert got.sum() == pytest.approx(1.0, abs=1e-14)


@pytest.mark.parametrize("seed", [0, 1])
def test_acceptance_from_pair_random_chain(seed):
    target = sm.random_transition_matrix(9, 0.4, rng=seed)
    draft = sm.draft_by_temperature(sm.draft_by_noise(target, 0.3), 1.7)
    pi = np.full(9, 1 / 9) @ np.linalg.matrix_power(target, 4000)  # the law the chain settles to
    np.testing.assert_allclose(sm.acceptance_from_pair(target, draft), per_context_count(target, draft, pi), atol=1e-12)
    # The draft itself: rank 1 always holds the target's top token.
    np.testing.assert_allclose(sm.acceptance_from_pair(target, target), np.eye(9)[0], atol=1e-12)


def test_acceptance_from_pair_ties_rank_lower_index_first():
    target = [[0.5, 0.5, 0.0], [0.2, 0.2, 0.6], [1 / 3, 1 / 3, 1 / 3]]  # tops: 0, 2, 0
    draft = np.full((3, 3), 1 / 3)  # ranks 0, 1, 2 in every context
    pi = sm.stationary_distribution(target)
    got = sm.acceptance_from_pair(target, draft)
    np.testing.assert_allclose(got, [pi[0] + pi[2], 0.0, pi[1]], atol=1e-14)


def test_acceptance_from_pair_feeds_the_tree_search():
    target = sm.random_transition_matrix(6, 0.5, rng=4)
    p = sm.acceptance_from_pair(target, sm.draft_by_noise(target, 0.5))
    value, parents = sm.optimal_tree(p, 10, 3)
    assert value == pytest.approx(sm.tree_expected_tokens(parents, p))


# ---- the preset ---------------------------------------------------------------------------


def test_sequoia_preset():
    p = sm.SEQUOIA_ACCEPTANCE
    assert p.shape == (32,)
    counts = p * 667
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)
    assert round(counts[0]) == 423 and round(counts.sum()) == 618  # 49 of 667 calls accepted none
    assert p[8] > p[7]  # not monotone: rank 9 was accepted more often than rank 8
    with pytest.raises(ValueError, match="read-only"):
        p[0] = 0.5
    assert "Infini-AI-Lab/Sequoia" in sm.presets.SEQUOIA_ACCEPTANCE_SOURCE


# ---- bad input ----------------------------------------------------------------------------

BAD_CALLS = [
    (lambda: sm.tree_expected_tokens([0, 0], [0.5]), r"^parents\[0\] must be -1 \(the root\), got 0"),
    (lambda: sm.tree_expected_tokens([-1, 0, -1], [0.5]), r"^parents has a second root: parents\[2\]"),
    (lambda: sm.tree_expected_tokens([-1, 1], [0.5]), r"^parents\[1\] must be in \[0, 1\) .*got 1"),
    (lambda: sm.tree_expected_tokens([-1, 0, 5], [0.5]), r"^parents\[2\] must be in \[0, 2\) .*got 5"),
    (lambda: sm.tree_expected_tokens([-1, -2], [0.5]), r"^parents\[1\] must be in"),
    (lambda: sm.tree_expected_tokens([-1, 0, 0], [0.5]), r"^parents gives node 2 rank 2 .*len\(acceptance\) = 1"),
    (lambda: sm.tree_expected_tokens([-1, 0.5], [0.5]), r"^parents must be integers, got 0.5"),
    (lambda: sm.tree_expected_tokens([], [0.5]), r"^parents must be a non-empty 1-D"),
    (lambda: sm.tree_expected_tokens(["a"], [0.5]), r"^parents must be integers"),
    (lambda: sm.tree_expected_tokens(np.array([True, False]), [0.5]), r"^parents must be integers"),
    (lambda: sm.tree_expected_tokens(np.zeros(MAX_TREE_NODES + 1), [0.5]), r"^parents has 4097 nodes"),
    (lambda: sm.tree_expected_tokens([-1], []), r"^acceptance must not be empty"),
    (lambda: sm.tree_expected_tokens([-1], [0.5, np.nan]), r"^acceptance contains NaN"),
    (lambda: sm.tree_expected_tokens([-1], [0.1, 1.0000001]), r"^acceptance must be within \[0, 1\], got 1.0000001"),
    (lambda: sm.tree_expected_tokens([-1], [-0.1]), r"^acceptance must be within \[0, 1\], got -0.1"),
    (lambda: sm.tree_expected_tokens([-1], [0.6, 0.5]), r"^acceptance sums to 1.1, past 1"),
    (lambda: sm.tree_expected_tokens([-1], [[0.5]]), r"^acceptance must be a 1-D"),
    (lambda: sm.tree_expected_tokens([-1], "0.5"), r"^acceptance must be numeric"),
    (lambda: sm.optimal_tree_table(np.full(65, 0.01), 4, 2), r"^acceptance has 65 ranks; at most 64"),
    (lambda: sm.optimal_tree_table([0.5], 0, 2), r"^max_budget must be >= 1, got 0"),
    (lambda: sm.optimal_tree_table([0.5], 10**12, 2), r"^max_budget must be <= 256"),
    (lambda: sm.optimal_tree_table([0.5], 2.5, 2), r"^max_budget must be an integer, got 2.5"),
    (lambda: sm.optimal_tree_table([0.5], 4, -1), r"^max_depth must be >= 0, got -1"),
    (lambda: sm.optimal_tree_table([0.5], 4, 65), r"^max_depth must be <= 64"),
    (lambda: sm.optimal_tree([0.5], 0), r"^budget must be >= 1"),
    (lambda: sm.optimal_tree([0.5], 257), r"^budget must be <= 256"),
    (lambda: sm.optimal_tree([0.5], 3, 1), r"^budget 3 cannot be reached at max_depth 1 with 1 ranks"),
    (lambda: sm.optimal_tree([0.5], 3, "2"), r"^max_depth must be an integer"),
    (lambda: sm.acceptance_from_pair([[1.0]], [[0.5, 0.5], [0.5, 0.5]]), r"^target and draft must have the same shape"),
    (lambda: sm.acceptance_from_pair([[0.5, 0.5]], [[0.5, 0.5]]), r"^target must be a square"),
    (lambda: sm.acceptance_from_pair(np.eye(2), [[0.5, 0.6], [0.5, 0.5]]), r"^draft row 0 sums to 1.1"),
    (lambda: sm.acceptance_from_pair(np.eye(2), np.eye(2), greedy=False), r"^greedy must be True"),
    (lambda: sm.acceptance_from_pair(np.eye(2), np.eye(2), greedy="yes"), r"^greedy must be True or False, got 'yes'"),
]


@pytest.mark.parametrize(("call", "message"), BAD_CALLS)
def test_bad_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_sum_tolerance_is_as_stated():
    within = [0.5, 0.5 + 0.9 * SUM_TOLERANCE]
    assert sm.tree_expected_tokens([-1, 0, 0], within) == pytest.approx(2.0)
    with pytest.raises(ValueError, match=r"^acceptance sums to"):
        sm.tree_expected_tokens([-1], [0.5, 0.5 + 2 * SUM_TOLERANCE])


# ---- tree_speedup --------------------------------------------------------------------------


@pytest.mark.parametrize("c", [1.0, 4.5, 20.0, 200.0])
def test_tree_speedup_of_a_chain_with_free_verification_is_the_chapters_speedup(c):
    alpha = np.linspace(0.0, 1.0, 21)[:, None]
    k = np.arange(0, 40)
    chain = sm.tree_speedup(sm.expected_tokens(alpha, k), k + 1, k, 1.0 / c, sm.FreeVerification(1.0))
    np.testing.assert_array_equal(chain, sm.speedup(alpha, k, c))


def test_tree_speedup_of_a_chain_is_general_speedup_under_any_cost_model():
    gpu, model = sm.GPU_PRESETS["H100 SXM"], sm.MODEL_PRESETS["Llama-3.1-8B"]
    target = sm.Roofline(model, gpu, batch=256, context=1024)
    draft = target(1) / 12.0
    k = np.arange(1, 33)
    np.testing.assert_allclose(
        sm.tree_speedup(sm.expected_tokens(0.8, k), k + 1, k, draft, target),
        sm.general_speedup(0.8, k, draft, target),
        rtol=1e-15,
    )


def test_tree_speedup_charges_each_draft_step_and_the_target_over_every_node():
    # T_t(w) = 2 ms (1 + 0.5 (w - 1)), T_d = 0.25 ms: a tree of 9 nodes, 4 steps, F = 3.
    target = sm.LinearOverhead(2e-3, 0.5)
    by_hand = 3.0 * 2e-3 / (4 * 0.25e-3 + 2e-3 * (1 + 0.5 * 8))
    assert sm.tree_speedup(3.0, 9, 4, 0.25e-3, target) == pytest.approx(by_hand, rel=1e-14)
    # More nodes for the same F only costs: the speedup falls with the budget.
    s = sm.tree_speedup(3.0, np.arange(3, 20), 4, 0.25e-3, target)
    assert (np.diff(s) < 0).all()
    # A NaN (an infeasible table entry) stays NaN, beside a number.
    out = sm.tree_speedup([np.nan, 2.0], 4, 3, 0.1, 1.0)
    assert np.isnan(out[0]) and out[1] == pytest.approx(2.0 / 1.3)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"expected_tokens": 0.5}, "expected_tokens"),
        ({"expected_tokens": 33.0}, "expected_tokens"),
        ({"budget": 0}, "budget"),
        ({"budget": 2.5}, "budget"),
        ({"draft_steps": -1}, "draft_steps"),
        ({"t_draft": -1.0}, "t_draft"),
        ({"t_target": 0.0}, "t_target"),
        ({"expected_tokens": [2.0, 3.0], "budget": [4, 5, 6]}, "broadcast"),
    ],
)
def test_tree_speedup_names_a_bad_argument(kwargs, name):
    args = {"expected_tokens": 3.5, "budget": 32, "draft_steps": 9, "t_draft": 1.0, "t_target": 20.0} | kwargs
    with pytest.raises(ValueError, match=name):
        sm.tree_speedup(**args)
