r"""Speedup when verification is not free: cost models for a forward pass, and the best k.

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
  :class:`ModelSpec`, a :class:`GPUSpec`, the batch size and the context length;

plus :class:`Tabulated` for times measured at each width. With them, :func:`general_speedup`
and :func:`optimal_k_general` replace ``speedup`` and ``optimal_k``, and
:func:`operations_factor` gives the growth in total arithmetic (Leviathan et al. 2023,
Theorem 3.11). Conventions as in :mod:`specmath.speedup`: ``alpha`` the acceptance rate, ``k``
the draft length, ``c`` the target step time over the draft step time.

The presets :data:`MODEL_PRESETS` and :data:`GPU_PRESETS` give public numbers, each with its
source; they are read-only, and edited with :func:`dataclasses.replace`, e.g.
``replace(GPU_PRESETS["H100 SXM"], peak_flops=700e12)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from . import _kernels
from ._validate import as_alpha, as_count, as_draft_length, as_float_array, scalar_or_array
from .speedup import MAX_DRAFT_LENGTH

#: Cap on the number of batch sizes :func:`roofline_batch_sweep` takes in one call.
MAX_SWEEP_POINTS = 4096

#: Cap on ``batch`` and ``context`` for :class:`Roofline`: far beyond any real deployment, it
#: keeps the byte and FLOP counts well inside float range and catches typos (an extra zero or
#: three).
MAX_BATCH = 1_000_000
MAX_CONTEXT = 100_000_000

# --------------------------------------------------------------------------------------------
# Checks


def _positive(value, name: str, *, allow_zero: bool = False) -> float:
    """A single finite number > 0 (or >= 0), as float."""
    arr = as_float_array(value, name)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a single number, got an array of shape {arr.shape}")
    x = float(arr)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x}")
    if x < 0 or (x == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, got {x:g}")
    return x


def _as_widths(w) -> np.ndarray:
    """Widths: integers >= 1 (the positions one forward pass processes per sequence)."""
    w = as_draft_length(w, "w")
    if (w < 1).any():
        raise ValueError(f"w must be >= 1 (positions in one forward pass), got {w[w < 1].flat[0]}")
    return w


def _evaluate(model, w: np.ndarray, name: str, *, allow_zero: bool) -> np.ndarray:
    """``model(w)`` as a float array of w's shape, checked to be finite times > 0 (or >= 0)."""
    if not callable(model):
        raise ValueError(f"{name} must be a cost model: a callable T(w) returning seconds")
    times = as_float_array(model(w), f"{name}(w)")
    try:
        times = np.broadcast_to(times, w.shape)
    except ValueError:
        raise ValueError(f"{name}(w) must return one time per width: shape {w.shape}, got {times.shape}") from None
    bad = ~np.isfinite(times) | (times < 0 if allow_zero else times <= 0)
    if bad.any():
        where = np.flatnonzero(bad.ravel())[0]
        limit = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name}(w) must be a finite time {limit}, got {times.flat[where]:g} at w = {w.flat[where]}")
    return times


def _as_cost_model(value, name: str, *, allow_zero: bool):
    """A callable as is; a single number as a flat cost T(w) = value."""
    if callable(value):
        return value
    t = _positive(value, name, allow_zero=allow_zero)
    return lambda w: np.full(np.shape(w), t)


