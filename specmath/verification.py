r"""Verification rules: what the target does with a draft token, as papers and serving engines do it.

The chapter's rule (Leviathan et al. 2023) samples the draft token from q and keeps it with
probability :math:`\min(1, p/q)`. Engines mostly run something else by default: a greedy draft
(the draft's argmax, as a point mass), an exact match against the target's own sample, or lossy
relaxations that keep more draft tokens than the target's law allows. Block verification (Sun et
al. 2024) checks k draft tokens jointly. Conventions: ``p`` is the target's distribution, ``q``
the draft's, along the last axis.
"""

from __future__ import annotations

import math

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

#: Rules :func:`acceptance_probability` computes alpha for; all three are lossless.
ACCEPTANCE_RULES = ("rejection", "greedy_draft", "exact_match")
#: Rules :func:`first_token_distribution` gives the law of the first emitted token for.
FIRST_TOKEN_RULES = (*ACCEPTANCE_RULES, "typical", "sglang_threshold", "trtllm_relaxed")
#: Verification schemes of :func:`expected_accepted_tokens` and the Markov-chain decoders.
VERIFICATIONS = ("token", "block")

#: Cap on the ``V**k`` draft blocks :func:`expected_accepted_tokens` enumerates for ``"block"``:
#: a few arrays of this many floats (tens of MB).
MAX_BLOCK_ENUMERATION = 10**6

#: SGLang's launcher raises ``threshold_acc`` to at least this before dividing by it
#: (``capped_threshold_acc = fmaxf(threshold_acc, 1e-9f)``, see :func:`first_token_distribution`).
SGLANG_MIN_THRESHOLD_ACC = 1e-9

#: Medusa's ``medusa_generate`` defaults: ``posterior_threshold=0.09`` (epsilon) and
#: ``posterior_alpha=0.3`` (delta), ``medusa/model/medusa_model.py`` lines 244-246 at e2a5d20.
MEDUSA_EPSILON, MEDUSA_DELTA = 0.09, 0.3

#: TensorRT-LLM's ``MTPDecodingConfig`` defaults: ``relaxed_topk: int = 1`` and
#: ``relaxed_delta: float = 0.`` (``tensorrt_llm/llmapi/llm_args.py`` lines 796-797 at 23ee85ee),
#: with ``use_relaxed_acceptance_for_thinking: bool = False`` beside them (line 795).
TRTLLM_RELAXED_TOPK, TRTLLM_RELAXED_DELTA = 1, 0.0


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


