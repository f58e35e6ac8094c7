"""Expected tokens per target call, speedup, and the best draft length.

Conventions: ``alpha`` is the per-token acceptance rate, ``k`` the draft length and ``c`` the
target step time divided by the draft step time (so ``c = 20`` means the draft is 20 times
faster). Leviathan et al. (2023) call the inverse, draft time over target time, "c"; convert
with :func:`to_leviathan_cost` and :func:`from_leviathan_cost`.
"""

from __future__ import annotations

import numpy as np

from . import _kernels
from ._validate import (
    MAX_DRAFT_LENGTH,
    as_cost_ratio,
    as_count,
    as_draft_length,
    as_float_array,
    scalar_or_array,
)
from .acceptance_model import split


def expected_tokens(alpha, k):
    r"""Expected tokens produced per target call with draft length ``k``.

    .. math:: \mathbb{E}[N] = \sum_{i=0}^{k} \alpha^i = \frac{1 - \alpha^{k+1}}{1 - \alpha}

    The accepted prefix plus the one token the target always adds (the residual draw at the
    first rejection, or the bonus token when all ``k`` are accepted), assuming each draft
    position is accepted independently with probability ``alpha``. Exactly ``k + 1`` at
    ``alpha = 1``, exactly 1 at ``alpha = 0`` or ``k = 0``, and free of cancellation near 1.

    With an :class:`~specmath.Acceptance` holding a profile, :math:`1 + \sum_{i \le k} u_i`
    (:meth:`~specmath.Acceptance.lengths`).

    Parameters
    ----------
    alpha : array_like of float, or Acceptance
        Acceptance rates in [0, 1], or one :func:`~specmath.acceptance` value.
    k : array_like of int
        Draft lengths, 0 to :data:`MAX_DRAFT_LENGTH`. Broadcasts against ``alpha``.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        Values in [1, k + 1]; a scalar when both inputs are scalars.
    """
    alpha, measured = split(alpha)
    k = as_draft_length(k)
    return scalar_or_array(_tokens(alpha, measured, k))


def _tokens(alpha, measured, k: np.ndarray) -> np.ndarray:
    """E[N_k]: the chapter's closed form for an i.i.d. alpha, a profile's sum for an Acceptance (:func:`split`)."""
    return _kernels.expected_tokens(alpha, k) if measured is None else measured._tokens(k)


def draft_acceptance_rate(alpha, k):
    r"""The share of draft tokens accepted, accepted / drafted, that i.i.d. acceptance predicts.

    .. math:: \frac{\mathbb{E}[\text{accepted}]}{k} = \frac{\mathbb{E}[N] - 1}{k}
        = \frac{\alpha - \alpha^{k+1}}{(1 - \alpha)\, k}

    What vLLM prints as "Draft acceptance rate" (accepted / drafted tokens), llama-server as
    "draft acceptance" and SGLang's gauge ``sglang:spec_accept_rate``: the accepted prefix of
    each k-token draft over k. It is not the per-token ``alpha``: a token after the first
    rejection is drafted but never accepted, so the share falls as k grows even when every
    token is accepted with the same ``alpha``; from ``alpha`` at k = 1 towards
    :math:`\alpha / ((1 - \alpha) k)` for large k. At ``alpha = 0.74`` and k = 7 it is about
    36 %. Exactly ``alpha`` at k = 1, 1 at ``alpha = 1`` and 0 at ``alpha = 0``.

    Parameters
    ----------
    alpha : array_like of float, or Acceptance
        Per-token acceptance rates in [0, 1], or one :func:`~specmath.acceptance` value.
    k : array_like of int
        Draft lengths, 1 to :data:`MAX_DRAFT_LENGTH` (no share without a draft). Broadcasts
        against ``alpha``.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        Values in [0, 1]; a scalar when both inputs are scalars.

    Raises
    ------
    ValueError
        If ``alpha`` is outside [0, 1] or NaN, or ``k`` is not a whole number in
        [1, :data:`MAX_DRAFT_LENGTH`].
    """
    alpha, measured = split(alpha)
    k = as_draft_length(k)
    if (k < 1).any():
        raise ValueError("k must be >= 1: with no draft token there is no share of draft tokens accepted")
    return scalar_or_array(np.clip((_tokens(alpha, measured, k) - 1.0) / k, 0.0, 1.0))


def _speedup(alpha: np.ndarray, k: np.ndarray, c: np.ndarray, measured=None) -> np.ndarray:
    return _tokens(alpha, measured, k) / (1.0 + k / c)


