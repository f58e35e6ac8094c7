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
from .moe import _active
from .specs import ACTIVATION_BYTES, GPUSpec, Interconnect, ModelSpec
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


#: Largest tensor-parallel degree a :class:`Roofline` takes.
MAX_TP = 1024


def kv_shards(model: ModelSpec, tp: int) -> int:
    """GPUs the KV cache is split over under tensor parallelism: ``min(tp, kv_heads)``.

    Query heads split evenly over the ``tp`` GPUs; key/value heads too while there are at least
    as many, else each is replicated on ``tp / kv_heads`` GPUs (vLLM's ``QKVParallelLinear``,
    ``vllm/model_executor/layers/linear.py`` at commit 0036d38de46c5d48fdedeb658dedc0fc0f95677d:
    ``if tp_size >= self.total_num_kv_heads: self.num_kv_heads = 1; self.num_kv_head_replicas =
    divide(tp_size, self.total_num_kv_heads)``). A latent cache (MLA, written as one head) is
    then whole on every GPU.
    """
    return min(tp, model.kv_heads)


def _per_gpu(weights, kv, model: ModelSpec, tp: int):
    """Bytes on (or read by) each GPU: weights split over ``tp``, the KV cache over :func:`kv_shards`."""
    return weights + kv if tp == 1 else weights / tp + kv / kv_shards(model, tp)


def _pass_times(model: ModelSpec, gpu: GPUSpec, batch, context: int, widths, overhead_s: float = 0.0, tp: int = 1,
               interconnect: Interconnect | None = None) -> np.ndarray:  # fmt: skip
    """Roofline times of passes over ``widths`` positions for ``batch`` sequences (arrays that
    broadcast), unchecked: :class:`Roofline` checks its arguments, then computes here, and so do
    the batch sweeps, whose figures are therefore the same bit for bit. Formula in :class:`Roofline`."""
    batch, widths = np.asarray(batch), np.asarray(widths)
    kv = batch * context * model.kv_bytes_per_token
    weights = model.weight_bytes_read_at(batch * widths) if model.is_moe else model.weight_bytes_read
    memory = _per_gpu(weights, kv, model, tp) / gpu.memory_bandwidth
    compute = batch * widths * model.flops_per_position(context) / gpu.peak_flops
    if tp > 1:
        compute = compute / tp
    times = np.maximum(memory, compute)
    if tp > 1:
        message = batch * widths * model.hidden * ACTIVATION_BYTES
        times = times + 2 * model.layers * interconnect.all_reduce_time(message, tp)
    return times + overhead_s


