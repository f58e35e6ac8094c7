"""The best draft length as the batch grows, and the batch-size schedule of it that servers take.

:func:`roofline_batch_sweep` (one alpha, or an :class:`~specmath.Acceptance`: a measured
per-position profile or curve) finds the best k at each batch size under the roofline of one GPU;
:func:`batch_k_schedule` turns such a sweep into batch-size ranges.

vLLM's speculative config has ``num_speculative_tokens_per_batch_size``: a list of
``(range_start, range_end, num_speculative_tokens)`` entries over inclusive batch-size ranges,
``num_speculative_tokens = 0`` meaning "do not speculate at these batch sizes"
(``vllm/config/speculative.py``, class ``SpeculativeConfig``, at vllm-project/vllm commit
002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443; checked by ``validate_and_normalize_dynamic_sd_schedule``
in ``vllm/v1/spec_decode/dynamic/utils.py`` at commit 14b450ca590cbff96e7004bdb147a5d3acf5a4f6,
which wants the first range to start at 1, the ranges sorted and not overlapping, and every k >= 0).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _kernels
from ._validate import (
    MAX_DRAFT_LENGTH,
    as_count,
    as_draft_length,
    as_float_array,
    as_positive,
    shown,
    shown_first,
)
from .acceptance_model import split
from .costs import MAX_BATCH, Roofline, _pass_times, _per_gpu
from .general import as_drafter
from .specs import ModelSpec

#: Cap on the number of batch sizes :func:`roofline_batch_sweep` takes in one call.
MAX_SWEEP_POINTS = 4096


class BatchSweep(NamedTuple):
    """Best draft length and speedup under the roofline model, per batch size.

    Attributes
    ----------
    batch : ndarray of int64
        The batch sizes, ascending, duplicates removed.
    k : ndarray of int64
        Best draft length at each (:func:`general_optimal_k`).
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


def roofline_batch_sweep(
    alpha, draft, target, gpu, batches, context=0, overhead_s=0.0, max_k=20, *, drafter="sequential", tp=1,
    draft_tp=1, interconnect=None,
) -> BatchSweep:  # fmt: skip
    r"""Best k and speedup as the batch grows, draft and target on one kind of GPU under the roofline.

    For each batch size ``b``, the target is ``Roofline(target, gpu, b, context, overhead_s, tp,
    interconnect)`` and the draft ``Roofline(draft, gpu, b, context, overhead_s, draft_tp,
    interconnect)`` (the draft decodes the same b sequences with the same context), and
    :func:`general_optimal_k` picks k for the drafter kind:

    .. math:: S_b(k) = \frac{\mathbb{E}[N_k]\, T^{(b)}_{\text{target}}(1)}
                            {k\, T^{(b)}_{\text{draft}}(1) + T^{(b)}_{\text{target}}(k + 1)}

    (a sequential drafter), with :math:`\mathbb{E}[N_k]` the chapter's closed form for one alpha
    and :math:`1 + \sum_{i \le k} u_i` for an :class:`~specmath.Acceptance` holding a profile
    (measured up to its positions, extrapolated past them as :func:`~specmath.calibration.extend_profile` does). For one
    alpha the memory-bound plateau is settled by :func:`optimal_k`'s closed-form comparison, exact
    ties included; for a profile, ties go to the shorter draft as computed (:func:`general_optimal_k`'s rule).

    Parameters
    ----------
    alpha : float or Acceptance
        Acceptance rate in [0, 1] (a single value), or one :func:`~specmath.acceptance` value.
    draft : ModelSpec or float
        The draft model; for a model-free drafter, its lookup time per iteration in seconds (>= 0).
    target : ModelSpec
    gpu : GPUSpec
    batches : array_like of int
        Batch sizes, each 1 to :data:`MAX_BATCH`; at most :data:`MAX_SWEEP_POINTS` of them.
    context : int, default 0
        Cached tokens per sequence.
    overhead_s : float, default 0.0
        Fixed time per forward pass, seconds, charged to the draft's and the target's passes.
    max_k : int, default 20
        Longest draft considered.
    drafter : {"sequential", "parallel", "model_free"}, default "sequential"
        How the draft proposes (:data:`~specmath.general.DRAFTERS`, :func:`general_speedup`).
    tp, draft_tp : int, default 1
        Tensor-parallel degrees of the target and of the draft (servers often keep a small
        draft at 1: its all-reduces would cost more than its weights).
    interconnect : Interconnect, optional
        The link between the GPUs; needed when either degree is above 1.

    Returns
    -------
    specmath.schedule.BatchSweep
    """
    alpha, measured = split(alpha)
    if alpha is not None and alpha.ndim != 0:
        raise ValueError(f"alpha must be a single value here, got shape {alpha.shape}")
    max_k = as_count(max_k, "max_k", cap=MAX_DRAFT_LENGTH)
    ks = np.arange(1, max_k + 1)
    tokens = _kernels.expected_tokens(alpha, ks) if measured is None else measured._tokens(ks)
    serving = (drafter, tp, draft_tp, interconnect)
    return _sweep(tokens, alpha, draft, target, gpu, batches, context, overhead_s, serving)


