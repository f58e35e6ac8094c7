"""Workshop exercises: a question, a link that opens a page set up for it, and the answer.

Built from ``specmath``, the registry and the parameter table. Each exercise names a
page of the registry and the settings its link opens that page with; the link is built from the
page's ``url_path`` and those settings (:meth:`Exercise.query`), never typed by hand. The question
is a template filled with the same settings, and the answer is a function of them, computed with
``specmath`` when called: the numbers an answer quotes are those of the view its link opens.
``tests/dashboard/test_exercises.py`` checks each answer's numbers against ``specmath`` again and
``tests/pages/test_exercises.py`` that every link opens its page without a warning.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import streamlit as st

import specmath
from dashboard import presets
from dashboard.binding import check_url_value
from dashboard.features import verification_rules
from dashboard.params import PARAMS, format_number
from dashboard.registry import PAGES, PageInfo

#: The measured curve of the exercise on long drafts: the issue's example (issue 45).
MINIMAX_EAGLE = "MiniMax-M3 EAGLE-3 (thinking off)"

#: Draft lengths the Speedup page draws and searches for its best k (the k slider's range).
K_MAX = int(PARAMS["k"].high)


@dataclass(frozen=True)
class Exercise:
    """One exercise.

    ``question`` is a Markdown template: ``{key}`` is the value of parameter ``key`` as the page
    shows it (the link's settings, the page's defaults for the rest) or of a number in ``given``,
    the figures the question states beyond the page's settings. ``answer`` maps those same values
    (parameters as their widgets return them, and ``given``) to the answer in Markdown.
    """

    id: str
    title: str
    question: str
    page: str  # a registry id
    settings: Mapping[str, Any]
    answer: Callable[[Mapping[str, Any]], str]
    given: Mapping[str, float] = field(default_factory=dict)

    @property
    def info(self) -> PageInfo:
        return PAGES[self.page]

    def values(self) -> dict[str, Any]:
        """Every parameter the page reads, as its link opens it, and the question's given figures."""
        shown = {key: self.settings.get(key, PARAMS[key].default) for key in self.info.params}
        return shown | dict(self.given)

    def query(self) -> dict[str, str | list[str]]:
        """The link's query parameters: the settings, as the address carries them."""
        return {key: PARAMS[key].url_text(value) for key, value in self.settings.items()}

    def question_text(self) -> str:
        filled = {key: format_number(value) for key, value in self.given.items()}
        for key in self.info.params:
            value = self.values()[key]
            filled[key] = ", ".join(PARAMS[key].url_text(value)) if PARAMS[key].kind == "multi" else _shown(key, value)
        return self.question.format(**filled)

    def settings_text(self) -> str:
        """The link's settings in words: "Acceptance rate α 0.95 · Draft length k 10"."""
        return " · ".join(f"{PARAMS[key].label} **{_shown(key, value)}**" for key, value in self.settings.items())

    def answer_text(self) -> str:
        return self.answer(self.values())


def _shown(key: str, value: Any) -> str:
    text = PARAMS[key].url_text(value)
    return ", ".join(text) if isinstance(text, list) else text


def _percent(share: float) -> str:
    return f"{100 * share:.0f}%"


# --- The answers -----------------------------------------------------------------------------


def long_draft(v: Mapping[str, Any]) -> str:
    """Is k worth it at this α and c: its speedup against the best k, and how flat the peak is."""
    alpha, k, c = v["alpha"], v["k"], v["c"]
    at_k = float(specmath.speedup(alpha, k, c))
    best_k, best = (x.item() for x in specmath.optimal_k(alpha, c, max_k=K_MAX))
    ks = np.arange(1, K_MAX + 1)
    near = int(ks[np.argmax(specmath.speedup(alpha, ks, c) >= 0.95 * best)])
    at_near = float(specmath.speedup(alpha, near, c))
    if k == best_k:
        verdict = (
            f"**Yes: k = {k} is the best draft length here.** It gives **{at_k:.2f}×**, and no other k "
            f"from 1 to {K_MAX} does better: the ★ of the bold curve sits at k = {k}."
        )
    else:
        verdict = (
            f"**k = {k} gives {at_k:.2f}×, {_percent(at_k / best)} of the best:** k = {best_k} gives "
            f"{best:.2f}× (the ★ of the bold curve)."
        )
    reach = float(alpha**k)
    text = (
        f"{verdict} A draft only {format_number(c)}× faster than the target pays for {k} tokens because "
        f"a good draft's tokens survive: position {k} is reached with probability α^{k} = {reach:.2f}."
    )
    if near < k:
        text += (
            f" The peak is flat, though: k = {near} already gives {at_near:.2f}×, "
            f"{_percent(at_near / best)} of the best, with {_percent(1 - near / k)} fewer draft steps "
            f"per iteration."
        )
    return text