# --------------------------------------------------------------------------------------------
# Cost models


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
        object.__setattr__(self, "t1", _positive(self.t1, "t1"))

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
        object.__setattr__(self, "t1", _positive(self.t1, "t1"))
        object.__setattr__(self, "beta", _positive(self.beta, "beta", allow_zero=True))

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
class ModelSpec:
    """A decoder-only transformer, as the roofline model sees it.

    Attributes
    ----------
    name : str
        A label.
    parameters : float
        Total parameter count, embeddings included, > 0.
    layers : int
        Transformer blocks (``num_hidden_layers``).
    hidden : int
        Model width (``hidden_size``); the attention FLOPs take ``heads * head_dim = hidden``.
    kv_heads : int
        Key/value heads (``num_key_value_heads``; fewer than query heads under GQA).
    head_dim : int
        Dimension of one head.
    bytes_per_parameter : float, default 2.0
        2 for BF16/FP16 weights, 1 for FP8/INT8, 0.5 for 4-bit.
    kv_bytes_per_element : float, default 2.0
        Bytes of one cached key or value element (2 for a BF16 cache, 1 for FP8).
    source : str
        Where the numbers come from.
    """

    name: str
    parameters: float
    layers: int
    hidden: int
    kv_heads: int
    head_dim: int
    bytes_per_parameter: float = 2.0
    kv_bytes_per_element: float = 2.0
    source: str = field(default="", compare=False)

    def __post_init__(self):
        object.__setattr__(self, "parameters", _positive(self.parameters, "parameters"))
        for name in ("layers", "hidden", "kv_heads", "head_dim"):
            object.__setattr__(self, name, as_count(getattr(self, name), name, cap=10**7))
        for name in ("bytes_per_parameter", "kv_bytes_per_element"):
            object.__setattr__(self, name, _positive(getattr(self, name), name))

    @property
    def weight_bytes(self) -> float:
        """Bytes of the weights: ``parameters * bytes_per_parameter``."""
        return self.parameters * self.bytes_per_parameter

    @property
    def kv_bytes_per_token(self) -> float:
        """KV-cache bytes per token of context: ``2 * layers * kv_heads * head_dim * kv_bytes``."""
        return 2.0 * self.layers * self.kv_heads * self.head_dim * self.kv_bytes_per_element

    def flops_per_position(self, context) -> float:
        """FLOPs to process one position against ``context`` cached tokens.

        ``2 * parameters`` (one multiply-add per weight) plus ``4 * layers * hidden * context``
        (the scores ``q k^T`` and the weighted sum of values, one multiply-add per cached
        element each).
        """
        return 2.0 * self.parameters + 4.0 * self.layers * self.hidden * float(context)


@dataclass(frozen=True)
class GPUSpec:
    """An accelerator, as the roofline model sees it.

    Attributes
    ----------
    name : str
        A label.
    memory_bandwidth : float
        Peak memory bandwidth, bytes per second, > 0.
    peak_flops : float
        Peak dense (no sparsity) BF16 tensor throughput, FLOP per second, > 0.
    memory_bytes : float
        Memory capacity, bytes, > 0 (used only by :attr:`Roofline.fits`).
    source : str
        Where the numbers come from.
    """

    name: str
    memory_bandwidth: float
    peak_flops: float
    memory_bytes: float
    source: str = field(default="", compare=False)

    def __post_init__(self):
        for name in ("memory_bandwidth", "peak_flops", "memory_bytes"):
            object.__setattr__(self, name, _positive(getattr(self, name), name))

    @property
    def ridge_intensity(self) -> float:
        """FLOPs per byte at which compute time equals memory time: ``peak_flops / memory_bandwidth``."""
        return self.peak_flops / self.memory_bandwidth


