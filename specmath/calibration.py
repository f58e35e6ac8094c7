"""From what a serving engine measured to the alpha, the profile and the k to use.

Two models of acceptance:

- **i.i.d.**: one alpha for every draft position, fitted from the mean acceptance length (with
  a confidence interval when the counts are known);
- **per-position profile**: the engine's unconditional rates u_i = P(at least i tokens
  accepted), used as they are up to the measured length and extrapolated beyond it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _kernels
from ._validate import as_alpha, as_cost_ratio, as_count, as_draft_length, as_float_array, as_number, shown
from .iid_blocks import fit_alpha_from_acceptance_length
from .speedup import MAX_DRAFT_LENGTH


class AlphaFit(NamedTuple):
    """An i.i.d. alpha and its confidence interval."""

    alpha: float
    low: float
    high: float


def _tokens_variance(alpha: np.ndarray, k: int) -> np.ndarray:
    """Variance of tokens per iteration N under i.i.d. acceptance, for an array of alphas."""
    n = np.arange(1, k + 2)
    pmf = _kernels.tokens_pmf(alpha, k)
    mean = pmf @ n
    return np.maximum(pmf @ (n * n) - mean * mean, 0.0)


def alpha_interval(accepted, drafts, k, confidence=0.95) -> AlphaFit:
    r"""The i.i.d. alpha behind ``accepted`` tokens in ``drafts`` iterations of draft length k.

    The point estimate inverts :math:`\mathbb{E}[N] = 1 + \text{accepted}/\text{drafts}`
    (:func:`fit_alpha_from_acceptance_length`). The interval is every alpha the measured mean
    is compatible with at the given confidence, under the i.i.d. model:

    .. math:: \bigl(\mathbb{E}_\alpha[N] - \bar N\bigr)^2 \le z^2 \, \mathrm{Var}_\alpha(N) / \text{drafts}

    (a score interval: it stays inside [0, 1] and does not collapse when every draft is
    accepted or none is, unlike the plug-in one). Iterations are taken as independent;
    correlated acceptance across iterations would widen it.

    Parameters
    ----------
    accepted : int
        Accepted draft tokens, bonus tokens not counted; 0 to ``k * drafts``.
    drafts : int
        Iterations that drafted (target verification steps), >= 1.
    k : int
        Draft length, 1 to :data:`MAX_DRAFT_LENGTH`.
    confidence : float, default 0.95
        Two-sided level in (0, 1).

    Returns
    -------
    AlphaFit
        ``(alpha, low, high)`` with ``low <= alpha <= high``.
    """
    drafts = as_count(drafts, "drafts", cap=10**15)
    given_k, k = k, int(as_draft_length(k))
    if not 1 <= k <= MAX_DRAFT_LENGTH:
        raise ValueError(f"k must be within 1 to {MAX_DRAFT_LENGTH}, got {shown(given_k)}")
    given_accepted = accepted
    accepted = as_count(accepted, "accepted", cap=10**15 * MAX_DRAFT_LENGTH, minimum=0)
    if accepted > k * drafts:
        raise ValueError(f"accepted must be <= k * drafts = {k * drafts:,}, got {shown(given_accepted)}")
    given_confidence, confidence = confidence, as_number(confidence, "confidence")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be within (0, 1), got {shown(given_confidence)}")
    z = _normal_quantile(0.5 + confidence / 2.0)
    mean = 1.0 + accepted / drafts
    alpha = float(fit_alpha_from_acceptance_length(mean, k))

    def outside(a: np.ndarray) -> np.ndarray:
        gap = _kernels.expected_tokens(a, k) - mean
        return gap * gap > z * z * _tokens_variance(a, k) / drafts

    def edge(inside: float, end: float) -> float:
        if not outside(np.array(end)):
            return end
        a, b = inside, end  # invariant: a compatible, b not
        for _ in range(60):
            mid = 0.5 * (a + b)
            a, b = (a, mid) if outside(np.array(mid)) else (mid, b)
        return a

    return AlphaFit(alpha, edge(alpha, 0.0), edge(alpha, 1.0))


def _normal_quantile(p: float) -> float:
    """Standard normal quantile by bisection on erf (NumPy has no inverse; SciPy is not a dependency here)."""
    from math import erf, sqrt

    low, high = -40.0, 40.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        if 0.5 * (1.0 + erf(mid / sqrt(2.0))) < p:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def _as_profile(per_position) -> np.ndarray:
    u = as_alpha(per_position, "per_position")
    if u.ndim != 1 or u.size == 0:
        raise ValueError("per_position must be a non-empty 1-D sequence of rates, one per draft position")
    if u.size > MAX_DRAFT_LENGTH:
        raise ValueError(f"per_position has {u.size} positions; at most {MAX_DRAFT_LENGTH}")
    if (np.diff(u) > 1e-9).any():
        i = int(np.flatnonzero(np.diff(u) > 1e-9)[0])
        raise ValueError(
            f"per_position must not increase (P(at least i+1 accepted) cannot exceed P(at least i)); "
            f"position {i + 2} has {u[i + 1]:g} > {u[i]:g}"
        )
    return u


def conditional_acceptance(per_position) -> np.ndarray:
    r"""Conditional acceptance per position from the unconditional profile.

    .. math:: c_i = \frac{u_i}{u_{i-1}}, \quad u_0 = 1

    where :math:`u_i` = P(at least i draft tokens accepted), as vLLM reports it per position.
    Where :math:`u_{i-1} = 0` no iteration reached position i and :math:`c_i` is NaN.
    """
    u = _as_profile(per_position)
    previous = np.concatenate(([1.0], u[:-1]))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(previous > 0, u / np.where(previous > 0, previous, 1.0), np.nan)


def extend_profile(per_position, k_max) -> np.ndarray:
    r"""The unconditional profile u_1 … u_{k_max}, measured positions first, then extrapolated.

    Extrapolation rule: every position past the last measured one is accepted with the last
    measured conditional rate :math:`c_m = u_m / u_{m-1}`, so :math:`u_{m+j} = u_m c_m^j`.
    For a shorter draft k' < m the measured u_1 … u_k' are used as they are: cutting a draft
    does not change how its first k' tokens are drafted or checked. That is exact when the
    context an iteration starts from is distributed alike at every draft length (i.i.d.
    acceptance, or contexts that forget quickly); with long-lived regimes, iterations of a
    different length start in a different mix of regimes and the prediction is approximate.
    """
    u = _as_profile(per_position)
    k_max = as_count(k_max, "k_max", cap=MAX_DRAFT_LENGTH)
    if k_max <= u.size:
        return u[:k_max].copy()
    previous = u[-2] if u.size > 1 else 1.0
    last_conditional = u[-1] / previous if previous > 0 else 0.0
    extra = u[-1] * last_conditional ** np.arange(1, k_max - u.size + 1)
    return np.concatenate((u, extra))


def profile_expected_tokens(per_position, k) -> np.ndarray:
    r"""Expected tokens per iteration at draft length k from a per-position profile.

    .. math:: \mathbb{E}[N_k] = 1 + \sum_{i=1}^{k} u_i

    since the accepted prefix of a k-token draft is min(A, k) and
    :math:`\mathbb{E}[\min(A, k)] = \sum_{i \le k} P(A \ge i)`. Positions beyond the measured
    ones follow :func:`extend_profile`.

    Parameters
    ----------
    per_position : sequence of float
        u_1 … u_m, non-increasing, in [0, 1].
    k : array_like of int
        Draft lengths, 0 to :data:`MAX_DRAFT_LENGTH`.
    """
    k = as_draft_length(k)
    k_max = int(k.max()) if k.size else 0
    cumulative = np.concatenate(([0.0], np.cumsum(extend_profile(per_position, max(k_max, 1)))))
    result = 1.0 + cumulative[k]
    return result[()] if result.ndim == 0 else result


def profile_speedup(per_position, k, c):
    """Speedup at draft length k and cost ratio c from a per-position profile: E[N_k] / (1 + k/c)."""
    k = as_draft_length(k)
    c = as_cost_ratio(c)
    result = profile_expected_tokens(per_position, k) / (1.0 + k / c)
    return result[()] if np.ndim(result) == 0 else result


def cost_ratio_from_times(target_ms, draft_ms):
    """The cost ratio c = target step time / draft step time from measured times (any one unit)."""
    target_ms = as_float_array(target_ms, "target_ms")
    draft_ms = as_float_array(draft_ms, "draft_ms")
    for name, value in (("target_ms", target_ms), ("draft_ms", draft_ms)):
        if not np.isfinite(value).all() or (value <= 0).any():
            raise ValueError(f"{name} must be a finite time > 0")
    ratio = target_ms / draft_ms
    return ratio[()] if ratio.ndim == 0 else ratio
