r"""Draft trees: expected tokens of a token tree, the best tree for a budget, a toy pair's acceptance.

The model is Sequoia's positional acceptance (Chen et al. 2024). ``acceptance[r - 1]`` is
:math:`p_r`, the probability that the target accepts the ``r``-th ranked child of an accepted
node, the same at every node (:math:`\sum_r p_r \le 1`; the rest is "none accepted").

Tree conventions, shared by every function here:

- a tree is a parent array: ``parents[0] == -1`` is the root (the token the target adds) and
  ``0 <= parents[i] < i`` for every other node;
- siblings are ranked in order of index: the first child of a node listed has rank 1, the next
  rank 2, and so on;
- budget = the number of nodes, root included = the positions the target verifies;
- depth = the most draft tokens on a root-to-leaf path (a chain of ``k`` drafts has budget
  ``k + 1`` and depth ``k``; Sequoia's ``tree_search.py`` counts levels, one more).

SGLang's EAGLE tree, scored under the same model, is in :mod:`specmath.eagle`.

An :class:`~specmath.Acceptance` (an i.i.d. alpha, a chain's per-position profile or its
acceptance-length curve) is refused here with that reason: a chain drafts only the first-ranked
token at each depth, so its measurements hold :math:`p_1` at each depth and no :math:`p_2, p_3, \ldots`,
while this model holds one :math:`p_r` per rank and none per depth. Mapping it to ``(alpha,)`` would
allow chains only; inventing the lower ranks would be a guess.

Work is bounded by :data:`MAX_TREE_BUDGET`, :data:`MAX_TREE_DEPTH`, :data:`MAX_TREE_RANKS` and
:data:`MAX_TREE_NODES`, checked before anything is allocated.
"""

from __future__ import annotations

import numpy as np

from ._validate import SUM_TOLERANCE, as_count, as_float_array, shown, shown_first
from .acceptance_model import Acceptance
from .markov import as_transition_matrix, stationary_distribution

#: Largest budget (nodes, root included) :func:`optimal_tree_table`, :func:`optimal_tree` and
#: :func:`eagle_tree` search: the dynamic program's work grows as budget² × depth × ranks.
MAX_TREE_BUDGET = 256

#: Largest depth (draft tokens on a path) the tree searches take.
MAX_TREE_DEPTH = 64

#: Longest acceptance vector (ranks): a toy pair's vocabulary (``MAX_CHAIN_VOCAB``) fits.
MAX_TREE_RANKS = 64

#: Most nodes :func:`tree_expected_tokens` evaluates (its work is linear in them).
MAX_TREE_NODES = 4096


