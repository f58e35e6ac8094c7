r"""SGLang's EAGLE tree: the tree its draft settings build, scored under positional acceptance.

The acceptance model and the tree conventions (parent arrays, ranks in order of index, budget
counting the root) are those of :mod:`specmath.trees`.
"""

from __future__ import annotations

import heapq

import numpy as np

from ._validate import as_count, shown
from .trees import MAX_TREE_BUDGET, MAX_TREE_DEPTH, MAX_TREE_RANKS, _as_acceptance, tree_expected_tokens


def eagle_tree(acceptance, num_steps, topk, num_draft_tokens) -> tuple[np.float64, np.ndarray]:
    r"""The tree SGLang's EAGLE settings build, scored under positional acceptance.

    SGLang (``--speculative-num-steps``, ``--speculative-eagle-topk``,
    ``--speculative-num-draft-tokens``) drafts in ``num_steps`` steps: the first takes the
    ``topk`` best children of the root; each later step expands the ``topk`` frontier nodes of
    best path score into ``topk`` children each and keeps the ``topk`` best of those
    ``topk²`` as the next frontier. All drafted nodes are candidates; the ``num_draft_tokens - 1``
    of best path score are kept, and the root (the token the target added last) makes
    ``num_draft_tokens``: the number counts the root, so a chain of 3 steps is 4 tokens. This
    follows EAGLE-2's dynamic tree (Li et al. 2024) as SGLang 0.5.23 implements it (PyPI wheel
    ``sglang-0.5.23``): ``sglang/srt/speculative/spec_utils.py`` (``_select_top_k_tokens_first``,
    ``_select_top_k_tokens_later``, lines 417-471), ``sglang/srt/speculative/eagle_worker_v2.py``
    (the ``num_steps`` loop, lines 808-819), ``sglang/srt/speculative/eagle_utils.py``
    (``organize_draft_results``: ``torch.topk(score_list, num_draft_token - 1)``, line 110;
    ``build_tree_kernel_efficient`` puts the bonus token first, line 152). With ``topk = 1``
    SGLang sets ``num_draft_tokens = num_steps + 1`` (``sglang/srt/arg_groups/speculative_hook.py``,
    lines 1255-1266; asserted in ``base_spec_worker.py``, line 125); here another value is an error.

    Path scores are the draft's confidences in SGLang; here they are the products of
    :math:`p_r`, EAGLE-2's premise that confidence tracks acceptance. The draft's own scores fall
    with rank among siblings; so that a rising acceptance vector still gives a tree, a node
    competes for a place only once its elder sibling has one (no change for a non-increasing
    vector). Ties go to the node drafted first.

    Parameters
    ----------
    acceptance : array_like of float
        :math:`p_1, p_2, \ldots`, at least ``topk`` of them.
    num_steps : int
        Draft steps, the tree's largest depth, 1 to :data:`MAX_TREE_DEPTH`.
    topk : int
        Children per expanded node and frontier width, 1 to ``len(acceptance)``.
    num_draft_tokens : int
        Nodes verified, root included, 1 to ``min(MAX_TREE_BUDGET, 1 + topk + (num_steps - 1) topk²)``.

    Returns
    -------
    expected_tokens : numpy.float64
        :math:`F(T)` of the EAGLE tree (:func:`tree_expected_tokens`).
    parents : numpy.ndarray of int64
        The tree, ``num_draft_tokens`` nodes, breadth first.

    Examples
    --------
    >>> value, parents = eagle_tree([0.6, 0.3], num_steps=3, topk=2, num_draft_tokens=4)
    >>> round(float(value), 3), parents.tolist()
    (2.26, [-1, 0, 0, 1])
    """
    acceptance = _as_acceptance(acceptance)
    num_steps = as_count(num_steps, "num_steps", cap=MAX_TREE_DEPTH)
    topk = as_count(topk, "topk", cap=MAX_TREE_RANKS)
    if topk > acceptance.size:
        raise ValueError(f"topk must be <= len(acceptance) = {acceptance.size}, got {shown(topk)}")
    drafted = topk + (num_steps - 1) * topk * topk
    given = num_draft_tokens
    num_draft_tokens = as_count(num_draft_tokens, "num_draft_tokens", cap=MAX_TREE_BUDGET)
    if num_draft_tokens > 1 + drafted:
        raise ValueError(
            f"num_draft_tokens must be <= 1 + topk + (num_steps - 1) * topk**2 = {1 + drafted} "
            f"(the root and every drafted node), got {shown(given)}"
        )
    if topk == 1 and num_draft_tokens != num_steps + 1:
        raise ValueError(
            f"num_draft_tokens must be num_steps + 1 = {num_steps + 1} when topk is 1 "
            f"(SGLang adjusts it so), got {shown(num_draft_tokens)}"
        )
    # The drafted nodes, step by step: parent, rank, depth, path score, and the first child of each.
    parent = np.full(drafted, -1, dtype=np.int64)
    rank = np.tile(np.arange(1, topk + 1), 1 + (num_steps - 1) * topk)
    depth = np.ones(drafted, dtype=np.int64)
    score = np.empty(drafted)
    first_child = np.full(drafted, -1, dtype=np.int64)
    score[:topk] = acceptance[:topk]
    frontier = np.arange(topk)  # the first step keeps all of the root's children
    for step in range(2, num_steps + 1):
        start = topk + (step - 2) * topk * topk
        block = slice(start, start + topk * topk)
        first_child[frontier] = start + topk * np.arange(topk)
        parent[block] = np.repeat(frontier, topk)
        depth[block] = step
        score[block] = (score[frontier][:, None] * acceptance[None, :topk]).ravel()
        frontier = start + np.argsort(-score[block], kind="stable")[:topk]
    # Keep num_draft_tokens - 1 of best score; a node becomes a candidate once its parent and its
    # elder sibling are kept. Heap keys (-score, index): ties to the node drafted first.
    heap, kept = [(-score[0], 0)], []  # only the root's rank-1 child is a candidate at first
    while heap and len(kept) < num_draft_tokens - 1:
        _, i = heapq.heappop(heap)
        kept.append(i)
        if rank[i] < topk:
            heapq.heappush(heap, (-score[i + 1], i + 1))  # siblings are drafted side by side
        if first_child[i] >= 0:
            heapq.heappush(heap, (-score[first_child[i]], int(first_child[i])))
    # Breadth first: by depth, then by the new index of the parent, then by rank.
    new_index = {-1: 0}
    parents = [-1]
    for level in range(1, num_steps + 1):
        at_level = [i for i in kept if depth[i] == level]
        for i in sorted(at_level, key=lambda i: (new_index[parent[i]], rank[i])):
            new_index[i] = len(parents)
            parents.append(new_index[parent[i]])
    parents = np.array(parents, dtype=np.int64)
    return tree_expected_tokens(parents, acceptance), parents
