"""From what a serving engine measured to the alpha, the profile and the k to use.

Two models of acceptance:

- **i.i.d.**: one alpha for every draft position, fitted from the mean acceptance length (with
  a confidence interval when the counts are known);
- **per-position profile**: the engine's unconditional rates u_i = P(at least i tokens
  accepted), used as they are up to the measured length and extrapolated beyond it.

And one model of time: :func:`fit_roofline` scales a GPU's roofline to measured step times.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _kernels
from ._validate import (
    as_alpha,
    as_count,
    as_draft_length,
    as_float_array,
    as_number,
    as_positive,
    shown,
)
from .costs import Roofline
from .iid_blocks import fit_alpha_from_acceptance_length
from .presets import GPUSpec, ModelSpec
from .speedup import MAX_DRAFT_LENGTH


class AlphaFit(NamedTuple):
    """An i.i.d. alpha and its confidence interval.

    Attributes
    ----------
    alpha, low, high : float
        The point estimate and the interval's ends, ``low <= alpha <= high``.
    k : int or None
        The draft length the fit treats the drafts as having: the engine's k, or fewer
        positions when the drafts were shorter (:func:`fit_alpha`).
    accepted, drafts : int or None
        The counts fitted, when the fit is :func:`alpha_interval`'s: ``alpha_interval(accepted,
        drafts, k)`` gives this fit again.
    has_interval : bool
        False when only a mean acceptance length was known: then ``low == alpha == high``.
    notes : tuple of str
        How the fit was made, when that is not the plain i.i.d. inversion at k.
    """

    alpha: float
    low: float
    high: float
    k: int | None = None
    accepted: int | None = None
    drafts: int | None = None
    has_interval: bool = True
    notes: tuple[str, ...] = ()


def _tokens_variance(alpha: np.ndarray, k: int) -> np.ndarray:
    """Variance of tokens per iteration N under i.i.d. acceptance, for an array of alphas."""
    n = np.arange(1, k + 2)
    pmf = _kernels.tokens_pmf(alpha, k)
    mean = pmf @ n
    return np.maximum(pmf @ (n * n) - mean * mean, 0.0)


def alpha_interval(accepted, drafts, k, confidence=0.95) -> AlphaFit:
    r"""The i.i.d. alpha behind ``accepted`` tokens in ``drafts`` iterations of draft length k.

    The point estimate inverts :math:`\mathbb{E}[N] = 1 + \text{accepted}/\text{drafts}`
    (:func:`~specmath.iid_blocks.fit_alpha_from_acceptance_length`). The interval is every alpha the measured mean
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
    specmath.calibration.AlphaFit
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

    return AlphaFit(alpha, edge(alpha, 0.0), edge(alpha, 1.0), k, accepted, drafts)


