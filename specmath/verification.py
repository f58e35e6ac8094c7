r"""Verification rules: what the target does with a draft token, as papers and serving engines do it.

The chapter's rule (Leviathan et al. 2023) samples the draft token from q and keeps it with
probability :math:`\min(1, p/q)`. Engines mostly run something else by default: a greedy draft
(the draft's argmax, as a point mass), an exact match against the target's own sample, or lossy
relaxations that keep more draft tokens than the target's law allows: :data:`RULES` holds each, as
data (its settings with their defaults and bounds, its law, whether it is lossless, the engines that
run it, where it was read). Block verification (Sun et al. 2024) checks k draft tokens jointly.
Conventions: ``p`` is the target's distribution, ``q`` the draft's, along the last axis.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._kernels import RESIDUAL_MASS_TOLERANCE
from ._validate import (
    MAX_DRAFT_LENGTH,
    SUM_TOLERANCE,
    as_count,
    as_distribution,
    as_distribution_pair,
    as_draft_length,
    as_float_array,
    as_positive,
    scalar_or_array,
    shown,
    shown_first,
)

#: Verification schemes of :func:`expected_accepted_tokens` and the Markov-chain decoders.
VERIFICATIONS = ("token", "block")

#: Cap on the ``V**k`` draft blocks :func:`expected_accepted_tokens` enumerates for ``"block"``:
#: a few arrays of this many floats (tens of MB).
MAX_BLOCK_ENUMERATION = 10**6


def _as_choice(value, name: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}, got {shown(value):.80}")
    return value


def _as_stack(value, name: str) -> np.ndarray:
    """Check distributions along the last axis of an array of any rank >= 1; return them renormalized."""
    arr = as_float_array(value, name)
    if arr.ndim <= 1:
        return as_distribution(value, name)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        bad = "NaN" if np.isnan(arr).any() else "an infinite value"
        raise ValueError(f"{name} contains {bad}; every probability must be a finite number")
    negative = arr < 0
    if negative.any():
        where = tuple(int(i) for i in np.unravel_index(int(np.flatnonzero(negative)[0]), arr.shape))
        raise ValueError(
            f"{name} has a negative entry ({shown_first(value, negative)} at index {where}); probabilities must be >= 0"
        )
    totals = arr.sum(axis=-1, keepdims=True)
    off = np.abs(totals[..., 0] - 1.0) > SUM_TOLERANCE
    if off.any():
        row = tuple(int(i) for i in np.unravel_index(int(np.flatnonzero(off)[0]), off.shape))
        raise ValueError(
            f"{name} row {row} sums to {totals[row][0]:.9g}, not 1 (tolerance {SUM_TOLERANCE:g}); "
            "each distribution runs along the last axis"
        )
    return arr / totals


def _as_pairs(p, q) -> tuple[np.ndarray, np.ndarray]:
    """Check a target and a draft: 1-D distributions, or stacks of them of one shape (..., V)."""
    P, Q = as_float_array(p, "p"), as_float_array(q, "q")
    if P.ndim <= 1 and Q.ndim <= 1:
        return as_distribution_pair(p, q)
    P, Q = _as_stack(p, "p"), _as_stack(q, "q")
    if P.shape[-1] != Q.shape[-1]:
        raise ValueError(f"p and q must have the same length, got {P.shape[-1]} and {Q.shape[-1]}")
    if P.ndim == Q.ndim and P.shape != Q.shape:
        raise ValueError(f"p and q must have the same shape, got {P.shape} and {Q.shape}")
    if P.shape != Q.shape:
        # Name the one with more axes: the other is a single distribution, or a smaller stack.
        name, other = ("p", "q") if P.ndim > Q.ndim else ("q", "p")
        shapes = {"p": P.shape, "q": Q.shape}
        raise ValueError(
            f"{name} has shape {shapes[name]} but {other} has shape {shapes[other]}: give a 1-D distribution "
            "each, or stacks of distributions of one shape (..., V)"
        )
    return P, Q


def _one_hot_argmax(x: np.ndarray) -> np.ndarray:
    """A point mass on each last-axis argmax (the lowest index of a tie, as :func:`numpy.argmax`)."""
    return (np.arange(x.shape[-1]) == np.argmax(x, axis=-1)[..., None]).astype(float)


# --- the rules, as data ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleParam:
    """One setting of a verification rule.

    Attributes
    ----------
    name : str
        The keyword :func:`first_token_distribution` takes it by; the Verification rules page's
        address carries it as ``vr_<name>``.
    label : str
        What the page calls it, with the engine's own name of the setting.
    default : float
        The engine's default, as its source (the rule's ``source``) sets it.
    help : str
        What it does, in a sentence; the page adds "default <default>".
    high : float or None
        The largest value accepted (the smallest is 0); None for no bound.
    integer : bool
        A whole number from 1 up to the vocabulary size V instead (``high`` is then None).
    shown : tuple of float
        The largest value and the step the page's slider offers.
    """

    name: str
    label: str
    default: float
    help: str
    high: float | None = None
    integer: bool = False
    shown: tuple[float, float] = (1.0, 0.01)

    def read(self, value, vocab: int) -> float | int:
        """``value`` checked against this setting's bounds (V = ``vocab``); a ValueError names what is wrong."""
        if self.integer:
            count = as_count(value, self.name, cap=2**62)
            if count > vocab:
                raise ValueError(f"{self.name} must be <= the vocabulary size V = {vocab} here, got {shown(value)}")
            return count
        x = as_positive(value, self.name, allow_zero=True)
        if self.high is not None and x > self.high:
            raise ValueError(f"{self.name} must be within [0, {self.high:g}], got {shown(value)}")
        return x


