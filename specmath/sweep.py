r"""From a measured sweep to an acceptance-length curve over k, a per-position profile and a schedule of k.

A sweep (:func:`parse_engine_sweep`) runs one engine at several batch sizes and draft lengths
and measures, for each run, the mean acceptance length :math:`L` (tokens per verification step,
bonus included) and the time of one decoding step :math:`T`. Acceptance does not depend on the
batch, so the runs of one draft length are pooled into one point of the curve :math:`L(k)`;
time does, and the speedup of draft length k at batch b is measured directly,

.. math:: S_b(k) = \frac{L(k)\, T_b(0)}{T_b(k)},

with :math:`T_b(0)` the step time of the run without speculation at that batch: a step of k
emits :math:`L(k)` tokens in :math:`T_b(k)`, a plain step one token in :math:`T_b(0)`. No cost
model is needed (no roofline, no :class:`Tabulated` widths): the measured step is the whole
draft-and-verify iteration.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from engines.record import EngineMetrics, EngineSweep

from . import _kernels
from ._validate import as_draft_length, as_float_array, shown_first
from .calibration import alpha_interval
from .schedule import batch_k_schedule
from .speedup import MAX_DRAFT_LENGTH


class AcceptanceCurve(NamedTuple):
    """Measured mean acceptance length against the draft length (:func:`acceptance_curve`).

    Attributes
    ----------
    k : ndarray of int64
        Draft lengths measured, ascending.
    mean_length : ndarray of float
        :math:`L(k)`, the runs of that k pooled over batch sizes.
    low, high : ndarray of float
        Its interval at the level asked for; NaN where the runs do not say how many steps they made.
    steps : ndarray of float
        Verification steps behind each point, at least (0 where unknown).
    """

    k: np.ndarray
    mean_length: np.ndarray
    low: np.ndarray
    high: np.ndarray
    steps: np.ndarray


class MeasuredSchedule(NamedTuple):
    """The best draft length at each batch from measured step times (:func:`measured_schedule`).

    Attributes
    ----------
    batch : ndarray of int64
        Batch sizes with a run without speculation, ascending.
    k : ndarray of int64
        Draft lengths measured (the columns of ``speedup``).
    speedup : ndarray of float, shape (batch, k)
        :math:`S_b(k)`; NaN where that run is missing.
    best_k : ndarray of int64
        Best measured k at each batch.
    best_speedup : ndarray of float
        Its speedup.
    schedule : list of (int, int, int)
        :func:`batch_k_schedule` of the best k: ``(lo, hi, k)`` ranges, k = 0 where no k beats plain decoding.
    without_baseline : tuple of int
        Batch sizes left out for having no run without speculation.
    """

    batch: np.ndarray
    k: np.ndarray
    speedup: np.ndarray
    best_k: np.ndarray
    best_speedup: np.ndarray
    schedule: list[tuple[int, int, int]]
    without_baseline: tuple[int, ...]


def _as_sweep(sweep) -> EngineSweep:
    if not isinstance(sweep, EngineSweep):
        raise ValueError(f"sweep must be an EngineSweep, got {type(sweep).__name__}")
    return sweep


def _by_draft_length(metrics: EngineMetrics, confidence) -> AcceptanceCurve:
    """The curve of one record whose engine said each step's draft length: exact counts per length."""
    if not metrics.by_draft_length:
        raise ValueError(
            "measured has no acceptance by draft length (by_draft_length is None): the engine did not say "
            "each step's draft length"
        )
    ks, steps, accepted = (np.array(column, dtype=np.int64) for column in zip(*metrics.by_draft_length, strict=True))
    low, high = np.empty(ks.size), np.empty(ks.size)
    for i, (k, n, a) in enumerate(zip(ks, steps, accepted, strict=True)):
        fit = alpha_interval(int(a), int(n), int(k), confidence)
        low[i], high[i] = _kernels.expected_tokens(np.array([fit.low, fit.high]), int(k))
    return AcceptanceCurve(ks, 1.0 + accepted / steps, low, high, steps.astype(float))


