"""Speculative decoding run for real on bigram Markov chains, and what its records show.

:func:`speculative_decode` runs the whole algorithm token by token (draft k tokens
autoregressively, score k + 1 positions with the target, accept in order with min(1, p/q),
resample from the residual at the first rejection, add the target's bonus token when all k
pass), vectorized across independent sequences. :func:`decode_summary` turns its records into
the quantities serving systems report and the closed form predicts. The kernel that drafts and
checks one iteration (:func:`_step`) is also that of :func:`specmath.speculative_iteration`
(``iteration.py``), one iteration recorded step by step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _block, _kernels
from ._kernels import row_cdfs as _row_cdfs
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


#: Uniforms from ``Generator.random`` are multiples of 2**-53 (numpy's ``next_double`` for
#: every bit generator), so ``u * UNIT`` is an exact integer.
UNIT = 2.0**53
#: A row's keys in :class:`_Search` start at ``row << ROW_SHIFT``, above every key of the row before.
ROW_SHIFT = 54


@dataclass(frozen=True)
class _Search:
    """Row CDFs laid out for one ``searchsorted`` per draw: x = count(cdf[row] <= u), exactly.

    ``keys[row * width + i] = (row << ROW_SHIFT) + ceil(cdf[row, i] * UNIT)``, each row padded
    to ``width`` (a power of two) with a key above every query of that row. For an integer
    ``j = u * UNIT``, ``cdf <= u`` exactly when ``ceil(cdf * UNIT) <= j`` (scaling by a power of
    two is exact), so ``searchsorted(keys, (row << ROW_SHIFT) + j, "right")`` is
    ``row * width + count(cdf[row] <= u)``, and the count is its low bits. One search over m
    queries replaces comparing an (m, V) gather of rows, which the decoder's loop did 2k + 1
    times an iteration.
    """

    keys: np.ndarray
    mask: int

    @classmethod
    def of(cls, cdf: np.ndarray) -> _Search:
        rows, size = cdf.shape
        if rows >= 1 << (63 - ROW_SHIFT):
            raise ValueError(f"a search table holds at most {(1 << (63 - ROW_SHIFT)) - 1} rows, got {rows}")
        width = 1 << int(size).bit_length()  # > size: the padding key is never counted
        keys = np.full((rows, width), int(UNIT) + 1, dtype=np.int64)
        keys[:, :size] = np.ceil(cdf * UNIT).astype(np.int64)
        keys += np.arange(rows, dtype=np.int64)[:, None] << ROW_SHIFT
        return cls(keys.ravel(), width - 1)

    def draw(self, rows: np.ndarray, j: np.ndarray) -> np.ndarray:
        """x = count(cdf[rows] <= u) for uniforms given as integers ``j = u * UNIT``."""
        return np.searchsorted(self.keys, (rows << ROW_SHIFT) + j, side="right") & self.mask

    def walk(self, path: np.ndarray, u: np.ndarray) -> None:
        """Draw ``path[i + 1]`` from row ``path[i]`` with the uniforms ``u[i]``, i = 0, 1, …, in place."""
        j = _as_integers(u)
        for i in range(u.shape[0]):
            path[i + 1] = self.draw(path[i], j[i])


@dataclass(frozen=True)
class _Walk:
    """Row CDFs as a table of next tokens, for the draft's autoregressive draws: x = count(cdf[row] <= u).

    ``edges`` holds every distinct value of every row's CDF, ascending, and
    ``table[b * V + row] = count(cdf[row] <= edges[b - 1])`` (0 for b = 0). With
    ``b = count(edges <= u)``, ``edges[b - 1]`` is the largest CDF value at or below ``u``, so
    ``table[b * V + row]`` is the exact count, for every row at once: one ``searchsorted`` for a
    block of positions' uniforms, then one look-up per position, where :class:`_Search` searched
    once per position. The table holds up to about V³ entries: :func:`_drafting` keeps
    :class:`_Search` beyond :data:`MAX_WALK_TABLE`.
    """

    edges: np.ndarray
    table: np.ndarray
    size: int

    @classmethod
    def of(cls, cdf: np.ndarray) -> _Walk:
        edges = np.unique(cdf)
        counts = np.zeros((edges.size + 1, cdf.shape[0]), dtype=np.int64)
        for row, values in enumerate(cdf):  # each row's CDF is non-decreasing
            counts[1:, row] = np.searchsorted(values, edges, side="right")
        return cls(edges, counts.ravel(), cdf.shape[0])

    def walk(self, path: np.ndarray, u: np.ndarray) -> None:
        """Draw ``path[i + 1]`` from row ``path[i]`` with the uniforms ``u[i]``, i = 0, 1, …, in place."""
        at = np.searchsorted(self.edges, u, side="right") * self.size
        for i in range(u.shape[0]):
            path[i + 1] = self.table[at[i] + path[i]]


#: Entries of a :class:`_Walk` table at most (8 bytes each); larger chains draft with :class:`_Search`.
MAX_WALK_TABLE = 1 << 21


def _drafting(cdf: np.ndarray) -> _Search | _Walk:
    """A :class:`_Walk` of the draft's rows, or their :class:`_Search` where the table would be too large."""
    distinct = np.unique(cdf).size
    return _Walk.of(cdf) if (distinct + 1) * cdf.shape[0] <= MAX_WALK_TABLE else _Search.of(cdf)


