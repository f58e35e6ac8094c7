"""How the Step through page numbers the steps of one speculative iteration, and moves between them.

For a draft of k words there are 2k + 3 steps, numbered the same whatever was drawn, so a link
to step N always shows the same kind of step:

- steps 1 … k: the draft proposes word i (step i), from q(· | previous word);
- step k + 1: the target scores all k + 1 positions in one pass;
- steps k + 2 … 2k + 1: the check of position i (step k + 1 + i): p/q, the uniform u, the verdict;
- step 2k + 2: the last word, drawn from the residual at the first rejection or, all accepted,
  the bonus word from the target;
- step 2k + 3: the outcome, the words emitted and the time they took.

Positions after the first rejection are never checked: Next and Back skip their steps, and a
link to one shows the checks as they stood with a note. Pure: no Streamlit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from dashboard.link_check import check_url_value
from dashboard.params import PARAMS, STEP_MAX_K

DRAFT, SCORE, CHECK, FINISH, OUTCOME = "draft", "score", "check", "finish", "outcome"


def total_steps(k: int) -> int:
    """Steps of an iteration with a draft of ``k`` words."""
    return 2 * k + 3


def page_k(shared_k: int) -> int:
    """The draft length the page steps through: the shared k, at most :data:`STEP_MAX_K`."""
    return min(int(shared_k), STEP_MAX_K)


@dataclass(frozen=True)
class Step:
    """One step: its number, its phase, and for drafting and checking the position (0 … k − 1)."""

    number: int
    phase: str
    position: int | None = None


def step_at(number: int, k: int) -> Step:
    """The step numbered ``number`` (1 … :func:`total_steps`) of an iteration with k draft words."""
    if not 1 <= number <= total_steps(k):
        raise ValueError(f"step must be within 1 … {total_steps(k)} for k = {k}, got {number}")
    if number <= k:
        return Step(number, DRAFT, number - 1)
    if number == k + 1:
        return Step(number, SCORE)
    if number <= 2 * k + 1:
        return Step(number, CHECK, number - k - 2)
    return Step(number, FINISH if number == 2 * k + 2 else OUTCOME)


def shown(number: int, k: int, first_rejection: int) -> bool:
    """Whether Next and Back stop at step ``number``: every step but the checks never made."""
    step = step_at(number, k)
    return step.phase != CHECK or step.position <= first_rejection


def next_step(number: int, k: int, first_rejection: int) -> int | None:
    """The step Next goes to from ``number``; ``None`` at the last."""
    for candidate in range(number + 1, total_steps(k) + 1):
        if shown(candidate, k, first_rejection):
            return candidate
    return None


def previous_step(number: int, k: int, first_rejection: int) -> int | None:
    """The step Back goes to from ``number``; ``None`` at the first."""
    for candidate in range(number - 1, 0, -1):
        if shown(candidate, k, first_rejection):
            return candidate
    return None


def read_step(raw: list[str] | None, total: int) -> tuple[int, str | None]:
    """The step a link's ``raw`` values ask for, within 1 … ``total``, and why they could not be
    used as they are (``None`` when they can).

    The last value counts (a repeated ``step`` is named in the reason); a number outside the range
    gives the nearest step, a fraction its whole part, anything else step 1. The reason shows the
    link's text as literal text (:func:`dashboard.link_check.check_url_value`).
    """
    if raw is None:
        return 1, None
    problem = check_url_value(replace(PARAMS["step"], high=total), raw)
    try:
        number = float(raw[-1].strip())
    except ValueError:
        return 1, problem
    if math.isnan(number):
        return 1, problem
    return int(min(max(number, 1.0), float(total))), problem


def outline(k: int) -> str:
    """The numbering in one line, for the page: which steps do what at this k."""
    draft = "Step 1: the draft proposes 1 word" if k == 1 else f"Steps 1–{k}: the draft proposes {k} words, one a step"
    checks = f"{k + 2}" if k == 1 else f"{k + 2}–{2 * k + 1}"
    return (
        f"{draft} · "
        f"{k + 1}: the target scores all {k + 1} positions at once · "
        f"{checks}: the check, position by position (Next skips positions after a rejection, "
        f"never checked) · {2 * k + 2}: the correction or the bonus word · {2 * k + 3}: the outcome."
    )