def acceptance_curve(measured, confidence=0.95) -> AcceptanceCurve:
    r"""The mean acceptance length at each draft length measured, with its interval.

    **A record** (:class:`EngineMetrics`) whose engine said each step's draft length
    (``by_draft_length``, vLLM's detailed per-request metrics) gives
    :math:`L(d) = 1 + \text{accepted}_d / \text{steps}_d` for each length d drafted, with the
    interval of :func:`alpha_interval` of those exact counts mapped through
    :math:`\mathbb{E}_\alpha[N]`.

    **A sweep** (:class:`EngineSweep`): the runs of each draft length that ran as a chain.

    The chain runs (``topk`` 1) of one k are pooled over batch sizes: a run of b requests of
    :math:`t` output tokens each and mean length :math:`L` made at least :math:`n = b t / L`
    verification steps (at least: bench_speculative.py runs max(--num-prompts, b) requests, and
    the record does not say how many), and the point is their pooled mean
    :math:`\sum_r b_r t_r / \sum_r n_r`. The interval maps :func:`alpha_interval` of those counts
    through :math:`\mathbb{E}_\alpha[N]`, which increases in alpha: the lengths i.i.d. acceptance
    allows at that level. Counting only the steps surely made, it is wider than the truth. Runs
    without ``output_tokens`` give a plain average and no interval.

    Parameters
    ----------
    measured : EngineSweep or EngineMetrics
    confidence : float, default 0.95

    Returns
    -------
    AcceptanceCurve
        Empty (size 0) when a sweep has no chain run.
    """
    if isinstance(measured, EngineMetrics):
        return _by_draft_length(measured, confidence)
    if not isinstance(measured, EngineSweep):
        raise ValueError(f"measured must be an EngineSweep or an EngineMetrics, got {type(measured).__name__}")
    sweep = measured
    k = np.asarray(sweep.draft_length, dtype=np.int64)
    length = np.asarray(sweep.mean_acceptance_length, dtype=float)
    chain = (np.asarray(sweep.topk) == 1) & (k >= 1)
    tokens = np.array([np.nan if t is None else t for t in sweep.output_tokens], dtype=float)
    steps = np.asarray(sweep.batch, dtype=float) * tokens / length
    ks = np.unique(k[chain])
    mean, low, high, made = (np.full(ks.size, np.nan) for _ in range(4))
    for i, kk in enumerate(ks):
        runs = chain & (k == kk)
        if np.isnan(steps[runs]).any():
            mean[i], made[i] = length[runs].mean(), 0.0
            continue
        made[i] = steps[runs].sum()
        mean[i] = float(steps[runs] @ length[runs]) / made[i]
        drafts = max(1, int(made[i]))
        accepted = min(round((mean[i] - 1.0) * drafts), int(kk) * drafts)
        fit = alpha_interval(accepted, drafts, int(kk), confidence)
        low[i], high[i] = _kernels.expected_tokens(np.array([fit.low, fit.high]), int(kk))
    return AcceptanceCurve(ks, mean, low, high, made)


