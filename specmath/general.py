r"""Speedup and best k when verification is not free, and the arithmetic speculation costs.

Given cost models ``T(w)`` (:mod:`specmath.costs`, or any callable), :func:`general_speedup`
and :func:`general_optimal_k` replace ``speedup`` and ``optimal_k`` (:mod:`specmath.schedule`
follows the best k as the batch grows), and :func:`operations_factor` gives the growth in total
arithmetic (Leviathan et al. 2023, Theorem 3.11). Conventions as in :mod:`specmath.speedup`:
``alpha`` the acceptance rate, ``k`` the draft length, ``c`` the target step time over the draft
step time.
"""

from __future__ import annotations

import numpy as np

from . import _kernels
from ._validate import (
    as_count,
    as_draft_length,
    as_float_array,
    as_positive,
    scalar_or_array,
    shown,
    shown_first,
)
from .acceptance_model import split
from .costs import MAX_CONTEXT
from .speedup import MAX_DRAFT_LENGTH, _tokens


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
        raise ValueError(
            f"{name}(w) must be a finite time {limit}, got {shown_first(times, bad)} at w = {w.flat[where]}"
        )
    return times


def _as_cost_model(value, name: str, *, allow_zero: bool):
    """A callable as is; a single number as a flat cost T(w) = value."""
    if callable(value):
        return value
    t = as_positive(value, name, allow_zero=allow_zero)
    return lambda w: np.full(np.shape(w), t)


# --------------------------------------------------------------------------------------------
# Speedup, best k, arithmetic


def _costs(t_draft, t_target, widths: np.ndarray):
    """``c = T_t(1) / T_d(1)``, the verification ratios ``T_t(widths) / T_t(1)`` and ``T_t(1)``."""
    t_draft = _as_cost_model(t_draft, "t_draft", allow_zero=True)
    t_target = _as_cost_model(t_target, "t_target", allow_zero=False)
    one = np.ones((), dtype=np.int64)
    draft1 = float(_evaluate(t_draft, one, "t_draft", allow_zero=True))
    target1 = float(_evaluate(t_target, one, "t_target", allow_zero=False))
    ratio = _evaluate(t_target, widths, "t_target", allow_zero=False) / target1
    with np.errstate(divide="ignore"):
        c = np.float64(target1) / np.float64(draft1)  # inf for a free draft
    return c, ratio, target1


#: Drafter kinds: ``"sequential"`` runs the draft once per drafted token (a draft model, EAGLE,
#: MTP heads chained), ``"parallel"`` proposes the whole block in one pass of width k (PARD;
#: DFlash, SpecForge's DFlashDraftModel), ``"model_free"`` looks the block up
#: (n-gram or suffix matching), paying a fixed lookup time.
DRAFTERS = ("sequential", "parallel", "model_free")


def as_drafter(drafter) -> str:
    """Check a drafter kind: one of :data:`DRAFTERS`."""
    if not isinstance(drafter, str) or drafter not in DRAFTERS:
        raise ValueError(f"drafter must be one of {', '.join(DRAFTERS)}, got {shown(drafter):.80}")
    return drafter


def _draft_ratio(t_draft, target1: float, k: np.ndarray, drafter: str) -> np.ndarray:
    """An iteration's drafting time over ``T_t(1)`` for the non-sequential kinds: ``T_d(k)``
    (parallel) or ``T_d(1)`` (model-free), 0 where ``k = 0`` (no draft)."""
    t_draft = _as_cost_model(t_draft, "t_draft", allow_zero=True)
    widths = np.maximum(k, 1) if drafter == "parallel" else np.ones_like(k)
    times = _evaluate(t_draft, widths, "t_draft", allow_zero=True)
    return np.where(k > 0, times / target1, 0.0)


