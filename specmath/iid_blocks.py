"""Speculative decoding iterations under the closed form's assumption: i.i.d. acceptance.

Each of the k draft positions is accepted independently with probability alpha, and the
iteration stops at the first rejection. The accepted prefix A then follows a geometric law
truncated at k, and the iteration emits N = A + 1 tokens (the residual draw at the first
rejection, or the bonus token when all k pass).
"""

from __future__ import annotations

import numpy as np

from . import _kernels
from ._validate import as_alpha, as_count, as_draft_length, as_float_array, as_rng, scalar_or_array

#: Cap on ``n_iterations`` for :func:`simulate_iid_blocks` (16 bytes per iteration at peak).
MAX_ITERATIONS = 50_000_000


def _scalar_alpha_k(alpha, k) -> tuple[float, int]:
    alpha, k = as_alpha(alpha), as_draft_length(k)
    if alpha.ndim or k.ndim:
        raise ValueError("alpha and k must be scalars here")
    return float(alpha), int(k)


def tokens_per_iteration_pmf(alpha, k) -> np.ndarray:
    r"""Law of the tokens emitted per iteration, N = A + 1, under i.i.d. acceptance.

    .. math:: P(N = n) = \alpha^{n-1} (1 - \alpha) \quad (1 \le n \le k), \qquad
              P(N = k + 1) = \alpha^k

    Parameters
    ----------
    alpha : float
        Acceptance rate in [0, 1].
    k : int
        Draft length, 0 to :data:`~specmath.speedup.MAX_DRAFT_LENGTH`.

    Returns
    -------
    numpy.ndarray, shape (k + 1,)
        ``pmf[n - 1] = P(N = n)`` for n = 1 … k + 1; sums to 1, exact at alpha = 0 and 1.
    """
    alpha, k = _scalar_alpha_k(alpha, k)
    return _kernels.tokens_pmf(np.asarray(alpha), k)


def simulate_iid_blocks(alpha, k, n_iterations, rng=None) -> np.ndarray:
    r"""Tokens emitted by each of ``n_iterations`` speculative decoding iterations.

    Draws the accepted prefix directly from its law: with :math:`U \sim U(0, 1]`,
    :math:`A = \min(\lfloor \log U / \log \alpha \rfloor, k)` has
    :math:`P(A \ge a) = P(U \le \alpha^a) = \alpha^a`, the probability that the first *a*
    independent acceptances all succeed. One uniform per iteration, no loop over iterations
    or positions; alpha = 0 (always A = 0) and alpha = 1 (always A = k) are exact.

    Parameters
    ----------
    alpha : float
        Per-position acceptance rate in [0, 1].
    k : int
        Draft length, 0 to :data:`~specmath.speedup.MAX_DRAFT_LENGTH`.
    n_iterations : int
        Number of iterations, 1 to :data:`MAX_ITERATIONS`.
    rng : numpy.random.Generator, int or None
        Source of randomness, passed to :func:`numpy.random.default_rng`.

    Returns
    -------
    numpy.ndarray of int64, shape (n_iterations,)
        N = A + 1 per iteration, in 1 … k + 1; its mean estimates ``expected_tokens(alpha, k)``.
    """
    alpha, k = _scalar_alpha_k(alpha, k)
    n_iterations = as_count(n_iterations, "n_iterations", cap=MAX_ITERATIONS)
    rng = as_rng(rng)
    if alpha == 0.0 or k == 0:
        return np.ones(n_iterations, dtype=np.int64)
    if alpha == 1.0:
        return np.full(n_iterations, k + 1, dtype=np.int64)
    u = 1.0 - rng.random(n_iterations)  # in (0, 1]: log(u) is finite
    prefix = np.log(u)
    prefix /= np.log(alpha)
    np.minimum(prefix, k, out=prefix)
    return prefix.astype(np.int64) + 1


def fit_alpha_from_acceptance_length(mean_length, k):
    r"""The i.i.d. alpha whose expected tokens per iteration equal ``mean_length``.

    Inverts :math:`\mathbb{E}[N] = (1 - \alpha^{k+1})/(1 - \alpha)`, which increases strictly in
    alpha on [0, 1] from 1 to k + 1 (for k >= 1), by bisection to full double precision, so
    every input has exactly one answer: ``mean_length = 1`` gives 0 and ``k + 1`` gives 1.

    Parameters
    ----------
    mean_length : array_like of float
        Measured mean tokens per iteration (accepted tokens + 1), in [1, k + 1].
    k : array_like of int
        Draft length, 1 to :data:`~specmath.speedup.MAX_DRAFT_LENGTH`. Broadcasts against ``mean_length``.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        alpha in [0, 1].
    """
    length = as_float_array(mean_length, "mean_length")
    k = as_draft_length(k)
    if (k < 1).any():
        raise ValueError("k must be >= 1 to fit alpha (with k = 0 every iteration emits one token)")
    length, k = np.broadcast_arrays(length, k)
    if np.isnan(length).any() or (length < 1).any() or (length > k + 1).any():
        raise ValueError("mean_length must be within [1, k + 1]: one token per iteration at least, k + 1 at most")
    low, high = np.zeros(length.shape), np.ones(length.shape)
    for _ in range(64):  # each step halves [low, high]; 2**-64 is below double precision
        mid = 0.5 * (low + high)
        below = _kernels.expected_tokens(mid, k) < length
        low = np.where(below, mid, low)
        high = np.where(below, high, mid)
    fitted = np.where(length >= k + 1, 1.0, np.where(length <= 1, 0.0, 0.5 * (low + high)))
    return scalar_or_array(fitted)