def _check_draft(draft, drafter: str):
    """A draft model, or a model-free drafter's lookup time (seconds)."""
    if drafter == "model_free":
        if isinstance(draft, ModelSpec):
            raise ValueError("draft must be a lookup time in seconds for a model-free drafter, got a ModelSpec")
        return as_positive(draft, "draft", allow_zero=True)
    if not isinstance(draft, ModelSpec):
        raise ValueError(f"draft must be a ModelSpec, got {type(draft).__name__}")
    return draft


def _sweep(tokens: np.ndarray, alpha, draft, target, gpu, batches, context, overhead_s, serving) -> BatchSweep:
    """The sweep of :func:`roofline_batch_sweep`, ``tokens`` being E[N_k] for k = 1 … max_k; ``alpha``,
    when it is one, settles exact ties on the memory-bound plateau in closed form; ``serving``
    is (drafter, tp, draft_tp, interconnect)."""
    drafter, tp, draft_tp, interconnect = serving
    drafter = as_drafter(drafter)
    if not isinstance(target, ModelSpec):
        raise ValueError(f"target must be a ModelSpec, got {type(target).__name__}")
    draft = _check_draft(draft, drafter)
    raw = np.asarray(batches)
    if raw.ndim != 1 or raw.size == 0:
        raise ValueError(f"batches must be a non-empty 1-D list of batch sizes, got shape {raw.shape}")
    if raw.size > MAX_SWEEP_POINTS:
        raise ValueError(f"batches must have at most {MAX_SWEEP_POINTS} entries, got {raw.size}")
    sizes = as_draft_length(raw, "batches", cap=MAX_BATCH)
    outside = (sizes < 1) | (sizes > MAX_BATCH)
    if outside.any():
        raise ValueError(f"batches must be within [1, {MAX_BATCH:,}], got {shown_first(raw, outside)}")
    sizes = np.unique(sizes)
    # The arguments a Roofline of each batch would check, checked once.
    ends = Roofline(target, gpu, int(sizes[-1]), context, overhead_s, tp, interconnect)
    context, overhead_s, tp = ends.context, ends.overhead_s, ends.tp
    if drafter != "model_free":
        draft_tp = Roofline(draft, gpu, 1, context, overhead_s, draft_tp, interconnect).tp
    max_k = tokens.size
    ks = np.arange(1, max_k + 1)
    widths = np.r_[1, ks + 1]
    # Every batch at once, in the same floating-point operations as Roofline and
    # general_optimal_k take one batch at a time, so the figures are the same bit for bit.
    rows = sizes[:, None]
    t_target = _pass_times(target, gpu, rows, context, widths[None, :], overhead_s, tp, interconnect)
    target1 = t_target[:, 0]
    ratios = t_target[:, 1:] / target1[:, None]
    if drafter == "model_free":
        drafting = np.broadcast_to((draft / target1)[:, None], ratios.shape)
        t_draft = np.full(target1.shape, draft)
    else:
        draft_widths = ks[None, :] if drafter == "parallel" else np.ones((1, 1), dtype=np.int64)
        t_drafts = _pass_times(draft, gpu, rows, context, draft_widths, overhead_s, draft_tp, interconnect)
        t_draft = t_drafts[:, 0]
        drafting = t_drafts / target1[:, None]
    with np.errstate(divide="ignore"):
        c = target1 / t_draft
    table = tokens / (ks / c[:, None] + ratios) if drafter == "sequential" else tokens / (drafting + ratios)
    k, s = _kernels.best_over_k(table)
    free = (ratios == 1.0).all(axis=1) & (drafter == "sequential")
    if alpha is not None and free.any():
        # On the memory-bound plateau the search is optimal_k's, exact ties included.
        k_free = _kernels.shortest_best_k(alpha, c[free], max_k)
        k[free] = k_free
        s[free] = _kernels.expected_tokens(alpha, k_free) / (k_free / c[free] + 1.0)
    ratio = np.take_along_axis(ratios, (k - 1)[:, None], axis=1)[:, 0]
    fits = _per_gpu(target.weight_bytes, sizes * context * target.kv_bytes_per_token, target, tp) <= gpu.memory_bytes
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


