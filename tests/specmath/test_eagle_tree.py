"""SGLang's EAGLE tree: a hand-built tree, the chain at topk 1, never better than the best tree.

The best tree to compare with is Sequoia's dynamic program (``specmath.trees``), itself checked
against every small tree in ``test_trees.py``.
"""

import itertools

import numpy as np
import pytest

import specmath as sm
from tests.specmath.test_trees import depth_of, random_vector, value_of


def test_eagle_tree_by_hand():
    # acceptance (0.5, 0.4), 3 steps of top-2: depth 2 holds 0.25, 0.2, 0.2, 0.16; the frontier
    # keeps 0.25 and the first 0.2 (node (1, 2), drafted before (2, 1)); depth 3 is their children.
    value, parents = sm.eagle_tree([0.5, 0.4], num_steps=3, topk=2, num_draft_tokens=11)
    assert parents.tolist() == [-1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert value == pytest.approx(1 + 0.9 + 0.81 + 0.405, rel=1e-14)
    # Keep 5 of the 10 drafted: 0.5, 0.4, 0.25, then 0.2 twice.
    value, parents = sm.eagle_tree([0.5, 0.4], num_steps=3, topk=2, num_draft_tokens=6)
    assert parents.tolist() == [-1, 0, 0, 1, 1, 2]
    assert value == pytest.approx(1 + 0.5 + 0.4 + 0.25 + 0.2 + 0.2, rel=1e-14)


@pytest.mark.parametrize("k", [1, 3, 7])
def test_eagle_topk_1_is_the_chain(k):
    p = sm.SEQUOIA_ACCEPTANCE
    value, parents = sm.eagle_tree(p, num_steps=k, topk=1, num_draft_tokens=k + 1)
    assert parents.tolist() == [-1, *range(k)]
    assert value == pytest.approx(sm.expected_tokens(p[0], k), rel=1e-12)


@pytest.mark.parametrize("p", ["sequoia", "rising"])
def test_eagle_never_beats_optimal(p):
    p = sm.SEQUOIA_ACCEPTANCE if p == "sequoia" else random_vector(8, 6, monotone=False)
    strictly_worse = 0
    for steps, topk in itertools.product((1, 2, 3, 5), (1, 2, 4, 6)):
        drafted = topk + (steps - 1) * topk * topk
        for n in sorted({steps + 1, 2, 4, 8, 16, 32}) if topk == 1 else (2, 4, 8, 16, 32):
            if n > 1 + drafted or (topk == 1 and n != steps + 1):
                continue
            value, parents = sm.eagle_tree(p, steps, topk, n)
            assert len(parents) == n and depth_of(parents) <= steps
            assert value == pytest.approx(value_of(parents, p), rel=1e-12)
            best, _ = sm.optimal_tree(p, n, steps)
            assert value <= best * (1 + 1e-12)
            strictly_worse += value < best * (1 - 1e-9)
    assert strictly_worse > 0  # the comparison can fail: some settings leave value on the table


def test_eagle_rising_vector_still_a_tree():
    # p_2 > p_1: the rank-2 child waits for its elder sibling.
    value, parents = sm.eagle_tree([0.1, 0.6], num_steps=1, topk=2, num_draft_tokens=2)
    assert parents.tolist() == [-1, 0] and value == pytest.approx(1.1)


BAD_CALLS = [
    (lambda: sm.eagle_tree([0.5, 0.3], 0, 1, 1), r"^num_steps must be >= 1, got 0"),
    (lambda: sm.eagle_tree([0.5, 0.3], 65, 1, 66), r"^num_steps must be <= 64"),
    (lambda: sm.eagle_tree([0.5, 0.3], 2, 0, 3), r"^topk must be >= 1, got 0"),
    (lambda: sm.eagle_tree([0.5, 0.3], 2, 3, 3), r"^topk must be <= len\(acceptance\) = 2, got 3"),
    (
        lambda: sm.eagle_tree([0.5, 0.3], 2, 2, 8),
        r"^num_draft_tokens must be <= 1 \+ topk \+ \(num_steps - 1\) \* topk\*\*2 = 7 .*got 8",
    ),
    (lambda: sm.eagle_tree([0.5, 0.3], 3, 1, 3), r"^num_draft_tokens must be num_steps \+ 1 = 4 when topk is 1"),
    (lambda: sm.eagle_tree([0.5, 0.3], 2, 2, 0), r"^num_draft_tokens must be >= 1"),
    (lambda: sm.eagle_tree(np.full(64, 0.01), 64, 64, 257), r"^num_draft_tokens must be <= 256"),
]


@pytest.mark.parametrize(("call", "message"), BAD_CALLS)
def test_bad_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()