def _non_increasing(u: np.ndarray) -> np.ndarray:
    """The closest non-increasing sequence in least squares (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [mean, size]
    for x in u:
        blocks.append([float(x), 1.0])
        while len(blocks) > 1 and blocks[-2][0] < blocks[-1][0]:
            (m2, n2), (m1, n1) = blocks.pop(), blocks.pop()
            blocks.append([(m1 * n1 + m2 * n2) / (n1 + n2), n1 + n2])
    return np.concatenate([np.full(int(n), m) for m, n in blocks])


def profile_from_curve(k, mean_length) -> tuple[np.ndarray, bool]:
    r"""The per-position profile :math:`u_1 \ldots u_{k_{\max}}` a measured acceptance-length curve implies.

    A draft cut to k tokens emits :math:`\mathbb{E}[N_k] = 1 + \sum_{i \le k} u_i` tokens a step
    (:func:`profile_expected_tokens`), so :math:`u_i = L(i) - L(i - 1)` with :math:`L(0) = 1`.
    Between two measured lengths :math:`k_a < k_b` the rise :math:`L(k_b) - L(k_a)` is spread
    evenly over positions :math:`k_a + 1 \ldots k_b`. Measured points are noisy, and a profile
    must stay in [0, 1] and not increase (a position is reached only through the one before it):
    the rises are clipped to [0, 1] and made non-increasing by pooling adjacent violators, the
    least-squares closest such profile. The second value says whether that changed anything.

    Parameters
    ----------
    k : array_like of int
        Draft lengths measured, strictly increasing, 1 to :data:`MAX_DRAFT_LENGTH`.
    mean_length : array_like of float
        :math:`L(k)` at each, finite and at least 1.

    Returns
    -------
    (ndarray, bool)
        The profile, ``k[-1]`` positions; whether the raw rises were adjusted.
    """
    given_k = np.asarray(k)
    ks = as_draft_length(k)
    lengths = as_float_array(mean_length, "mean_length")
    if ks.ndim != 1 or ks.size == 0 or lengths.shape != ks.shape:
        raise ValueError(f"k and mean_length must be 1-D and of one length, got shapes {ks.shape} and {lengths.shape}")
    if (ks < 1).any():
        raise ValueError(f"k must be >= 1, got {shown_first(given_k, ks < 1)}")
    if (np.diff(ks) <= 0).any():
        raise ValueError(f"k must be strictly increasing, got {shown_first(given_k, np.r_[False, np.diff(ks) <= 0])}")
    bad = ~np.isfinite(lengths) | (lengths < 1)
    if bad.any():
        raise ValueError(f"mean_length must be finite and >= 1, got {shown_first(np.asarray(mean_length), bad)}")
    gaps = np.diff(np.r_[0, ks])
    rises = np.diff(np.r_[1.0, lengths]) / gaps
    raw = np.repeat(rises, gaps)
    profile = _non_increasing(np.clip(raw, 0.0, 1.0))
    return profile, bool(np.abs(profile - raw).max() > 1e-12)


def measured_schedule(sweep, curve: AcceptanceCurve) -> MeasuredSchedule:
    r"""The best measured draft length at each batch, from the sweep's step times and ``curve``.

    :math:`S_b(k) = L(k)\, T_b(0) / T_b(k)` for every batch b with a run without speculation and
    every chain run at b whose k is on ``curve`` (where two runs give one k, the faster). The best
    k at each batch is the measured one with the largest speedup, and :func:`batch_k_schedule`
    turns them into ranges, k = 0 where none beats plain decoding. Only measured k are
    considered: nothing is extrapolated.

    Parameters
    ----------
    sweep : EngineSweep
    curve : AcceptanceCurve
        :func:`acceptance_curve` of the sweep.

    Returns
    -------
    MeasuredSchedule
    """
    sweep = _as_sweep(sweep)
    if not isinstance(curve, AcceptanceCurve):
        raise ValueError(f"curve must be an AcceptanceCurve, got {type(curve).__name__}")
    batch = np.asarray(sweep.batch, dtype=np.int64)
    k = np.asarray(sweep.draft_length, dtype=np.int64)
    topk = np.asarray(sweep.topk)
    time = np.asarray(sweep.step_time_s, dtype=float)
    base = k == 0
    batches = np.unique(batch[base])
    chain_batches = np.unique(batch[(topk == 1) & (k >= 1)])
    without = tuple(int(b) for b in np.setdiff1d(chain_batches, batches))
    table = np.full((batches.size, curve.k.size), np.nan)
    for i, b in enumerate(batches):
        plain = time[base & (batch == b)].min()
        for j, kk in enumerate(curve.k):
            runs = (batch == b) & (k == kk) & (topk == 1)
            if runs.any():
                table[i, j] = curve.mean_length[j] * plain / time[runs].min()
    measured = ~np.isnan(table).all(axis=1)
    batches, table = batches[measured], table[measured]
    if batches.size == 0:
        raise ValueError("the sweep has no batch size with both a run without speculation and a chain run")
    best = np.nanargmax(table, axis=1)
    best_k = curve.k[best]
    best_speedup = table[np.arange(batches.size), best]
    if int(best_k.max()) > MAX_DRAFT_LENGTH:
        raise ValueError(f"draft lengths above {MAX_DRAFT_LENGTH} cannot be scheduled")
    return MeasuredSchedule(
        batches, curve.k, table, best_k, best_speedup, batch_k_schedule(batches, best_k, best_speedup), without
    )
