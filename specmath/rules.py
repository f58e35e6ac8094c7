r"""The verification rules as data: each rule's settings with their defaults and bounds, its law,
whether it is lossless, how the draft proposes, the engines that run it and where it was read.

:data:`RULES` is the registry :mod:`specmath.verification`'s functions, the Verification rules page,
its address and the exercises read; a new rule is one entry here (its law function beside it) and
its test. Conventions: ``P`` is a stack of the target's distributions, ``Q`` the draft's, along the
last axis.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._validate import as_count, as_positive, shown


def _one_hot_argmax(x: np.ndarray) -> np.ndarray:
    """A point mass on each last-axis argmax (the lowest index of a tie, as :func:`numpy.argmax`)."""
    return (np.arange(x.shape[-1]) == np.argmax(x, axis=-1)[..., None]).astype(float)


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