def acceptance_probability(p, q, rule="rejection"):
    r"""Probability that a draft token is accepted, under one of three lossless verification rules.

    ``"rejection"`` (the default, the chapter's): the draft token is sampled, :math:`x \sim q`,
    and kept with probability :math:`\min(1, p(x)/q(x))` (Leviathan, Kalman and Matias 2023,
    "Fast Inference from Transformers via Speculative Decoding", Algorithm 1):

    .. math:: \alpha = \sum_x \min(p(x), q(x))

    ``"greedy_draft"``: the draft proposes its argmax :math:`x^* = \arg\max q` (the lowest index
    of a tie), verified by the same rule with q replaced by a point mass on :math:`x^*`, so kept
    with probability :math:`\min(1, p(x^*)/1)`:

    .. math:: \alpha = p(x^*)

    This is also SGLang's default target-only verification at thresholds 1 (see
    :func:`first_token_distribution`, ``"sglang_threshold"``), and vLLM's default at temperature
    > 0: ``draft_sample_method = "greedy"`` treats the draft as one-hot and the standard rejection
    sampler keeps it when ``target_logprob > log(u) + draft_logprob`` with ``draft_logprob = 0``
    (vllm 0.34.0: ``vllm/config/speculative.py`` line 682,
    ``vllm/v1/worker/gpu/spec_decode/rejection_sampler_utils.py`` lines 200-201 and 716).

    ``"exact_match"``: the draft token is sampled, :math:`x \sim q`, the target draws its own
    :math:`y \sim p` independently, and :math:`x` is kept when :math:`y = x` (the emitted token
    is always :math:`y`):

    .. math:: \alpha = \sum_x p(x)\, q(x)

    All three emit exactly p (:func:`first_token_distribution`); they differ only in how often
    the draft token survives. No lossless rule with a draft sampled from q keeps it more often
    than rejection sampling (the output y ~ p and the draft x ~ q are coupled, and
    :math:`P(x = y) \le \sum \min(p, q)`); a greedy draft keeps :math:`p(\arg\max q)`, far less
    for flat distributions even when p is close to q.

    Parameters
    ----------
    p, q : array_like, shape (V,) or (..., V)
        Target and draft distributions along the last axis (each non-negative, summing to 1
        within :data:`specmath.SUM_TOLERANCE`); stacks of pairs have one shape.
    rule : {"rejection", "greedy_draft", "exact_match"}, default "rejection"

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
    if rule == "rejection":
        alpha = np.minimum(P, Q).sum(axis=-1)
    elif rule == "greedy_draft":
        alpha = np.take_along_axis(P, np.argmax(Q, axis=-1)[..., None], axis=-1)[..., 0]
    else:
        alpha = (P * Q).sum(axis=-1)
    return scalar_or_array(np.minimum(alpha, 1.0))


def _entropy(P: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(P > 0, P * np.log(P), 0.0).sum(axis=-1)


def _as_threshold(params: dict, name: str, default: float, upper: float | None = None) -> float:
    value = params.pop(name, default)
    x = as_positive(value, name, allow_zero=True)
    if upper is not None and x > upper:
        raise ValueError(f"{name} must be within [0, {upper:g}], got {shown(value)}")
    return x


def _as_topk(params: dict, vocab: int) -> int:
    value = params.pop("relaxed_topk", TRTLLM_RELAXED_TOPK)
    k = as_count(value, "relaxed_topk", cap=2**62)
    if k > vocab:
        raise ValueError(f"relaxed_topk must be <= the vocabulary size V = {vocab} (a top-K of V), got {shown(value)}")
    return k


def _relaxed_keeps(P: np.ndarray, Q: np.ndarray, p_star: np.ndarray, topk: int, gap: float) -> np.ndarray:
    """Whether TensorRT-LLM's relaxed acceptance keeps the draft argmax, shape (..., 1)."""
    index = np.arange(P.shape[-1])
    star_index = np.argmax(Q, axis=-1)[..., None]
    # Rank of the draft token in p, descending, ties to the lowest index.
    ahead = (P > p_star) | ((P == p_star) & (index < star_index))
    rank = ahead.sum(axis=-1, keepdims=True)
    return (rank < topk) & ((rank == 0) | (p_star >= P.max(axis=-1, keepdims=True) - gap))


#: The parameters each rule of :func:`first_token_distribution` takes.
_RULE_PARAMS = {
    "rejection": (),
    "greedy_draft": (),
    "exact_match": (),
    "typical": ("epsilon", "delta"),
    "sglang_threshold": ("threshold_single", "threshold_acc"),
    "trtllm_relaxed": ("relaxed_topk", "relaxed_delta"),
}