def speedup(alpha, k, c):
    r"""Wall-clock speedup of speculative decoding over plain decoding with the target.

    .. math:: S = \frac{\mathbb{E}[N]}{1 + k/c} = \frac{(1 - \alpha^{k+1})/(1 - \alpha)}{1 + k/c}

    One iteration costs ``k`` draft steps plus one target step, ``1 + k/c`` target-step units,
    and yields :math:`\mathbb{E}[N]` tokens. ``k = 0`` is plain decoding: ``S = 1``. ``c = inf``
    (a draft that costs nothing) gives ``S = E[N]``.

    With an :class:`~specmath.Acceptance`, :math:`\mathbb{E}[N]` is its
    :meth:`~specmath.Acceptance.lengths`.

    Parameters
    ----------
    alpha : array_like of float, or Acceptance
        Acceptance rates in [0, 1], or one :func:`~specmath.acceptance` value.
    k : array_like of int
        Draft lengths, 0 to :data:`MAX_DRAFT_LENGTH`.
    c : array_like of float
        Cost ratios target/draft, > 0; ``inf`` allowed.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        The broadcast of the three inputs; a scalar when all are scalars. Values below 1 mean
        speculation is slower than plain decoding.
    """
    alpha, measured = split(alpha)
    k = as_draft_length(k)
    c = as_cost_ratio(c)
    return scalar_or_array(_speedup(alpha, k, c, measured))


def optimal_k(alpha, c, max_k=20):
    r"""Best draft length in ``1..max_k`` and the speedup it gives.

    .. math:: k^* = \min \operatorname*{arg\,max}_{1 \le k \le k_{\max}} S(\alpha, k, c)

    The smallest maximizer, as the chapter's ``find_optimal_k`` (strict ``>`` scan) means to pick,
    so ties (such as ``alpha = 1, c = 1``, where every k gives 1, or ``alpha = 0.25, c = 19``, where
    S(1) = S(2) = 19/16) resolve to the shorter draft. Found without comparing rounded speedups:
    S is unimodal in k and :math:`S(k+1) > S(k) \iff \alpha^{k+1}(c + k) > \mathbb{E}[N](k)`
    (derivation and rounding allowance in :func:`specmath._kernels.shortest_best_k`), so at
    ``c = inf``, where S rises with every k, the answer is ``max_k`` even where the rise is
    below the last digit of S. Broadcasts over ``alpha`` and ``c``: a 201 x 201 grid is one
    call. Note that ``k >= 1`` even where no speculation would be better (``S(k*) < 1``);
    compare with 1 to decide.

    With an :class:`~specmath.Acceptance` holding a profile, S need not be unimodal and has no
    closed-form comparison: k* is the first maximizer of the speedups as computed
    (:func:`numpy.argmax`) over ``1 … max_k``, positions past the profile's extrapolated
    (:func:`~specmath.calibration.extend_profile`); pass ``max_k=acc.measured`` to search the measured ones only.

    Parameters
    ----------
    alpha : array_like of float, or Acceptance
        Acceptance rates in [0, 1], or one :func:`~specmath.acceptance` value.
    c : array_like of float
        Cost ratios target/draft, > 0; ``inf`` allowed.
    max_k : int, default 20
        Longest draft considered, 1 to :data:`MAX_DRAFT_LENGTH`.

    Returns
    -------
    k : numpy.int64 or numpy.ndarray of int64
        Optimal draft lengths, shape ``broadcast(alpha, c)``.
    speedup : numpy.float64 or numpy.ndarray
        ``speedup(alpha, k, c)`` at those k, bit for bit.
    """
    alpha, measured = split(alpha)
    c = as_cost_ratio(c)
    max_k = as_count(max_k, "max_k", cap=MAX_DRAFT_LENGTH)
    if measured is not None:
        ks = np.arange(1, max_k + 1)
        best_k, best = _kernels.best_over_k(measured._tokens(ks) / (1.0 + ks / c[..., None]))
        return scalar_or_array(best_k), scalar_or_array(best)
    best_k = _kernels.shortest_best_k(alpha, c, max_k)
    return scalar_or_array(best_k), scalar_or_array(_speedup(alpha, best_k, c))


def to_leviathan_cost(c):
    """Convert the chapter's cost ratio to Leviathan et al.'s cost coefficient.

    Leviathan, Kalman and Matias (2023), "Fast Inference from Transformers via Speculative
    Decoding", define c as the time of one draft step divided by one target step, the inverse
    of this package's ``c``. ``c = inf`` (free draft) maps to 0, the value their tables use.

    Parameters
    ----------
    c : array_like of float
        Target/draft cost ratio, > 0, ``inf`` allowed.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        ``1 / c``, in [0, inf).
    """
    c = as_cost_ratio(c)
    return scalar_or_array(1.0 / c)


def from_leviathan_cost(c_leviathan):
    """Convert Leviathan et al.'s cost coefficient (draft/target time) to this package's ``c``.

    The inverse of :func:`to_leviathan_cost`: 0 (free draft) maps to ``inf``.

    Parameters
    ----------
    c_leviathan : array_like of float
        Draft/target time ratio, >= 0 and finite.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        ``1 / c_leviathan``, in (0, inf].
    """
    arr = as_float_array(c_leviathan, "c_leviathan")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError("c_leviathan must be finite and >= 0 (0 means a free draft)")
    with np.errstate(divide="ignore"):
        return scalar_or_array(1.0 / arr)