def draft_is_target(v: Mapping[str, Any]) -> str:
    """Draft = target: α = 1, k + 1 tokens per call, and a speedup bounded by c."""
    k, c = v["k"], v["c"]
    chain, draft = presets.toy_chains(v["target"], v["draft"], float(v["contexts"]), v["chain_vocab"], v["seed"])
    alpha = float(specmath.stationary_distribution(chain) @ specmath.state_acceptance(chain, draft))
    tokens = float(specmath.expected_tokens(alpha, k))
    at_k = float(specmath.speedup(alpha, k, c))
    longest = float(specmath.speedup(alpha, K_MAX, c))
    return (
        f"**Acceptance becomes certain.** With q = p every ratio p/q is 1, so every draft token passes: "
        f"α = Σ min(p, p) = {alpha:.3f}. Each iteration emits all k = {k} drafted tokens and the target's "
        f"bonus token, **{tokens:.3f} tokens per target call**, and no token is ever resampled. "
        f"**The speedup stays finite because drafting is not free.** An iteration costs the target's "
        f"step plus k draft steps, 1 + k/c = {1 + k / c:.2f} target steps, so the speedup is "
        f"(k + 1)/(1 + k/c) = **{at_k:.2f}×**. It grows with k but stays below c = {format_number(c)}: "
        f"k = {K_MAX} gives {longest:.2f}×. A perfect draft makes the target as fast as the draft and no "
        f"faster; you might as well run the draft alone."
    )


def slower_than_plain(v: Mapping[str, Any]) -> str:
    """Where no draft length pays: α ≤ 1/c, with the numbers at the linked α and c."""
    alpha, c, max_k = v["alpha"], v["c"], v["max_k"]
    best_k, best = (x.item() for x in specmath.optimal_k(alpha, c, max_k=max_k))
    longer = min(4, max_k)
    at_longer = float(specmath.speedup(alpha, longer, c))
    break_even = float(specmath.speedup(1 / c, 1, c))
    pays = "pays" if best > 1 else "does not pay"
    return (
        f"**Any pair with α ≤ 1/c.** At α = {format_number(alpha)} and c = {format_number(c)} the best draft "
        f"length is k = {best_k}, and even it gives **{best:.2f}×** (k = {longer}: {at_longer:.2f}×): "
        f"speculation {pays} here. Why 1/c: one draft token costs 1/c of a target step and buys α "
        f"expected tokens on top of the one the target always yields, so k = 1 pays exactly when "
        f"α > 1/c. When it does not, no longer draft does either: its j-th token buys α^j, less than α, "
        f"for the same 1/c. So the region is α ≤ 1/c, below α = {format_number(1 / c)} at c = "
        f"{format_number(c)} and α = {format_number(1 / 20)} at c = 20; on the line itself k = 1 breaks "
        f"even at exactly {break_even:.2f}×."
    )


#: Draft lengths the vLLM answer quotes the average acceptance rate at.
VLLM_KS = (1, 2, 4, 8, 16)


def vllm_rate(alpha: float, k: int) -> float:
    """vLLM's "Avg Draft acceptance rate" under i.i.d. acceptance: accepted / drafted = (E[N] − 1)/k."""
    return float((specmath.expected_tokens(alpha, k) - 1) / k)