def _normal_quantile(p: float) -> float:
    """Standard normal quantile (NumPy has no inverse of erf; SciPy is not a dependency here)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


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


def cost_ratio_from_times(target_ms, draft_ms):
    """The cost ratio c = target step time / draft step time from measured times (any one unit)."""
    target_ms = as_float_array(target_ms, "target_ms")
    draft_ms = as_float_array(draft_ms, "draft_ms")
    for name, value in (("target_ms", target_ms), ("draft_ms", draft_ms)):
        if not np.isfinite(value).all() or (value <= 0).any():
            raise ValueError(f"{name} must be a finite time > 0")
    ratio = target_ms / draft_ms
    return ratio[()] if ratio.ndim == 0 else ratio


class RooflineFit(NamedTuple):
    """A roofline scaled to measured step times (:func:`fit_roofline`).

    Attributes
    ----------
    gpu : GPUSpec
        The GPU with both peaks times :attr:`efficiency`: what the kernels reached.
    overhead_s : float
        Fixed seconds per forward pass, >= 0.
    efficiency : float
        Share of the datasheet's peaks reached, in (0, 1].
    exact : bool
        Whether the fitted roofline gives both measured times.
    roofline_s : tuple of float
        The datasheet roofline's (target, draft) step times, no overhead: the fastest the GPU allows.
    fitted_s : tuple of float
        The fitted roofline's (target, draft) step times; the measured ones when ``exact``.
    too_fast : bool
        Whether a measured time is below :attr:`roofline_s`: faster than the datasheet allows
        (a wrong GPU, model, precision, batch or unit); the fit is still the closest within the
        bounds, which no efficiency of at most 1 brings down to that time.
    """

    gpu: GPUSpec
    overhead_s: float
    efficiency: float
    exact: bool
    roofline_s: tuple[float, float]
    fitted_s: tuple[float, float]
    too_fast: bool


def _relative_error(r: np.ndarray, t: np.ndarray, inverse: float, overhead: float) -> float:
    return float((((r * inverse + overhead) - t) / t) ** 2 @ np.ones(t.size))


def fit_roofline(
    target_s, draft_s, target, draft, gpu, batch=1, context=0, *, tp=1, draft_tp=1, interconnect=None
) -> RooflineFit:
    r"""The efficiency and per-pass overhead that make the roofline give two measured step times.

    A kernel that reaches a share :math:`e \in (0, 1]` of both of the GPU's peaks, plus a fixed
    time :math:`o \ge 0` per forward pass (launches, sampling, scheduling), takes
    :math:`T = R / e + o`, where :math:`R` is the datasheet roofline's time of the pass
    (:class:`~specmath.Roofline`, no overhead): scaling both peaks by :math:`e` scales
    :math:`\max(M, wC)` by :math:`1/e`. The target's and the draft's single-position steps at
    the same batch and context, :math:`T_t` and :math:`T_d`, then give

    .. math:: \frac{1}{e} = \frac{T_t - T_d}{R_t - R_d}, \qquad o = T_t - \frac{R_t}{e}.

    Where that solution is outside the bounds, the fit is the closest within them in relative
    error, :math:`\min \sum_i ((R_i/e + o - T_i)/T_i)^2` over :math:`1/e \ge 1, o \ge 0`: the
    minimum of a convex quadratic lies on an edge, and each edge has a closed form,

    .. math:: e = 1:\; o = \max\Bigl(0, \frac{\sum_i (T_i - R_i)/T_i^2}{\sum_i 1/T_i^2}\Bigr),
              \qquad o = 0:\; \frac{1}{e} = \max\Bigl(1, \frac{\sum_i a_i}{\sum_i a_i^2}\Bigr),\; a_i = R_i/T_i.

    :math:`e > 1` means the two times differ by less than their rooflines do: a fixed time per
    pass dominates, and the fit is :math:`e = 1` with the overhead above. :math:`o < 0` means the
    draft's time is short for its size next to the target's. One efficiency for both peaks keeps
    the datasheet's ridge: how wide a pass is free is the roofline's, only its height is measured.

    Parameters
    ----------
    target_s, draft_s : float
        Measured times of one target and one draft forward pass over one position, seconds, > 0.
    target, draft : ModelSpec
    gpu : GPUSpec
        The GPU the times were measured on (its datasheet figures).
    batch : int, default 1
        Sequences in the measured steps.
    context : int, default 0
        Cached tokens per sequence in the measured steps.
    tp, draft_tp : int, default 1
        Tensor-parallel degrees the target and the draft were measured at.
    interconnect : Interconnect, optional
        The link between the GPUs; needed when either degree is above 1.

    Returns
    -------
    specmath.calibration.RooflineFit
        Its ``roofline_s`` and ``fitted_s`` include the all-reduces.

    Examples
    --------
    >>> from specmath import GPU_PRESETS, MODEL_PRESETS, Roofline
    >>> gpu, target, draft = GPU_PRESETS["H100 SXM"], MODEL_PRESETS["Llama-3.1-8B"], MODEL_PRESETS["Llama-3.2-1B"]
    >>> fit = fit_roofline(8e-3, 2e-3, target, draft, gpu)
    >>> round(fit.efficiency, 3), round(fit.overhead_s * 1e3, 3), fit.exact
    (0.624, 0.817, True)
    >>> round(float(Roofline(draft, fit.gpu, overhead_s=fit.overhead_s)(1)) * 1e3, 6)
    2.0
    >>> fit = fit_roofline(6e-3, 4e-3, target, draft, gpu)  # slower than the roofline, the draft far more
    >>> fit.efficiency, round(fit.overhead_s * 1e3, 3), fit.exact
    (1.0, 2.726, False)
    """
    t_t = as_positive(target_s, "target_s")
    t_d = as_positive(draft_s, "draft_s")
    for name, spec in (("target", target), ("draft", draft)):
        if not isinstance(spec, ModelSpec):
            raise ValueError(f"{name} must be a ModelSpec, got {type(spec).__name__}")
    rooflines = (Roofline(target, gpu, batch, context, 0.0, tp, interconnect),
                 Roofline(draft, gpu, batch, context, 0.0, draft_tp, interconnect))  # fmt: skip
    reduce_s = np.array([float(roof.all_reduce_time(1)) for roof in rooflines])
    full = np.array([float(roof(1)) for roof in rooflines])
    too_fast = bool((np.array([t_t, t_d]) < full * (1 - 1e-12)).any())
    # The all-reduces scale with no efficiency of the GPU's peaks: fit what is left of each time.
    r_t, r_d = (float(v) for v in full - reduce_s)
    t_t, t_d = t_t - float(reduce_s[0]), t_d - float(reduce_s[1])
    r, t = np.array([r_t, r_d]), np.array([t_t, t_d])
    if (t <= 0).any():
        # Faster than the interconnect alone allows: the closest fit is the datasheet's roofline.
        t = np.maximum(t, r)
        t_t, t_d = (float(v) for v in t)
    inverse, overhead, exact = None, 0.0, False
    if r_t != r_d:
        slope = (t_t - t_d) / (r_t - r_d)
        intercept = t_t - r_t * slope
        if slope >= 1.0 - 1e-12 and intercept >= -1e-12 * t_t:  # rounding past a bound is the bound
            inverse, overhead, exact = max(slope, 1.0), max(intercept, 0.0), True
    if inverse is None:
        w = 1.0 / (t * t)
        a = r / t
        edges = ((1.0, max(0.0, float(w @ (t - r)) / float(w.sum()))), (max(1.0, float(a.sum() / (a @ a))), 0.0))
        inverse, overhead = min(edges, key=lambda edge: _relative_error(r, t, *edge))
    fitted = GPUSpec(
        f"{gpu.name}, fitted",
        gpu.memory_bandwidth / inverse,
        gpu.peak_flops / inverse,
        gpu.memory_bytes,
        source=f"{gpu.name} scaled to measured step times",
    )
    fitted_s = (t_t, t_d) if exact else (r_t * inverse + overhead, r_d * inverse + overhead)
    return RooflineFit(
        gpu=fitted,
        overhead_s=overhead,
        efficiency=1.0 / inverse,
        exact=exact,
        roofline_s=(float(full[0]), float(full[1])),
        fitted_s=(float(fitted_s[0] + reduce_s[0]), float(fitted_s[1] + reduce_s[1])),
        too_fast=too_fast,
    )
