r"""Verification rules: what the target does with a draft token, as papers and serving engines do it.

The chapter's rule (Leviathan et al. 2023) samples the draft token from q and keeps it with
probability :math:`\min(1, p/q)`. Engines mostly run something else by default: a greedy draft
(the draft's argmax, as a point mass), an exact match against the target's own sample, or lossy
relaxations that keep more draft tokens than the target's law allows: :data:`~specmath.rules.RULES` holds each, as
data (its settings with their defaults and bounds, its law, whether it is lossless, the engines that
run it, where it was read). Block verification (Sun et al. 2024) checks k draft tokens jointly.
Conventions: ``p`` is the target's distribution, ``q`` the draft's, along the last axis.
"""

from __future__ import annotations

import math

import numpy as np

from ._kernels import RESIDUAL_MASS_TOLERANCE
from ._validate import (
    MAX_DRAFT_LENGTH,
    SUM_TOLERANCE,
    as_distribution,
    as_distribution_pair,
    as_draft_length,
    as_float_array,
    as_positive,
    scalar_or_array,
    shown,
    shown_first,
)
from .rules import RULES, _one_hot_argmax

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


#: Rules :func:`acceptance_probability` computes alpha for.
ACCEPTANCE_RULES = tuple(name for name, rule in RULES.items() if rule.acceptance is not None)
#: Rules :func:`first_token_distribution` gives the law of the first emitted token for: all of them.
FIRST_TOKEN_RULES = tuple(RULES)


def acceptance_probability(p, q, rule="rejection"):
    r"""Probability that a draft token is accepted, under a rule of :data:`~specmath.rules.RULES` that models it.

    ``"rejection"`` (the default, the chapter's, Leviathan et al. 2023): :math:`x \sim q` kept with
    probability :math:`\min(1, p(x)/q(x))`:

    .. math:: \alpha = \sum_x \min(p(x), q(x))

    ``"greedy_draft"``: the draft's argmax :math:`x^*` (the lowest index of a tie), checked as a
    point mass: :math:`\alpha = p(x^*)`. ``"exact_match"``: :math:`x \sim q` kept when the
    target's own sample :math:`y \sim p` equals it: :math:`\alpha = \sum_x p(x)\, q(x)`. Each rule's
    law function in :data:`~specmath.rules.RULES` says where it is read and which engines run it.

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
    r"""The law of the first token an iteration emits, under a verification rule of :data:`~specmath.rules.RULES`.

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