def vllm_average(v: Mapping[str, Any]) -> str:
    """Why accepted / drafted falls with k: the tokens after the first rejection count as drafted."""
    chain, draft = presets.toy_chains(v["target"], v["draft"], float(v["noise"]), v["chain_vocab"], v["seed"])
    alpha = float(specmath.stationary_distribution(chain) @ specmath.state_acceptance(chain, draft))
    rates = ", ".join(f"k = {k}: {vllm_rate(alpha, k):.2f}" for k in VLLM_KS)
    return (
        "**vLLM divides by every drafted token, including the ones nobody checks.** Its “Avg Draft "
        "acceptance rate” is accepted / drafted tokens, over all k positions of every draft. But a draft "
        "is cut at its first rejection: the tokens after it were drafted, are thrown away unchecked, and "
        "count as not accepted. With i.i.d. acceptance at α a draft has α + α² + … + α^k = E[N] − 1 "
        f"accepted tokens, so the rate is (E[N] − 1)/k. For this page's draft, α = {alpha:.3f} on average "
        f"over the target's stationary law: **{rates}**. Same draft; only the denominator grew. What "
        "stays put is the rate per *checked* position: the page's “Per-token acceptance” and its "
        "conditional curve P(i | i − 1) stay near α at every k, while the unconditional P(≥ i accepted) "
        "falls like α^i. Compare drafts across k by the mean acceptance length or the α fitted from it "
        "(the Calibrate page), not by vLLM's average."
    )


def rejections(v: Mapping[str, Any]) -> str:
    """How often the chapter's pair rejects, and the residual a rejection draws from."""
    p, q = presets.preset_pair(v["preset"], v["vocab"], v["seed"])
    n = v["n"]
    alpha = float(specmath.acceptance_probability(p, q))
    tv = float(specmath.tv_distance(p, q))
    residual = specmath.residual_distribution(p, q)
    labels = presets.token_labels(p.size)
    standard_error = math.sqrt(alpha * (1 - alpha) / n)
    produced = [f"r({labels[i]}) = {residual[i]:.3f}" for i in np.flatnonzero(residual > 0)]
    thinned = ", ".join(labels[i] for i in np.flatnonzero(q > p))
    return (
        f"**A rejection happens with probability 1 − α = TV(p, q) = {tv:.3f}** (α = Σ min(p, q) = "
        f"{alpha:.3f}): about {round((1 - alpha) * n):,} of the {n:,} rounds. The page's observed "
        f"acceptance rate lands within a few standard errors, √(α(1 − α)/n) = {standard_error:.5f}, of "
        f"{alpha:.3f}. **A rejection can only produce the tokens where p > q**, the ones the draft "
        f"proposes less often than the target wants: the replacement is drawn from the residual "
        f"r = max(0, p − q)/(1 − α), here {', '.join(produced)}. The tokens the draft over-proposes "
        f"(q > p: {thinned}) are emitted only as accepted drafts, thinned from q down to p."
    )


def _bounds_cross() -> float:
    """The KL (nats) where Pinsker's and Bretagnolle–Huber's lower bounds on α are equal."""
    low, high = 0.5, 2.0  # Pinsker is the larger at 0.5, Bretagnolle–Huber at 2
    for _ in range(60):
        middle = (low + high) / 2
        if specmath.pinsker_bound(middle) > specmath.bretagnolle_huber_bound(middle):
            low = middle
        else:
            high = middle
    return (low + high) / 2


def kl_floor(v: Mapping[str, Any]) -> str:
    """The lowest α a given KL allows, by both bounds, against the page's random pairs."""
    kl = v["kl"]
    pinsker = float(specmath.pinsker_bound(kl))
    bh = float(specmath.bretagnolle_huber_bound(kl))
    tighter, looser = ("Pinsker", "Bretagnolle–Huber") if pinsker >= bh else ("Bretagnolle–Huber", "Pinsker")
    P, Q = specmath.random_distribution_pairs(v["pairs"], v["kl_vocab"], rng=v["seed"])
    result = specmath.divergences(P, Q)
    close = result.kl <= kl
    if close.any():
        pairs = (
            f"These are worst cases: of the page's {v['pairs']} random pairs, the {int(close.sum())} with "
            f"KL ≤ {format_number(kl)} all have α ≥ {float(result.alpha[close].min()):.3f}."
        )
    else:
        pairs = f"None of the page's {v['pairs']} random pairs is that close."
    return (
        f"**Pinsker: α ≥ 1 − √(KL/2) = {pinsker:.3f}.** Bretagnolle–Huber: α ≥ 1 − √(1 − e^(−KL)) = "
        f"{bh:.3f}. {tighter} tells you more here, {looser} less; Pinsker is the tighter bound for small "
        f"KL and Bretagnolle–Huber beyond KL = {_bounds_cross():.3f} nats, where they cross (Pinsker says "
        f"nothing at all from KL = 2 on). {pairs} The converse fails: a large KL does not mean a poor "
        f"draft. KL is infinite as soon as q misses a token p can produce, however rare, while α barely moves."
    )


