r"""Formulas several modules share, on arrays already checked by :mod:`specmath._validate`.

The public functions validate their arguments and then call these, so a formula is written
once however many modules use it. Nothing here validates: callers pass float arrays of
acceptance rates in [0, 1], int arrays of draft lengths >= 0, and probability vectors (or rows
of them) that sum to 1.
"""

from __future__ import annotations

import numpy as np

#: Residual mass at or below this counts as "no residual" (p = q up to rounding): a rejection
#: then has probability below 1e-12 and normalizing would only amplify rounding noise.
RESIDUAL_MASS_TOLERANCE = 1e-12


def expected_tokens(alpha: np.ndarray, k: np.ndarray) -> np.ndarray:
    r"""Expected tokens per target call under i.i.d. acceptance, broadcast over ``alpha`` and ``k``.

    .. math:: \mathbb{E}[N] = \sum_{i=0}^{k} \alpha^i = \frac{1 - \alpha^{k+1}}{1 - \alpha}

    The numerator of the speedup in Theorem 3.8 of Leviathan, Kalman and Matias (2023), "Fast
    Inference from Transformers via Speculative Decoding". Exactly ``k + 1`` at ``alpha = 1``
    and 1 at ``k = 0``.
    """
    # 1 - alpha^(k+1) = -expm1((k+1) log alpha) has no cancellation near alpha = 1, and
    # 1 - alpha is exact there (Sterbenz), so alpha = 1 - 1e-12 gives k + 1 to ~12 digits.
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = -np.expm1((k + 1) * np.log(alpha)) / (1.0 - alpha)
    # The closed form rounds at k = 0; "no draft, one token" is exact by definition.
    return np.where(alpha == 1.0, k + 1.0, np.where(k == 0, 1.0, ratio))


def tokens_pmf(alpha: np.ndarray, k: int) -> np.ndarray:
    r"""P(N = 1 … k + 1) along a new last axis, for an array of alphas.

    .. math:: P(N = n) = \alpha^{n-1} (1 - \alpha) \quad (1 \le n \le k), \qquad
              P(N = k + 1) = \alpha^k

    Under Leviathan et al.'s (2023) i.i.d. acceptance the accepted prefix is geometric,
    truncated at k; N counts it plus the one token the target adds.
    """
    powers = alpha[..., None] ** np.arange(k + 1)
    pmf = powers * (1.0 - alpha[..., None])
    pmf[..., -1] = powers[..., -1]
    return pmf


def residual(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    r"""The residual distribution along the last axis, so one rule serves a pair and a chain's every row.

    .. math:: r(x) = \frac{\max(0,\, p(x) - q(x))}{\sum_y \max(0,\, p(y) - q(y))}

    The distribution Leviathan et al. (2023), Algorithm 1, resamples from after a rejection.
    Where the residual mass is at most :data:`RESIDUAL_MASS_TOLERANCE` the row is ``p`` (see
    :func:`specmath.residual_distribution` for why).
    """
    excess = np.maximum(p - q, 0.0)
    mass = excess.sum(axis=-1, keepdims=True)
    empty = mass <= RESIDUAL_MASS_TOLERANCE
    return np.where(empty, p, excess / np.where(empty, 1.0, mass))


def best_over_k(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The best draft length and its speedup, from speedups tabulated at ``k = 1 … K`` along the last axis.

    .. math:: k^* = \min \operatorname*{arg\,max}_{1 \le k \le K} S_k

    :func:`numpy.argmax` returns the first maximum, so ties go to the shorter draft, as the
    chapter's ``find_optimal_k`` (a strict ``>`` scan) resolves them.

    Returns
    -------
    k : numpy.ndarray of int64
        ``k*``, shape ``table.shape[:-1]``.
    speedup : numpy.ndarray
        The entry of ``table`` at ``k*`` itself, so equal bit for bit to the speedup there.
    """
    best = np.argmax(table, axis=-1)
    return best + 1, np.take_along_axis(table, best[..., None], axis=-1)[..., 0]