def _as_integers(u: np.ndarray) -> np.ndarray:
    return (u * UNIT).astype(np.int64)


def _draw_rows(cdf: np.ndarray, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw from each row ``rows`` of ``cdf``, a uniform each (for one-off draws)."""
    return _Search.of(cdf).draw(rows, _as_integers(rng.random(rows.size)))


@dataclass(frozen=True)
class _Tables:
    r"""What drafting and checking need of a chain pair, computed once per call.

    Attributes
    ----------
    draft : _Search
        The draft's rows, for proposing (block verification).
    drafting : _Search or _Walk
        The same draws, position after position along the draft's path (token verification).
    ratio : ndarray, shape (V, V)
        ``T / D`` where ``D > 0``; 0 where ``D = 0`` (such a token is never drafted, so never
        read). A drafted token passes when ``u < ratio``: probability ``min(1, T / D)``.
    residual : ndarray, shape (V, V)
        Each context's residual :math:`\propto \max(0, T - D)` (:func:`specmath._kernels.residual`:
        the target's row where a context has no residual, as :func:`residual_distribution`).
    final : _Search
        One table for the token that ends an iteration: the residual rows (index = context),
        then the target rows (index = V + context, the bonus).
    """

    draft: _Search
    drafting: _Search | _Walk
    ratio: np.ndarray
    residual: np.ndarray
    final: _Search


def _tables(target: np.ndarray, draft: np.ndarray) -> _Tables:
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(draft > 0, target / draft, 0.0)
    residual = _kernels.residual(target, draft)
    draft_cdf = _row_cdfs(draft)
    return _Tables(
        draft=_Search.of(draft_cdf),
        drafting=_drafting(draft_cdf),
        ratio=ratio,
        residual=residual,
        final=_Search.of(_row_cdfs(np.vstack([residual, target]))),
    )


#: Draft positions drafted and checked at a time: a sequence rejected in one chunk is not
#: drafted further (its later uniforms are drawn all the same, so the stream is unchanged).
CHUNK = 8


def _stream(rng: np.random.Generator, m: int, k: int):
    """One iteration's uniforms for m sequences, in the order the decoder has always drawn them.

    The draft's k positions (shape (k, m), position by position), the checks (shape (m, k)) and
    the last token's (shape (m,)): one ``random`` call for what used to be 2 + k, so a seed
    gives the text it gave before.
    """
    u = rng.random(m * (2 * k + 1))
    return u[: m * k].reshape(k, m), u[m * k : 2 * m * k].reshape(m, k), u[2 * m * k :]


def _uniforms(rng: np.random.Generator, m: int, k: int):
    """:func:`_stream`'s uniforms, the draft's and the last token's as integers ``u * UNIT``."""
    u_draft, u_check, u_final = _stream(rng, m, k)
    return _as_integers(u_draft), u_check, _as_integers(u_final)


def _step(tables: _Tables, current: np.ndarray, k: int, rng: np.random.Generator, chunk: int = CHUNK):
    r"""One iteration for the m sequences at the tokens ``current``: draft, check, end.

    The draft proposes :math:`x_i \sim D(x_{i-1}, \cdot)` for i = 1 … k from
    :math:`x_0` = ``current``; position i passes when its uniform is below ``T / D`` of
    :math:`x_i`; the accepted prefix ends at the first failure, where the last token is drawn
    from the residual of that position's context, or, when all k pass, from the target's row
    after :math:`x_k` (the bonus). Positions are drafted ``chunk`` at a time, and a sequence
    rejected in a chunk is drafted no further.

    Returns ``path`` (shape (m, k + 2): ``current``, the drafted tokens, then 0; entries after
    a rejection's chunk are 0, never drafted), the check uniforms (shape (m, k)),
    the prefix lengths and the last tokens (shape (m,)).
    """
    m, size = current.size, tables.ratio.shape[0]
    u_draft, u_check, u_final = _stream(rng, m, k)
    # Position by position (row i + 1 drawn from row i): while every sequence is going, each
    # position's draws read and write a contiguous row.
    path = np.zeros((k + 2, m), dtype=np.int64)
    path[0] = current
    # Row k stays False, so argmin finds the first failure, or k; positions after a
    # rejection's chunk are never checked and stay False too.
    passed = np.zeros((k + 1, m), dtype=bool)
    rows = np.arange(m)  # the sequences not rejected yet
    ratio = tables.ratio.ravel()
    for start in range(0, k, chunk):
        stop = min(start + chunk, k)
        if rows.size == m:
            drafted = path[start : stop + 1]
            tables.drafting.walk(drafted, u_draft[start:stop])
            check = u_check[:, start:stop].T
        else:
            drafted = np.empty((stop - start + 1, rows.size), dtype=np.int64)
            drafted[0] = path[start, rows]
            tables.drafting.walk(drafted, u_draft[start:stop, rows])
            path[start + 1 : stop + 1, rows] = drafted[1:]
            check = u_check[rows, start:stop].T
        ok = check < ratio[drafted[:-1] * size + drafted[1:]]
        passed[start:stop, rows] = ok
        if stop < k:
            rows = rows[ok.all(axis=0)]
            if not rows.size:
                break
    prefix = np.argmin(passed, axis=0)
    # The last token's row: the residual of the rejected position's context (path[prefix]), or
    # the target's row after the last draft token (V + path[k]) when all pass.
    end = path.ravel()[prefix * m + np.arange(m)] + size * (prefix == k)
    return path.T, u_check, prefix, tables.final.draw(end, _as_integers(u_final))


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


def _run_step(tables, target, draft, current, k, rng, verification, chunk=CHUNK):
    """One iteration by ``verification``: :func:`_step` (token by token) or block verification."""
    if verification == "token":
        return _step(tables, current, k, rng, chunk=chunk)
    return _block.step(tables, target, draft, current, k, *_uniforms(rng, current.size, k))[:4]


def _as_verification(value) -> str:
    if not isinstance(value, str) or value not in ("token", "block"):
        raise ValueError(f"verification must be one of 'token', 'block', got {shown(value):.80}")
    return value


def speculative_decode(target, draft, k, n_tokens, rng=None, n_sequences=1, verification="token") -> DecodeRecords:
    r"""Generate text from ``target`` by speculative decoding with ``draft``.

    Each iteration, for every unfinished sequence at once: the draft proposes
    :math:`x_1 \dots x_k` autoregressively (:math:`x_i \sim D(x_{i-1}, \cdot)`); the target's
    rows at the k + 1 positions are read; :math:`x_i` is accepted with probability
    :math:`\min(1, T(x_{i-1}, x_i) / D(x_{i-1}, x_i))`, in order; at the first rejection the
    token is replaced by a draw from the residual :math:`\propto \max(0, T - D)` of that
    context and the iteration ends; if all k pass, the target adds a bonus token from
    :math:`T(x_k, \cdot)`. The text is distributed exactly as the target chain's.

    With ``verification="block"`` the k draft tokens are checked jointly by Sun et al.'s
    (2024) block verification (see ``_block.py``): as lossless, never fewer accepted tokens in
    expectation, from the same uniforms in the same order. ``"token"`` is the rule above, and a
    seed gives the text it always gave.

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
    verification : {"token", "block"}, default "token"
        Token-by-token or block verification.

    Returns
    -------
    specmath.decode.DecodeRecords
    """
    target, draft = _as_chain_pair(target, draft)
    k = _as_decode_draft(k)
    n_tokens = as_count(n_tokens, "n_tokens", cap=MAX_DECODE_TOKENS, minimum=2)
    n_sequences = as_count(n_sequences, "n_sequences", cap=MAX_DECODE_TOKENS)
    if n_tokens * n_sequences > MAX_DECODE_TOKENS:
        raise ValueError(f"n_sequences * n_tokens must be <= {MAX_DECODE_TOKENS:,}, got {n_sequences:,} * {n_tokens:,}")
    rng = as_rng(rng)
    verification = _as_verification(verification)

    tables = _tables(target, draft)
    # k + 1 columns past the end: the last iteration may run over n_tokens.
    width = n_tokens + k + 1
    tokens = np.zeros((n_sequences, width), dtype=np.int64)
    kinds = np.zeros((n_sequences, width), dtype=np.int8)
    tokens[:, 0] = _draw_rows(_row_cdfs(stationary_distribution(target)[None, :]), np.zeros(n_sequences, int), rng)
    length = np.ones(n_sequences, dtype=np.int64)
    columns = np.arange(k + 1)
    text, ends = tokens.reshape(-1), kinds.reshape(-1)  # views

    active, current = np.arange(n_sequences), tokens[:, 0]
    rounds = []  # each round's (sequences, where each started, accepted): the records, in the decoder's order
    while active.size:
        path, _, prefix, final = _run_step(tables, target, draft, current, k, rng, verification)
        # The accepted draft tokens, then the last token; the columns after it are written
        # over by the next iteration, or lie past the sequence's end.
        block = path[:, 1:]
        block[np.arange(active.size), prefix] = final
        at = length[active]
        rounds.append((active, at, prefix))
        # Flat indices into the (n_sequences, width) text: cheaper than a 2-D fancy index.
        flat = active * width + at
        kept = columns[: prefix.max() + 1]
        text[flat[:, None] + kept] = block[:, kept]
        ends[flat + prefix] = np.where(prefix < k, RESAMPLED, BONUS)
        length[active] = at = at + prefix + 1
        going = at < n_tokens
        active, current = active[going], final[going]
    sequence, after, accepted = (np.concatenate(column) for column in zip(*rounds, strict=True))
    return _records(tokens, kinds, k, np.minimum(target, draft).sum(axis=1), n_tokens, sequence, after - 1, accepted)


def _records(tokens, kinds, k, alpha_of, n_tokens, sequence, before, accepted) -> DecodeRecords:
    """Each iteration's record from the decoder's ``sequence``, ``before`` (the index of the token
    it started from) and ``accepted``, in the order it ran them: by iteration, then by sequence.

    ``kinds`` holds RESAMPLED or BONUS at the last token of each iteration and 0 elsewhere.
    """
    # Position i's context is the text's token at before + i, for the i <= accepted positions
    # the target checked (the others read tokens never used: the text runs k + 1 columns past
    # n_tokens, so they exist).
    positions = np.arange(k)
    start = sequence * tokens.shape[1] + before
    # np.take: a fancy index with this 2-D index array took ten times as long.
    context_alpha = np.take(alpha_of[tokens].ravel(), start[:, None] + positions)
    context_alpha[positions > accepted[:, None]] = np.nan

    # Every sequence ran to n_tokens or past it: the tokens not ending an iteration (0) were
    # accepted, and ACCEPTED is below RESAMPLED and BONUS.
    text = kinds[:, 1:n_tokens]
    np.maximum(text, ACCEPTED, out=text)
    return DecodeRecords(
        tokens=tokens[:, :n_tokens],
        kinds=kinds[:, :n_tokens],
        sequence=sequence,
        drafted=np.full(accepted.size, k, dtype=np.int64),
        accepted=accepted,
        emitted=accepted + 1,
        outcomes=positions < accepted[:, None],
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
    """Summarize :func:`speculative_decode` records.

    Returns
    -------
    specmath.decode.DecodeSummary
    """
    k = records.k
    accepted = records.accepted
    at_least = np.bincount(accepted, minlength=k + 1)[::-1].cumsum()[::-1]  # iterations with A >= i
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
