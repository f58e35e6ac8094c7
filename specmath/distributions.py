"""How close a draft distribution q is to a target p, and what rejection sampling leaves over.

All functions take ``p`` (target) and ``q`` (draft) as 1-D probability vectors over one
vocabulary; :func:`divergences` does the same for many pairs stacked as rows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _kernels
from ._validate import (
    SUM_TOLERANCE,
    as_count,
    as_distribution_pair,
    as_float_array,
    as_rng,
    scalar_or_array,
    shown_first,
)

#: Cap on ``n_pairs * vocab_size`` for :func:`random_distribution_pairs` (80 MB per array).
MAX_PAIR_ELEMENTS = 10_000_000


def _alpha(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return np.minimum(p, q).sum(axis=-1)


def _tv(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return 0.5 * np.abs(p - q).sum(axis=-1)


#: Where ``|p - q| < _KL_SERIES_BELOW * (p + q)`` a KL term is summed as a series; beyond it the
#: direct form cancels at most about one digit.
_KL_SERIES_BELOW = 0.1

#: ``1/3, 1/5, …, 1/17``: eight terms of the atanh series reach 1e-17 relative for ``|v| < 0.1``.
_ODD_RECIPROCALS = 1.0 / np.arange(3, 19, 2)


def _kl_terms(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    r"""The terms :math:`p \log(p/q) - p + q \ge 0` of the KL divergence, each to a few ulps.

    With :math:`v = (p - q)/(p + q)`, :math:`\log(p/q) = 2\,\mathrm{atanh}\,v`, so

    .. math:: p \log\frac{p}{q} - p + q = (p - q)\,v + 2 p v \sum_{j \ge 1} \frac{v^{2j}}{2j + 1}

    whose first part is >= 0 and second at most 4% of it for ``|v| < 0.1``: no cancellation,
    where the direct form subtracts ``p - q`` from ``p log(p/q)``, two numbers that agree to a
    relative ``|v|`` (Loader 2000, "Fast and Accurate Computation of Binomial Probabilities",
    the function bd0). Beyond ``|v| >= 0.1`` the direct form is used; ``p = 0`` gives ``q`` and
    ``q = 0 < p`` gives ``inf``.
    """
    diff, total = p - q, p + q
    near = np.abs(diff) < _KL_SERIES_BELOW * total
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        v = np.where(near, diff / total, 0.0)
        series = np.zeros_like(v)
        for coefficient in _ODD_RECIPROCALS[::-1]:  # Horner in v^2
            series = (series + coefficient) * (v * v)
        ratio = p / q
        # p / q overflows for a subnormal q, where log p - log q is still finite and exact enough.
        log_ratio = np.where(np.isinf(ratio), np.log(p) - np.log(q), np.log(ratio))
        far = np.where(p > 0, p * log_ratio - diff, q)
    terms = np.where(near, diff * v + 2.0 * p * v * series, far)
    return np.where((p > 0) & (q == 0), np.inf, terms)


def _kl(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    # Summing p log(p/q) - p + q rather than p log(p/q): the extra terms add up to
    # sum(q) - sum(p) = 0, and each term is then >= 0 and free of cancellation at p = q.
    return np.maximum(_kl_terms(p, q).sum(axis=-1), 0.0)


def tv_distance(p, q) -> np.float64:
    r"""Total variation distance.

    .. math:: \mathrm{TV}(p, q) = \tfrac12 \sum_x |p(x) - q(x)| = 1 - \alpha

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.

    Returns
    -------
    numpy.float64
        TV in [0, 1].
    """
    p, q = as_distribution_pair(p, q)
    return np.float64(min(_tv(p, q), 1.0))


def kl_divergence(p, q) -> np.float64:
    r"""Kullback-Leibler divergence of the draft from the target, in nats.

    .. math:: \mathrm{KL}(p \,\|\, q) = \sum_{x:\,p(x) > 0} p(x) \log \frac{p(x)}{q(x)}

    Exact: no smoothing epsilon (the chapter's ``eps = 1e-10`` caps the divergence and
    hides unsupported tokens). Terms with ``p(x) = 0`` contribute 0.

    Computed as :math:`\sum_x [p \log(p/q) - p + q]`, equal for distributions since the added
    terms sum to 0, with each term >= 0 and summed as a series where ``p(x)`` is close to
    ``q(x)`` (see ``_kl_terms``). For ``p = q (1 + d)`` KL is about :math:`\sum q d^2 / 2`, and
    :math:`\sum p \log(p/q)` computed directly loses it to cancellation (terms of size
    :math:`q d` summing to :math:`q d^2`) and to the rounding of the inputs' total mass (its
    change by 1e-16 shifts that sum by 1e-16), a relative error of about :math:`10^{-16}/d^2`.
    Each term here moves only :math:`\log(p/q) \approx d` times as much as ``p`` does, so what
    is left, about :math:`10^{-16}/d`, is what rounding the inputs to floats causes by itself.

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.

    Returns
    -------
    numpy.float64
        KL >= 0; ``inf`` when some ``q(x) = 0 < p(x)`` (the draft cannot propose a token the
        target can emit); 0 exactly when ``p == q``.
    """
    p, q = as_distribution_pair(p, q)
    return np.float64(_kl(p, q))


def residual_distribution(p, q) -> np.ndarray:
    r"""Distribution to resample from after a rejection.

    .. math:: r(x) = \frac{\max(0,\, p(x) - q(x))}{\sum_y \max(0,\, p(y) - q(y))}

    When the residual has no mass (``p == q`` up to
    :data:`~specmath.verification.RESIDUAL_MASS_TOLERANCE`) the formula is 0/0 and ``p`` is
    returned. That is the right limit: the sampler's output law is
    ``min(p, q) + (1 - alpha) r``, and with ``1 - alpha = 0`` it equals ``p`` whatever ``r`` is,
    so ``r`` is free; ``p`` is the one choice that keeps the output exactly ``p`` even if
    rounding lets a rejection through (then ``min(p, q) = p`` and resampling from ``p`` adds
    ``p`` again). Taking the limit of ``r`` as ``q -> p`` instead is no answer: it depends on
    the direction of approach.

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.

    Returns
    -------
    numpy.ndarray, shape (V,)
        A probability vector, zero wherever ``p(x) <= q(x)`` (unless it is ``p`` itself).
    """
    p, q = as_distribution_pair(p, q)
    return _kernels.residual(p, q)


class Divergences(NamedTuple):
    """Per-pair closeness measures returned by :func:`divergences`."""

    alpha: np.ndarray
    tv: np.ndarray
    kl: np.ndarray


def divergences(P, Q) -> Divergences:
    """alpha, TV and KL for many pairs at once, one pair per row.

    Parameters
    ----------
    P, Q : array_like, shape (n_pairs, V)
        Rows are target and draft distributions (each row non-negative, summing to 1 within
        :data:`specmath.verification.SUM_TOLERANCE`).

    Returns
    -------
    specmath.distributions.Divergences
        ``(alpha, tv, kl)``, each of shape (n_pairs,), the same numbers as calling
        :func:`~specmath.acceptance_probability`, :func:`tv_distance` and :func:`kl_divergence` per row.
    """
    P = _as_row_distributions(P, "P")
    Q = _as_row_distributions(Q, "Q")
    if P.shape != Q.shape:
        raise ValueError(f"P and Q must have the same shape, got {P.shape} and {Q.shape}")
    return Divergences(np.minimum(_alpha(P, Q), 1.0), np.minimum(_tv(P, Q), 1.0), _kl(P, Q))


def _as_row_distributions(value, name: str) -> np.ndarray:
    arr = as_float_array(value, name)
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a 2-D array with one distribution per row, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or an infinite value")
    if (arr < 0).any():
        raise ValueError(f"{name} has a negative entry; probabilities must be >= 0")
    totals = arr.sum(axis=1, keepdims=True)
    off = np.abs(totals[:, 0] - 1.0) > SUM_TOLERANCE
    if off.any():
        row = int(np.flatnonzero(off)[0])
        raise ValueError(f"{name} row {row} sums to {totals[row, 0]:.9g}, not 1 (tolerance {SUM_TOLERANCE:g})")
    return arr / totals


def random_distribution_pairs(n_pairs, vocab_size=20, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """Random (target, draft) pairs spanning close to far, the chapter's alpha-vs-KL generator.

    For each pair: ``p ~ Dirichlet(1)``; a noise distribution
    ``Dirichlet(1 / (s + 0.1))`` with ``s ~ U(0, 2)``; a weight ``m ~ U(0.3, 1)``; and
    ``q = m p + (1 - m) noise``. Vectorized over pairs (Dirichlet draws as normalized gammas).

    Parameters
    ----------
    n_pairs : int
        Number of pairs, at least 1.
    vocab_size : int, default 20
        Vocabulary size V, at least 2. ``n_pairs * vocab_size`` is capped at
        :data:`MAX_PAIR_ELEMENTS`.
    rng : numpy.random.Generator, int or None
        Source of randomness, passed to :func:`numpy.random.default_rng`.

    Returns
    -------
    P, Q : numpy.ndarray, shape (n_pairs, vocab_size)
        Rows are target and draft distributions.
    """
    n_pairs = as_count(n_pairs, "n_pairs", cap=MAX_PAIR_ELEMENTS)
    vocab_size = as_count(vocab_size, "vocab_size", cap=MAX_PAIR_ELEMENTS, minimum=2)
    if n_pairs * vocab_size > MAX_PAIR_ELEMENTS:
        raise ValueError(
            f"n_pairs * vocab_size must be <= {MAX_PAIR_ELEMENTS:,} (a cap that bounds memory), "
            f"got {n_pairs:,} * {vocab_size:,}"
        )
    rng = as_rng(rng)
    shape = (n_pairs, vocab_size)
    base = rng.standard_gamma(1.0, size=shape)
    base /= base.sum(axis=1, keepdims=True)
    noise_scale = rng.uniform(0.0, 2.0, size=(n_pairs, 1))
    noise = rng.standard_gamma(np.broadcast_to(1.0 / (noise_scale + 0.1), shape))
    noise /= noise.sum(axis=1, keepdims=True)
    mix = rng.uniform(0.3, 1.0, size=(n_pairs, 1))
    draft = mix * base + (1.0 - mix) * noise
    draft /= draft.sum(axis=1, keepdims=True)
    return base, draft


def pinsker_bound(kl) -> np.ndarray:
    r"""Lower bound on alpha from Pinsker's inequality: :math:`\alpha \ge 1 - \sqrt{\mathrm{KL}/2}`.

    Clipped at 0 (the bound says nothing once ``KL >= 2``). Scalars in give scalars out.
    """
    kl = _as_kl(kl)
    return scalar_or_array(np.maximum(1.0 - np.sqrt(kl / 2.0), 0.0))


def bretagnolle_huber_bound(kl) -> np.ndarray:
    r"""Lower bound on alpha from the Bretagnolle-Huber inequality.

    .. math:: \alpha \ge 1 - \sqrt{1 - e^{-\mathrm{KL}}}

    Tighter than Pinsker for large KL and never vacuous. Scalars in give scalars out.
    """
    kl = _as_kl(kl)
    return scalar_or_array(1.0 - np.sqrt(-np.expm1(-kl)))


def _as_kl(value) -> np.ndarray:
    kl = as_float_array(value, "kl")
    bad = np.isnan(kl) | (kl < 0)
    if bad.any():
        raise ValueError(f"kl must be >= 0 (inf allowed), got {shown_first(value, bad)}")
    return kl