@dataclass(frozen=True)
class Rule:
    r"""A verification rule: what the target does with a draft token, as a paper or an engine does it.

    Attributes
    ----------
    name : str
        Its name in :func:`first_token_distribution` and :func:`acceptance_probability`.
    title : str
        What the pages call it; a lossy rule's title holds its settings as ``str.format`` fields.
    law : callable
        ``law(P, Q, **settings)``: the first emitted token's law along the last axis, from checked
        stacks of target and draft distributions and the rule's settings read by its :attr:`params`.
        Its docstring is the rule's description, with the formula and where each step is read.
    lossless : bool
        Whether the law is p at every setting.
    proposal : {"sampled", "greedy_draft"}
        How the draft proposes: :math:`x \sim q`, or a *greedy draft*, :math:`x^* = \arg\max q`
        (see :data:`PROPOSALS`). Greedy *decoding*, both models at temperature 0, is no proposal:
        it is every rule at T = 0 (:func:`with_temperature`).
    engines : str
        Which engines run it, and the setting that selects it.
    source : str
        The paper, and the engine files and lines at the version read.
    acceptance : callable or None
        ``acceptance(P, Q)``: the probability the draft token is kept, along the last axis, for
        :func:`acceptance_probability`; None where only the law is modelled.
    params : tuple of RuleParam
        Its settings, in the order the page shows them.
    """

    name: str
    title: str
    law: Callable[..., np.ndarray]
    lossless: bool
    proposal: str
    engines: str
    source: str
    acceptance: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    params: tuple[RuleParam, ...] = ()

    @property
    def defaults(self) -> dict[str, float]:
        """Each setting's default, by name."""
        return {param.name: param.default for param in self.params}

    def titled(self, settings: dict[str, float]) -> str:
        """:attr:`title` with ``settings`` filled in (the defaults for those not given)."""
        return self.title.format(**(self.defaults | settings))

    def settings(self, given: dict, vocab: int) -> dict[str, float | int]:
        """The rule's settings from ``given`` (keyword arguments), checked; a ValueError names the first
        one it does not take."""
        given = dict(given)
        read = {param.name: param.read(given.pop(param.name, param.default), vocab) for param in self.params}
        if given:
            allowed = ", ".join(param.name for param in self.params) or "none"
            raise ValueError(f"{sorted(given)[0]} is not a parameter of rule {self.name!r} (it takes: {allowed})")
        return read


#: How a draft proposes its token: drawn from q, or a *greedy draft*, the argmax of q checked as a
#: point mass. Greedy *decoding* (temperature 0, both models) is a temperature, not a proposal.
PROPOSALS = ("sampled", "greedy_draft")


def _greedy_draft(Q: np.ndarray) -> np.ndarray:
    """A greedy draft as its verifier sees it: a point mass on the argmax of q."""
    return _one_hot_argmax(Q)


