"""How the Step through page numbers an iteration's steps, moves between them and reads a link's step."""

import pytest

from dashboard.features import step_through as sp
from dashboard.params import PARAMS, STEP_COUNT, STEP_MAX_K


def test_steps_draft_score_check_finish_and_outcome():
    assert [sp.total_steps(k) for k in (1, 3, 8)] == [5, 9, 19]
    assert sp.total_steps(STEP_MAX_K) == STEP_COUNT == PARAMS["step"].high
    shown = [(s.phase, s.position) for s in (sp.step_at(n, 3) for n in range(1, 10))]
    assert shown == [
        (sp.DRAFT, 0),
        (sp.DRAFT, 1),
        (sp.DRAFT, 2),
        (sp.SCORE, None),
        (sp.CHECK, 0),
        (sp.CHECK, 1),
        (sp.CHECK, 2),
        (sp.FINISH, None),
        (sp.OUTCOME, None),
    ]
    for number in (0, 10):
        with pytest.raises(ValueError, match="within 1 … 9 for k = 3"):
            sp.step_at(number, 3)


def test_the_page_steps_through_at_most_eight_draft_words():
    assert [sp.page_k(k) for k in (1, 8, 9, 64)] == [1, 8, 8, 8]


def _walk(k, first_rejection, start, move):
    visited, number = [start], start
    while (number := move(number, k, first_rejection)) is not None:
        visited.append(number)
    return visited


def test_next_and_back_skip_the_positions_never_checked():
    # k = 4, rejected at position 2 (index 1): the checks of positions 3 and 4 (steps 8, 9) never happen.
    assert _walk(4, 1, 1, sp.next_step) == [1, 2, 3, 4, 5, 6, 7, 10, 11]
    assert _walk(4, 1, 11, sp.previous_step) == [11, 10, 7, 6, 5, 4, 3, 2, 1]
    assert not sp.shown(8, 4, 1) and sp.shown(7, 4, 1)
    # From a step never checked (a link to it), Next and Back go on to steps that were.
    assert (sp.next_step(8, 4, 1), sp.previous_step(9, 4, 1)) == (10, 7)
    # All accepted (first_rejection = k): every step, in order.
    assert _walk(4, 4, 1, sp.next_step) == list(range(1, 12))
    # Rejected at the first position: one check.
    assert _walk(4, 0, 1, sp.next_step) == [1, 2, 3, 4, 5, 6, 10, 11]


@pytest.mark.parametrize(
    ("raw", "total", "number", "problem"),
    [
        (None, 19, 1, None),
        (["7"], 19, 7, None),
        (["19"], 19, 19, None),
        (["7.0"], 19, 7, None),
        (["15"], 9, 9, "`step` = ` 15 ` is outside 1 to 9"),
        (["191"], 19, 19, "is outside 1 to 19"),
        (["0"], 19, 1, "is outside 1 to 19"),
        (["-4"], 9, 1, "is outside 1 to 9"),
        (["inf"], 9, 9, "is outside 1 to 9"),
        (["9" * 400], 9, 9, "is outside 1 to 9"),
        (["-inf"], 9, 1, "is outside 1 to 9"),
        (["12.7"], 19, 12, "is not a whole number"),
        (["abc"], 19, 1, "is not a number"),
        (["NaN"], 19, 1, "`step` = ` NaN ` is not a number"),
        ([""], 19, 1, "`step` in the link is empty"),
        (["3", "4"], 19, 4, "`step` appears 2 times in the link"),
    ],
)
def test_a_links_step_is_read_as_the_nearest_valid_step(raw, total, number, problem):
    found, why = sp.read_step(raw, total)
    assert found == number
    if problem is None:
        assert why is None
    else:
        assert problem in why


def test_a_links_step_is_named_as_literal_text():
    _, why = sp.read_step(["[fix](//e.vil) **x**"], 19)
    assert why == "`step` = ` [fix](//e.vil) **x** ` is not a number"


def test_the_outline_names_the_steps_at_this_k():
    assert sp.outline(8).startswith("Steps 1–8: the draft proposes 8 words, one a step · 9: the target scores")
    assert "10–17: the check" in sp.outline(
        8
    ) and "18: the correction or the bonus word · 19: the outcome" in sp.outline(8)
    assert sp.outline(1).startswith("Step 1: the draft proposes 1 word · 2: the target scores all 2 positions")
    assert "3: the check" in sp.outline(1)