def _as_acceptance(value, name: str = "acceptance") -> np.ndarray:
    """Check a positional acceptance vector: 1-D, non-empty, entries in [0, 1], sum at most 1."""
    if isinstance(value, Acceptance):
        raise ValueError(
            f"{name} must be a tree's acceptance per sibling rank (p_1, p_2, …, such as SEQUOIA_ACCEPTANCE), "
            f"not an Acceptance: a chain's {value.given} says how the first-ranked token fares at each depth "
            "and nothing of ranks 2, 3, …, which a tree drafts"
        )
    arr = as_float_array(value, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of probabilities, got {arr.ndim}-D shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if arr.size > MAX_TREE_RANKS:
        raise ValueError(f"{name} has {arr.size} ranks; at most {MAX_TREE_RANKS} are supported")
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN; every entry must be within [0, 1]")
    outside = (arr < 0) | (arr > 1)
    if outside.any():
        where = int(np.flatnonzero(outside)[0])
        raise ValueError(f"{name} must be within [0, 1], got {shown_first(value, outside)} at index {where}")
    total = arr.sum()
    if total > 1 + SUM_TOLERANCE:
        raise ValueError(f"{name} sums to {total:.9g}, past 1 (tolerance {SUM_TOLERANCE:g})")
    return arr


def _as_parents(value, n_ranks: int) -> tuple[np.ndarray, np.ndarray]:
    """Check a parent array; return it and each node's rank among its siblings (root: 0)."""
    raw = np.asarray(value)
    if raw.dtype.kind == "b" or (raw.dtype.kind not in "iu" and raw.size and raw.dtype.kind != "f"):
        raise ValueError(f"parents must be integers, got {shown(value):.80}")
    arr = as_float_array(value, "parents")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"parents must be a non-empty 1-D array of parent indices, got shape {arr.shape}")
    if arr.size > MAX_TREE_NODES:
        raise ValueError(f"parents has {arr.size} nodes; at most {MAX_TREE_NODES:,} are supported")
    if not np.isfinite(arr).all() or (arr != np.round(arr)).any():
        bad = ~np.isfinite(arr) | (arr != np.round(np.nan_to_num(arr)))
        raise ValueError(f"parents must be integers, got {shown_first(value, bad)}")
    parents = arr.astype(np.int64)
    if parents[0] != -1:
        raise ValueError(f"parents[0] must be -1 (the root), got {shown(raw[0])}")
    index = np.arange(parents.size)
    roots = np.flatnonzero(parents[1:] == -1) + 1
    if roots.size:
        raise ValueError(f"parents has a second root: parents[{roots[0]}] is -1; only parents[0] may be")
    bad = np.flatnonzero((parents[1:] < 0) | (parents[1:] >= index[1:])) + 1
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"parents[{i}] must be in [0, {i}) (a parent listed before its child), got {shown(raw[i])}")
    # Rank = 1 + the number of earlier siblings: count within groups of a stable sort by parent.
    order = np.argsort(parents[1:], kind="stable") + 1
    sorted_parents = parents[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_parents)) + 1]
    group_start = np.repeat(starts, np.diff(np.r_[starts, sorted_parents.size]))
    ranks = np.zeros(parents.size, dtype=np.int64)
    ranks[order] = np.arange(sorted_parents.size) - group_start + 1
    beyond = np.flatnonzero(ranks > n_ranks)
    if beyond.size:
        i = int(beyond[0])
        raise ValueError(
            f"parents gives node {i} rank {ranks[i]} among the children of node {parents[i]}, "
            f"beyond len(acceptance) = {n_ranks}"
        )
    return parents, ranks


def _path_scores(parents: np.ndarray, ranks: np.ndarray, acceptance: np.ndarray) -> np.ndarray:
    """Each node's product of p_rank along its path from the root (root: 1)."""
    step = np.ones(parents.size)
    step[1:] = acceptance[ranks[1:] - 1]
    scores = np.ones(parents.size)
    for i in range(1, parents.size):  # parents come first, so one pass in index order suffices
        scores[i] = scores[parents[i]] * step[i]
    return scores


def tree_expected_tokens(parents, acceptance) -> np.float64:
    r"""Expected tokens per target call of a draft tree under positional acceptance.

    .. math:: F(T) = \sum_{v \in T} \prod_{u \in \mathrm{path}(v)} p_{\mathrm{rank}(u)}

    The product runs over the nodes from the root (excluded) to ``v``; the root counts 1, for
    the token the target adds whether or not a draft is accepted. A node is reached exactly
    when every node on its path is accepted, and at an accepted node at most one child is, so
    :math:`\mathbb{E}[\text{tokens}] = \sum_v P(v \text{ accepted})` (Sequoia, Chen et al.
    2024, section 3.1; SpecInfer, Miao et al. 2024, verifies such trees). A chain of ``k``
    drafts with ``acceptance = (α,)`` gives :math:`(1 - α^{k+1}) / (1 - α)`, exactly
    :func:`~specmath.expected_tokens`.

    Parameters
    ----------
    parents : array_like of int
        The tree as a parent array (module docstring), at most :data:`MAX_TREE_NODES` nodes.
    acceptance : array_like of float
        ``acceptance[r - 1]`` = :math:`p_r`, entries in [0, 1] summing to at most 1, at most
        :data:`MAX_TREE_RANKS` of them.

    Returns
    -------
    numpy.float64
        :math:`F(T)`, in [1, number of nodes].

    Examples
    --------
    >>> round(float(tree_expected_tokens([-1, 0, 0, 1], [0.6, 0.3])), 4)  # root, two children, a grandchild
    2.26
    """
    acceptance = _as_acceptance(acceptance)
    parents, ranks = _as_parents(parents, acceptance.size)
    return np.float64(_path_scores(parents, ranks, acceptance).sum())


