"""The Step through page: what each step shows of one iteration.

:func:`build` turns an :class:`specmath.iteration.IterationTrace` and a step number (numbered as
:mod:`dashboard.features.step_through` says) into a :class:`StepView`: the step's heading, the
sentence so far with each word styled by what happened to it, the explanation with the step's
numbers, its metrics and its chart. Every number comes from the trace. Words come from
:data:`dashboard.toy_language.WORDS`, never from a link, so they go into Markdown as they are.
Pure: no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import plotly.graph_objects as go

import specmath
from dashboard import charts
from dashboard.features.step_through import CHECK, DRAFT, FINISH, SCORE, is_block, step_at, total_steps
from dashboard.toy_language import WORDS


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


def kept_after(trace: specmath.iteration.IterationTrace, j: int) -> int:
    """Under block verification, the words kept once positions 0 … ``j`` are checked: one past the
    last of them whose uniform η fell under its stopping chance h (0 if none did)."""
    passed = np.flatnonzero(trace.u[: j + 1] < trace.block_stop[: j + 1])
    return int(passed[-1]) + 1 if passed.size else 0


def checked_words(trace: specmath.iteration.IterationTrace, upto: int) -> list[tuple[int, str]]:
    """The drafted words with the verdicts of positions 0 … ``upto``, the others as drafted.

    Under block verification a word is accepted once a position at or after it passes, and
    rejected only when the last position has been checked: until then it is still drafted."""
    if is_block(trace):
        kept, done = kept_after(trace, upto), upto >= trace.k - 1
        styles = ["accepted" if i < kept else "rejected" if done else "drafted" for i in range(trace.k)]
        return list(zip(trace.drafted.tolist(), styles, strict=True))
    return [
        (
            token,
            ("accepted" if trace.accepted[i] else "rejected") if i <= min(upto, trace.first_rejection) else "drafted",
        )
        for i, token in enumerate(trace.drafted)
    ]


def final_word(trace: specmath.iteration.IterationTrace) -> tuple[int, str]:
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
    trace: specmath.iteration.IterationTrace,
    number: int,
    opening: np.ndarray,
    c: float,
    *,
    large: bool = False,
    draft_chain: np.ndarray | None = None,
) -> StepView:
    """What step ``number`` of the iteration ``trace`` (started after ``opening``) shows at cost ratio c.

    ``draft_chain`` is given under greedy drafting: the draft's own chain, whose most likely word
    it proposed at each position (the trace, run on :func:`greedy_draft` of it, has q = 1 there).
    """
    k = trace.k
    step = step_at(number, k)
    total = total_steps(k)
    lead = f"Step {number} of {total} · "
    if step.phase == DRAFT:
        return _draft(trace, step.position, opening, lead, large, draft_chain)
    if step.phase == SCORE:
        return _score(trace, opening, lead, large, draft_chain is not None)
    if step.phase == CHECK and is_block(trace):
        return _block_check(trace, step.position, opening, lead, large)
    if step.phase == CHECK:
        return _check(trace, step.position, opening, lead, large, draft_chain is not None)
    if step.phase == FINISH:
        return _finish(trace, opening, lead, large, draft_chain is not None)
    return _outcome(trace, opening, c, lead, large)


def _draft(trace, i: int, opening, lead: str, large: bool, draft_chain) -> StepView:
    k = trace.k
    before = int(opening[-1]) if i == 0 else int(trace.drafted[i - 1])
    word = int(trace.drafted[i])
    q = trace.q[i] if draft_chain is None else draft_chain[before]
    how = "takes its most likely word" if trace.greedy else "draws one at random from it"
    certain = ""
    if draft_chain is not None:
        how = "proposes its most likely word"
        certain = " A greedy draft hands the target no q: the check takes the word as certain, q = 1."
    more = "Then it reads that word and drafts the next." if i + 1 < k else f"That is all {k} words of the draft."
    title = f"Draft word {i + 1} of {k}: q(· | {quoted(before)}), drawn {quoted(word)}"
    return StepView(
        heading=f"{lead}the draft proposes word {i + 1} of {k}",
        sentence=sentence(opening, [(t, "drafted") for t in trace.drafted[:i]] + [(word, "current")]),
        text=(
            f"The draft has just read {quoted(before)}. It gives every word a probability "
            f"q(· | {quoted(before)}) and {how}: {quoted(word)}, q = {q[word]:.3f}.{certain} {more}"
        ),
        figure=charts.word_bars(WORDS, q, word, "draft q", title, large=large),
        name="draft",
    )


def _score(trace, opening, lead: str, large: bool, greedy_draft: bool) -> StepView:
    k = trace.k
    positions = np.arange(k)
    labels = [f"{i + 1} · {WORDS[int(t)]}" for i, t in enumerate(trace.drafted)]
    q, p = trace.q[positions, trace.drafted], trace.p[positions, trace.drafted]
    title, subtitle = "The target's one pass", f"p and q of each of the {k} drafted words"
    if greedy_draft:
        subtitle += " (greedy draft: q = 1)"
    return StepView(
        heading=f"{lead}the target scores all {k + 1} positions at once",
        sentence=sentence(opening, [(t, "drafted") for t in trace.drafted]),
        text=(
            f"One forward pass of the target over the context and the {k} drafted words gives its "
            f"distribution p at every position at once: p(· | {quoted(opening[-1])}) for word 1, "
            f"p(· | word i) for word i + 1, and p(· | {quoted(trace.drafted[-1])}) at position {k + 1}, for a "
            f"bonus word should all {k} pass. This is where the time is saved: {k} words checked for the "
            "price of one target step. The bars are each drafted word's probability under both models"
            + (", q = 1 for a greedy draft's word." if greedy_draft else ".")
        ),
        figure=charts.position_scores(labels, q, p, title, subtitle=subtitle, large=large),
        name="score",
    )


def _check(trace, j: int, opening, lead: str, large: bool, greedy_draft: bool) -> StepView:
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
        if greedy_draft:
            rule = "greedy draft, q = 1: word i is accepted when u < p"
    figure = charts.acceptance_checks(
        labels,
        accept,
        trace.u[rows],
        "The checks, position by position",
        subtitle=rule,
        greedy=greedy,
        large=large,
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
    certain = " So a greedy draft's word passes as often as the target would pick it, p." if greedy_draft else ""
    gave = "the greedy draft proposed it as certain, q = 1" if greedy_draft else f"the draft gave it q = {q:.3f}"
    text = (
        f"Position {j + 1}, {quoted(word)}: the target gives it p = {p:.3f}, {gave}. "
        f"It is accepted with probability min(1, p/q) = min(1, {ratio:.3f}) = {accept_shown}: a uniform "
        f"u = {u_shown} is drawn, and u {'<' if trace.accepted[j] else '≥'} {accept_shown}, so it is "
        f"**{verdict}**.{certain}{stop}"
    )
    metrics = [("p(word)", f"{p:.3f}"), ("q(word)", f"{q:.3f}"), ("p/q", f"{ratio:.3f}"), ("u", u_shown)]
    return StepView(heading, sentence(opening, words), text, figure, "check", [*metrics, ("Verdict", verdict)])


def _block_check(trace, j: int, opening, lead: str, large: bool) -> StepView:
    """Position j under block verification: its weight w, its stopping chance h and its η."""
    k, rows = trace.k, np.arange(j + 1)
    labels = [f"{i + 1} · {WORDS[int(trace.drafted[i])]}" for i in rows]
    h, eta, w = trace.block_stop[j], trace.u[j], trace.block_weight[j]
    before = 1.0 if j == 0 else float(trace.block_weight[j - 1])
    word, ratio = int(trace.drafted[j]), trace.ratio[j]
    kept, passed = kept_after(trace, j), eta < h
    figure = charts.acceptance_checks(
        labels,
        trace.block_stop[rows],
        trace.u[rows],
        "The block's checks, position by position",
        subtitle="the prefix up to word i is kept when η < h(i); the last such i decides",
        verification="block",
        large=large,
    )
    eta_shown, h_shown = apart(eta, h)
    if j < k - 1:
        mass = float(np.maximum(w * trace.p[j + 1] - trace.q[j + 1], 0.0).sum())
        chance = (
            f"its chance to end the kept prefix here is h = m / (m + 1 − w) = {h_shown}, with "
            f"m = Σ max(w·p − q, 0) = {mass:.3f} the residual weight of the position after it"
        )
    else:
        chance = f"at the last position the chance to keep the whole block is h = w = {h_shown}"
    if passed:
        verdict = f"η = {eta_shown} < h: the prefix up to here is kept, any word before it that missed included"
    else:
        verdict = f"η = {eta_shown} ≥ h: not here; {_words(kept)} kept so far"
        if j < k - 1:
            verdict += ", and a later position can still keep this one"
    if j == k - 1:
        end = "all of them" if kept == k else f"{_words(kept)}; the rest is replaced from position {kept + 1}"
        verdict += f". That was the last check: the block keeps **{end}**"
    text = (
        f"Block verification (Sun et al. 2024, Algorithm 2) checks the draft jointly. Position {j + 1}, "
        f"{quoted(word)}: p/q = {ratio:.3f}, so the block's weight is w = min(1, {before:.3f} × {ratio:.3f}) "
        f"= {w:.3f}; {chance}. {verdict}."
    )
    metrics = [
        ("p/q", f"{ratio:.3f}"),
        ("weight w", f"{w:.3f}"),
        ("stop chance h", h_shown),
        ("η", eta_shown),
        ("Kept so far", f"{kept} of {k}"),
    ]
    return StepView(
        f"{lead}the block check of position {j + 1}",
        sentence(opening, checked_words(trace, j)),
        text,
        figure,
        "check",
        metrics,
    )


def _words(n: int) -> str:
    return f"{n} word{'' if n == 1 else 's'}"


def _finish(trace, opening, lead: str, large: bool, greedy_draft: bool) -> StepView:
    k = trace.k
    words = [*checked_words(trace, k)[: trace.first_rejection + 1], final_word(trace)]
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
    block = is_block(trace)
    subtitle = "r = max(0, p − q), normalized"
    if trace.greedy:
        how = f"takes the target's most likely word there, {quoted(token)}"
    else:
        residual = "r = max(0, p − q) / Σ max(0, p − q): the probability the target gives and the draft did not"
        if block:
            w = 1.0 if j == 0 else float(trace.block_weight[j - 1])
            residual = (
                f"r ∝ max(0, w·p − q) with the kept prefix's weight w = {w:.3f}"
                + (" (nothing kept: w = 1, the token rule's residual)" if j == 0 else "")
                + ", the block residual"
            )
            subtitle = f"block residual: r ∝ max(0, w·p − q), w = {w:.3f}"
        elif greedy_draft:
            residual += f"; with the greedy draft's q = 1 on {quoted(trace.drafted[j])}, the target's p without it"
        how = f"draws a word from the residual {residual}. It draws {quoted(token)} (r = {trace.residual[token]:.3f})"
    cause = (
        f"Block verification kept {_words(j)} and rejects {quoted(trace.drafted[j])} and the words after it."
        if block
        else f"Position {j + 1} rejected {quoted(trace.drafted[j])}, and the draft's words after it go with it."
    )
    return StepView(
        heading=f"{lead}the correction at position {j + 1}",
        sentence=sentence(opening, words),
        text=(
            f"{cause} The iteration ends with a correction: it {how}. So every word comes out with the "
            "target's probability, exactly."
        ),
        figure=charts.word_bars(
            WORDS,
            trace.residual,
            token,
            "residual r",
            f"Position {j + 1}: the residual r, drawn {quoted(token)}",
            subtitle=subtitle,
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
