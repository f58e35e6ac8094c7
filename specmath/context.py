r"""Acceptance that falls with context length: a fall-off fitted to measured points.

A draft head trained on short sequences drafts worse once the context outgrows what it saw:
EAGLE-3's acceptance length on Qwen3-8B falls from 2.30 at 2 k tokens of context to 1.08 at 20 k
(vllm-project/speculators PR #684). The model here is one multiplier on what the draft adds,

.. math::

    g(C) = \frac{1}{1 + (C / C_{1/2})^{n}}, \qquad
    \mathrm{AL}(C) = 1 + (\mathrm{AL}_0 - 1)\, g(C),

with :math:`C` the context in tokens, :math:`C_{1/2}` the context at which the draft's share
(the accepted draft tokens per target pass, AL - 1) has halved and :math:`n` how sharply it
falls there (:class:`ContextFalloff`). ``g`` is 1 at no context and falls to 0; the bonus token
the target adds each pass is unaffected, so AL falls to 1, not below. A plain Hill form: flat
while the context is well inside what the head handles, a power law :math:`C^{-n}` well past it.

What ``g`` multiplies, position by position: the first draft position's acceptance rate, the
later positions' conditional rates left as they are. Then every unconditional rate
:math:`u_i` = P(at least i accepted) scales by ``g``, and so does AL(k) - 1 at every k: one
multiplier serves a measured curve {k: AL} (:meth:`ContextFalloff.lengths_at`), a per-position
profile (:meth:`ContextFalloff.profile_at`) and, at k = 1, a plain alpha. The sources below
measure one k each, so they cannot tell this apart from a fall in every position's rate.

:func:`fit_context_falloff` fits :math:`\mathrm{AL}_0` (or the rate at no context),
:math:`C_{1/2}` and :math:`n` to measured points by least squares; the measured points are
:data:`specmath.presets.CONTEXT_MEASUREMENTS`, each with its source.

**Where the data are thin.** Only one source measures more than three contexts with one head
and one setup: PR #684's ten points (Qwen3-8B + its EAGLE-3 head, LongBench-v2 truncated to each
length, 10 prompts per length, greedy, k not stated in the stored text). Its fit leaves residuals
of at most 0.08 in AL. The others have three points each, so three parameters pass through them
(a fit, not a test of the form): Kimi-K3's DSpark head on random-token prompts (TokenSpeed PR
#905; random tokens distort acceptance), and Qwen3.8-27B's MTP head under llama.cpp, whose
points are acceptance rates given as ranges, read at their midpoints (vLLM issue #47602). The
fits differ by head: the short-trained EAGLE-3 head halves by about 8 k tokens and falls steeply
(n about 3); the DSpark head halves at about 36 k and has nothing left by 128 k (n about 8);
the MTP head's rate falls by a third between 100 and 34 k tokens and little after, a shallow
curve (n about 0.3) whose half-context means little. So no one default serves every head: fit
the head at hand, or read :math:`C_{1/2}` as an assumption. vLLM's RFC #48627, which adds a
context axis to the k schedule, motivates it by cost (verification under memory-bound decode,
after MagicDec) and gives no acceptance points.

>>> import specmath
>>> m = specmath.presets.CONTEXT_MEASUREMENTS["Qwen3-8B EAGLE-3, LongBench-v2"]
>>> fit = specmath.fit_context_falloff(m.contexts, m.values, baseline=m.baseline, ceiling=m.ceiling)
>>> round(fit.falloff.half_context, -1), round(fit.falloff.steepness, 2), round(fit.reference, 2)
(7810.0, 2.95, 2.27)
>>> round(fit.value_at(20_000), 3), round(fit.max_abs_residual, 3)
(1.075, 0.075)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ._validate import as_float_array, as_positive

#: The steepness a fit searches, and the span of half-contexts around the measured contexts:
#: a fall-off sharper than n = 12 is a step, and one whose half-context lies a hundredfold beyond
#: every point is not measured by them.
_STEEPNESS = (0.25, 12.0)
_SPAN = 100.0


@dataclass(frozen=True)
class ContextFalloff:
    r"""The fall-off :math:`g(C) = 1 / (1 + (C / C_{1/2})^n)` of what a draft adds with context.

    Parameters
    ----------
    half_context : float
        :math:`C_{1/2}`, the context (tokens) at which the draft's accepted tokens per pass have
        halved, > 0.
    steepness : float
        :math:`n` > 0: how sharply they fall around :math:`C_{1/2}`; past it they fall as
        :math:`C^{-n}`.

    Examples
    --------
    >>> from specmath import ContextFalloff
    >>> g = ContextFalloff(half_context=8_000, steepness=3)
    >>> float(g.multiplier(8_000)), round(float(g.length_at(2.3, 4_000)), 3)
    (0.5, 2.156)
    >>> {k: round(al, 3) for k, al in g.lengths_at({1: 1.8, 2: 2.4}, 8_000).items()}
    {1: 1.4, 2: 1.7}
    """

    half_context: float
    steepness: float

    def __post_init__(self):
        as_positive(self.half_context, "half_context")
        as_positive(self.steepness, "steepness")

    def multiplier(self, context):
        """``g`` at ``context`` tokens (a number or an array of them, each >= 0): 1 at 0, 1/2 at the half-context."""
        c = as_float_array(context, "context")
        if np.any(c < 0):
            raise ValueError(f"context must be >= 0 tokens; got {context!r}")
        g = 1.0 / (1.0 + (c / self.half_context) ** self.steepness)
        return float(g) if g.ndim == 0 else g

    def length_at(self, length, context):
        """The acceptance length at ``context`` of a head whose length at no context is ``length`` (>= 1)."""
        al = as_float_array(length, "length")
        if np.any(al < 1):
            raise ValueError(f"length must be >= 1 (tokens per target pass, bonus included); got {length!r}")
        out = 1.0 + (al - 1.0) * self.multiplier(context)
        return float(out) if np.ndim(out) == 0 else out

    def lengths_at(self, lengths: Mapping[int, float], context: float) -> dict[int, float]:
        """A measured curve {k: AL} carried to ``context``: each AL(k) - 1 times ``g`` (one context)."""
        if np.ndim(context) != 0:
            raise ValueError("lengths_at takes one context; call it once per context")
        return {int(k): float(self.length_at(al, context)) for k, al in lengths.items()}

    def profile_at(self, per_position, context: float) -> np.ndarray:
        """A per-position profile u_i = P(at least i accepted) carried to ``context``: each u_i times ``g``."""
        u = as_float_array(per_position, "per_position")
        if u.ndim != 1 or np.any((u < 0) | (u > 1)):
            raise ValueError("per_position must be a 1-D sequence of rates in [0, 1]")
        if np.ndim(context) != 0:
            raise ValueError("profile_at takes one context; call it once per context")
        return u * self.multiplier(context)


@dataclass(frozen=True)
class ContextFit:
    """A :class:`ContextFalloff` fitted to measured points, and how far it is off at each.

    Attributes
    ----------
    falloff : ContextFalloff
        The fitted :math:`C_{1/2}` and :math:`n`.
    reference : float
        The fitted value at no context: the acceptance length AL_0 (``baseline`` 1) or the
        acceptance rate (``baseline`` 0).
    baseline : float
        What the value falls to: 1 for an acceptance length (the bonus token), 0 for a rate.
    contexts, values, fitted, residuals : tuple of float
        The measured points, the curve there, and fitted minus measured.
    """

    falloff: ContextFalloff
    reference: float
    baseline: float
    contexts: tuple[float, ...]
    values: tuple[float, ...]
    fitted: tuple[float, ...]
    residuals: tuple[float, ...]

    def value_at(self, context):
        """The fitted curve at ``context``: ``baseline + (reference - baseline) * g(context)``."""
        out = self.baseline + (self.reference - self.baseline) * self.falloff.multiplier(context)
        return float(out) if np.ndim(out) == 0 else out

    @property
    def max_abs_residual(self) -> float:
        """The largest |fitted - measured| over the points."""
        return float(np.max(np.abs(self.residuals)))


def _best(contexts, excess, halves, steeps, most):
    """The least-squares (amplitude, half, steepness) on a grid; the amplitude is linear, so solved exactly.

    The error is quadratic in the amplitude, so clipping the unconstrained optimum to [0, most]
    gives the constrained one.
    """
    g = 1.0 / (1.0 + (contexts[None, None, :] / halves[:, None, None]) ** steeps[None, :, None])
    amplitude = np.clip((g @ excess) / np.einsum("hsp,hsp->hs", g, g), 0.0, most)
    sse = np.sum((amplitude[..., None] * g - excess) ** 2, axis=-1)
    i, j = np.unravel_index(np.argmin(sse), sse.shape)
    return amplitude[i, j], halves[i], steeps[j]


def fit_context_falloff(contexts, values, *, baseline: float = 1.0, ceiling: float | None = None) -> ContextFit:
    r"""Fit :math:`v(C) = b + (v_0 - b)\,g(C)` to measured points: :math:`v_0`, :math:`C_{1/2}`, :math:`n`.

    Least squares in the values, searched on a grid of :math:`(C_{1/2}, n)` (log-spaced
    half-contexts from a hundredth of the shortest context to a hundred times the longest,
    steepness 0.25 to 12) and refined on a finer grid around the best; :math:`v_0` is solved
    exactly at each grid point. NumPy only, deterministic.

    Parameters
    ----------
    contexts : sequence of float
        Context lengths in tokens, > 0, at least three distinct.
    values : sequence of float
        What was measured there: acceptance lengths (tokens per target pass, bonus included:
        ``baseline=1``) or acceptance rates (``baseline=0``), each >= ``baseline``.
    baseline : float, optional
        What the value falls to as the draft stops being accepted: 1 for a length, 0 for a rate.
    ceiling : float, optional
        The most the value at no context can be: 1 for a rate, k + 1 for a length at draft
        length k. None: no bound.

    Returns
    -------
    specmath.context.ContextFit
        The fall-off, :math:`v_0` and the residual at each point. With three points the three
        parameters pass through them: the residuals then say nothing about the form.

    Examples
    --------
    >>> from specmath import ContextFalloff, fit_context_falloff
    >>> g = ContextFalloff(10_000, 2.0)
    >>> contexts = [1_000, 5_000, 10_000, 20_000, 40_000]
    >>> fit = fit_context_falloff(contexts, [1 + 1.5 * g.multiplier(c) for c in contexts])
    >>> round(fit.falloff.half_context, -1), round(fit.falloff.steepness, 2), round(fit.reference, 3)
    (10000.0, 2.0, 2.5)
    """
    c = as_float_array(contexts, "contexts")
    v = as_float_array(values, "values")
    if c.ndim != 1 or v.shape != c.shape:
        raise ValueError(f"contexts and values must be 1-D and of one length; got {c.shape} and {v.shape}")
    if np.unique(c).size < 3:
        raise ValueError(f"a fall-off needs at least three distinct contexts; got {c.tolist()}")
    if np.any(c <= 0):
        raise ValueError(f"contexts must be > 0 tokens; got {c.tolist()}")
    if not (np.all(np.isfinite(c)) and np.all(np.isfinite(v))):
        raise ValueError("contexts and values must be finite")
    if np.any(v < baseline):
        raise ValueError(f"values must be >= baseline ({baseline}); got {v.tolist()}")
    most = np.inf if ceiling is None else as_positive(ceiling, "ceiling") - baseline
    if np.any(v - baseline > most):
        raise ValueError(f"values must be <= ceiling ({ceiling}); got {v.tolist()}")
    excess = v - baseline
    halves = np.geomspace(c.min() / _SPAN, c.max() * _SPAN, 241)
    steeps = np.linspace(*_STEEPNESS, 236)
    amplitude, half, steep = _best(c, excess, halves, steeps, most)
    # One finer pass around the grid's best: a tenth of a grid step in each direction.
    h_step, s_step = halves[1] / halves[0], steeps[1] - steeps[0]
    fine_halves = half * np.geomspace(1 / h_step, h_step, 201)
    fine_steeps = np.clip(np.linspace(steep - s_step, steep + s_step, 201), *_STEEPNESS)
    amplitude, half, steep = _best(c, excess, fine_halves, fine_steeps, most)
    falloff = ContextFalloff(float(half), float(steep))
    fitted = baseline + amplitude * falloff.multiplier(c)
    return ContextFit(
        falloff=falloff,
        reference=float(baseline + amplitude),
        baseline=float(baseline),
        contexts=tuple(c.tolist()),
        values=tuple(v.tolist()),
        fitted=tuple(np.asarray(fitted).tolist()),
        residuals=tuple((fitted - v).tolist()),
    )