def greedy_draft(v: Mapping[str, Any]) -> str:
    """Why a greedy draft keeps p(argmax q), not Σ min(p, q), at T = 1; and why the two agree at T = 0."""
    logits = verification_rules.LOGIT_PRESETS[v["vr_preset"]]
    k, c, t = v["k"], v["c"], v["vr_temperature"]
    p, q = verification_rules.pair(logits, t)
    rules = verification_rules.PROPOSAL_RULES  # a sampled draft's rule and a greedy draft's
    rejection, greedy = (float(specmath.acceptance_probability(p, q, rules[x])) for x in ("sampled", "greedy_draft"))
    tv = float(specmath.tv_distance(p, q))
    star = int(np.argmax(q))
    p0, q0 = verification_rules.pair(logits, 0.0)
    cold = [float(specmath.acceptance_probability(p0, q0, rules[x])) for x in ("sampled", "greedy_draft")]
    per_rule = {
        name: (float(specmath.expected_tokens(alpha, k)), float(specmath.speedup(alpha, k, c)))
        for name, alpha in (("rejection sampling", rejection), ("the greedy draft", greedy))
    }
    tokens = " against ".join(f"{n:.2f} tokens per iteration, {x:.2f}×, for {who}" for who, (n, x) in per_rule.items())
    both = f"α = {cold[0]:g} under both" if cold[0] == cold[1] else f"α = {cold[0]:g} and {cold[1]:g}"
    return (
        f"**A greedy draft is checked as if it were certain of its token.** It proposes x* = argmax q "
        f"(token {presets.token_labels(p.size)[star]}) and the target treats q(x*) as 1, so x* is kept "
        f"with probability min(1, p(x*)/1) = p(x*) = **{greedy:.3f}**: the target's probability of that "
        f"one token, however well q matches p. Rejection sampling draws x ~ q and keeps it with "
        f"probability min(1, p/q): α = Σ min(p, q) = 1 − TV(p, q) = **{rejection:.3f}**. The pair is close "
        f"(TV = {tv:.3f}), but at T = {format_number(t)} p is spread out, its largest probability "
        f"{float(p.max()):.3f}, and a greedy draft is rejected whenever the target would have picked another "
        f"token. At k = {k}, c = {format_number(c)}: {tokens}. **At T = 0 the two are one rule**: both "
        f"models put all their mass on their argmax, the same token here, so both keep it: {both}. "
        f"The α-against-T chart shows the gap open as T rises; the engine "
        f"table at the page's foot says which engines draft greedily by default and how to switch to a "
        f"sampled draft."
    )


def _ninths(x: float) -> str:
    """``x`` as "10/9 ≈ 1.111" when it is a whole number of ninths, as on Sun et al.'s pair."""
    ninths = Fraction(x).limit_denominator(1000) * 9
    return f"{ninths.numerator}/9 ≈ {x:.3f}" if ninths.denominator == 1 else f"{x:.3f}"


def _ideal_accepted(p: np.ndarray, q: np.ndarray, k: int) -> float:
    """Σ over t = 1 … k of Σ min(p^⊗t, q^⊗t): a verifier that sees the blocks' joint laws keeps the
    first t tokens at most that often (the overlap of the two laws of t-token prefixes)."""
    total, P, Q = 0.0, np.ones(1), np.ones(1)
    for _ in range(k):
        P, Q = np.outer(P, p).ravel(), np.outer(Q, q).ravel()
        total += float(np.minimum(P, Q).sum())
    return total