def general_speedup(alpha, k, t_draft, t_target, drafter="sequential"):
    r"""Speedup of speculative decoding when a pass over ``k + 1`` positions may cost more.

    .. math::

        S = \frac{\mathbb{E}[N]\; T_t(1)}{D(k) + T_t(k+1)},
        \qquad D(k) = \begin{cases} k\,T_d(1) & \text{sequential} \\
                                     T_d(k) & \text{parallel} \\
                                     T_d(1) & \text{model-free} \end{cases}

    One iteration drafts k tokens in time :math:`D(k)` and runs the target once over
    ``k + 1`` positions, and yields :math:`\mathbb{E}[N]` tokens; plain decoding pays
    :math:`T_t(1)` per token. A *sequential* drafter runs k passes of one position:
    :math:`S = \mathbb{E}[N] / (k / c + T_t(k+1) / T_t(1))`, :math:`c = T_t(1) / T_d(1)`; with
    free verification, :math:`T_t(k+1) = T_t(1)`, this is the chapter's
    :math:`\mathbb{E}[N] / (1 + k/c)`, computed so that it equals :func:`~specmath.speedup` bit
    for bit. A *parallel* (block) drafter proposes all k in one pass over k positions (PARD,
    An et al. 2025, arXiv 2504.18583, "predicting multiple future tokens within a single forward
    pass"; DFlash, ``DFlashDraftModel`` with ``block_size`` 16 in sgl-project/SpecForge
    ``configs/qwen3-8b-dflash.json`` at a6b6b0230009d15ec2a97a57384e6f53f0f96946): on its memory-bound plateau
    :math:`D(k) = T_d(1)` and :math:`S = \mathbb{E}[N] / (1/c + T_t(k+1)/T_t(1))`. A
    *model-free* drafter (n-gram, suffix) pays one lookup, ``t_draft``, whatever k. The
    drafts' quality is in alpha alone, whichever the kind. ``k = 0`` gives 1.

    Parameters
    ----------
    alpha : array_like of float, or Acceptance
        Acceptance rates in [0, 1], or one :func:`~specmath.acceptance` value (then
        :math:`\mathbb{E}[N]` is its :meth:`~specmath.Acceptance.lengths`).
    k : array_like of int
        Draft lengths, 0 to :data:`~specmath.speedup.MAX_DRAFT_LENGTH`; broadcasts against ``alpha``.
    t_draft : cost model or float
        The draft's pass time, seconds: a cost model (evaluated at ``w = 1``, or at ``w = k``
        for a parallel drafter) or a number >= 0 (0 is a free draft, ``c = inf``); a
        model-free drafter's lookup time.
    t_target : cost model or float
        The target's pass time ``T(w)``: a callable taking an int array of widths and returning
        seconds, such as :class:`~specmath.Roofline`, or a number > 0 meaning free verification.
    drafter : {"sequential", "parallel", "model_free"}, default "sequential"
        How the draft proposes its k tokens (:data:`DRAFTERS`).

    Returns
    -------
    numpy.float64 or numpy.ndarray
        Shape ``broadcast(alpha, k)``. Below 1 means speculation is slower than plain decoding.
    """
    alpha, measured = split(alpha)
    k = as_draft_length(k)
    drafter = as_drafter(drafter)
    return scalar_or_array(_tokens(alpha, measured, k) / iteration_ratio(k, t_draft, t_target, drafter))


def iteration_ratio(k: np.ndarray, t_draft, t_target, drafter: str) -> np.ndarray:
    r"""One iteration's time in target steps, :math:`(D(k) + T_t(k+1)) / T_t(1)`, for draft lengths
    ``k`` (an int array, checked) and a checked ``drafter``: the denominator of :func:`general_speedup`,
    ``k / c + T_t(k+1) / T_t(1)`` for a sequential drafter."""
    c, ratio, target1 = _costs(t_draft, t_target, k + 1)
    if drafter == "sequential":
        return k / c + ratio
    return _draft_ratio(t_draft, target1, k, drafter) + ratio