def _one_d(value, name: str) -> np.ndarray:
    raw = np.asarray(value, dtype=object) if value is None else np.asarray(value)
    if raw.ndim != 1 or raw.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D list, got {shown(value):.80}")
    return raw


def batch_k_schedule(batches, best_k, best_speedup) -> list[tuple[int, int, int]]:
    """The ``(lo, hi, k)`` batch-size ranges of a per-batch sweep of the best draft length.

    At each swept batch size ``b_i`` the scheduled draft length is

    .. math:: k_i = \\begin{cases} k^\\ast_i & S_i > 1 \\\\ 0 & S_i \\le 1 \\end{cases}

    where :math:`k^\\ast_i` is the best draft length and :math:`S_i` its speedup over plain
    decoding: where speculation does not pay, the schedule does not speculate (k = 0, vLLM's
    "no speculative tokens at these batch sizes"). Consecutive swept batches with the same
    :math:`k_i` make one range, so adjacent ranges always have different k.

    **Batches between two swept ones** take the k of the swept batch below them: a range starts
    at its first swept batch and runs to the batch just before the next range's first swept batch,
    so the ranges are contiguous over the integers from ``batches[0]`` to ``batches[-1]``. This is
    also how vLLM fills a gap between two entries (with the k of the entry below it,
    ``build_dynamic_sd_schedule_lookup`` in ``vllm/v1/spec_decode/dynamic/utils.py``, commit
    14b450ca590cbff96e7004bdb147a5d3acf5a4f6), and beyond the last entry it keeps the last k.
    vLLM wants the first range to start at batch 1: sweep from 1 for a schedule it takes.

    Parameters
    ----------
    batches : array_like of int
        Swept batch sizes, strictly increasing, each 1 to :data:`~specmath.costs.MAX_BATCH`.
    best_k : array_like of int
        Best draft length at each batch, >= 0 (0: no draft).
    best_speedup : array_like of float
        Speedup at that draft length, finite and > 0 (as :func:`roofline_batch_sweep` returns).

    Returns
    -------
    list of (int, int, int)
        ``(lo, hi, k)`` with ``lo <= hi`` inclusive, in order: the first ``lo`` is ``batches[0]``,
        the last ``hi`` is ``batches[-1]`` and each ``lo`` is the previous ``hi + 1``.

    Examples
    --------
    >>> batch_k_schedule([1, 2, 4, 8, 16], [5, 5, 4, 2, 2], [2.1, 1.9, 1.4, 1.1, 0.97])
    [(1, 3, 5), (4, 7, 4), (8, 15, 2), (16, 16, 0)]
    """
    raw_batches = _one_d(batches, "batches")
    raw_k = _one_d(best_k, "best_k")
    raw_s = _one_d(best_speedup, "best_speedup")
    if not raw_batches.size == raw_k.size == raw_s.size:
        raise ValueError(
            "batches, best_k and best_speedup must have one entry per batch, "
            f"got lengths {raw_batches.size}, {raw_k.size} and {raw_s.size}"
        )
    b = as_draft_length(raw_batches, "batches", cap=MAX_BATCH)
    if (b < 1).any():
        raise ValueError(f"batches must be >= 1, got {shown_first(batches, b < 1)}")
    steps = np.diff(b) <= 0
    if steps.any():
        where = int(np.flatnonzero(steps)[0]) + 1
        raise ValueError(
            f"batches must be strictly increasing, got {shown(raw_batches[where])} after "
            f"{shown(raw_batches[where - 1])} (index {where})"
        )
    k = as_draft_length(raw_k, "best_k", cap=MAX_DRAFT_LENGTH)
    s = as_float_array(raw_s, "best_speedup")
    bad = ~np.isfinite(s) | (s <= 0)
    if bad.any():
        raise ValueError(f"best_speedup must be finite and > 0, got {shown_first(best_speedup, bad)}")

    scheduled = np.where(s > 1.0, k, 0)
    # A range starts wherever the scheduled k changes; it ends just before the next one starts.
    starts = np.flatnonzero(np.r_[True, scheduled[1:] != scheduled[:-1]])
    his = np.r_[b[starts[1:]] - 1, b[-1]]
    return [(int(b[i]), int(hi), int(scheduled[i])) for i, hi in zip(starts, his, strict=True)]