@dataclass(frozen=True)
class Roofline:
    r"""Roofline time of one decoding forward pass over ``w`` positions for ``batch`` sequences.

    .. math::

        T(w) = \max\Bigl(\frac{B(w)}{\text{tp}\cdot\text{bandwidth}},\;
                         \frac{\text{batch}\cdot w\cdot F}{\text{tp}\cdot\text{peak}}\Bigr)
               + 2\,\text{layers}\cdot t_{\text{AR}}(\text{batch}\cdot w\cdot\text{hidden}\cdot 2)
               + \text{overhead}

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

    **Mixtures of experts.** A pass over ``batch * w`` tokens reads the dense part and the
    experts those tokens wake, :math:`B(w) = (P_{\text{dense}} + L_e\,\mathbb{E}[A(\text{batch}\,w)]\,P_e)\,b + \ldots`
    (:meth:`ModelSpec.weight_bytes_read_at`, uniform routing), while each position multiplies
    only its own ``experts_per_token`` experts (:meth:`ModelSpec.flops_per_position`). So the
    memory time grows with the width even where compute is far from binding: verifying
    ``k + 1`` positions wakes more experts than decoding one. For a dense model :math:`B` does
    not depend on ``w``.

    **Tensor parallelism** over ``tp`` GPUs splits the weights and the FLOPs evenly
    (Megatron-style column and row splits) and the KV cache over :func:`kv_shards` of them (KV
    heads are replicated once ``tp`` exceeds ``kv_heads``), and adds two all-reduces per layer
    (after attention and after the MLP) of the ``batch * w`` positions' hidden states in BF16,
    each costing
    :meth:`Interconnect.all_reduce_time`: a latency that does not shrink with the batch. At
    ``tp = 1`` there is none and the formula is the single GPU's, bit for bit.

    Properties (dense, ``tp = 1``; ``M = B / bandwidth > 0``, ``C = batch F / peak > 0``,
    ``o`` = overhead, so ``T(w) = max(M, w C) + o``), each tested:

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

    A mixture of experts keeps properties 1 (non-decreasing, not convex: the experts woken
    grow concavely) and 2 (the expected experts per token fall as tokens share them), and has
    no plateau: ``T(w) > T(1)`` for every ``w > 1`` with fewer than all experts awake.

    Memory held (:attr:`memory_needed`) counts every parameter, the whole embedding table and
    every expert included, though a pass reads only part of them.

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
    tp : int, default 1
        Tensor-parallel degree: GPUs the model is split over, 1 to :data:`MAX_TP`.
    interconnect : Interconnect, optional
        The link between those GPUs; needed when ``tp > 1`` (:data:`~specmath.INTERCONNECT_PRESETS`).
    """

    model: ModelSpec
    gpu: GPUSpec
    batch: int = 1
    context: int = 0
    overhead_s: float = 0.0
    tp: int = 1
    interconnect: Interconnect | None = None

    def __post_init__(self):
        if not isinstance(self.model, ModelSpec):
            raise ValueError(f"model must be a ModelSpec, got {type(self.model).__name__}")
        if not isinstance(self.gpu, GPUSpec):
            raise ValueError(f"gpu must be a GPUSpec, got {type(self.gpu).__name__}")
        object.__setattr__(self, "batch", as_count(self.batch, "batch", cap=MAX_BATCH))
        object.__setattr__(self, "context", as_count(self.context, "context", cap=MAX_CONTEXT, minimum=0))
        object.__setattr__(self, "overhead_s", as_positive(self.overhead_s, "overhead_s", allow_zero=True))
        object.__setattr__(self, "tp", as_count(self.tp, "tp", cap=MAX_TP))
        if self.interconnect is not None and not isinstance(self.interconnect, Interconnect):
            raise ValueError(f"interconnect must be an Interconnect or None, got {type(self.interconnect).__name__}")
        if self.tp > 1 and self.interconnect is None:
            raise ValueError(f"interconnect must be given when tp > 1 (tp = {self.tp}): the all-reduces cross it")

    @property
    def bytes_read(self) -> float:
        """Bytes one single-position pass reads, all GPUs together: the weights it wakes plus
        ``batch * context`` cached tokens (:meth:`bytes_read_at` for wider passes)."""
        if self.model.is_moe:
            return float(self.bytes_read_at(1))
        return self.model.weight_bytes_read + self.batch * self.context * self.model.kv_bytes_per_token

    def bytes_read_at(self, w):
        """Bytes a pass over ``w`` positions reads, all GPUs together (more than at ``w = 1`` only
        for a mixture of experts)."""
        w = _as_widths(w)
        kv = self.batch * self.context * self.model.kv_bytes_per_token
        return scalar_or_array(np.asarray(self.model.weight_bytes_read_at(self.batch * w)) + kv)

    @property
    def memory_time(self) -> float:
        """Seconds to read :attr:`bytes_read` at peak bandwidth, split over ``tp`` GPUs (``M``)."""
        return float(self.memory_time_at(1))

    def memory_time_at(self, w):
        """Seconds for each GPU to read its share of :meth:`bytes_read_at` ``w`` at peak bandwidth:
        the weights over ``tp`` GPUs, the KV cache over :func:`kv_shards` of them."""
        w = _as_widths(w)
        if self.tp == 1:
            memory = np.asarray(self.bytes_read_at(w)) if self.model.is_moe else np.full(w.shape, self.bytes_read)
        else:
            kv = self.batch * self.context * self.model.kv_bytes_per_token
            weights = np.asarray(self.bytes_read_at(w)) - kv
            memory = _per_gpu(weights, kv, self.model, self.tp)
        return scalar_or_array(memory / self.gpu.memory_bandwidth)

    def flops(self, w):
        """FLOPs of a pass over ``w`` positions, all GPUs: ``batch * w * model.flops_per_position(context)``."""
        w = _as_widths(w)
        return scalar_or_array(self.batch * w * self.model.flops_per_position(self.context))

    def compute_time(self, w):
        """Seconds to do :meth:`flops` at peak throughput, split over ``tp`` GPUs (``w C``)."""
        compute = np.asarray(self.flops(w)) / self.gpu.peak_flops
        return scalar_or_array(compute / self.tp if self.tp > 1 else compute)

    def all_reduce_time(self, w):
        """Seconds of the pass's ``2 * layers`` all-reduces over ``tp`` GPUs; 0 at ``tp = 1``."""
        w = _as_widths(w)
        if self.tp == 1:
            return scalar_or_array(np.zeros(w.shape))
        message = self.batch * w * self.model.hidden * ACTIVATION_BYTES
        return scalar_or_array(2 * self.model.layers * self.interconnect.all_reduce_time(message, self.tp))

    @property
    def ridge_width(self) -> float:
        """``w*``, where the memory time meets the compute time: up to it a pass is memory-bound.

        Dense: ``M / C``, and a pass over up to ``w*`` positions costs the same as one. For a
        mixture of experts, the real ``w`` where ``M(w) = w C`` (bisection: ``M(w) / w`` falls
        as ``w`` grows). Below 1, even a single-position pass is compute-bound.
        """
        slope = float(self.compute_time(1))
        if not self.model.is_moe:
            return self.memory_time / slope
        return _moe_ridge(self, slope)

    @property
    def memory_needed(self) -> float:
        """Bytes resident on each GPU: all weights over ``tp`` GPUs plus the KV cache of every
        sequence over :func:`kv_shards` of them (activations left out)."""
        kv = self.batch * self.context * self.model.kv_bytes_per_token
        return _per_gpu(self.model.weight_bytes, kv, self.model, self.tp)

    @property
    def fits(self) -> bool:
        """Whether :attr:`memory_needed` fits in ``gpu.memory_bytes``."""
        return self.memory_needed <= self.gpu.memory_bytes

    def __call__(self, w):
        """Time of a forward pass over ``w`` positions, seconds."""
        w = _as_widths(w)
        times = _pass_times(
            self.model, self.gpu, np.int64(self.batch), self.context, w, self.overhead_s, self.tp, self.interconnect
        )
        return scalar_or_array(times)


def _moe_ridge(roofline: Roofline, slope: float) -> float:
    """The real width where a mixture of experts' memory time meets its compute time ``w * slope``."""
    model = roofline.model
    kv = roofline.batch * roofline.context * model.kv_bytes_per_token
    dense = model.matmul_parameters - model.routed_parameters

    def memory(w: float) -> float:
        active = float(_active(model.routed_experts, model.experts_per_token, roofline.batch * w))
        weights = model.bytes_of(dense, model.expert_layers * active * model.expert_parameters)
        return _per_gpu(weights, kv, model, roofline.tp) / roofline.gpu.memory_bandwidth

    low, high = memory(0.0) / slope, memory(np.inf) / slope  # M(w)/w = slope lies between
    for _ in range(200):
        mid = 0.5 * (low + high)
        if memory(mid) > mid * slope:
            low = mid
        else:
            high = mid
        if high - low <= 1e-12 * high:
            break
    return 0.5 * (low + high)
