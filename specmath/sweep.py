r"""From a measured sweep to an acceptance-length curve over k, a per-position profile and a schedule of k.

A sweep runs one engine at several batch sizes and draft lengths
and measures, for each run, the mean acceptance length :math:`L` (tokens per verification step,
bonus included) and the time of one decoding step :math:`T`. Acceptance does not depend on the
batch, so the runs of one draft length are pooled into one point of the curve :math:`L(k)`;
time does, and the speedup of draft length k at batch b is measured directly,

.. math:: S_b(k) = \frac{L(k)\, T_b(0)}{T_b(k)},

with :math:`T_b(0)` the step time of the run without speculation at that batch: a step of k
emits :math:`L(k)` tokens in :math:`T_b(k)`, a plain step one token in :math:`T_b(0)`. No cost
model is needed (no roofline, no :class:`Tabulated` widths): the measured step is the whole
draft-and-verify iteration.

The runs come in as plain arrays, one entry per run (batch size, draft length, tree branching,
mean acceptance length, step time, output tokens); reading them from an engine's benchmark output
is not this package's business.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

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


def _runs(name: str, value, size: int | None = None) -> np.ndarray:
    """One number per run, as a 1-D float array (of ``size`` entries when given)."""
    runs = as_float_array(value, name)
    if runs.ndim != 1 or (size is not None and runs.size != size):
        want = "1-D" if size is None else f"1-D with one entry per run ({size})"
        raise ValueError(f"{name} must be {want}, got shape {runs.shape}")
    return runs


def _whole_runs(name: str, value, size: int) -> np.ndarray:
    """One whole number >= 0 per run."""
    runs = _runs(name, value, size)
    bad = ~np.isfinite(runs) | (runs < 0) | (runs != np.round(runs))
    if bad.any():
        raise ValueError(f"{name} must be whole numbers >= 0, got {shown_first(np.asarray(value), bad)}")
    return runs.astype(np.int64)


def acceptance_curve_from_counts(draft_length, steps, accepted, confidence=0.95) -> AcceptanceCurve:
    r"""The mean acceptance length at each draft length from exact counts per length.

    Where an engine says each step's draft length (vLLM's detailed per-request metrics), the
    steps that drafted d tokens and the draft tokens they accepted give
    :math:`L(d) = 1 + \text{accepted}_d / \text{steps}_d`, with the interval of
    :func:`alpha_interval` of those counts mapped through :math:`\mathbb{E}_\alpha[N]`.

    Parameters
    ----------
    draft_length, steps, accepted : array_like of int
        For each length d drafted: d, the verification steps that drafted d tokens, and the draft
        tokens they accepted.
    confidence : float, default 0.95

    Returns
    -------
    specmath.sweep.AcceptanceCurve
    """
    ks = _whole_runs("draft_length", draft_length, np.size(draft_length))
    made = _whole_runs("steps", steps, ks.size)
    taken = _whole_runs("accepted", accepted, ks.size)
    low, high = np.empty(ks.size), np.empty(ks.size)
    for i, (k, n, a) in enumerate(zip(ks, made, taken, strict=True)):
        fit = alpha_interval(int(a), int(n), int(k), confidence)
        low[i], high[i] = _kernels.expected_tokens(np.array([fit.low, fit.high]), int(k))
    return AcceptanceCurve(ks, 1.0 + taken / made, low, high, made.astype(float))


def acceptance_curve(
    draft_length, mean_acceptance_length, *, batch=None, output_tokens=None, topk=None, confidence=0.95
) -> AcceptanceCurve:
    r"""The mean acceptance length at each draft length a sweep ran, with its interval.

    The chain runs (``topk`` 1, every run when ``topk`` is None) of one k are pooled over batch
    sizes: a run of b requests of :math:`t` output tokens each and mean length :math:`L` made at
    least :math:`n = b t / L` verification steps (at least: a benchmark may run more requests than
    the batch, SGLang's bench_speculative.py max(--num-prompts, b), and the run does not say how
    many), and the point is their pooled mean :math:`\sum_r b_r t_r / \sum_r n_r`. The interval
    maps :func:`alpha_interval` of those counts through :math:`\mathbb{E}_\alpha[N]`, which
    increases in alpha: the lengths i.i.d. acceptance allows at that level. Counting only the steps
    surely made, it is wider than the truth. Runs without output tokens (NaN, or no
    ``output_tokens``) give a plain average and no interval.

    Parameters
    ----------
    draft_length : array_like of int
        Draft tokens each run verified per step as a chain; 0 for a run without speculation.
    mean_acceptance_length : array_like of float
        Each run's tokens per verification step, bonus included.
    batch : array_like of int, optional
        Requests decoded together in each run; needed with ``output_tokens``.
    output_tokens : array_like of float, optional
        Mean tokens generated per request in each run, NaN where the run does not say.
    topk : array_like of int, optional
        Branching of each run's draft tree (1 a chain); None: every run is a chain.
    confidence : float, default 0.95

    Returns
    -------
    specmath.sweep.AcceptanceCurve
        Empty (size 0) when no run is a chain with k >= 1.
    """
    k = _whole_runs("draft_length", draft_length, np.size(draft_length))
    length = _runs("mean_acceptance_length", mean_acceptance_length, k.size)
    if output_tokens is None:
        tokens, sizes = np.full(k.size, np.nan), np.ones(k.size)
    elif batch is None:
        raise ValueError("batch is needed with output_tokens: the steps a run made are batch × output tokens / L")
    else:
        tokens, sizes = _runs("output_tokens", output_tokens, k.size), _runs("batch", batch, k.size)
    branching = np.ones(k.size, dtype=np.int64) if topk is None else _whole_runs("topk", topk, k.size)
    chain = (branching == 1) & (k >= 1)
    steps = sizes * tokens / length
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
    (:meth:`~specmath.Acceptance.lengths`), so :math:`u_i = L(i) - L(i - 1)` with :math:`L(0) = 1`.
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


def measured_schedule(batch, draft_length, step_time_s, curve: AcceptanceCurve, *, topk=None) -> MeasuredSchedule:
    r"""The best measured draft length at each batch, from a sweep's step times and ``curve``.

    :math:`S_b(k) = L(k)\, T_b(0) / T_b(k)` for every batch b with a run without speculation and
    every chain run at b whose k is on ``curve`` (where two runs give one k, the faster). The best
    k at each batch is the measured one with the largest speedup, and :func:`batch_k_schedule`
    turns them into ranges, k = 0 where none beats plain decoding. Only measured k are
    considered: nothing is extrapolated.

    Parameters
    ----------
    batch, draft_length : array_like of int
        Each run's batch size and draft length (0: the run without speculation).
    step_time_s : array_like of float
        Each run's seconds per decoding step.
    curve : AcceptanceCurve
        :func:`acceptance_curve` of the runs.
    topk : array_like of int, optional
        Each run's tree branching (1 a chain); None: every run is a chain.

    Returns
    -------
    specmath.sweep.MeasuredSchedule
    """
    if not isinstance(curve, AcceptanceCurve):
        raise ValueError(f"curve must be an AcceptanceCurve, got {type(curve).__name__}")
    k = _whole_runs("draft_length", draft_length, np.size(draft_length))
    batch = _whole_runs("batch", batch, k.size)
    topk = np.ones(k.size, dtype=np.int64) if topk is None else _whole_runs("topk", topk, k.size)
    time = _runs("step_time_s", step_time_s, k.size)
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
