r"""Cost models for a forward pass: the time the target takes to check ``w`` positions at once.

The chapter's speedup :math:`S = \mathbb{E}[N] / (1 + k/c)` assumes the target checks ``k + 1``
positions in the time it takes to produce one. That holds while decoding is memory-bound
(batch 1, short contexts); at large batches, long contexts or on compute-poor hardware a pass
over ``k + 1`` positions costs more, the best k shrinks, and speculation can slow serving down.

Here a *cost model* is any callable ``T(w)``: given an int array of widths ``w >= 1`` (positions
in one forward pass, per sequence) it returns the time of that pass in seconds, same shape.
Three are provided, each a frozen dataclass that validates itself:

* :class:`FreeVerification` -- ``T(w) = T(1)``, the chapter's assumption;
* :class:`LinearOverhead` -- ``T(w) = T(1) (1 + beta (w - 1))``, beta measured by the user;
* :class:`Roofline` -- ``T(w) = max(bytes / bandwidth, FLOPs(w) / peak) + overhead`` from a
  :class:`~specmath.ModelSpec`, a :class:`~specmath.GPUSpec`, the batch size and the context
  length;

plus :class:`Tabulated` for times measured at each width. :mod:`specmath.general` turns any of
them into a speedup and a best k.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_count, as_draft_length, as_float_array, as_positive, scalar_or_array, shown_first
from .presets import GPUSpec, ModelSpec
from .speedup import MAX_DRAFT_LENGTH

#: Cap on ``batch`` and ``context`` for :class:`Roofline`: far beyond any real deployment, it
#: keeps the byte and FLOP counts well inside float range and catches typos (an extra zero or
#: three).
MAX_BATCH = 1_000_000
MAX_CONTEXT = 100_000_000


def _as_widths(w) -> np.ndarray:
    """Widths: integers in ``[1, MAX_CONTEXT]`` (the positions one forward pass processes per sequence)."""
    given, w = w, as_draft_length(w, "w", cap=MAX_CONTEXT)
    if (w < 1).any():
        raise ValueError(f"w must be >= 1 (positions in one forward pass), got {shown_first(given, w < 1)}")
    return w


@dataclass(frozen=True)
class FreeVerification:
    r"""The chapter's assumption: a pass over ``w`` positions costs one step.

    .. math:: T(w) = T(1) = t_1

    Parameters
    ----------
    t1 : float
        Time of one forward pass, seconds, finite and > 0.
    """

    t1: float

    def __post_init__(self):
        object.__setattr__(self, "t1", as_positive(self.t1, "t1"))

    def __call__(self, w):
        """Time of a forward pass over ``w`` positions: ``t1`` whatever w (>= 1)."""
        w = _as_widths(w)
        return scalar_or_array(np.full(w.shape, self.t1))


@dataclass(frozen=True)
class LinearOverhead:
    r"""Verification costing a measured fraction ``beta`` of a step per extra position.

    .. math:: T(w) = T(1)\,\bigl(1 + \beta (w - 1)\bigr)

    ``beta = 0`` is free verification; ``beta = 1`` is a pass that costs w separate steps
    (fully compute-bound). Measure beta as ``(T(w) / T(1) - 1) / (w - 1)`` from two timed
    passes of the target.

    Parameters
    ----------
    t1 : float
        Time of one single-position forward pass, seconds, finite and > 0.
    beta : float
        Extra cost per extra position, as a fraction of ``t1``; finite and >= 0.
    """

    t1: float
    beta: float

    def __post_init__(self):
        object.__setattr__(self, "t1", as_positive(self.t1, "t1"))
        object.__setattr__(self, "beta", as_positive(self.beta, "beta", allow_zero=True))

    def __call__(self, w):
        """Time of a forward pass over ``w`` positions, seconds."""
        w = _as_widths(w)
        return scalar_or_array(self.t1 * (1.0 + self.beta * (w - 1)))


#: Cap on the number of widths a :class:`Tabulated` model holds.
MAX_TABULATED_WIDTHS = MAX_DRAFT_LENGTH + 1


@dataclass(frozen=True)
class Tabulated:
    """Measured pass times: ``T(w) = times[w - 1]`` for ``w = 1 … len(times)``.

    No shape is assumed (measured times may be noisy, even non-monotone); a width beyond the
    table raises ``ValueError``.

    Parameters
    ----------
    times : sequence of float
        Times of passes over 1, 2, … positions, seconds, finite and > 0; at most
        :data:`MAX_TABULATED_WIDTHS` of them.
    """

    times: tuple[float, ...]

    def __post_init__(self):
        arr = as_float_array(self.times, "times")
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"times must be a non-empty 1-D sequence, got shape {arr.shape}")
        if arr.size > MAX_TABULATED_WIDTHS:
            raise ValueError(f"times must have at most {MAX_TABULATED_WIDTHS} entries, got {arr.size}")
        if not np.isfinite(arr).all() or (arr <= 0).any():
            raise ValueError("times must all be finite and > 0 (seconds)")
        object.__setattr__(self, "times", tuple(float(t) for t in arr))

    def __call__(self, w):
        """Time of a forward pass over ``w`` positions, from the table."""
        w = _as_widths(w)
        if (w > len(self.times)).any():
            raise ValueError(f"w must be <= {len(self.times)} (the widths measured), got {w.max()}")
        return scalar_or_array(np.asarray(self.times)[w - 1])


@dataclass(frozen=True)
class Roofline:
    r"""Roofline time of one decoding forward pass over ``w`` positions for ``batch`` sequences.

    .. math::

        T(w) = \max\Bigl(\frac{B}{\text{bandwidth}},\;
                         \frac{\text{batch}\cdot w\cdot F}{\text{peak}}\Bigr) + \text{overhead}

    with :math:`B = (P - E)\,b + \text{batch}\cdot L\cdot \kappa` the bytes read (weights, then
    every sequence's KV cache: ``P`` parameters of ``b`` bytes, ``L`` = ``context`` cached tokens
    of :math:`\kappa` = :attr:`ModelSpec.kv_bytes_per_token` bytes), and
    :math:`F = 2(P - E) + 4\,\text{layers}\cdot\text{hidden}\cdot L` the FLOPs per position
    (:meth:`ModelSpec.flops_per_position`). :math:`E = V \cdot \text{hidden}` is an untied input
    embedding (:attr:`ModelSpec.input_embedding_parameters`, 0 when tied): a pass gathers its
    rows for the tokens at hand, :math:`\text{batch}\cdot w\cdot\text{hidden}\cdot b` bytes and
    no arithmetic, and reads the rest of the table not at all; the output head, and a tied
    embedding, which is that head, are read and multiplied in full. Left out, as small next to
    these: the gathered rows, activations, the writes of the ``w`` new KV entries, attention
    among the ``w`` new positions themselves, the softmax and norms. Real kernels reach neither
    peak; the overhead term (kernel launches, sampling, scheduling) is the usual fix for small
    models.

    Properties (``M = B / bandwidth > 0``, ``C = batch F / peak > 0``, ``o`` = overhead, so
    ``T(w) = max(M, w C) + o``), each tested:

    1. *Non-decreasing and convex in w*, being the max of a constant and an increasing line,
       plus a constant. In particular ``T(w) >= T(1)``.
    2. *T(w) / w is non-increasing*: ``max(M / w, C) + o / w``. Equivalently
       ``T(w) <= w T(1)``: a pass over w positions never costs more than w single steps. With
       property 1, for every k,
       ``E[N] / (k/c + k + 1) <= general_speedup <= E[N] / (k/c + 1)``, the right-hand side
       being the chapter's speedup at ``c = T_target(1) / T_draft(1)``.
    3. *Memory-bound plateau*: ``T(w) = T(1)`` exactly for ``1 <= w <= w*`` with
       ``w* = M / C`` (:attr:`ridge_width`; within rounding at ``w = w*`` itself). For
       ``k + 1 <= w*`` the general speedup equals the chapter's ``speedup(alpha, k, c)``,
       ``c = T_target(1) / T_draft(1)``.
    4. *Compute-bound line*: if ``w* <= 1``, ``T(w) - o = w (T(1) - o)``. With ``o = 0`` then
       ``general_speedup = 1 / operations_factor(alpha, k, T_draft(1) / T_target(1)) <= 1``:
       speculation cannot help. If the draft is compute-bound too, that time ratio is the
       arithmetic ratio ``c_hat`` of Leviathan et al.'s Theorem 3.11.
    5. *Verification gets dearer with batch*: with ``o = 0``,
       ``T(w) / T(1) = clip(w / w*, 1, w)``, and ``1 / w* = C / M`` grows with ``batch`` (``C`` is
       proportional to it, ``M`` affine in it with a positive intercept, the weights). So the
       verification ratio ``T(k + 1) / T(1)`` is non-decreasing in the batch size.

    Memory held (:attr:`memory_needed`) counts every parameter, the whole embedding table
    included, though a pass reads only part of it.

    Parameters
    ----------
    model : ModelSpec
    gpu : GPUSpec
    batch : int, default 1
        Sequences decoded together, 1 to :data:`MAX_BATCH`.
    context : int, default 0
        Tokens already in each sequence's KV cache, 0 to :data:`MAX_CONTEXT`.
    overhead_s : float, default 0.0
        Fixed time per forward pass, seconds, >= 0.
    """

    model: ModelSpec
    gpu: GPUSpec
    batch: int = 1
    context: int = 0
    overhead_s: float = 0.0

    def __post_init__(self):
        if not isinstance(self.model, ModelSpec):
            raise ValueError(f"model must be a ModelSpec, got {type(self.model).__name__}")
        if not isinstance(self.gpu, GPUSpec):
            raise ValueError(f"gpu must be a GPUSpec, got {type(self.gpu).__name__}")
        object.__setattr__(self, "batch", as_count(self.batch, "batch", cap=MAX_BATCH))
        object.__setattr__(self, "context", as_count(self.context, "context", cap=MAX_CONTEXT, minimum=0))
        object.__setattr__(self, "overhead_s", as_positive(self.overhead_s, "overhead_s", allow_zero=True))

    @property
    def bytes_read(self) -> float:
        """Bytes one pass reads: :attr:`ModelSpec.weight_bytes_read` plus ``batch * context`` cached tokens."""
        return self.model.weight_bytes_read + self.batch * self.context * self.model.kv_bytes_per_token

    @property
    def memory_time(self) -> float:
        """Seconds to read :attr:`bytes_read` at peak bandwidth (``M``)."""
        return self.bytes_read / self.gpu.memory_bandwidth

    def flops(self, w):
        """FLOPs of a pass over ``w`` positions: ``batch * w * model.flops_per_position(context)``."""
        w = _as_widths(w)
        return scalar_or_array(self.batch * w * self.model.flops_per_position(self.context))

    def compute_time(self, w):
        """Seconds to do :meth:`flops` at peak throughput (``w C``)."""
        return scalar_or_array(np.asarray(self.flops(w)) / self.gpu.peak_flops)

    @property
    def ridge_width(self) -> float:
        """``w* = M / C``: up to this many positions per sequence a pass costs the same as one.

        Below 1, even a single-position pass is compute-bound.
        """
        return self.memory_time / float(self.compute_time(1))

    @property
    def memory_needed(self) -> float:
        """Bytes resident: all weights plus the KV cache of every sequence (activations left out)."""
        return self.model.weight_bytes + self.batch * self.context * self.model.kv_bytes_per_token

    @property
    def fits(self) -> bool:
        """Whether :attr:`memory_needed` fits in ``gpu.memory_bytes``."""
        return self.memory_needed <= self.gpu.memory_bytes

    def __call__(self, w):
        """Time of a forward pass over ``w`` positions, seconds."""
        compute = np.asarray(self.compute_time(w))
        return scalar_or_array(np.maximum(self.memory_time, compute) + self.overhead_s)


def free_verification(t1) -> FreeVerification:
    """``T(w) = t1``: the chapter's cost model. See :class:`FreeVerification`."""
    return FreeVerification(t1)


def linear_overhead(t1, beta) -> LinearOverhead:
    """``T(w) = t1 (1 + beta (w - 1))``. See :class:`LinearOverhead`."""
    return LinearOverhead(t1, beta)


def tabulated(times) -> Tabulated:
    """``T(w) = times[w - 1]``, measured. See :class:`Tabulated`."""
    return Tabulated(times)


def roofline(model: ModelSpec, gpu: GPUSpec, batch=1, context=0, overhead_s=0.0) -> Roofline:
    """``T(w) = max(bytes / bandwidth, FLOPs(w) / peak) + overhead_s``. See :class:`Roofline`."""
    return Roofline(model, gpu, batch, context, overhead_s)
