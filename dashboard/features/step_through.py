"""The Step through page: how its steps are numbered and moved between, and what each one shows.

For a draft of k words there are 2k + 3 steps, numbered the same whatever was drawn, so a link
to step N always shows the same kind of step:

- steps 1 … k: the draft proposes word i (step i), from q(· | previous word);
- step k + 1: the target scores all k + 1 positions in one pass;
- steps k + 2 … 2k + 1: the check of position i (step k + 1 + i): p/q, the uniform u, the verdict;
- step 2k + 2: the last word, drawn from the residual at the first rejection or, all accepted,
  the bonus word from the target;
- step 2k + 3: the outcome, the words emitted and the time they took.

Positions after the first rejection are never checked: Next and Back skip their steps, and a
link to one shows the checks as they stood with a note.

:func:`build` turns an :class:`specmath.IterationTrace` and a step number into a :class:`StepView`:
the step's heading, the sentence so far with each word styled by what happened to it, the
explanation with the step's numbers, its metrics and its chart. Every number comes from the
trace. Words come from :data:`dashboard.toy_language.WORDS`, never from a link, so they go into
Markdown as they are. Pure: no Streamlit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

import numpy as np
import plotly.graph_objects as go

import specmath
from dashboard import charts
from dashboard.address import check_url_value
from dashboard.params import PARAMS, STEP_MAX_K
from dashboard.toy_language import WORDS

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
    link's text as literal text (:func:`dashboard.address.check_url_value`).
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


@cache
def key_script() -> str:
    """HTML that runs :data:`KEYS_JS`, for ``st.html(..., unsafe_allow_javascript=True)``; read once."""
    return f'<script id="sde-step-keys">\n{KEYS_JS.read_text(encoding="utf-8")}</script>'


def coloured(role: str, markdown: str) -> str:
    """Streamlit Markdown: ``markdown`` in the colour of word role ``role`` (its custom-colour syntax)."""
    return f':color[{markdown}]{{foreground="{charts.ROLE_COLOURS[role]}"}}'


#: How a word in the sentence line is written, by what happened to it ("current": the word the
#: draft has just drawn): its role, whose colour it takes, and its Markdown (``{}``: the word).
STYLES = {
    "drafted": ("drafted", "{}"),
    "current": ("drafted", "**{}**"),
    "accepted": ("accepted", "**{}**"),
    "rejected": ("rejected", "~~{}~~"),
    "resampled": ("resampled", "**{}**"),
    "bonus": ("bonus", "**{}**"),
}


def styled(style: str, text: str) -> str:
    """Streamlit Markdown: ``text`` written as :data:`STYLES` says for ``style``."""
    role, markdown = STYLES[style]
    return coloured(role, markdown.format(text))


#: What each role's colour means, in the order the words meet them, each in its own colour.
LEGEND_ENTRIES = {
    "drafted": "drafted, not yet checked",
    "accepted": "accepted",
    "rejected": "rejected",
    "resampled": "drawn from the residual",
    "bonus": "bonus word",
}


def legend() -> list[str]:
    """The legend's lines: each role's meaning styled and coloured as its words are."""
    return [styled(role, meaning) for role, meaning in LEGEND_ENTRIES.items()]


@dataclass(frozen=True)
class StepView:
    """One step as the page shows it; ``name`` ends the chart's PNG file name."""

    heading: str
    sentence: str
    text: str
    figure: go.Figure
    name: str
    metrics: list[tuple[str, str]] = field(default_factory=list)


def quoted(token) -> str:
    return f"“{WORDS[int(token)]}”"


def sentence(opening: np.ndarray, words: list[tuple[int, str]]) -> str:
    """Markdown: "…", the opening after its period, its last word (the context) bold, then
    ``words`` as (token, style) pairs, each styled as :data:`STYLES` says."""
    parts = ["…", *(WORDS[int(t)] for t in opening[1:-1]), f"**{WORDS[int(opening[-1])]}**"]
    parts += [styled(style, WORDS[int(token)]) for token, style in words]
    return " ".join(parts)


def checked_words(trace: specmath.IterationTrace, upto: int) -> list[tuple[int, str]]:
    """The drafted words with the verdicts of positions 0 … ``upto``, the others as drafted."""
    return [
        (
            token,
            ("accepted" if trace.accepted[i] else "rejected") if i <= min(upto, trace.first_rejection) else "drafted",
        )
        for i, token in enumerate(trace.drafted)
    ]


def final_word(trace: specmath.IterationTrace) -> tuple[int, str]:
    """The word that ends the iteration and its style: the bonus word or the residual's."""
    return (trace.bonus_token, "bonus") if trace.all_accepted else (trace.residual_token, "resampled")


