"""A batch-size schedule of draft lengths, in the form serving engines take it.

vLLM's speculative config has ``num_speculative_tokens_per_batch_size``: a list of
``(range_start, range_end, num_speculative_tokens)`` entries over inclusive batch-size ranges,
``num_speculative_tokens = 0`` meaning "do not speculate at these batch sizes"
(``vllm/config/speculative.py``, class ``SpeculativeConfig``, at vllm-project/vllm commit
002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443; checked by ``validate_and_normalize_dynamic_sd_schedule``
in ``vllm/v1/spec_decode/dynamic/utils.py`` at commit 14b450ca590cbff96e7004bdb147a5d3acf5a4f6,
which wants the first range to start at 1, the ranges sorted and not overlapping, and every k >= 0).
"""

from __future__ import annotations

import numpy as np

from ._validate import MAX_DRAFT_LENGTH, as_draft_length, as_float_array, shown, shown_first
from .costs import MAX_BATCH


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
        Swept batch sizes, strictly increasing, each 1 to :data:`~specmath.MAX_BATCH`.
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