def general_optimal_k(alpha, t_draft, t_target, max_k=20, drafter="sequential"):
    r"""Best draft length in ``1..max_k`` under any cost model, and the speedup it gives.

    .. math:: k^* = \min \operatorname*{arg\,max}_{1 \le k \le k_{\max}} S(\alpha, k)

    with :math:`S` of :func:`general_speedup`. Where verification is free at every width searched
    (:math:`T_t(w) = T_t(1)` for :math:`w \le k_{\max} + 1`: :class:`~specmath.FreeVerification`,
    a :class:`~specmath.Roofline` on its memory-bound plateau), S is the chapter's and the search
    is :func:`~specmath.optimal_k`'s, exact ties included, at ``c = T_t(1) / T_d(1)``. Otherwise
    a cost model may be anything (measured times need not even be monotone), S need not be
    unimodal and there is no closed-form comparison: k* is then the first maximizer of the
    speedups as computed (:func:`numpy.argmax`), so two draft lengths whose speedups tie in
    exact arithmetic go to whichever rounding puts higher. Broadcasts over ``alpha``.
    ``k >= 1`` even where the best speedup is below 1 (speculation not worth it); compare with
    1 to decide.

    An :class:`~specmath.Acceptance` holding a profile is searched as the tabulated speedups are,
    by the first maximizer (its S has no closed-form comparison).

    Parameters
    ----------
    alpha : array_like of float, or Acceptance
        Acceptance rates in [0, 1], or one :func:`~specmath.acceptance` value.
    t_draft, t_target : cost model or float
        As in :func:`general_speedup`. ``t_target`` is evaluated once, at widths
        ``1 … max_k + 1``.
    max_k : int, default 20
        Longest draft considered, 1 to :data:`~specmath.speedup.MAX_DRAFT_LENGTH`.
    drafter : {"sequential", "parallel", "model_free"}, default "sequential"
        As in :func:`general_speedup`; the chapter's search applies to a sequential drafter only.

    Returns
    -------
    k : numpy.int64 or numpy.ndarray of int64
        Optimal draft lengths, shape of ``alpha``.
    speedup : numpy.float64 or numpy.ndarray
        ``general_speedup(alpha, k, t_draft, t_target)`` at those k, bit for bit.
    """
    alpha, measured = split(alpha)
    max_k = as_count(max_k, "max_k", cap=MAX_DRAFT_LENGTH)
    drafter = as_drafter(drafter)
    ks = np.arange(1, max_k + 1)
    c, ratio, target1 = _costs(t_draft, t_target, ks + 1)
    if measured is not None:
        drafting = ks / c if drafter == "sequential" else _draft_ratio(t_draft, target1, ks, drafter)
        best_k, best_speedup = _kernels.best_over_k(measured._tokens(ks) / (drafting + ratio))
    elif drafter != "sequential":
        drafting = _draft_ratio(t_draft, target1, ks, drafter)
        table = _kernels.expected_tokens(alpha[..., None], ks) / (drafting + ratio)
        best_k, best_speedup = _kernels.best_over_k(table)
    elif (ratio == 1.0).all():
        best_k = _kernels.shortest_best_k(alpha, np.asarray(c), max_k)
        best_speedup = _kernels.expected_tokens(alpha, best_k) / (best_k / c + 1.0)
    else:
        table = _kernels.expected_tokens(alpha[..., None], ks) / (ks / c + ratio)
        best_k, best_speedup = _kernels.best_over_k(table)
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
    alpha : array_like of float, or Acceptance
        Acceptance rates in [0, 1], or one :func:`~specmath.acceptance` value.
    k : array_like of int
        Draft lengths, 0 to :data:`~specmath.speedup.MAX_DRAFT_LENGTH`.
    c_hat : array_like of float
        Arithmetic per token of the draft divided by that of the target (about the parameter
        ratio); finite and >= 0. Note the direction: draft over target, like Leviathan et
        al.'s c, unlike this package's c.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        The broadcast of the three inputs; values >= 1.
    """
    alpha, measured = split(alpha)
    k = as_draft_length(k)
    given, c_hat = c_hat, as_float_array(c_hat, "c_hat")
    if np.isnan(c_hat).any():
        raise ValueError("c_hat contains NaN; it must be finite and >= 0")
    if not np.isfinite(c_hat).all():
        raise ValueError("c_hat must be finite (arithmetic of a draft pass over a target pass)")
    if (c_hat < 0).any():
        raise ValueError(f"c_hat must be >= 0, got {shown_first(given, c_hat < 0)}")
    return scalar_or_array((k * c_hat + k + 1.0) / _tokens(alpha, measured, k))


def tree_speedup(expected_tokens, budget, draft_steps, t_draft, t_target):
    r"""Speedup of drafting a token tree and verifying all of it in one target pass.

    .. math::

        S = \frac{F\; T_t(1)}{s\,T_d(1) + T_t(m)}
          = \frac{F}{s / c + T_t(m) / T_t(1)},
        \qquad c = \frac{T_t(1)}{T_d(1)}

    One iteration runs the draft ``s = draft_steps`` times (one step per level of the tree:
    EAGLE drafts a level's nodes in one batched pass, so a level costs one draft step, here
    :math:`T_d(1)`) and the target once over the tree's ``m = budget`` nodes (tree attention),
    and yields ``F`` tokens, the tree's :func:`~specmath.tree_expected_tokens`. A chain of
    ``k`` drafts (``m = k + 1``, ``s = k``) is :func:`general_speedup`, and with free
    verification the chapter's :math:`\mathbb{E}[N] / (1 + k/c)`, :func:`~specmath.speedup`
    bit for bit. ``draft_steps`` may exceed ``budget - 1``: SGLang runs all
    ``--speculative-num-steps`` draft steps whatever number of nodes it keeps.

    Parameters
    ----------
    expected_tokens : array_like of float
        :math:`F` of each tree, in [1, ``budget``]; NaN (an infeasible entry of
        :func:`~specmath.optimal_tree_table`) gives NaN.
    budget : array_like of int
        Nodes verified, root included: the target's positions per sequence, 1 to
        :data:`~specmath.costs.MAX_CONTEXT`.
    draft_steps : array_like of int
        Draft passes per iteration, 0 to :data:`~specmath.speedup.MAX_DRAFT_LENGTH`.
    t_draft, t_target : cost model or float
        As in :func:`general_speedup`; ``t_target`` is evaluated at the widths ``budget``.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        Shape ``broadcast(expected_tokens, budget, draft_steps)``; below 1 is slower than
        plain decoding.

    Examples
    --------
    >>> round(float(tree_speedup(3.5, 32, 9, 1.0, 20.0)), 4)  # c = 20, free verification
    2.4138
    """
    tokens = as_float_array(expected_tokens, "expected_tokens")
    widths = as_draft_length(budget, "budget", cap=MAX_CONTEXT)
    if (widths < 1).any():
        raise ValueError(f"budget must be >= 1 (nodes, root included), got {shown_first(budget, widths < 1)}")
    steps = as_draft_length(draft_steps, "draft_steps")
    try:
        tokens_b, widths_b, steps_b = np.broadcast_arrays(tokens, widths, steps)
    except ValueError:
        raise ValueError(
            f"expected_tokens, budget and draft_steps must broadcast, got shapes "
            f"{tokens.shape}, {widths.shape} and {steps.shape}"
        ) from None
    slack = 1e-9 * np.maximum(widths_b, 1)
    bad = ~np.isnan(tokens_b) & ~((tokens_b >= 1 - slack) & (tokens_b <= widths_b + slack))
    if bad.any():
        raise ValueError(
            f"expected_tokens must be within [1, budget] (a tree of m nodes yields 1 to m tokens), "
            f"got {shown_first(np.broadcast_to(tokens, bad.shape), bad)}"
        )
    unique, inverse = np.unique(widths_b, return_inverse=True)
    c, ratio, _ = _costs(t_draft, t_target, unique)
    return scalar_or_array(tokens_b / (steps_b / c + ratio[inverse.reshape(widths_b.shape)]))