def apart(a: float, b: float) -> tuple[str, str]:
    """``a`` and ``b`` printed with 3 decimals, or as many more (up to 6) as tell them apart."""
    for digits in range(3, 7):
        shown = f"{a:.{digits}f}", f"{b:.{digits}f}"
        if shown[0] != shown[1]:
            return shown
    return shown


def build(
    trace: specmath.IterationTrace, number: int, opening: np.ndarray, c: float, *, large: bool = False
) -> StepView:
    """What step ``number`` of the iteration ``trace`` (started after ``opening``) shows at cost ratio c."""
    k = trace.k
    step = step_at(number, k)
    total = total_steps(k)
    lead = f"Step {number} of {total} · "
    if step.phase == DRAFT:
        return _draft(trace, step.position, opening, lead, large)
    if step.phase == SCORE:
        return _score(trace, opening, lead, large)
    if step.phase == CHECK:
        return _check(trace, step.position, opening, lead, large)
    if step.phase == FINISH:
        return _finish(trace, opening, lead, large)
    return _outcome(trace, opening, c, lead, large)


def _draft(trace, i: int, opening, lead: str, large: bool) -> StepView:
    k = trace.k
    before = int(opening[-1]) if i == 0 else int(trace.drafted[i - 1])
    word, q = int(trace.drafted[i]), trace.q[i]
    how = "takes its most likely word" if trace.greedy else "draws one at random from it"
    more = "Then it reads that word and drafts the next." if i + 1 < k else f"That is all {k} words of the draft."
    title = f"Draft word {i + 1} of {k}: q(· | {quoted(before)}), drawn {quoted(word)}"
    return StepView(
        heading=f"{lead}the draft proposes word {i + 1} of {k}",
        sentence=sentence(opening, [(t, "drafted") for t in trace.drafted[:i]] + [(word, "current")]),
        text=(
            f"The draft has just read {quoted(before)}. It gives every word a probability "
            f"q(· | {quoted(before)}) and {how}: {quoted(word)}, q = {q[word]:.3f}. {more}"
        ),
        figure=charts.word_bars(WORDS, q, word, "draft q", title, large=large),
        name="draft",
    )


def _score(trace, opening, lead: str, large: bool) -> StepView:
    k = trace.k
    positions = np.arange(k)
    labels = [f"{i + 1}<br>{WORDS[int(t)]}" for i, t in enumerate(trace.drafted)]
    q, p = trace.q[positions, trace.drafted], trace.p[positions, trace.drafted]
    title, subtitle = "The target's one pass", f"p and q of each of the {k} drafted words"
    return StepView(
        heading=f"{lead}the target scores all {k + 1} positions at once",
        sentence=sentence(opening, [(t, "drafted") for t in trace.drafted]),
        text=(
            f"One forward pass of the target over the context and the {k} drafted words gives its "
            f"distribution p at every position at once: p(· | {quoted(opening[-1])}) for word 1, "
            f"p(· | word i) for word i + 1, and p(· | {quoted(trace.drafted[-1])}) at position {k + 1}, for a "
            f"bonus word should all {k} pass. This is where the time is saved: {k} words checked for the "
            "price of one target step. The bars are each drafted word's probability under both models."
        ),
        figure=charts.position_scores(labels, q, p, title, subtitle=subtitle, large=large),
        name="score",
    )


def _check(trace, j: int, opening, lead: str, large: bool) -> StepView:
    greedy = trace.greedy
    upto = min(j, trace.first_rejection)
    rows = np.arange(upto + 1)
    labels = [f"{i + 1} · {WORDS[int(trace.drafted[i])]}" for i in rows]
    if greedy:
        accept = trace.accepted[rows].astype(float)
        rule = "greedy: a draft word passes when it is the target's most likely word"
    else:
        accept = np.minimum(1.0, trace.ratio[rows])
        rule = "word i is accepted when u < min(1, p/q)"
    figure = charts.acceptance_checks(
        labels, accept, trace.u[rows], "The checks, position by position", subtitle=rule, greedy=greedy, large=large
    )
    words = checked_words(trace, upto)
    heading = f"{lead}the check of position {j + 1}"
    if j > trace.first_rejection:
        text = (
            f"Position {j + 1} is never checked: position {trace.first_rejection + 1} was rejected, and "
            "every draft word after a rejection is thrown away with it. Next goes on to the correction."
        )
        return StepView(heading, sentence(opening, words), text, figure, "check")
    word = int(trace.drafted[j])
    p, q = trace.p[j, word], trace.q[j, word]
    verdict = "accepted" if trace.accepted[j] else "rejected"
    if greedy:
        best = int(np.argmax(trace.p[j]))
        text = (
            f"Position {j + 1}: the draft proposed {quoted(word)}; the target's most likely word here is "
            f"{quoted(best)} (p = {trace.p[j, best]:.3f}). Greedy, a draft word passes exactly when it is "
            f"that word: **{verdict}**."
        )
        metrics = [("Drafted", WORDS[word]), ("Target's most likely", WORDS[best]), ("Verdict", verdict)]
        return StepView(heading, sentence(opening, words), text, figure, "check", metrics)
    ratio, u = trace.ratio[j], trace.u[j]
    u_shown, accept_shown = apart(u, min(1.0, ratio))
    stop = (
        "" if trace.accepted[j] else " The check stops here: the words drafted after it followed a word that is gone."
    )
    text = (
        f"Position {j + 1}, {quoted(word)}: the target gives it p = {p:.3f}, the draft gave it q = {q:.3f}. "
        f"It is accepted with probability min(1, p/q) = min(1, {ratio:.3f}) = {accept_shown}: a uniform "
        f"u = {u_shown} is drawn, and u {'<' if trace.accepted[j] else '≥'} {accept_shown}, so it is "
        f"**{verdict}**.{stop}"
    )
    metrics = [("p(word)", f"{p:.3f}"), ("q(word)", f"{q:.3f}"), ("p/q", f"{ratio:.3f}"), ("u", u_shown)]
    return StepView(heading, sentence(opening, words), text, figure, "check", [*metrics, ("Verdict", verdict)])


