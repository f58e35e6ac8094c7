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


def row_cdfs(M: np.ndarray) -> np.ndarray:
    """Row-wise CDFs whose entries from each row's last positive probability on are exactly 1.

    With ``x = count(cdf <= u)`` for ``u`` in [0, 1), a zero-probability token is never drawn
    and rounding in the cumulative sum cannot push ``x`` past the last possible token.
    """
    cdf = np.cumsum(M, axis=1)
    cdf /= cdf[:, -1:]
    last = M.shape[1] - 1 - np.argmax(M[:, ::-1] > 0, axis=1)
    cdf[np.arange(M.shape[1]) >= last[:, None]] = 1.0
    return cdf


#: Rounding allowance, relative, per unit of ``k + 8``, in the test of :func:`shortest_best_k`.
TIE_MARGIN = 2.0**-51


def shortest_best_k(alpha: np.ndarray, c: np.ndarray, max_k: int) -> np.ndarray:
    r"""The smallest k in ``1 … max_k`` maximizing :math:`S(k) = \mathbb{E}[N](k) / (1 + k/c)`.

    .. math::

        S(k+1) > S(k) \iff \mathbb{E}[N](k+1)\,(c + k) > \mathbb{E}[N](k)\,(c + k + 1)
                      \iff \alpha^{k+1} (c + k) > \mathbb{E}[N](k)

    for the speedup of Leviathan et al. (2023), Theorem 3.8, using
    :math:`\mathbb{E}[N](k+1) = \mathbb{E}[N](k) + \alpha^{k+1}`. The difference of the two
    sides, :math:`D(k)`, never rises with k, since
    :math:`D(k+1) - D(k) = -(1 - \alpha)\,\alpha^{k+1} (c + k + 1) \le 0`: S rises while
    :math:`D(k) > 0` and never after (it is unimodal in k), so :math:`k^*` is the first k with
    :math:`D(k) \le 0`, or ``max_k``. Near the optimum the two sides are of like size, so their
    comparison is decided by far more digits than that of S(k + 1) with S(k), which can agree to
    the last digit (at ``c = inf``, ``alpha = 0.1``, from k = 16 on); at ``c = inf`` the left side
    is infinite for every ``alpha > 0``, and the longest draft wins, as in exact arithmetic.

    A rise of less than :math:`(k + 8) \cdot` :data:`TIE_MARGIN` relative counts as a tie. That
    bounds twice over what the rounding of ``alpha`` (``2**-53`` relative, moving
    :math:`\alpha^{k+1}` by k + 1 times that and :math:`\mathbb{E}[N]` by at most k times) and the
    arithmetic here can do, so a tie of the decimal inputs goes to the shorter draft though the
    input is not exactly that decimal: ``alpha = 0.2, c = 29`` (``S(1) = S(2)`` at
    :math:`\alpha = 1/5`) gives 1 although 0.2 is stored as slightly more than 1/5.

    ``alpha`` and ``c`` broadcast; the comparison runs over ``broadcast(alpha, c) x max_k``, with
    the powers and :math:`\mathbb{E}[N]` computed at shape ``alpha x max_k`` only.
    """
    ks = np.arange(1, max_k + 1)
    a = alpha[..., None]
    # A power that underflows is still > 0, so that at c = inf every alpha > 0 keeps rising.
    power = np.where(a > 0, np.maximum(a ** (ks + 1), np.finfo(float).smallest_subnormal), 0.0)
    bar = expected_tokens(a, ks) * (1.0 + (ks + 8) * TIE_MARGIN)
    with np.errstate(invalid="ignore"):  # 0 * inf (alpha = 0, c = inf) is NaN: no rise, rightly
        rises = power * (c[..., None] + ks) > bar
    rises[..., -1] = False  # k = max_k + 1 is not offered
    return np.argmin(rises, axis=-1) + 1


def best_over_k(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The best draft length and its speedup, from speedups tabulated at ``k = 1 … K`` along the last axis.

    .. math:: k^* = \min \operatorname*{arg\,max}_{1 \le k \le K} \hat S_k

    over the speedups :math:`\hat S_k` as computed: :func:`numpy.argmax` returns the first
    maximum, so ties go to the shorter draft, as the chapter's ``find_optimal_k`` (a strict ``>``
    scan) resolves them. Two draft lengths whose speedups are equal in exact arithmetic may be
    separated by rounding, and then the one rounded up wins: for cost models with a closed-form
    comparison use :func:`shortest_best_k`. No assumption on the shape of the table.

    Returns
    -------
    k : numpy.ndarray of int64
        ``k*``, shape ``table.shape[:-1]``.
    speedup : numpy.ndarray
        The entry of ``table`` at ``k*`` itself, so equal bit for bit to the speedup there.
    """
    best = np.argmax(table, axis=-1)
    return best + 1, np.take_along_axis(table, best[..., None], axis=-1)[..., 0]
