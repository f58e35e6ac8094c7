"""Speculative decoding run for real on bigram Markov chains, and what its records show.

:func:`speculative_decode` runs the whole algorithm token by token (draft k tokens
autoregressively, score k + 1 positions with the target, accept in order with min(1, p/q),
resample from the residual at the first rejection, add the target's bonus token when all k
pass), vectorized across independent sequences. :func:`decode_summary` turns its records into
the quantities serving engines report and the closed form predicts. The drafting and checking
kernels here (:func:`_propose`, :func:`_verify`) are also those of
:func:`specmath.speculative_iteration` (``iteration.py``), one iteration recorded step by step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _kernels
from ._validate import as_count, as_draft_length, as_rng, shown
from .iid_blocks import fit_alpha_from_acceptance_length
from .markov import as_transition_matrix, stationary_distribution

#: Cap on ``n_sequences * n_tokens`` for :func:`speculative_decode` (about 10 bytes per token).
MAX_DECODE_TOKENS = 20_000_000
#: Longest draft :func:`speculative_decode` and :func:`speculative_iteration` run.
MAX_DECODE_DRAFT = 64

#: Values of ``DecodeRecords.kinds``: how each token of the text came to be.
START, ACCEPTED, RESAMPLED, BONUS = 0, 1, 2, 3


@dataclass(frozen=True)
class DecodeRecords:
    """Generated text and one record per (sequence, iteration).

    Attributes
    ----------
    tokens : ndarray of int64, shape (n_sequences, n_tokens)
        The text; token 0 of each sequence is the start context, drawn from the target's
        stationary law.
    kinds : ndarray of int8, same shape
        :data:`START`, :data:`ACCEPTED` (a draft token kept), :data:`RESAMPLED` (the residual
        draw at a rejection) or :data:`BONUS` (the target's extra token after k acceptances).
    sequence : ndarray of int64, shape (n_iterations,)
        Which sequence each iteration belongs to.
    drafted, accepted, emitted : ndarray of int64, shape (n_iterations,)
        Draft tokens proposed (k), accepted (the prefix A) and emitted (A + 1) per iteration.
    outcomes : ndarray of bool, shape (n_iterations, k)
        Whether draft position i was accepted; False at and after the first rejection.
    context_alpha : ndarray of float, shape (n_iterations, k)
        alpha(s) = sum_x min(T(s, x), D(s, x)) at the context of each position the target
        checked; NaN at positions after the first rejection (never checked).
    """

    tokens: np.ndarray
    kinds: np.ndarray
    sequence: np.ndarray
    drafted: np.ndarray
    accepted: np.ndarray
    emitted: np.ndarray
    outcomes: np.ndarray
    context_alpha: np.ndarray

    @property
    def k(self) -> int:
        return self.outcomes.shape[1]


def _row_cdfs(M: np.ndarray) -> np.ndarray:
    """Row-wise CDFs whose entries from each row's last positive probability on are exactly 1.

    With ``x = count(cdf <= u)`` for ``u`` in [0, 1), a zero-probability token is never drawn
    and rounding in the cumulative sum cannot push ``x`` past the last possible token.
    """
    cdf = np.cumsum(M, axis=1)
    cdf /= cdf[:, -1:]
    last = M.shape[1] - 1 - np.argmax(M[:, ::-1] > 0, axis=1)
    cdf[np.arange(M.shape[1]) >= last[:, None]] = 1.0
    return cdf


def _draw_rows(cdf: np.ndarray, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    u = rng.random(rows.size)
    return (cdf[rows] <= u[:, None]).sum(axis=1)


@dataclass(frozen=True)
class _Tables:
    r"""What drafting and checking need of a chain pair, computed once per call.

    Attributes
    ----------
    draft_cdf : ndarray, shape (V, V)
        Row CDFs of the draft, for proposing.
    ratio : ndarray, shape (V, V)
        ``T / D`` where ``D > 0``; 0 where ``D = 0`` (such a token is never drafted, so never
        read). A drafted token passes when ``u < ratio``: probability ``min(1, T / D)``.
    residual : ndarray, shape (V, V)
        Each context's residual :math:`\propto \max(0, T - D)` (:func:`specmath._kernels.residual`:
        the target's row where a context has no residual, as :func:`residual_distribution`).
    final_cdf : ndarray, shape (2V, V)
        One table for the token that ends an iteration: the residual rows (index = context),
        then the target rows (index = V + context, the bonus).
    """

    draft_cdf: np.ndarray
    ratio: np.ndarray
    residual: np.ndarray
    final_cdf: np.ndarray


def _tables(target: np.ndarray, draft: np.ndarray) -> _Tables:
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(draft > 0, target / draft, 0.0)
    residual = _kernels.residual(target, draft)
    return _Tables(
        draft_cdf=_row_cdfs(draft), ratio=ratio, residual=residual, final_cdf=_row_cdfs(np.vstack([residual, target]))
    )


def _propose(tables: _Tables, current: np.ndarray, k: int, rng: np.random.Generator):
    """Draft k tokens autoregressively from each of the m tokens ``current``.

    Returns the context of each draft position, the drafted tokens (both shape (m, k)) and
    the last token (the last drafted one; ``current`` itself when k = 0).
    """
    m = current.size
    context = np.empty((m, k), dtype=np.int64)
    proposed = np.empty((m, k), dtype=np.int64)
    for i in range(k):
        context[:, i] = current
        current = _draw_rows(tables.draft_cdf, current, rng)
        proposed[:, i] = current
    return context, proposed, current


def _verify(tables: _Tables, context: np.ndarray, proposed: np.ndarray, last: np.ndarray, rng: np.random.Generator):
    """The target's check of m drafts of k tokens (from :func:`_propose`), in order.

    Each position draws a uniform u and passes when ``u < T / D`` of its drafted token; the
    accepted prefix ends at the first failure. At a failure the iteration's last token is
    drawn from the residual of that position's context; when all k pass, from the target's
    row after ``last`` (the bonus). Returns the uniforms and pass flags (shape (m, k)), the
    prefix lengths and the last tokens (shape (m,)).
    """
    m, k = proposed.shape
    u = rng.random((m, k))
    passed = u < tables.ratio[context, proposed]
    # The accepted prefix: the index of the first failed test, or k when all pass.
    prefix = np.where(passed.all(axis=1), k, np.argmin(passed, axis=1)) if k else np.zeros(m, dtype=np.int64)
    rejected = prefix < k
    # The token that ends the iteration: residual of the rejected position's context, or
    # the target's bonus after the last draft token (after the context itself when k = 0).
    size = tables.ratio.shape[0]
    end_context = np.where(rejected, context[np.arange(m), np.minimum(prefix, k - 1)] if k else 0, size + last)
    return u, passed, prefix, _draw_rows(tables.final_cdf, end_context, rng)


def _as_chain_pair(target, draft) -> tuple[np.ndarray, np.ndarray]:
    target = as_transition_matrix(target, "target")
    draft = as_transition_matrix(draft, "draft")
    if target.shape != draft.shape:
        raise ValueError(f"target and draft must have the same shape, got {target.shape} and {draft.shape}")
    return target, draft


def _as_decode_draft(k) -> int:
    """Check a decoder's draft length: a single integer, 0 to :data:`MAX_DECODE_DRAFT`."""
    length = as_draft_length(k)
    if length.ndim != 0:
        raise ValueError(f"k must be a single integer, got an array of shape {length.shape}")
    if length > MAX_DECODE_DRAFT:
        raise ValueError(f"k must be <= {MAX_DECODE_DRAFT}, got {shown(k)}")
    return int(length)


def speculative_decode(target, draft, k, n_tokens, rng=None, n_sequences=1) -> DecodeRecords:
    r"""Generate text from ``target`` by speculative decoding with ``draft``.

    Each iteration, for every unfinished sequence at once: the draft proposes
    :math:`x_1 \dots x_k` autoregressively (:math:`x_i \sim D(x_{i-1}, \cdot)`); the target's
    rows at the k + 1 positions are read; :math:`x_i` is accepted with probability
    :math:`\min(1, T(x_{i-1}, x_i) / D(x_{i-1}, x_i))`, in order; at the first rejection the
    token is replaced by a draw from the residual :math:`\propto \max(0, T - D)` of that
    context and the iteration ends; if all k pass, the target adds a bonus token from
    :math:`T(x_k, \cdot)`. The text is distributed exactly as the target chain's.

    Parameters
    ----------
    target, draft : array_like, shape (V, V)
        Row-stochastic bigram transition matrices over the same V tokens.
    k : int
        Draft length, 0 to :data:`MAX_DECODE_DRAFT` (0 is plain decoding with the target).
    n_tokens : int
        Length of each generated sequence, start token included, >= 2.
    rng : numpy.random.Generator, int or None
        Source of randomness.
    n_sequences : int, default 1
        Independent sequences generated side by side; ``n_sequences * n_tokens`` is capped at
        :data:`MAX_DECODE_TOKENS`.

    Returns
    -------
    DecodeRecords
    """
    target, draft = _as_chain_pair(target, draft)
    k = _as_decode_draft(k)
    n_tokens = as_count(n_tokens, "n_tokens", cap=MAX_DECODE_TOKENS, minimum=2)
    n_sequences = as_count(n_sequences, "n_sequences", cap=MAX_DECODE_TOKENS)
    if n_tokens * n_sequences > MAX_DECODE_TOKENS:
        raise ValueError(f"n_sequences * n_tokens must be <= {MAX_DECODE_TOKENS:,}, got {n_sequences:,} * {n_tokens:,}")
    rng = as_rng(rng)

    tables = _tables(target, draft)
    alpha_of = np.minimum(target, draft).sum(axis=1)

    width = n_tokens + k + 1
    tokens = np.zeros((n_sequences, width), dtype=np.int64)
    kinds = np.zeros((n_sequences, width), dtype=np.int8)
    tokens[:, 0] = _draw_rows(_row_cdfs(stationary_distribution(target)[None, :]), np.zeros(n_sequences, int), rng)
    length = np.ones(n_sequences, dtype=np.int64)
    records: list[tuple[np.ndarray, ...]] = []
    columns = np.arange(k + 1)

    active = np.arange(n_sequences)
    while active.size:
        m = active.size
        rows = np.arange(m)
        context, proposed, last = _propose(tables, tokens[active, length[active] - 1], k, rng)
        _, _, prefix, final = _verify(tables, context, proposed, last, rng)
        block = np.empty((m, k + 1), dtype=np.int64)
        block[:, :k] = proposed
        block[rows, prefix] = final
        block_kinds = np.where(columns < prefix[:, None], ACCEPTED, 0).astype(np.int8)
        block_kinds[rows, prefix] = np.where(prefix < k, RESAMPLED, BONUS)

        keep = columns <= prefix[:, None]
        seq_index = np.broadcast_to(active[:, None], keep.shape)[keep]
        position = (length[active][:, None] + columns)[keep]
        tokens[seq_index, position] = block[keep]
        kinds[seq_index, position] = block_kinds[keep]
        length[active] += prefix + 1

        checked = columns[:k] <= prefix[:, None]
        records.append((active, prefix, columns[:k] < prefix[:, None], np.where(checked, alpha_of[context], np.nan)))
        active = active[length[active] < n_tokens]

    sequence, accepted, outcomes, context_alpha = (np.concatenate(parts) for parts in zip(*records, strict=True))
    return DecodeRecords(
        tokens=tokens[:, :n_tokens],
        kinds=kinds[:, :n_tokens],
        sequence=sequence,
        drafted=np.full(accepted.size, k, dtype=np.int64),
        accepted=accepted.astype(np.int64),
        emitted=accepted.astype(np.int64) + 1,
        outcomes=outcomes,
        context_alpha=context_alpha,
    )


@dataclass(frozen=True)
class DecodeSummary:
    """What a run's records say, next to what the i.i.d. closed form would need.

    Attributes
    ----------
    iterations : int
        Target calls (one per iteration).
    tokens_per_call : float
        Mean tokens emitted per target call, E[N] measured.
    acceptance_rate : float
        Accepted draft tokens / draft positions the target checked.
    unconditional : ndarray, shape (k,)
        P(at least i + 1 draft tokens accepted), as vLLM reports per-position acceptance.
    conditional : ndarray, shape (k,)
        P(position i accepted | position i - 1 accepted); NaN where no iteration got that far.
    alpha_fit : float
        The i.i.d. alpha whose expected_tokens(alpha, k) equals ``tokens_per_call``.
    alpha_visited : float
        Mean of alpha(s) = sum_x min(T, D)(s, x) over the contexts the target checked.
    """

    iterations: int
    tokens_per_call: float
    acceptance_rate: float
    unconditional: np.ndarray
    conditional: np.ndarray
    alpha_fit: float
    alpha_visited: float


def decode_summary(records: DecodeRecords) -> DecodeSummary:
    """Summarize :func:`speculative_decode` records (see :class:`DecodeSummary`)."""
    k = records.k
    accepted = records.accepted
    at_least = (accepted[:, None] >= np.arange(k + 1)).sum(axis=0)  # iterations with A >= i
    with np.errstate(invalid="ignore", divide="ignore"):
        conditional = np.where(at_least[:k] > 0, at_least[1:] / np.maximum(at_least[:k], 1), np.nan)
    checked = np.isfinite(records.context_alpha)
    mean_length = float(records.emitted.mean())
    return DecodeSummary(
        iterations=int(accepted.size),
        tokens_per_call=mean_length,
        acceptance_rate=float(accepted.sum() / checked.sum()) if checked.any() else float("nan"),
        unconditional=at_least[1:] / accepted.size,
        conditional=conditional,
        alpha_fit=float(fit_alpha_from_acceptance_length(min(mean_length, k + 1), k)) if k else float("nan"),
        alpha_visited=float(records.context_alpha[checked].mean()) if checked.any() else float("nan"),
    )