def _tables(acceptance: np.ndarray, max_budget: int, max_depth: int):
    """Sequoia's dynamic program, vectorized over the split of the budget.

    ``exact[m, b]`` (for the current depth ``d``) is the best F of a tree of exactly ``m`` nodes,
    depth at most ``d``, whose root has exactly ``b`` children (ranks 1 … b):

        exact[m, b] = max over y of exact[y, b - 1] + p_b · best[m - y, d - 1],

    ``y`` the nodes of the root with its first ``b - 1`` subtrees, ``m - y`` those of the
    ``b``-th subtree. The maximum over ``y`` is one (max, +) convolution, done for all ``m``
    at once on a budget × budget array. Returns ``best`` (-inf where infeasible), the
    best child count ``best_b`` and the best split ``split[m, d, b]``.
    """
    size = max_budget + 1
    n_ranks = min(acceptance.size, max_budget - 1)
    best = np.full((size, max_depth + 1), -np.inf)
    best_b = np.zeros((size, max_depth + 1), dtype=np.int64)
    split = np.zeros((size, max_depth + 1, n_ranks + 1), dtype=np.int64)
    best[1, :] = 1.0  # the root alone, at any depth
    m, y = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    sub = m - y  # the b-th subtree's size, for each (m, y); y >= 1 and sub >= 1 are feasible
    sub = np.where((y >= 1) & (sub >= 1), sub, size)  # index `size` holds -inf
    for d in range(1, max_depth + 1):
        if d >= 2 and np.array_equal(best[:, d - 1], best[:, d - 2]):
            # Depth no longer binds: every later column repeats this one.
            best[:, d:] = best[:, d - 1 : d]
            best_b[:, d:] = best_b[:, d - 1 : d]
            split[:, d:] = split[:, d - 1 : d]
            break
        feasible = np.isfinite(best[:, d - 1])
        below = np.where(feasible, best[:, d - 1], 0.0)
        exact = np.full((size, n_ranks + 1), -np.inf)
        exact[1, 0] = 1.0
        for b in range(1, n_ranks + 1):
            # p_b · best, with -inf kept where infeasible (0 · -inf would be NaN).
            sub_value = np.append(np.where(feasible, acceptance[b - 1] * below, -np.inf), -np.inf)
            candidates = exact[:, b - 1][None, :] + sub_value[sub]
            choice = np.argmax(candidates, axis=1)
            exact[:, b] = candidates[np.arange(size), choice]
            split[:, d, b] = choice
        best_b[:, d] = np.argmax(exact, axis=1)
        best[:, d] = exact[np.arange(size), best_b[:, d]]
    return best, best_b, split


def _check_search(acceptance, max_budget, max_depth, budget_name: str, depth_name: str):
    acceptance = _as_acceptance(acceptance)
    max_budget = as_count(max_budget, budget_name, cap=MAX_TREE_BUDGET)
    max_depth = as_count(max_depth, depth_name, cap=MAX_TREE_DEPTH, minimum=0)
    return acceptance, max_budget, max_depth