def _rejection_law(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    r"""Rejection sampling (Leviathan, Kalman and Matias 2023, "Fast Inference from Transformers via
    Speculative Decoding", Algorithm 1; the chapter's rule): the draft token is sampled,
    :math:`x \sim q`, and kept with probability :math:`\min(1, p(x)/q(x))`, so
    :math:`\alpha = \sum_x \min(p(x), q(x))`; on a rejection the emitted token is drawn from
    :math:`\max(0, p - q)`, normalized. Law: :math:`\min(p, q) + \max(0, p - q)` (Appendix A.1)."""
    return np.minimum(P, Q) + np.maximum(P - Q, 0.0)


def _rejection_alpha(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    return np.minimum(P, Q).sum(axis=-1)


def _greedy_draft_law(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    r"""A greedy draft: the draft proposes :math:`x^* = \arg\max q` (the lowest index of a tie),
    verified by rejection sampling with q replaced by the point mass :math:`\delta_{x^*}`, so kept
    with probability :math:`\min(1, p(x^*)/1)`: :math:`\alpha = p(x^*)`. Law:
    :math:`p(x^*)\,\delta_{x^*} + p \cdot [x \ne x^*]`.

    This is also SGLang's default target-only verification at thresholds 1 (``"sglang_threshold"``),
    and vLLM's default at temperature > 0: ``draft_sample_method = "greedy"`` treats the draft as
    one-hot and the standard rejection sampler keeps it when
    ``target_logprob > log(u) + draft_logprob`` with ``draft_logprob = 0`` (vllm 0.34.0:
    ``vllm/config/speculative.py`` line 682, ``vllm/v1/worker/gpu/spec_decode/rejection_sampler_utils.py``
    lines 200-201 and 716). It keeps :math:`p(\arg\max q)`, far less than rejection sampling for
    flat distributions even when p is close to q."""
    return _rejection_law(P, _greedy_draft(Q))


def _greedy_draft_alpha(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    return np.take_along_axis(P, np.argmax(Q, axis=-1)[..., None], axis=-1)[..., 0]


def _exact_match_law(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    r"""Exact match: the draft token is sampled, :math:`x \sim q`, the target draws its own
    :math:`y \sim p` independently, and :math:`x` is kept when :math:`y = x`, so
    :math:`\alpha = \sum_x p(x)\, q(x)`; the emitted token is always :math:`y`. Law:
    :math:`p\,q + p\,(1 - q)`."""
    return P * Q + P * (1.0 - Q)


def _exact_match_alpha(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    return (P * Q).sum(axis=-1)


#: Typical acceptance's ε and δ at Medusa's ``medusa_generate`` defaults, ``posterior_threshold=0.09``
#: and ``posterior_alpha=0.3`` (``medusa/model/medusa_model.py`` lines 244-246 at e2a5d20).
TYPICAL_PARAMS = (
    RuleParam(
        "epsilon",
        "Typical ε (posterior_threshold)",
        0.09,
        "Typical acceptance keeps the draft token when p(x) > min(ε, δ·exp(−H(p))).",
    ),
    RuleParam("delta", "Typical δ (posterior_alpha)", 0.3, "The entropy-scaled threshold's factor."),
)


def _entropy(P: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(P > 0, P * np.log(P), 0.0).sum(axis=-1)


def _typical_threshold(P: np.ndarray, epsilon: float, delta: float) -> np.ndarray:
    r""":math:`\min(\epsilon, \delta\, e^{-H(p)})`, shape (..., 1), with the paper's entropy (the
    engines compute :math:`-\sum p \log(p + 10^{-5})`)."""
    return np.minimum(epsilon, delta * np.exp(-_entropy(P)))[..., None]


def _typical_law(P: np.ndarray, Q: np.ndarray, epsilon: float, delta: float) -> np.ndarray:
    r"""Medusa's typical acceptance (Cai et al. 2024, "Medusa: Simple LLM Inference Acceleration
    Framework with Multiple Decoding Heads") as its code runs by default
    (``medusa_generate(..., fast=True)``, ``medusa/model/medusa_model.py`` line 249;
    FasterDecoding/Medusa, ``medusa/model/utils.py``, both at commit e2a5d20): the draft token is
    the draft's argmax :math:`x^*` (the heads' top-1 candidate, ``generate_candidates``,
    ``torch.topk``, line 290), kept when

    .. math:: p(x^*) > \min\big(\epsilon,\ \delta\, e^{-H(p)}\big), \quad H(p) = -\sum_x p(x) \log p(x)

    (``evaluate_posterior``, lines 474-487); on a rejection the emitted token is the target's
    argmax (the next ``generate_candidates`` takes ``argmax(logits)`` when ``fast``, lines
    280-281). The law is a point mass on :math:`x^*` or on :math:`\arg\max p`. Medusa's code
    computes the entropy as :math:`-\sum p \log(p + 10^{-5})` (line 481); the formula here is the
    paper's. Its non-fast path calls ``get_typical_posterior_mask`` with one argument too many
    (line 504) and is not modelled. Parameters ``epsilon`` (``posterior_threshold``) and ``delta``
    (``posterior_alpha``), both >= 0, defaults :data:`TYPICAL_PARAMS`. No setting of them is
    lossless when p is not a point mass: the output is always one; at temperature 0 (p one-hot)
    every setting gives p."""
    star = _greedy_draft(Q)
    p_star = (P * star).sum(axis=-1, keepdims=True)
    return np.where(p_star > _typical_threshold(P, epsilon, delta), star, _one_hot_argmax(P))


#: SGLang's launcher raises ``threshold_acc`` to at least this before dividing by it
#: (``capped_threshold_acc = fmaxf(threshold_acc, 1e-9f)``, see :func:`_sglang_threshold_law`).
SGLANG_MIN_THRESHOLD_ACC = 1e-9


def _sglang_threshold_law(P: np.ndarray, Q: np.ndarray, threshold_single: float, threshold_acc: float) -> np.ndarray:
    r"""SGLang's target-only verification kernel ``TreeSpeculativeSamplingTargetOnly``
    (sgl-project/sglang, ``sgl-kernel/csrc/speculative/speculative_sampling.cuh`` at commit 120affb),
    for a single draft token :math:`x^* = \arg\max q` (a chain draft with top-k 1, so no siblings):
    with ``prob_acc`` :math:`= p(x^*)` and a coin :math:`u \sim U[0, 1)`, the token is kept when
    ``coin <= prob_acc / threshold_acc || target_prob_single >= threshold_single`` (lines 78-80),
    so with probability

    .. math:: a = \begin{cases} 1 & p(x^*) \ge t_\text{single} \\
              \min\big(1, p(x^*) / \max(t_\text{acc}, 10^{-9})\big) & \text{otherwise} \end{cases}

    (the launcher caps ``threshold_acc`` at ``fmaxf(threshold_acc, 1e-9f)``). On a rejection the
    kernel writes :math:`p(x^*)` into ``draft_probs[x*]`` (line 92) and samples from
    ``relu(target_probs - draft_probs)`` (line 103 on), i.e. from p without :math:`x^*` (the
    caller's other ``draft_probs`` entries are taken as 0, the kernel's intent: the SGLang caller
    read, ``EagleVerifyInput.sample``, allocates them with ``torch.empty_like`` and the comment
    "This is currently not used", so in that version they are whatever memory held; sglang 0.5.23
    passes ``torch.zeros_like(target_probs)``, ``sglang/srt/speculative/eagle_utils.py`` lines
    745-749). Law: :math:`a\,\delta_{x^*} + (1 - a)\, p\,[x \ne x^*] / (1 - p(x^*))`. Parameters
    ``threshold_single`` and ``threshold_acc`` in [0, 1] (``--speculative-accept-threshold-single``,
    ``--speculative-accept-threshold-acc``, default 1.0 each, ``sglang/srt/arg_groups/fields/spec.py``
    lines 109-116 in sglang 0.5.23, whose help says "greater than" threshold_single where the kernel
    keeps at ``>=``); at 1 and 1 it is the greedy draft's rule and gives p."""
    star = _greedy_draft(Q)
    p_star = (P * star).sum(axis=-1, keepdims=True)
    keep = np.where(
        p_star >= threshold_single, 1.0, np.minimum(1.0, p_star / max(threshold_acc, SGLANG_MIN_THRESHOLD_ACC))
    )
    others, rest = P * (1.0 - star), 1.0 - p_star  # p off the draft token, and its mass
    with np.errstate(divide="ignore", invalid="ignore"):
        resampled = np.where(rest > 0, others / np.where(rest > 0, rest, 1.0), 0.0)
    return keep * star + (1.0 - keep) * resampled


def _trtllm_relaxed_law(P: np.ndarray, Q: np.ndarray, relaxed_topk: int, relaxed_delta: float) -> np.ndarray:
    r"""TensorRT-LLM's relaxed acceptance for MTP and EAGLE-3 inside a thinking span
    (NVIDIA/TensorRT-LLM, ``mtpRelaxedAcceptanceKernel``,
    ``cpp/tensorrt_llm/kernels/speculativeDecoding/mtpKernels.cu`` lines 453-543 at commit b35ac1b).
    The draft token is the draft's argmax :math:`x^*` (``MTPWorker.draft_sampler``, ``torch.argmax``,
    ``tensorrt_llm/_torch/speculative/mtp.py`` line 1144 at 23ee85ee); the target's top
    ``relaxed_topk`` tokens by probability (``torch.topk`` of ``torch.softmax`` of the target's
    logits, ``topk_kernel`` and ``process_generation_logits``, lines 710-728, called at lines
    847-857) are its candidates, walked in order; the walk stops at the first candidate after the
    top one whose probability is below :math:`p_{\max} - \delta` (lines 488-494), and the draft
    token is kept if it is a candidate met before that (lines 495-500). So with :math:`r(x^*)` the
    rank of :math:`x^*` in p (0 for the top; ties to the lowest index here, which ``torch.topk``
    leaves unspecified), it is kept when

    .. math:: r(x^*) < K \ \text{and}\ \big(r(x^*) = 0 \ \text{or}\ p(x^*) \ge \max p - \delta\big)

    and otherwise the emitted token is the target's top candidate :math:`\arg\max p` (the "golden
    token", line 516), not a sample. Law: a point mass on :math:`x^*` or on :math:`\arg\max p`.
    Parameters ``relaxed_topk`` K, an integer in [1, V], and ``relaxed_delta`` :math:`\delta`, a
    probability gap in [0, 1] (the kernel takes any float, and a gap of 1 or more keeps every top-K
    token); defaults ``MTPDecodingConfig``'s, ``relaxed_topk: int = 1`` and ``relaxed_delta: float = 0.``
    (``tensorrt_llm/llmapi/llm_args.py`` lines 796-797 at 23ee85ee, with
    ``use_relaxed_acceptance_for_thinking: bool = False`` beside them, line 795). TensorRT-LLM
    applies ``relaxed_delta`` only between the thinking span's begin and end tokens and a gap of 0
    elsewhere (lines 522-542), and its probabilities are the softmax of the logits without the
    request's temperature; here p is whatever distribution is given. At ``relaxed_topk = 1`` (or a
    gap of 0 with a single top token) it is an exact match against the target's argmax, i.e.
    greedy decoding: no setting gives p unless p is a point mass, and at temperature 0 (p one-hot)
    every gap below 1 gives p."""
    star = _greedy_draft(Q)
    p_star = (P * star).sum(axis=-1, keepdims=True)
    index = np.arange(P.shape[-1])
    star_index = np.argmax(Q, axis=-1)[..., None]
    # Rank of the draft token in p, descending, ties to the lowest index.
    ahead = (P > p_star) | ((P == p_star) & (index < star_index))
    rank = ahead.sum(axis=-1, keepdims=True)
    keeps = (rank < relaxed_topk) & ((rank == 0) | (p_star >= P.max(axis=-1, keepdims=True) - relaxed_delta))
    return np.where(keeps, star, _one_hot_argmax(P))


def _vllm_typical_law(P: np.ndarray, Q: np.ndarray, epsilon: float, delta: float) -> np.ndarray:
    r"""vLLM's typical acceptance sampler (vLLM's V0 engine, ``--spec-decoding-acceptance-method
    typical_acceptance_sampler``; ``vllm/model_executor/layers/typical_acceptance_sampler.py`` at
    vllm-project/vllm commit 60b5eb0): Medusa's test applied to the token the draft proposed, not
    to its argmax. The draft token is sampled, :math:`x \sim q` ("the token ids that were sampled
    from the draft probabilities", ``forward``'s docstring, lines 67-68; ``draft_probs`` is
    unused, line 65), kept when :math:`p(x) > \min(\epsilon, \delta\, e^{-H(p)})`
    (``_evaluate_accepted_tokens``, lines 132-147), and otherwise replaced by the target's argmax
    (``_get_recovered_token_ids``, ``torch.argmax(target_probs)``, line 163). Law:

    .. math:: q(x)\,[p(x) > t] + \Big(\sum_y q(y)\,[p(y) \le t]\Big)\, \delta_{\arg\max p},
              \quad t = \min(\epsilon, \delta\, e^{-H(p)})

    with the paper's entropy (vLLM's code adds :math:`10^{-5}` inside the log, line 140).
    Settings :data:`TYPICAL_PARAMS`, Medusa's names and defaults; vLLM's ``SpeculativeConfig``
    sets the same 0.09 and 0.3 when they are not given (read in a copy of vLLM's config, not at a
    vllm-project commit). Where every token q may draw passes, the law is q itself: lossy unless
    q = p or p is a point mass; at T = 0 (both one-hot) it is an exact match against the target's
    argmax and gives p."""
    keep = P > _typical_threshold(P, epsilon, delta)
    return Q * keep + (Q * ~keep).sum(axis=-1, keepdims=True) * _one_hot_argmax(P)


#: Every verification rule, by name: the lossless ones first, then the lossy ones; the pages,
#: their addresses, Step through's proposals, Calibrate and the exercises read it. A new rule is
#: one entry here (its law beside it) and its test.
RULES: dict[str, Rule] = {
    rule.name: rule
    for rule in (
        Rule(
            "rejection",
            "rejection sampling",
            _rejection_law,
            lossless=True,
            proposal="sampled",
            engines='vLLM (draft_sample_method "probabilistic"), SGLang (--speculative-use-rejection-sampling), '
            "TensorRT-LLM (use_rejection_sampling, later versions)",
            source="Leviathan, Kalman and Matias 2023, Algorithm 1",
            acceptance=_rejection_alpha,
        ),
        Rule(
            "greedy_draft",
            "greedy draft",
            _greedy_draft_law,
            lossless=True,
            proposal="greedy_draft",
            engines="vLLM 0.34.0 (the default), SGLang 0.5.23 (the default, thresholds 1 and 1)",
            source="vllm/config/speculative.py line 682, vllm/v1/worker/gpu/spec_decode/rejection_sampler_utils.py "
            "lines 200-201, 716 (vllm 0.34.0)",
            acceptance=_greedy_draft_alpha,
        ),
        Rule(
            "exact_match",
            "exact match",
            _exact_match_law,
            lossless=True,
            proposal="sampled",
            engines="TensorRT-LLM MTP (non-greedy batches, later versions), Medusa (sampling nucleus)",
            source="medusa/model/utils.py lines 350-402 at e2a5d20",
            acceptance=_exact_match_alpha,
        ),
        Rule(
            "typical",
            "typical (Medusa, ε {epsilon:g}, δ {delta:g})",
            _typical_law,
            lossless=False,
            proposal="greedy_draft",
            engines='Medusa (sampling "typical", the default at T > 0)',
            source="Cai et al. 2024; medusa/model/utils.py lines 474-487, medusa/model/medusa_model.py lines "
            "244-249 at e2a5d20",
            params=TYPICAL_PARAMS,
        ),
        Rule(
            "vllm_typical",
            "typical, sampled draft (vLLM, ε {epsilon:g}, δ {delta:g})",
            _vllm_typical_law,
            lossless=False,
            proposal="sampled",
            engines="vLLM V0 (--spec-decoding-acceptance-method typical_acceptance_sampler)",
            source="vllm/model_executor/layers/typical_acceptance_sampler.py lines 82-88, 132-147, 163 at 60b5eb0",
            params=TYPICAL_PARAMS,
        ),
        Rule(
            "sglang_threshold",
            "SGLang thresholds ({threshold_single:g}, {threshold_acc:g})",
            _sglang_threshold_law,
            lossless=False,
            proposal="greedy_draft",
            engines="SGLang (--speculative-accept-threshold-single, --speculative-accept-threshold-acc below 1)",
            source="sgl-kernel/csrc/speculative/speculative_sampling.cuh lines 78-103 at 120affb; "
            "sglang/srt/arg_groups/fields/spec.py lines 109-116 (sglang 0.5.23)",
            params=(
                RuleParam(
                    "threshold_single",
                    "SGLang threshold_single",
                    1.0,
                    "SGLang keeps the draft token outright when p(x) ≥ this "
                    "(--speculative-accept-threshold-single; 1: off).",
                    high=1.0,
                ),
                RuleParam(
                    "threshold_acc",
                    "SGLang threshold_acc",
                    1.0,
                    "Otherwise SGLang keeps it with probability min(1, p(x)/threshold_acc) "
                    "(--speculative-accept-threshold-acc; 1: lossless).",
                    high=1.0,
                ),
            ),
        ),
        Rule(
            "trtllm_relaxed",
            "TensorRT-LLM relaxed (top-{relaxed_topk}, Δ {relaxed_delta:g})",
            _trtllm_relaxed_law,
            lossless=False,
            proposal="greedy_draft",
            engines="TensorRT-LLM MTP and EAGLE-3 (use_relaxed_acceptance_for_thinking, in a thinking span)",
            source="cpp/tensorrt_llm/kernels/speculativeDecoding/mtpKernels.cu lines 453-543 at b35ac1b; "
            "tensorrt_llm/llmapi/llm_args.py lines 795-797 at 23ee85ee",
            params=(
                RuleParam(
                    "relaxed_topk",
                    "TensorRT-LLM relaxed_topk",
                    1,
                    "Relaxed acceptance keeps the draft token when it is among the target's top K tokens and "
                    "within relaxed_delta of the top one's probability (1: exact match with the target's "
                    "argmax). At most the vocabulary size is used.",
                    integer=True,
                    shown=(10, 1),
                ),
                RuleParam(
                    "relaxed_delta",
                    "TensorRT-LLM relaxed_delta",
                    0.0,
                    "The probability gap below the top token within which a top-K token still passes.",
                    high=1.0,
                    shown=(1.0, 0.05),
                ),
            ),
        ),
    )
}

#: Rules :func:`acceptance_probability` computes alpha for.
ACCEPTANCE_RULES = tuple(name for name, rule in RULES.items() if rule.acceptance is not None)
#: Rules :func:`first_token_distribution` gives the law of the first emitted token for: all of them.
FIRST_TOKEN_RULES = tuple(RULES)


def acceptance_probability(p, q, rule="rejection"):
    r"""Probability that a draft token is accepted, under a rule of :data:`RULES` that models it.

    ``"rejection"`` (the default, the chapter's, Leviathan et al. 2023): :math:`x \sim q` kept with
    probability :math:`\min(1, p(x)/q(x))`:

    .. math:: \alpha = \sum_x \min(p(x), q(x))

    ``"greedy_draft"``: the draft's argmax :math:`x^*` (the lowest index of a tie), checked as a
    point mass: :math:`\alpha = p(x^*)`. ``"exact_match"``: :math:`x \sim q` kept when the
    target's own sample :math:`y \sim p` equals it: :math:`\alpha = \sum_x p(x)\, q(x)`. Each rule's
    law function in :data:`RULES` says where it is read and which engines run it.

    The lossless ones emit exactly p (:func:`first_token_distribution`); they differ only in how
    often the draft token survives. No lossless rule with a draft sampled from q keeps it more often
    than rejection sampling (the output y ~ p and the draft x ~ q are coupled, and
    :math:`P(x = y) \le \sum \min(p, q)`); a greedy draft keeps :math:`p(\arg\max q)`, far less
    for flat distributions even when p is close to q.

    Parameters
    ----------
    p, q : array_like, shape (V,) or (..., V)
        Target and draft distributions along the last axis (each non-negative, summing to 1
        within :data:`specmath.verification.SUM_TOLERANCE`); stacks of pairs have one shape.
    rule : str, one of :data:`ACCEPTANCE_RULES`, default "rejection"

    Returns
    -------
    numpy.float64 or numpy.ndarray
        alpha in [0, 1], one per pair (a scalar for 1-D inputs). For ``"rejection"`` it equals
        ``1 - tv_distance(p, q)`` up to rounding.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a valid distribution, their shapes differ, or ``rule`` is unknown.
    """
    rule = _as_choice(rule, "rule", ACCEPTANCE_RULES)
    P, Q = _as_pairs(p, q)
    return scalar_or_array(np.minimum(RULES[rule].acceptance(P, Q), 1.0))


def first_token_distribution(p, q, rule, **params) -> np.ndarray:
    r"""The law of the first token an iteration emits, under a verification rule of :data:`RULES`.

    Each rule proposes a draft token, keeps it or not, and on a rejection emits a token of its
    own; the law is the kept mass plus the rejection's, computed as such (not assumed) by the
    rule's ``law``, whose docstring gives the formula and where it was read. The lossless rules
    give p (to rounding); the lossy ones keep the draft token more often than p allows.

    Parameters
    ----------
    p, q : array_like, shape (V,) or (..., V)
        Target and draft distributions along the last axis, stacks of one shape.
    rule : str, one of :data:`FIRST_TOKEN_RULES`
    **params
        The rule's settings (its ``params``; the engine's default for those not given); others
        are refused.

    Returns
    -------
    numpy.ndarray, same shape as ``p``
        The first emitted token's law along the last axis.

    Raises
    ------
    ValueError
        For an invalid pair, an unknown rule, or a parameter the rule does not take or out of range.
    """
    rule = RULES[_as_choice(rule, "rule", FIRST_TOKEN_RULES)]
    P, Q = _as_pairs(p, q)
    return rule.law(P, Q, **rule.settings(params, P.shape[-1]))


def with_temperature(logits, temperature) -> np.ndarray:
    r"""A model's next-token distribution at a temperature, from its logits.

    .. math:: p_T(x) = \frac{e^{\ell(x)/T}}{\sum_y e^{\ell(y)/T}} \quad (T > 0), \qquad
              p_0 = \delta_{\arg\max \ell}

    The softmax of the logits divided by the temperature, as the verifiers read here apply it
    (SGLang's ``EagleVerifyInput.sample``: ``F.softmax(next_token_logits / expanded_temperature)``;
    Medusa's ``evaluate_posterior``: ``torch.softmax(logits[:, :-1] / temperature)``, line 476); at
    ``T = 0`` the one-hot argmax, ties to the lowest index as :func:`numpy.argmax` (and as
    greedy decoding does), though the softmax's limit spreads a tie evenly. Computed from
    ``(logits - max) / T`` so that neither tiny temperatures nor large logits overflow. One
    pair of logits at one temperature gives p and q for :func:`acceptance_probability`.

    Parameters
    ----------
    logits : array_like, shape (V,) or (..., V)
        Finite real logits along the last axis, V >= 1.
    temperature : float
        T >= 0, finite.

    Returns
    -------
    numpy.ndarray, same shape as ``logits``
        A distribution along the last axis.
    """
    arr = as_float_array(logits, "logits")
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError(f"logits must be an array of at least one logit along its last axis, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"logits must be finite, got {shown_first(logits, ~np.isfinite(arr))}")
    t = as_positive(temperature, "temperature", allow_zero=True)
    if t == 0:
        return _one_hot_argmax(arr)
    with np.errstate(over="ignore"):
        scaled = (arr - arr.max(axis=-1, keepdims=True)) / t  # <= 0, or -inf: exp never overflows
    weights = np.exp(scaled)
    return weights / weights.sum(axis=-1, keepdims=True)


def _block_stop_chances(weight: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    r"""Sun et al.'s stopping chance :math:`h = m / (m + 1 - w)`, :math:`m = \sum_y \max(w p(y) - q(y), 0)`.

    ``weight`` holds the block weights w of prefixes; p and q are the next position's rows (one
    pair, or one row pair per prefix along a last axis). Where m is no more than
    :data:`RESIDUAL_MASS_TOLERANCE` the chance is 0: stopping there would leave nothing to
    sample (0/0 when also w = 1).
    """
    mass = np.maximum(weight[..., None] * p - q, 0.0).sum(axis=-1)
    empty = mass <= RESIDUAL_MASS_TOLERANCE
    return np.where(empty, 0.0, mass / np.where(empty, 1.0, mass + 1.0 - weight))


def expected_accepted_tokens(p, q, k, verification="token") -> np.float64:
    r"""Exact expected number of draft tokens accepted per iteration (bonus token not counted).

    For a context-independent pair (the target's law p and the draft's q the same at every
    position), k draft tokens :math:`x_i \sim q`:

    ``"token"``, token-by-token verification (Leviathan et al. 2023): position i survives with
    probability :math:`\alpha = \sum \min(p, q)` given the ones before, so

    .. math:: \mathbb{E}[\tau] = \sum_{i=1}^{k} \alpha^i = \frac{\alpha (1 - \alpha^k)}{1 - \alpha}

    ``"block"``, block verification (Sun et al. 2024, "Block Verification Accelerates
    Speculative Decoding", arXiv 2403.10444, ICLR 2025): along the block, weights :math:`w_0 = 1`,
    :math:`w_i = \min(1, w_{i-1}\, p(x_i)/q(x_i))`; stopping chances
    :math:`h_i = m_i / (m_i + 1 - w_i)` with :math:`m_i = \sum_y \max(w_i p(y) - q(y), 0)` for
    i < k and :math:`h_k = w_k`; with :math:`\eta_i \sim U[0, 1)`, the accepted length is the last
    i with :math:`\eta_i < h_i` (0 if none), and the next token is drawn from
    :math:`\propto \max(w_\tau p - q, 0)` (or p after all k). So

    .. math:: \mathbb{E}[\tau] = \sum_{x_{1:k}} \prod_i q(x_i) \sum_{t=1}^{k}
              \Big(1 - \prod_{j=t}^{k} (1 - h_j)\Big)

    summed over all :math:`V^k` draft blocks, at most :data:`MAX_BLOCK_ENUMERATION`. Block
    verification is lossless and never accepts fewer tokens in expectation than token
    verification (their main result); at k = 1 the two are the same rule. On the paper's
    binary example, :math:`p = (1/3, 2/3)`, :math:`q = (2/3, 1/3)`, k = 2: token 10/9, block 11/9.

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    k : int
        Draft length, 0 to :data:`specmath.speedup.MAX_DRAFT_LENGTH`; for ``"block"`` also
        ``V**k <= MAX_BLOCK_ENUMERATION``.
    verification : {"token", "block"}, default "token"

    Returns
    -------
    numpy.float64
        Expected accepted draft tokens per iteration, in [0, k].
    """
    verification = _as_choice(verification, "verification", VERIFICATIONS)
    p, q = as_distribution_pair(p, q)
    length = as_draft_length(k, cap=MAX_DRAFT_LENGTH)
    if length.ndim != 0:
        raise ValueError(f"k must be a single integer, got an array of shape {length.shape}")
    k = int(length)
    if k == 0:
        return np.float64(0.0)
    if verification == "token":
        alpha = min(float(np.minimum(p, q).sum()), 1.0)
        if alpha == 1.0:
            return np.float64(k)
        # alpha (1 - alpha^k) / (1 - alpha) without cancellation near alpha = 1 (expm1).
        return np.float64(alpha * -math.expm1(k * math.log(alpha)) / (1.0 - alpha) if alpha > 0 else 0.0)
    size = p.size
    if size**k > MAX_BLOCK_ENUMERATION:
        raise ValueError(
            f"k = {k} with V = {size} gives V**k draft blocks, over the cap MAX_BLOCK_ENUMERATION = "
            f"{MAX_BLOCK_ENUMERATION:,} (V**k <= {MAX_BLOCK_ENUMERATION:,} is enumerated exactly)"
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(q > 0, p / q, 0.0)  # a token with q = 0 is never drafted: weight 0 below

    def at(i: int, row: np.ndarray) -> np.ndarray:
        """``row`` on axis i of the (V,) * k block array."""
        return row.reshape((1,) * i + (size,) + (1,) * (k - i - 1))

    # Level by level: weights and stopping chances of the prefixes x_1..x_i, shape (V,)*i + (1,)*(k-i).
    weight, stops, chance = np.ones((1,) * k), [], np.ones((1,) * k)
    for i in range(k):
        weight = np.minimum(weight * at(i, ratio), 1.0)
        chance = chance * at(i, q)
        stops.append(weight if i == k - 1 else _block_stop_chances(weight, p, q))
    # P(tau >= t) = 1 - prod_{j >= t} (1 - h_j), summed over t, from the last position back.
    none_after = 1.0 - stops[-1]
    at_least = 1.0 - none_after
    for h in reversed(stops[:-1]):
        none_after = none_after * (1.0 - h)
        at_least = at_least + (1.0 - none_after)
    return np.float64(min(float((chance * at_least).sum()), float(k)))