def block_against_token(v: Mapping[str, Any]) -> str:
    """Sun et al.'s binary example: token 10/9, block 11/9, ideal 12/9 accepted tokens at k = 2."""
    p, q = verification_rules.pair(verification_rules.LOGIT_PRESETS[v["vr_preset"]], v["vr_temperature"])
    k = v["k"]
    token = float(specmath.expected_accepted_tokens(p, q, k))
    block = float(specmath.expected_accepted_tokens(p, q, k, verification="block"))
    ideal = _ideal_accepted(p, q, k)
    a, b = q / p  # draft's over target's: how much each token is over- or under-proposed
    w1 = min(1.0, p[0] / q[0])
    w2 = min(1.0, w1 * p[1] / q[1])
    return (
        f"**Token by token: {_ninths(token)} accepted tokens per iteration; block verification: "
        f"{_ninths(block)}; no lossless verifier can beat {_ninths(ideal)}** (Σ over t of the overlap "
        f"of the two models' laws of t-token prefixes). Sun et al. (2024) give the same 10/9, 11/9 and "
        f"12/9. Token verification judges each token alone: the draft proposes a {a:.0f}× as often as the "
        f"target wants it, so an a in first place is rejected half the time and the iteration ends, whatever follows. "
        f"But the block “a b” is exactly as likely under both models (1/3 · 2/3 = 2/3 · 1/3 = 2/9): block "
        f"verification carries the weight w₁ = min(1, p(a)/q(a)) = {w1:.2f} on to "
        f"w₂ = min(1, w₁ · p(b)/q(b)) = {w2:.2f} and keeps “a b” whole, the a included, since the b "
        f"that the draft under-proposes ({b:.1f}× as often as the target) pays for it. The output is still "
        f"exactly the target's. At k = 1 the two rules are the same: the gain needs a block to judge."
    )


def long_draft_disappoints(v: Mapping[str, Any]) -> str:
    """A measured curve against the i.i.d. α fitted on its AL(1): equal at k = 1, apart at k = 8, and their best k."""
    preset = specmath.ACCEPTANCE_PRESETS[v["acc"]]
    measured = specmath.acceptance(lengths=dict(preset.lengths))
    fit = measured.fitted_alpha(k=1)
    k, c, last = v["k"], v["c"], int(measured.measured)
    at = {name: float(specmath.speedup(value, k, c)) for name, value in (("measured", measured), ("iid", fit.alpha))}
    one = float(specmath.speedup(measured, 1, c))
    best_k, best = (x.item() for x in specmath.optimal_k(measured, c, max_k=last))
    iid_k, iid_best = (x.item() for x in specmath.optimal_k(fit.alpha, c, max_k=K_MAX))
    at_best = float(specmath.speedup(measured, iid_k, c)) if iid_k <= last else None
    # What positions 2 … last add per position, measured and under the fitted alpha (u_i = alpha^i).
    added = (fit.lengths[-1] - fit.lengths[0]) / (last - 1)
    promised = (fit.predicted[-1] - fit.predicted[0]) / (last - 1)
    followed = (
        f" Drafting the i.i.d. model's k = {iid_k} would give {at_best:.2f}× on this head."
        if at_best is not None
        else f" Its k = {iid_k} is past what the curve measures (k ≤ {last})."
    )
    return (
        f"**At k = 1 the two agree: AL(1) = {fit.lengths[0]:.2f}, so α = {fit.alpha:.2f} and {one:.2f}× either way. "
        f"At k = {k} the head gives {at['measured']:.2f}×, the i.i.d. α promises {at['iid']:.2f}×.** "
        f"An i.i.d. α = {fit.alpha:.2f} accepts every position with the first one's chance, so it promises "
        f"AL({last}) = {fit.predicted[-1]:.2f}; the head measures {fit.lengths[-1]:.2f}, and the promise is "
        f"{100 * fit.error[-1]:.0f} % too high. Positions 2 to {last} add {added:.2f} accepted tokens each on "
        f"average, where α², …, α^{last} would add {promised:.2f}: a head's later positions are accepted less "
        f"often once the earlier ones were. So the tokens a longer draft adds are worth less than α says, "
        f"and the best k moves down: **k = {best_k} → {best:.2f}× on the measured curve, against k = {iid_k} → "
        f"{iid_best:.2f}× for the fitted α**, at the same c = {format_number(c)}.{followed} Fit α on one k and "
        f"you learn that k; measure the curve (or the per-position rates your engine prints) before drafting long."
    )