def optimal_tree_table(acceptance, max_budget, max_depth) -> np.ndarray:
    r"""The best expected tokens over trees of each size and depth limit.

    Entry ``[m, d]`` is :math:`\max F(T)` over trees of exactly ``m`` nodes and depth at most
    ``d`` (:func:`tree_expected_tokens`), by Sequoia's dynamic program (Chen et al. 2024,
    section 3.1; ``tree_search.py`` in Infini-AI-Lab/Sequoia), whose inner maximum over the
    split of the budget between a node's last child and the rest is vectorized here:

    .. math:: E(m, d, b) = \max_{y} \; E(y, d, b - 1) + p_b \, F^*(m - y, d - 1),
              \qquad F^*(m, d) = \max_b E(m, d, b),

    with :math:`E(1, d, 0) = 1`: :math:`E(m, d, b)` is the best tree whose root has exactly
    ``b`` children, :math:`y` the nodes of the root with its first ``b - 1`` subtrees. Because
    every :math:`p_r \ge 0`, the best tree of exactly ``m`` nodes is also the best of at most ``m``.

    Parameters
    ----------
    acceptance : array_like of float
        :math:`p_1, p_2, \ldots` in [0, 1], summing to at most 1, at most :data:`MAX_TREE_RANKS`.
    max_budget : int
        Largest tree size, 1 to :data:`MAX_TREE_BUDGET`.
    max_depth : int
        Largest depth limit, 0 to :data:`MAX_TREE_DEPTH`.

    Returns
    -------
    numpy.ndarray
        Shape ``(max_budget + 1, max_depth + 1)``. Row 0 is unused (NaN); an entry no tree
        reaches (``m`` nodes need more than depth ``d`` with ``len(acceptance)`` ranks) is NaN.

    Examples
    --------
    >>> table = optimal_tree_table([0.6, 0.3], max_budget=4, max_depth=3)
    >>> [round(float(x), 4) for x in table[4]]  # 4 nodes: impossible at depth 0 and 1 (2 ranks)
    [nan, nan, 2.26, 2.26]
    """
    acceptance, max_budget, max_depth = _check_search(acceptance, max_budget, max_depth, "max_budget", "max_depth")
    best, _, _ = _tables(acceptance, max_budget, max_depth)
    table = np.where(np.isfinite(best), best, np.nan)
    table[0] = np.nan
    return table


def optimal_tree(acceptance, budget, max_depth=None) -> tuple[np.float64, np.ndarray]:
    r"""The best draft tree of ``budget`` nodes and depth at most ``max_depth``, and its value.

    The tree is rebuilt from the choices of :func:`optimal_tree_table`'s dynamic program and
    listed breadth first (each level in order of parent, siblings in rank order), so
    ``tree_expected_tokens(parents, acceptance)`` gives back ``expected_tokens`` to rounding.

    Parameters
    ----------
    acceptance : array_like of float
        :math:`p_1, p_2, \ldots` in [0, 1], summing to at most 1, at most :data:`MAX_TREE_RANKS`.
    budget : int
        Nodes, root included, 1 to :data:`MAX_TREE_BUDGET`.
    max_depth : int or None, default None
        Depth limit, 0 to :data:`MAX_TREE_DEPTH`; None allows ``min(budget - 1, MAX_TREE_DEPTH)``,
        which is no limit unless ``budget > MAX_TREE_DEPTH + 1``.

    Returns
    -------
    expected_tokens : numpy.float64
        :math:`F(T)` of the best tree.
    parents : numpy.ndarray of int64
        The tree, ``budget`` nodes.

    Raises
    ------
    ValueError
        For bad input, or when no tree of ``budget`` nodes has depth at most ``max_depth``
        with ``len(acceptance)`` ranks.

    Notes
    -----
    **A non-increasing acceptance vector: the best tree is the greedy top-m.** Give every node
    of the infinite tree of rank paths (depth at most ``max_depth``) its score, the product of
    :math:`p_r` along its path. A tree of ``m`` nodes is a set of ``m`` such nodes, so
    :math:`F(T)` is at most the sum of the ``m`` largest scores. A set of nodes is a tree under
    these conventions exactly when it holds, with each node, its parent and its elder siblings.
    If :math:`p_1 \ge p_2 \ge \ldots`, a node's score is at most its parent's (a factor
    :math:`p_r \le 1`) and at most its elder sibling's (:math:`p_r \le p_{r-1}`, same prefix),
    so the ``m`` best scores, ties broken toward parents and elder siblings, form such a set:
    a tree that reaches the bound. (The limit on depth keeps the argument: a parent is
    shallower, a sibling as deep.) For a vector that rises somewhere, a node can outscore its
    elder sibling, the greedy set stops being a tree, and only the dynamic program is exact.

    Examples
    --------
    >>> value, parents = optimal_tree([0.6, 0.3], budget=4)
    >>> round(float(value), 3), parents.tolist()  # a chain of two beside a second child
    (2.26, [-1, 0, 0, 1])
    """
    acceptance = _as_acceptance(acceptance)
    budget = as_count(budget, "budget", cap=MAX_TREE_BUDGET)
    if max_depth is None:
        max_depth = min(budget - 1, MAX_TREE_DEPTH)
    acceptance, budget, max_depth = _check_search(acceptance, budget, max_depth, "budget", "max_depth")
    best, best_b, split = _tables(acceptance, budget, max_depth)
    if not np.isfinite(best[budget, max_depth]):
        raise ValueError(
            f"budget {budget} cannot be reached at max_depth {max_depth} with {acceptance.size} ranks "
            f"(at most {sum(acceptance.size**i for i in range(max_depth + 1)):,} nodes)"
        )
    parents = [-1]
    queue = [(0, budget, max_depth)]  # (node, its subtree's nodes, its depth limit), breadth first
    for node, m, d in queue:
        sizes = []
        for b in range(best_b[m, d], 0, -1):  # peel the last child's subtree off, then the one before
            y = split[m, d, b]
            sizes.append(m - y)
            m = y
        for size in reversed(sizes):
            queue.append((len(parents), size, d - 1))
            parents.append(node)
    return np.float64(best[budget, max_depth]), np.array(parents, dtype=np.int64)