def _finish(trace, opening, lead: str, large: bool) -> StepView:
    k = trace.k
    words = [w for w in [*checked_words(trace, k), final_word(trace)] if w[1] != "drafted"]
    if trace.all_accepted:
        token = trace.bonus_token
        how = "takes its most likely word" if trace.greedy else "draws from it"
        return StepView(
            heading=f"{lead}all {k} accepted: the bonus word",
            sentence=sentence(opening, words),
            text=(
                f"All {k} draft words passed. The target's pass already gave p at position {k + 1}, after "
                f"{quoted(trace.drafted[-1])}: the iteration {how}, for free, {quoted(token)} "
                f"(p = {trace.bonus_row[token]:.3f})."
            ),
            figure=charts.word_bars(
                WORDS,
                trace.bonus_row,
                token,
                "target p",
                f"The bonus word: drawn {quoted(token)}",
                subtitle=f"from the target's p(· | {quoted(trace.drafted[-1])}), position {k + 1}",
                role="bonus",
                large=large,
            ),
            name="bonus",
        )
    j, token = trace.first_rejection, trace.residual_token
    if trace.greedy:
        how = f"takes the target's most likely word there, {quoted(token)}"
    else:
        how = (
            "draws a word from the residual r = max(0, p − q) / Σ max(0, p − q): the probability the "
            f"target gives and the draft did not. It draws {quoted(token)} (r = {trace.residual[token]:.3f})"
        )
    return StepView(
        heading=f"{lead}the correction at position {j + 1}",
        sentence=sentence(opening, words),
        text=(
            f"Position {j + 1} rejected {quoted(trace.drafted[j])}, and the draft's words after it go with it. "
            f"The iteration ends with a correction: it {how}. So every word comes out with the target's "
            "probability, exactly."
        ),
        figure=charts.word_bars(
            WORDS,
            trace.residual,
            token,
            "residual r",
            f"Position {j + 1}: the residual r, drawn {quoted(token)}",
            subtitle="r = max(0, p − q), normalized",
            role="resampled",
            markers={"target p": trace.p[j], "draft q": trace.q[j]},
            large=large,
        ),
        name="residual",
    )


def _outcome(trace, opening, c: float, lead: str, large: bool) -> StepView:
    k, n = trace.k, trace.emitted.size
    spent = 1 + k / c
    accepted = n - 1
    styles = ["accepted"] * accepted + [final_word(trace)[1]]
    last = "the bonus word" if trace.all_accepted else "the correction"
    return StepView(
        heading=f"{lead}the outcome",
        sentence=sentence(opening, list(zip(trace.emitted.tolist(), styles, strict=True))),
        text=(
            f"This iteration emitted **{n} word{'s' if n > 1 else ''}** for one target step and {k} draft "
            f"steps: {accepted} accepted draft word{'' if accepted == 1 else 's'} and {last}. At c = {c:g} "
            f"that took 1 + {k}/{c:g} = {spent:.3g} target steps; decoding the same words one target step "
            f"at a time takes {n}. The next iteration starts from {quoted(trace.emitted[-1])}."
        ),
        figure=charts.timeline(
            [WORDS[int(t)] for t in trace.drafted], [WORDS[int(t)] for t in trace.emitted], c, large=large
        ),
        name="timeline",
        metrics=[
            ("Words emitted", f"{n}"),
            ("Time, speculative", f"{spent:.3g} target steps"),
            ("Time, one word a step", f"{n} target steps"),
            ("This iteration", f"{n / spent:.2f}× as fast"),
        ],
    )