@dataclass(frozen=True)
class Roofline:
    r"""Roofline time of one decoding forward pass over ``w`` positions for ``batch`` sequences.

    .. math::

        T(w) = \max\Bigl(\frac{B}{\text{bandwidth}},\;
                         \frac{\text{batch}\cdot w\cdot F}{\text{peak}}\Bigr) + \text{overhead}

    with :math:`B = P b + \text{batch}\cdot L\cdot \kappa` the bytes read (weights, then every
    sequence's KV cache: ``P`` parameters of ``b`` bytes, ``L`` = ``context`` cached tokens of
    :math:`\kappa` = :attr:`ModelSpec.kv_bytes_per_token` bytes), and
    :math:`F = 2P + 4\,\text{layers}\cdot\text{hidden}\cdot L` the FLOPs per position
    (:meth:`ModelSpec.flops_per_position`). Left out, as small next to these: activations, the
    writes of the ``w`` new KV entries, attention among the ``w`` new positions themselves, the
    softmax and norms. Real kernels reach neither peak; the overhead term (kernel launches,
    sampling, scheduling) is the usual fix for small models.

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
        object.__setattr__(self, "overhead_s", _positive(self.overhead_s, "overhead_s", allow_zero=True))

    @property
    def bytes_read(self) -> float:
        """Bytes one pass reads: weights plus ``batch * context`` cached tokens."""
        return self.model.weight_bytes + self.batch * self.context * self.model.kv_bytes_per_token

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
        """Bytes resident: weights plus the KV cache of every sequence (activations left out)."""
        return self.bytes_read

    @property
    def fits(self) -> bool:
        """Whether :attr:`memory_needed` fits in ``gpu.memory_bytes``."""
        return self.memory_needed <= self.gpu.memory_bytes

    def __call__(self, w):
        """Time of a forward pass over ``w`` positions, seconds."""
        compute = np.asarray(self.compute_time(w))
        return scalar_or_array(np.maximum(self.memory_time, compute) + self.overhead_s)

    time = __call__


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


# --------------------------------------------------------------------------------------------
# Presets. Numbers are public; GPU figures are the vendor's peak (memory bandwidth, dense BF16
# tensor FLOP/s, *not* the "with sparsity" figure datasheets print first), model figures are
# read off each model's config.json on the Hugging Face Hub, with the parameter count computed
# from that config (embeddings + layers x (attention + MLP + norms) + final norm + LM head unless
# tied); tests/specmath/test_hardware.py recomputes every count. Weights and KV cache in BF16 (2 bytes).

_MODELS = [
    ModelSpec(
        "Llama-3.1-70B",
        parameters=70_553_706_496,  # computed from the config below; the Hub shows 70.6B
        layers=80,  # config.json num_hidden_layers
        hidden=8192,  # hidden_size (intermediate_size 28672, vocab_size 128256, untied)
        kv_heads=8,  # num_key_value_heads (64 query heads)
        head_dim=128,  # hidden_size / num_attention_heads = 8192 / 64
        source="huggingface.co/meta-llama/Llama-3.1-70B, config.json",
    ),
    ModelSpec(
        "Llama-3.1-8B",
        parameters=8_030_261_248,  # computed from the config below; the Hub shows 8.03B
        layers=32,  # config.json num_hidden_layers
        hidden=4096,  # hidden_size (intermediate_size 14336, vocab_size 128256, untied)
        kv_heads=8,  # num_key_value_heads (32 query heads)
        head_dim=128,  # hidden_size / num_attention_heads = 4096 / 32
        source="huggingface.co/meta-llama/Llama-3.1-8B, config.json",
    ),
    ModelSpec(
        "Llama-3.2-1B",
        parameters=1_235_814_400,  # computed from the config below; the Hub shows 1.24B
        layers=16,  # config.json num_hidden_layers
        hidden=2048,  # hidden_size (intermediate_size 8192, vocab_size 128256, tied embeddings)
        kv_heads=8,  # num_key_value_heads (32 query heads)
        head_dim=64,  # config.json head_dim
        source="huggingface.co/meta-llama/Llama-3.2-1B, config.json",
    ),
    ModelSpec(
        "Llama-2-7B",
        parameters=6_738_415_616,  # computed from the config below; the Hub shows 6.74B
        layers=32,  # config.json num_hidden_layers
        hidden=4096,  # hidden_size (intermediate_size 11008, vocab_size 32000, untied)
        kv_heads=32,  # no GQA: num_key_value_heads = num_attention_heads = 32
        head_dim=128,  # 4096 / 32
        source="huggingface.co/meta-llama/Llama-2-7b-hf, config.json",
    ),
    ModelSpec(
        "LLaMA-68M",
        parameters=68_030_208,  # computed from the config below: the "68M" of its name
        layers=2,  # config.json num_hidden_layers
        hidden=768,  # hidden_size (intermediate_size 3072, vocab_size 32000, untied)
        kv_heads=12,  # num_key_value_heads = num_attention_heads = 12
        head_dim=64,  # 768 / 12
        source="huggingface.co/JackFram/llama-68m, config.json (the SpecInfer draft model, Miao et al. 2024)",
    ),
    ModelSpec(
        "Qwen2.5-7B",
        parameters=7_615_616_512,  # computed from the config below (q/k/v biases); the Hub shows 7.62B
        layers=28,  # config.json num_hidden_layers
        hidden=3584,  # hidden_size (intermediate_size 18944, vocab_size 152064, untied)
        kv_heads=4,  # num_key_value_heads (28 query heads)
        head_dim=128,  # 3584 / 28
        source="huggingface.co/Qwen/Qwen2.5-7B, config.json",
    ),
    ModelSpec(
        "Qwen2.5-0.5B",
        parameters=494_032_768,  # computed from the config below (q/k/v biases); the Hub shows 494M
        layers=24,  # config.json num_hidden_layers
        hidden=896,  # hidden_size (intermediate_size 4864, vocab_size 151936, tied embeddings)
        kv_heads=2,  # num_key_value_heads (14 query heads)
        head_dim=64,  # 896 / 14
        source="huggingface.co/Qwen/Qwen2.5-0.5B, config.json",
    ),
]

_GPUS = [
    GPUSpec(
        "A100 80GB SXM",
        # NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf),
        # A100 80GB SXM column: "GPU Memory Bandwidth 2,039GB/s".
        memory_bandwidth=2_039e9,
        # Same datasheet: "BFLOAT16 Tensor Core 312 TFLOPS | 624 TFLOPS*", * = with sparsity.
        peak_flops=312e12,
        memory_bytes=80e9,  # same datasheet: "GPU Memory 80GB HBM2e"
        source="NVIDIA A100 datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)",
    ),
    GPUSpec(
        "H100 SXM",
        # NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column: "GPU memory bandwidth 3.35TB/s".
        memory_bandwidth=3.35e12,
        # Same datasheet: "BFLOAT16 Tensor Core 1,979 teraFLOPS*", * = with sparsity ("1/2 lower
        # without sparsity"): 989.5 dense (NVIDIA's Hopper whitepaper prints 989.4).
        peak_flops=989.5e12,
        memory_bytes=80e9,  # same datasheet: "GPU memory 80GB"
        source="NVIDIA H100 datasheet (H100 SXM column)",
    ),
    GPUSpec(
        "L4",
        # NVIDIA L4 Tensor Core GPU datasheet: "GPU memory bandwidth 300GB/s".
        memory_bandwidth=300e9,
        # Same datasheet: "BF16 Tensor Core 242 teraFLOPS*", * = with sparsity: 121 dense.
        peak_flops=121e12,
        memory_bytes=24e9,  # same datasheet: "GPU memory 24GB"
        source="NVIDIA L4 datasheet",
    ),
    GPUSpec(
        "RTX 4090",
        # NVIDIA Ada GPU Architecture whitepaper, Appendix A (GeForce RTX 4090):
        # "Memory Bandwidth 1008 GB/sec" (24 GB GDDR6X, 384-bit, 21 Gbps).
        memory_bandwidth=1_008e9,
        # Same table: "Peak BF16 Tensor TFLOPS with FP32 Accumulate 165.2/330.4" (dense/sparse).
        peak_flops=165.2e12,
        memory_bytes=24e9,  # same table: "Frame Buffer Memory Size and Type 24 GB GDDR6X"
        source="NVIDIA Ada GPU Architecture whitepaper, Appendix A",
    ),
]

#: Model presets by name (read-only; edit a copy with :func:`dataclasses.replace`).
MODEL_PRESETS = MappingProxyType({m.name: m for m in _MODELS})

#: GPU presets by name (read-only; edit a copy with :func:`dataclasses.replace`).
GPU_PRESETS = MappingProxyType({g.name: g for g in _GPUS})


# --------------------------------------------------------------------------------------------
# Speedup, best k, arithmetic


def _costs(t_draft, t_target, widths: np.ndarray):
    """``c = T_t(1) / T_d(1)`` and the verification ratios ``T_t(widths) / T_t(1)``."""
    t_draft = _as_cost_model(t_draft, "t_draft", allow_zero=True)
    t_target = _as_cost_model(t_target, "t_target", allow_zero=False)
    one = np.ones((), dtype=np.int64)
    draft1 = float(_evaluate(t_draft, one, "t_draft", allow_zero=True))
    target1 = float(_evaluate(t_target, one, "t_target", allow_zero=False))
    ratio = _evaluate(t_target, widths, "t_target", allow_zero=False) / target1
    with np.errstate(divide="ignore"):
        c = np.float64(target1) / np.float64(draft1)  # inf for a free draft
    return c, ratio


def general_speedup(alpha, k, t_draft, t_target):
    r"""Speedup of speculative decoding when a pass over ``k + 1`` positions may cost more.

    .. math::

        S = \frac{\mathbb{E}[N]\; T_t(1)}{k\,T_d(1) + T_t(k+1)}
          = \frac{\mathbb{E}[N]}{k / c + T_t(k+1) / T_t(1)},
        \qquad c = \frac{T_t(1)}{T_d(1)}

    One iteration runs the draft k times (one position each) and the target once over
    ``k + 1`` positions, and yields :math:`\mathbb{E}[N]` tokens; plain decoding pays
    :math:`T_t(1)` per token. With free verification, :math:`T_t(k+1) = T_t(1)`, this is the
    chapter's :math:`\mathbb{E}[N] / (1 + k/c)`, computed so that it equals
    :func:`~specmath.speedup` bit for bit. ``k = 0`` gives 1.

    Parameters
    ----------
    alpha : array_like of float
        Acceptance rates in [0, 1].
    k : array_like of int
        Draft lengths >= 0; broadcasts against ``alpha``.
    t_draft : cost model or float
        The draft's step time, seconds: a cost model (evaluated at ``w = 1``) or a number
        >= 0 (0 is a free draft, ``c = inf``).
    t_target : cost model or float
        The target's pass time ``T(w)``: a callable taking an int array of widths and returning
        seconds, such as :class:`Roofline`, or a number > 0 meaning free verification.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        Shape ``broadcast(alpha, k)``. Below 1 means speculation is slower than plain decoding.
    """
    alpha = as_alpha(alpha)
    k = as_draft_length(k)
    c, ratio = _costs(t_draft, t_target, k + 1)
    return scalar_or_array(_kernels.expected_tokens(alpha, k) / (k / c + ratio))


def optimal_k_general(alpha, t_draft, t_target, max_k=20):
    r"""Best draft length in ``1..max_k`` under any cost model, and the speedup it gives.

    .. math:: k^* = \min \operatorname*{arg\,max}_{1 \le k \le k_{\max}} S(\alpha, k)

    with :math:`S` of :func:`general_speedup`. The smallest maximizer, like
    :func:`~specmath.optimal_k`, which it reproduces exactly under :class:`FreeVerification`
    (``c = T_t(1) / T_d(1)``). Broadcasts over ``alpha``. ``k >= 1`` even where the best
    speedup is below 1 (speculation not worth it); compare with 1 to decide.

    Parameters
    ----------
    alpha : array_like of float
        Acceptance rates in [0, 1].
    t_draft, t_target : cost model or float
        As in :func:`general_speedup`. ``t_target`` is evaluated once, at widths
        ``1 … max_k + 1``.
    max_k : int, default 20
        Longest draft considered, 1 to :data:`~specmath.MAX_DRAFT_LENGTH`.

    Returns
    -------
    k : numpy.int64 or numpy.ndarray of int64
        Optimal draft lengths, shape of ``alpha``.
    speedup : numpy.float64 or numpy.ndarray
        ``general_speedup(alpha, k, t_draft, t_target)`` at those k, bit for bit.
    """
    alpha = as_alpha(alpha)
    max_k = as_count(max_k, "max_k", cap=MAX_DRAFT_LENGTH)
    ks = np.arange(1, max_k + 1)
    c, ratio = _costs(t_draft, t_target, ks + 1)
    best_k, best_speedup = _kernels.best_over_k(_kernels.expected_tokens(alpha[..., None], ks) / (ks / c + ratio))
    return scalar_or_array(best_k), scalar_or_array(best_speedup)


def operations_factor(alpha, k, c_hat):
    r"""Factor by which speculative decoding multiplies total arithmetic (Leviathan et al. 2023).

    .. math::

        \text{OP} = \frac{(1 - \alpha)(k\hat c + k + 1)}{1 - \alpha^{k+1}}
                  = \frac{k \hat c + k + 1}{\mathbb{E}[N]}

    Theorem 3.11 of Leviathan, Kalman and Matias (2023), "Fast Inference from Transformers via
    Speculative Decoding" (their :math:`\gamma` is k). An iteration does k draft passes of
    :math:`\hat c` target-units each and one target pass over ``k + 1`` positions, for
    :math:`\mathbb{E}[N]` tokens. Unlike wall-clock time, arithmetic is never saved:
    ``OP >= 1``, with equality only at ``k = 0`` or ``alpha = 1, c_hat = 0``. When the target is
    compute-bound (FLOPs set the time) the speedup is ``1 / OP``.

    Parameters
    ----------
    alpha : array_like of float
        Acceptance rates in [0, 1].
    k : array_like of int
        Draft lengths >= 0.
    c_hat : array_like of float
        Arithmetic per token of the draft divided by that of the target (about the parameter
        ratio); finite and >= 0. Note the direction: draft over target, like Leviathan et
        al.'s c, unlike this package's c.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        The broadcast of the three inputs; values >= 1.
    """
    alpha = as_alpha(alpha)
    k = as_draft_length(k)
    c_hat = as_float_array(c_hat, "c_hat")
    if np.isnan(c_hat).any():
        raise ValueError("c_hat contains NaN; it must be finite and >= 0")
    if not np.isfinite(c_hat).all():
        raise ValueError("c_hat must be finite (arithmetic of a draft pass over a target pass)")
    if (c_hat < 0).any():
        raise ValueError(f"c_hat must be >= 0, got {c_hat[c_hat < 0].flat[0]:g}")
    return scalar_or_array((k * c_hat + k + 1.0) / _kernels.expected_tokens(alpha, k))


# --------------------------------------------------------------------------------------------
# As the batch grows


class BatchSweep(NamedTuple):
    """Best draft length and speedup under the roofline model, per batch size.

    Attributes
    ----------
    batch : ndarray of int64
        The batch sizes, ascending, duplicates removed.
    k : ndarray of int64
        Best draft length at each (:func:`optimal_k_general`).
    speedup : ndarray of float
        Speedup at that k; below 1, speculation slows serving down.
    c : ndarray of float
        ``T_target(1) / T_draft(1)`` at each batch: the chapter's c the hardware implies.
    verify_ratio : ndarray of float
        ``T_target(k + 1) / T_target(1)`` at the best k: 1 is free verification.
    target_fits : ndarray of bool
        Whether the target's weights and KV cache fit in the GPU's memory.
    crossover_batch : int or None
        Smallest batch in the sweep whose best speedup is below 1, None if there is none.
    """

    batch: np.ndarray
    k: np.ndarray
    speedup: np.ndarray
    c: np.ndarray
    verify_ratio: np.ndarray
    target_fits: np.ndarray
    crossover_batch: int | None


def roofline_batch_sweep(alpha, draft, target, gpu, batches, context=0, overhead_s=0.0, max_k=20) -> BatchSweep:
    """Best k and speedup as the batch grows, draft and target on one GPU under the roofline.

    For each batch size ``b``, the target is ``Roofline(target, gpu, b, context, overhead_s)``
    and the draft ``Roofline(draft, gpu, b, context, overhead_s)`` (the draft decodes the same
    b sequences with the same context), and :func:`optimal_k_general` picks k.

    Parameters
    ----------
    alpha : float
        Acceptance rate in [0, 1] (a single value).
    draft, target : ModelSpec
    gpu : GPUSpec
    batches : array_like of int
        Batch sizes, each 1 to :data:`MAX_BATCH`; at most :data:`MAX_SWEEP_POINTS` of them.
    context : int, default 0
        Cached tokens per sequence.
    overhead_s : float, default 0.0
        Fixed time per forward pass, seconds, charged to the draft's and the target's passes.
    max_k : int, default 20
        Longest draft considered.

    Returns
    -------
    BatchSweep
    """
    alpha = as_alpha(alpha)
    if alpha.ndim != 0:
        raise ValueError(f"alpha must be a single value here, got shape {alpha.shape}")
    for name, spec in (("draft", draft), ("target", target)):
        if not isinstance(spec, ModelSpec):
            raise ValueError(f"{name} must be a ModelSpec, got {type(spec).__name__}")
    raw = np.asarray(batches)
    if raw.ndim != 1 or raw.size == 0:
        raise ValueError(f"batches must be a non-empty 1-D list of batch sizes, got shape {raw.shape}")
    if raw.size > MAX_SWEEP_POINTS:
        raise ValueError(f"batches must have at most {MAX_SWEEP_POINTS} entries, got {raw.size}")
    sizes = as_draft_length(raw, "batches")
    if (sizes < 1).any() or (sizes > MAX_BATCH).any():
        bad = sizes[(sizes < 1) | (sizes > MAX_BATCH)][0]
        raise ValueError(f"batches must be within [1, {MAX_BATCH:,}], got {bad}")
    sizes = np.unique(sizes)
    rows = []
    for b in sizes:
        t_target = Roofline(target, gpu, int(b), context, overhead_s)
        t_draft = Roofline(draft, gpu, int(b), context, overhead_s)
        k, s = optimal_k_general(alpha, t_draft, t_target, max_k)
        ratio = float(t_target(k + 1)) / float(t_target(1))
        c = float(t_target(1)) / float(t_draft(1))
        rows.append((int(k), float(s), c, ratio, t_target.fits))
    k, s, c, ratio, fits = (np.array(col) for col in zip(*rows, strict=True))
    slower = sizes[s < 1.0]
    return BatchSweep(
        batch=sizes,
        k=k.astype(np.int64),
        speedup=s,
        c=c,
        verify_ratio=ratio,
        target_fits=fits.astype(bool),
        crossover_batch=int(slower[0]) if slower.size else None,
    )
