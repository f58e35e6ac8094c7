"""The Step through page: its iteration, and how its steps are numbered and moved between.

For a draft of k words there are 2k + 3 steps, numbered the same whatever was drawn, so a link
to step N always shows the same kind of step:

- steps 1 … k: the draft proposes word i (step i), from q(· | previous word);
- step k + 1: the target scores all k + 1 positions in one pass;
- steps k + 2 … 2k + 1: the check of position i (step k + 1 + i): p/q, the uniform u, the verdict;
- step 2k + 2: the last word, drawn from the residual at the first rejection or, all accepted,
  the bonus word from the target;
- step 2k + 3: the outcome, the words emitted and the time they took.

Positions after the first rejection are never checked: Next and Back skip their steps, and a
link to one shows the checks as they stood with a note. Under block verification (Sun et al.
2024, arXiv 2403.10444, Algorithm 2) every position is checked and the kept prefix is decided
after the last check; under greedy drafting (the draft proposes its most likely word, checked as
a point mass) the steps are the same, with q = 1 at each drafted word.

:func:`run` runs the page's iteration; what each step shows of it is
:mod:`dashboard.features.step_views`. Pure: no Streamlit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import numpy as np

import specmath
from dashboard import toy_language
from dashboard.binding import check_url_value
from dashboard.params import PARAMS, STEP_MAX_K, Section

#: The page's parameters. The step is read from the address by the page, not bound to a widget:
#: its range depends on k (app_pages/step_through.py). Presenter mode is a toggle above the page.
STEP = Section("Iteration", ("step",))
ITERATION = Section(None, ("greedy", "step_proposal", "step_verification"))
TOY_LANGUAGE = Section("Toy language", ("step_draft", "step_noise", "step_temperature", "step_contexts"))
PRESENTER = Section(None, ("presenter",))
SECTIONS = (STEP, Section(None, ("k", "c")), TOY_LANGUAGE, ITERATION, Section(None, ("seed",)), PRESENTER)

DRAFT, SCORE, CHECK, FINISH, OUTCOME = "draft", "score", "check", "finish", "outcome"

#: A clicker's keys: PageDown, PageUp and the arrows press Next and Back wherever the focus is.
KEYS_JS = Path(__file__).parents[1] / "js" / "step_keys.js"


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


def shown(number: int, k: int, last_checked: int) -> bool:
    """Whether Next and Back stop at step ``number``: every step but the checks never made
    (those of the positions after ``last_checked``, :func:`last_checked`)."""
    step = step_at(number, k)
    return step.phase != CHECK or step.position <= last_checked


def next_step(number: int, k: int, last_checked: int) -> int | None:
    """The step Next goes to from ``number``; ``None`` at the last."""
    for candidate in range(number + 1, total_steps(k) + 1):
        if shown(candidate, k, last_checked):
            return candidate
    return None


def previous_step(number: int, k: int, last_checked: int) -> int | None:
    """The step Back goes to from ``number``; ``None`` at the first."""
    for candidate in range(number - 1, 0, -1):
        if shown(candidate, k, last_checked):
            return candidate
    return None


def is_block(trace: specmath.iteration.IterationTrace) -> bool:
    """Whether the page shows ``trace`` as block verification: sampled, not greedy (at temperature
    0 block verification keeps the words token verification keeps, and is shown as that)."""
    return trace.verification == "block" and not trace.greedy


def last_checked(trace: specmath.iteration.IterationTrace) -> int:
    """The last position the target checked: the first rejection (token by token), or the last
    position, k − 1, under block verification, which checks them all."""
    return trace.k - 1 if is_block(trace) else trace.first_rejection


@dataclass(frozen=True)
class Run:
    """The page's iteration: its trace, the opening before it, and under greedy drafting the
    draft's own chain (whose most likely words it proposed), else None."""

    trace: specmath.iteration.IterationTrace
    opening: np.ndarray
    draft_chain: np.ndarray | None


def run(
    kind: str,
    strength: float,
    k: int,
    seed: int,
    *,
    greedy: bool = False,
    proposal: str = "sampled",
    verification: str = "token",
) -> Run:
    """The iteration the page steps through: from the last word of the seed's opening,
    ``specmath.speculative_iteration`` on the toy language's target and the draft of ``kind`` at
    ``strength``, with ``rng=seed``; a ``"greedy_draft"`` proposal runs it on :func:`greedy_draft` of
    the draft (greedy decoding, temperature 0, already drafts the argmax)."""
    opening = toy_language.opening(seed)
    draft = toy_language.draft_chain(kind, float(strength))
    greedy_proposal = proposal == "greedy_draft" and not greedy
    trace = specmath.speculative_iteration(
        toy_language.target_chain(),
        greedy_draft(draft) if greedy_proposal else draft,
        int(opening[-1]),
        k,
        rng=seed,
        greedy=greedy,
        verification=verification,
    )
    return Run(trace, opening, draft if greedy_proposal else None)


def greedy_draft(draft: np.ndarray) -> np.ndarray:
    """A greedy draft's chain as its verifier sees it: each row a point mass on the row's most
    likely word (ties to the lowest index, as :func:`numpy.argmax`), so that a drafted word has
    q = 1 and is accepted with probability min(1, p/1) = p, and the residual is max(p − q, 0)
    normalized, the target's row without that word."""
    return np.eye(draft.shape[1])[np.argmax(draft, axis=1)]


def read_step(raw: list[str] | None, total: int) -> tuple[int, str | None]:
    """The step a link's ``raw`` values ask for, within 1 … ``total``, and why they could not be
    used as they are (``None`` when they can).

    The last value counts (a repeated ``step`` is named in the reason); a number outside the range
    gives the nearest step, a fraction its whole part, anything else step 1. The reason shows the
    link's text as literal text (:func:`dashboard.binding.check_url_value`).
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


def outline(k: int, block: bool = False) -> str:
    """The numbering in one line, for the page: which steps do what at this k."""
    draft = "Step 1: the draft proposes 1 word" if k == 1 else f"Steps 1–{k}: the draft proposes {k} words, one a step"
    checks = f"{k + 2}" if k == 1 else f"{k + 2}–{2 * k + 1}"
    how = (
        "every position, the kept prefix decided after the last"
        if block
        else "Next skips positions after a rejection, never checked"
    )
    return (
        f"{draft} · "
        f"{k + 1}: the target scores all {k + 1} positions at once · "
        f"{checks}: the check, position by position ({how}) · {2 * k + 2}: the correction or the bonus "
        f"word · {2 * k + 3}: the outcome."
    )


@cache
def key_script() -> str:
    """HTML that runs :data:`KEYS_JS`, for ``st.html(..., unsafe_allow_javascript=True)``; read once."""
    return f'<script id="sde-step-keys">\n{KEYS_JS.read_text(encoding="utf-8")}</script>'