def first_token_distribution(p, q, rule, **params) -> np.ndarray:
    r"""The law of the first token an iteration emits, under a verification rule.

    Each rule proposes a draft token, keeps it or not, and on a rejection emits a token of its
    own; the law is the kept mass plus the rejection's, computed as such (not assumed):

    - ``"rejection"``: :math:`\min(p, q) + \max(0, p - q)` (Leviathan et al. 2023, Appendix A.1).
    - ``"greedy_draft"``: the same with q replaced by the point mass :math:`\delta_{x^*}` on
      :math:`x^* = \arg\max q`: :math:`p(x^*)\,\delta_{x^*} + p \cdot [x \ne x^*]`.
    - ``"exact_match"``: the target's own sample is emitted whether or not it matches:
      :math:`p\,q + p\,(1 - q)`.

    These three are lossless: the result is p (to rounding). The two lossy rules keep the draft
    token more often than p allows:

    - ``"typical"``, Medusa's typical acceptance (Cai et al. 2024, "Medusa: Simple LLM Inference
      Acceleration Framework with Multiple Decoding Heads") as its code runs by default
      (``medusa_generate(..., fast=True)``, ``medusa/model/medusa_model.py`` line 249;
      FasterDecoding/Medusa, ``medusa/model/utils.py``, both at commit e2a5d20): the draft token
      is the draft's argmax :math:`x^*` (the heads' top-1 candidate, ``generate_candidates``,
      ``torch.topk``, line 290), kept when

      .. math:: p(x^*) > \min\big(\epsilon,\ \delta\, e^{-H(p)}\big), \quad H(p) = -\sum_x p(x) \log p(x)

      (``evaluate_posterior``, lines 474-487); on a rejection the emitted token is the
      target's argmax (the next ``generate_candidates`` takes ``argmax(logits)`` when ``fast``,
      lines 280-281). The law is a point mass on :math:`x^*` or on :math:`\arg\max p`. Medusa's code
      computes the entropy as :math:`-\sum p \log(p + 10^{-5})` (line 481); the formula here is
      the paper's. Its non-fast path calls ``get_typical_posterior_mask`` with one argument too
      many (line 504) and is not modelled. Parameters ``epsilon`` (``posterior_threshold``,
      default :data:`MEDUSA_EPSILON`) and ``delta`` (``posterior_alpha``, default
      :data:`MEDUSA_DELTA`), both >= 0. No setting of them is lossless when p is not a point
      mass: the output is always one; at temperature 0 (p one-hot) every setting gives p.
    - ``"sglang_threshold"``, SGLang's target-only verification kernel
      ``TreeSpeculativeSamplingTargetOnly`` (sgl-project/sglang,
      ``sgl-kernel/csrc/speculative/speculative_sampling.cuh`` at commit 120affb), for a single
      draft token :math:`x^* = \arg\max q` (a chain draft with top-k 1, so no siblings): with
      ``prob_acc`` :math:`= p(x^*)` and a coin :math:`u \sim U[0, 1)`, the token is kept when
      ``coin <= prob_acc / threshold_acc || target_prob_single >= threshold_single`` (lines
      78-80), so with probability

      .. math:: a = \begin{cases} 1 & p(x^*) \ge t_\text{single} \\
                \min\big(1, p(x^*) / \max(t_\text{acc}, 10^{-9})\big) & \text{otherwise} \end{cases}

      (the launcher caps ``threshold_acc`` at ``fmaxf(threshold_acc, 1e-9f)``). On a rejection
      the kernel writes :math:`p(x^*)` into ``draft_probs[x*]`` (line 92) and samples from
      ``relu(target_probs - draft_probs)`` (line 103 on), i.e. from p without :math:`x^*`
      (the caller's other ``draft_probs`` entries are taken as 0, the kernel's intent: the SGLang
      caller read, ``EagleVerifyInput.sample``, allocates them with ``torch.empty_like`` and the
      comment "This is currently not used", so in that version they are whatever memory held;
      sglang 0.5.23 passes ``torch.zeros_like(target_probs)``,
      ``sglang/srt/speculative/eagle_utils.py`` lines 745-749). Law:
      :math:`a\,\delta_{x^*} + (1 - a)\, p\,[x \ne x^*] / (1 - p(x^*))`. Parameters
      ``threshold_single`` and ``threshold_acc`` in [0, 1] (``--speculative-accept-threshold-single``,
      ``--speculative-accept-threshold-acc``, default 1.0 each, ``sglang/srt/arg_groups/fields/spec.py``
      lines 109-116 in sglang 0.5.23, whose help says "greater than" threshold_single where the
      kernel keeps at ``>=``); at 1 and 1 it is ``"greedy_draft"`` and gives p.
    - ``"trtllm_relaxed"``, TensorRT-LLM's relaxed acceptance for MTP and EAGLE-3 inside a
      thinking span (NVIDIA/TensorRT-LLM, ``mtpRelaxedAcceptanceKernel``,
      ``cpp/tensorrt_llm/kernels/speculativeDecoding/mtpKernels.cu`` lines 453-543 at commit
      b35ac1b). The draft token is the draft's argmax :math:`x^*` (``MTPWorker.draft_sampler``,
      ``torch.argmax``, ``tensorrt_llm/_torch/speculative/mtp.py`` line 1144 at 23ee85ee); the
      target's top ``relaxed_topk`` tokens by probability (``torch.topk`` of ``torch.softmax`` of
      the target's logits, ``topk_kernel`` and ``process_generation_logits``, lines 710-728, called
      at lines 847-857) are its candidates, walked in order;
      the walk stops at the first candidate after the top one whose probability is below
      :math:`p_{\max} - \delta` (lines 488-494), and the draft token is kept if it is a candidate
      met before that (lines 495-500). So with :math:`r(x^*)` the rank of :math:`x^*` in p
      (0 for the top; ties to the lowest index here, which ``torch.topk`` leaves unspecified), it is
      kept when

      .. math:: r(x^*) < K \ \text{and}\ \big(r(x^*) = 0 \ \text{or}\
                p(x^*) \ge \max p - \delta\big)

      and otherwise the emitted token is the target's top candidate :math:`\arg\max p` (the
      "golden token", line 516), not a sample. Law: a point mass on :math:`x^*` or on
      :math:`\arg\max p`. Parameters ``relaxed_topk`` K, an integer in [1, V] (default
      :data:`TRTLLM_RELAXED_TOPK`), and ``relaxed_delta`` :math:`\delta`, a probability gap in
      [0, 1] (default :data:`TRTLLM_RELAXED_DELTA`; the kernel takes any float, and a gap of
      1 or more keeps every top-K token). TensorRT-LLM applies ``relaxed_delta`` only between
      the thinking span's begin and end tokens and a gap of 0 elsewhere (lines 522-542), and its
      probabilities are the softmax of the logits without the request's temperature; here p is
      whatever distribution is given. At ``relaxed_topk = 1`` (or a gap of 0 with a single top
      token) it is an exact match against the target's argmax, i.e. greedy decoding: no setting
      gives p unless p is a point mass, and at temperature 0 (p one-hot) every gap below 1
      gives p.

    Parameters
    ----------
    p, q : array_like, shape (V,) or (..., V)
        Target and draft distributions along the last axis, stacks of one shape.
    rule : {"rejection", "greedy_draft", "exact_match", "typical", "sglang_threshold", "trtllm_relaxed"}
    **params
        The rule's parameters, as above; others are refused.

    Returns
    -------
    numpy.ndarray, same shape as ``p``
        The first emitted token's law along the last axis.

    Raises
    ------
    ValueError
        For an invalid pair, an unknown rule, or a parameter the rule does not take or out of range.
    """
    rule = _as_choice(rule, "rule", FIRST_TOKEN_RULES)
    P, Q = _as_pairs(p, q)
    params = dict(params)
    if rule == "typical":
        epsilon = _as_threshold(params, "epsilon", MEDUSA_EPSILON)
        delta = _as_threshold(params, "delta", MEDUSA_DELTA)
    elif rule == "sglang_threshold":
        single = _as_threshold(params, "threshold_single", 1.0, upper=1.0)
        acc = _as_threshold(params, "threshold_acc", 1.0, upper=1.0)
    elif rule == "trtllm_relaxed":
        topk = _as_topk(params, P.shape[-1])
        gap = _as_threshold(params, "relaxed_delta", TRTLLM_RELAXED_DELTA, upper=1.0)
    if params:
        allowed = ", ".join(_RULE_PARAMS[rule]) or "none"
        raise ValueError(f"{sorted(params)[0]} is not a parameter of rule {rule!r} (it takes: {allowed})")

    if rule == "exact_match":
        return P * Q + P * (1.0 - Q)
    if rule == "rejection":
        return np.minimum(P, Q) + np.maximum(P - Q, 0.0)
    star = _one_hot_argmax(Q)
    p_star = (P * star).sum(axis=-1, keepdims=True)
    if rule == "greedy_draft":
        return np.minimum(P, star) + np.maximum(P - star, 0.0)
    if rule == "typical":
        threshold = np.minimum(epsilon, delta * np.exp(-_entropy(P)))[..., None]
        return np.where(p_star > threshold, star, _one_hot_argmax(P))
    if rule == "trtllm_relaxed":
        return np.where(_relaxed_keeps(P, Q, p_star, topk, gap), star, _one_hot_argmax(P))
    # sglang_threshold
    keep = np.where(p_star >= single, 1.0, np.minimum(1.0, p_star / max(acc, SGLANG_MIN_THRESHOLD_ACC)))
    others, rest = P * (1.0 - star), 1.0 - p_star  # p off the draft token, and its mass
    with np.errstate(divide="ignore", invalid="ignore"):
        resampled = np.where(rest > 0, others / np.where(rest > 0, rest, 1.0), 0.0)
    return keep * star + (1.0 - keep) * resampled


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
        Draft length, 0 to :data:`specmath.MAX_DRAFT_LENGTH`; for ``"block"`` also
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