def acceptance_from_pair(target, draft, greedy=True) -> np.ndarray:
    r"""Positional acceptance of a toy Markov pair under greedy decoding.

    .. math:: p_r = \sum_s \pi(s) \, \mathbf{1}\!\left[\arg\max_x T(s, x) = x_r(s)\right]

    where :math:`\pi` is the target chain's stationary law (:func:`~specmath.stationary_distribution`:
    contexts as the target's own text visits them), :math:`x_r(s)` the draft's ``r``-th most
    likely token after ``s``. At temperature 0 a drafted token is accepted exactly when it is
    the target's argmax, and each context has one argmax, so :math:`\sum_r p_r = 1`. Ties rank
    the lower token index first, on both sides, as :func:`numpy.argmax` and the greedy mode of
    :func:`~specmath.speculative_iteration` do (a stable sort of the draft's row, descending).
    Sequoia measures such a vector on real models (``tests/test_accept.py`` in its repository);
    the positional model then takes it to hold at every node, whatever the path above it.

    Parameters
    ----------
    target, draft : array_like of float
        Transition matrices of one vocabulary (rows summing to 1), at most
        :data:`~specmath.markov.MAX_CHAIN_VOCAB` states.
    greedy : bool, default True
        Only greedy decoding is supported: under sampling, a child's acceptance depends on the
        verification algorithm (SpecInfer's or Sequoia's) and on the siblings drafted before it.

    Returns
    -------
    numpy.ndarray
        Length ``vocab``: ``p_1 … p_V``, summing to 1.

    Examples
    --------
    >>> T = [[0.1, 0.9], [0.8, 0.2]]
    >>> D = [[0.6, 0.4], [0.7, 0.3]]  # agrees on the argmax after token 1 only
    >>> acceptance_from_pair(T, D).round(4).tolist()
    [0.5294, 0.4706]
    """
    if not isinstance(greedy, (bool, np.bool_)):
        raise ValueError(f"greedy must be True or False, got {shown(greedy):.80}")
    if not greedy:
        raise ValueError(
            "greedy must be True: only greedy decoding has a positional acceptance defined here, got False"
        )
    target = as_transition_matrix(target, "target")
    draft = as_transition_matrix(draft, "draft")
    if target.shape != draft.shape:
        raise ValueError(f"target and draft must have the same shape, got {target.shape} and {draft.shape}")
    pi = stationary_distribution(target)
    top = np.argmax(target, axis=1)
    ranking = np.argsort(-draft, axis=1, kind="stable")  # ties: lower index first
    rank_of_top = np.argmax(ranking == top[:, None], axis=1)
    return np.bincount(rank_of_top, weights=pi, minlength=target.shape[0])