# --- The exercises ---------------------------------------------------------------------------

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "long_draft",
        "Is a long draft worth it?",
        "A good draft, **α = {alpha}**, that is only **c = {c}** times faster than the target. Is a draft "
        "of **k = {k}** tokens worth it, or is it too long?",
        "speedup",
        {"alpha": 0.95, "k": 10, "c": 5},
        long_draft,
    ),
    Exercise(
        "draft_is_target",
        "A draft as good as the target",
        "Make the draft equal to the target: a merged draft that tells all {chain_vocab} contexts of "
        "the toy language apart is the target itself. What happens to acceptance, and why is the "
        "speedup at k = {k}, c = {c} still finite?",
        "simulator",
        {"k": 8, "c": 20, "draft": "merged", "contexts": 8, "chain_vocab": 8},
        draft_is_target,
    ),
    Exercise(
        "slower_than_plain",
        "When speculation is slower",
        "Find an (α, c) pair where speculation is slower than plain decoding at every draft length; "
        "the link opens the best-speedup map at α = {alpha}, c = {c}. Where does that region end?",
        "optimal_k",
        {"alpha": 0.3, "c": 2, "view": "speedup"},
        slower_than_plain,
    ),
    Exercise(
        "vllm_average",
        "vLLM's falling acceptance rate",
        "vLLM's “Avg Draft acceptance rate” falls as you raise the number of speculative tokens, even "
        "when the draft is good. Why? The link opens the Simulator on a good draft (the target blurred "
        "by noise {noise}) at k = {k}.",
        "simulator",
        {"k": 8, "target": "random", "draft": "noise", "noise": 0.2},
        vllm_average,
    ),
    Exercise(
        "rejections",
        "Where rejections go",
        "Run the chapter's pair of distributions {n} times. How often is the draft's token rejected, "
        "and which tokens can a rejection produce?",
        "sampling",
        {"preset": "chapter", "n": 1_000_000},
        rejections,
    ),
    Exercise(
        "kl_floor",
        "How far KL lets α fall",
        "A draft within KL(p‖q) = {kl} nats of the target: how low can its acceptance rate be? Which of "
        "the page's two bounds tells you more there?",
        "kl",
        {"logx": True},
        kl_floor,
        given={"kl": 0.1},
    ),
    Exercise(
        "greedy_draft",
        "Why a greedy draft loses at temperature 1",
        "The {vr_preset} pair: a draft whose logits are within 0.2 of the target's. At temperature "
        "**T = {vr_temperature}** an engine whose draft proposes its most likely token accepts far fewer "
        "draft tokens than rejection sampling would, though p ≈ q. Why? And what changes at T = 0?",
        "verification",
        {"vr_preset": "close", "vr_temperature": 1.0},
        greedy_draft,
    ),
    Exercise(
        "block_against_token",
        "Block against token verification",
        "Sun et al.'s binary pair (tokens a and b, t0 and t1 on the page): the target prefers b, "
        "p = (1/3, 2/3); the draft prefers a, "
        "q = (2/3, 1/3). With **k = {k}** draft tokens, how many does token-by-token verification accept "
        "per iteration, how many block verification, and how many could any lossless verifier?",
        "verification",
        {"vr_preset": "binary", "k": 2},
        block_against_token,
    ),
    Exercise(
        "long_draft_disappoints",
        "Why does k = 8 disappoint on a head whose k = 1 looks great?",
        "The **{acc}** curve (InferenceX's measurement on SPEED-Bench's coding prompts): at k = 1 it "
        "accepts the draft's token most of the time, so the i.i.d. α fitted on k = 1 is high and promises a "
        "long draft a lot. At **c = {c}**, why does **k = {k}** give less than that α promises, and which k "
        "should you draft instead?",
        "speedup",
        {"acc": MINIMAX_EAGLE, "k": 8, "c": 10},
        long_draft_disappoints,
    ),
)

BY_ID = {exercise.id: exercise for exercise in EXERCISES}


def problems(exercise: Exercise) -> list[str]:
    """What is wrong with an exercise's link: a page not in the registry, a parameter the page
    does not read, a value its widget cannot take. Empty for a good exercise."""
    if exercise.page not in PAGES:
        return [f"{exercise.id}: no page {exercise.page!r} in the registry"]
    found = []
    for key, text in exercise.query().items():
        if key not in exercise.info.params:
            found.append(f"{exercise.id}: page {exercise.page!r} has no parameter {key!r}")
        elif (problem := check_url_value(PARAMS[key], text)) is not None:
            found.append(f"{exercise.id}: {problem}")
    return found


def _check_all() -> None:
    found = [problem for exercise in EXERCISES for problem in problems(exercise)]
    if len(BY_ID) != len(EXERCISES):
        found.append("two exercises share an id")
    if found:
        raise ValueError("; ".join(found))


_check_all()


@st.cache_data(show_spinner=False)
def exercise_answers() -> tuple[str, ...]:
    """Each exercise's answer, in order: they depend on nothing a session sets, and computing them
    was half the Exercises page's run."""
    return tuple(exercise.answer_text() for exercise in EXERCISES)
