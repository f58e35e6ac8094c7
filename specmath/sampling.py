"""The speculative sampling rule for one token, run for many independent rounds at once."""

from __future__ import annotations

import numpy as np

from . import _kernels
from ._validate import as_count, as_distribution_pair, as_rng

#: Cap on ``n`` for :func:`speculative_sample`. Peak memory is about 25 bytes per round
#: (tokens, uniforms, flags), so the cap keeps one call near 1.25 GB.
MAX_SAMPLES = 50_000_000


def _alias_table(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias table for ``probs``, built without a Python loop.

    Column ``i`` keeps token ``i`` with probability ``keep[i]`` and otherwise gives
    ``alias[i]``; a uniform column and one coin then sample ``probs`` exactly (to rounding).
    This is Vose's pairing written in closed form. With ``w = V probs``, the "small" tokens
    (``w < 1``) have deficits ``1 - w`` and the "large" ones surpluses ``w - 1``, laid end to
    end as cumulative sums ``D`` and ``E``. A small token whose deficit starts at ``D[j-1]``
    takes its alias from the first large token whose cumulative surplus reaches that point;
    a large token that runs out (the first ``D > E[m]``) keeps ``1 - (D - E[m])`` of its own
    column and takes the next large token as its alias. A token with probability 0 keeps
    nothing and is nobody's alias, so it is never drawn.
    """
    size = probs.size
    w = probs * size
    small = w < 1.0
    small[np.argmax(w)] = False  # rounding can leave every w just below 1
    small_idx = np.flatnonzero(small)
    large_idx = np.flatnonzero(~small)
    keep = np.ones(size)
    alias = np.arange(size)
    if small_idx.size == 0:
        return keep, alias
    deficit_end = np.cumsum(1.0 - w[small_idx])
    surplus_end = np.cumsum(w[large_idx] - 1.0)
    deficit_start = np.concatenate(([0.0], deficit_end[:-1]))
    donor = np.minimum(np.searchsorted(surplus_end, deficit_start, side="left"), large_idx.size - 1)
    keep[small_idx] = w[small_idx]
    alias[small_idx] = large_idx[donor]
    runs_out_at = np.searchsorted(deficit_end, surplus_end, side="right")
    runs_out = runs_out_at < deficit_end.size
    runs_out[-1] = False  # the last large token has no successor; it keeps its whole column
    m = np.flatnonzero(runs_out)
    keep[large_idx[m]] = 1.0 - (deficit_end[runs_out_at[m]] - surplus_end[m])
    alias[large_idx[m]] = large_idx[m + 1]
    return keep, alias


def _iid_categorical(probs: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` i.i.d. draws from ``probs`` by the alias method: O(V) set-up, O(1) per draw.

    One uniform per draw: the integer part of ``u * V`` picks the column, its fractional part
    is the coin.
    Several times faster than inverse-CDF search (``searchsorted``) at large vocabularies.
    """
    keep, alias = _alias_table(probs)
    size = probs.size
    # u * V < column + keep[column] is the coin flip on the fractional part of u * V, and
    # (column, coin) indexes a flat table of (alias, column) pairs: four array passes in
    # place, close to the cost of drawing the uniforms themselves.
    cut = np.arange(size) + keep
    choice = np.stack([alias, np.arange(size)], axis=1).ravel()
    scaled = rng.random(n)
    scaled *= size
    column = scaled.astype(np.int64)
    np.minimum(column, size - 1, out=column)  # u * V rounds up to V for the largest u < 1
    coin = scaled < cut[column]
    column *= 2
    column += coin
    return choice[column]


def speculative_sample(p, q, n, rng=None) -> tuple[np.ndarray, np.ndarray]:
    r"""Run ``n`` independent rounds of speculative sampling for one token.

    Each round drafts :math:`x \sim q`, accepts it with probability
    :math:`\min(1, p(x)/q(x))`, and otherwise replaces it by a draw from the residual
    :math:`r \propto \max(0, p - q)` (see :func:`residual_distribution`). The output token is
    distributed exactly as ``p`` and a round is accepted with probability
    :math:`\alpha = \sum_x \min(p(x), q(x))`, for every valid pair: disjoint supports,
    ``q(x) = 0 < p(x)`` and ``p == q`` included. No Python loop over rounds.

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    n : int
        Number of rounds, 1 to :data:`MAX_SAMPLES`.
    rng : numpy.random.Generator, int or None
        Source of randomness, passed to :func:`numpy.random.default_rng`.

    Returns
    -------
    tokens : numpy.ndarray of int64, shape (n,)
        The emitted token of each round.
    accepted : numpy.ndarray of bool, shape (n,)
        Whether the round kept its draft token.
    """
    p, q = as_distribution_pair(p, q)
    n = as_count(n, "n", cap=MAX_SAMPLES)
    rng = as_rng(rng)

    tokens = _iid_categorical(q, n, rng)
    with np.errstate(divide="ignore", invalid="ignore"):
        # Only tokens with q > 0 are ever drafted, so the q = 0 entries are never read.
        accept_ratio = np.where(q > 0, p / q, 0.0)
    accepted = rng.random(n) < accept_ratio[tokens]

    n_rejected = n - int(np.count_nonzero(accepted))
    if n_rejected:
        # Rejected rounds sit at random places already, so residual draws in i.i.d. order
        # can fill them in index order.
        tokens[~accepted] = _iid_categorical(_kernels.residual(p, q), n_rejected, rng)
    return tokens, accepted


#: Rounds drawn at a time by :func:`speculative_sample_counts`: about 25 MB of working memory.
SAMPLE_CHUNK = 1 << 20


def speculative_sample_counts(p, q, n, rng=None) -> tuple[np.ndarray, np.ndarray]:
    r"""Per-token counts of ``n`` speculative sampling rounds, in bounded memory.

    The rounds of :func:`speculative_sample` drawn :data:`SAMPLE_CHUNK` at a time from one
    generator, so memory stays near 25 MB for any ``n``; for ``n <= SAMPLE_CHUNK`` they are
    exactly the rounds of ``speculative_sample(p, q, n, rng)``. Together the 2V counts are
    Multinomial(n, (min(p, q), max(0, p - q))), so ``accepted + resampled`` is
    Multinomial(n, p): Leviathan et al. (2023), Appendix A.1.

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    n : int
        Number of rounds, 1 to :data:`MAX_SAMPLES`.
    rng : numpy.random.Generator, int or None
        Source of randomness, passed to :func:`numpy.random.default_rng`.

    Returns
    -------
    accepted : numpy.ndarray of int64, shape (V,)
        Rounds that kept their draft token, by token.
    resampled : numpy.ndarray of int64, shape (V,)
        Rounds whose token came from the residual, by token.
    """
    p, q = as_distribution_pair(p, q)
    n = as_count(n, "n", cap=MAX_SAMPLES)
    rng = as_rng(rng)
    accepted = np.zeros(p.size, dtype=np.int64)
    resampled = np.zeros(p.size, dtype=np.int64)
    for start in range(0, n, SAMPLE_CHUNK):
        tokens, kept = speculative_sample(p, q, min(SAMPLE_CHUNK, n - start), rng)
        accepted += np.bincount(tokens[kept], minlength=p.size)
        resampled += np.bincount(tokens[~kept], minlength=p.size)
        del tokens, kept  # before the next chunk is drawn, or two chunks are alive at once
    return accepted, resampled
