"""One iteration of speculative decoding on bigram chains, every step of it recorded.

:func:`speculative_iteration` runs the drafting and checking kernels of
:func:`~specmath.speculative_decode` (``decode.py``) once, from a given token, and returns each
quantity a step-through view shows: drafted tokens, both models' rows, p/q, the uniforms, the
accept flags, the residual or bonus row and the emitted tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _block
from ._validate import as_draft_length, as_rng, shown
from .decode import (
    ACCEPTED,
    BONUS,
    RESAMPLED,
    _as_chain_pair,
    _as_decode_draft,
    _as_verification,
    _run_step,
    _tables,
    _uniforms,
)


@dataclass(frozen=True)
class IterationTrace:
    r"""Every quantity of one speculative iteration, as :func:`speculative_iteration` ran it.

    Positions are numbered 0 … k − 1 for the draft tokens :math:`x_1 \dots x_k` and k for the
    bonus position (array index i is step i + 1 of :func:`speculative_iteration`). Position i's
    context is the token before it, :math:`x_i`: ``context`` at i = 0, ``drafted[i - 1]``
    after. Only positions 0 … ``first_rejection`` are checked
    by the target (all k when none is rejected); the draft tokens after the first rejection
    are drafted and scored but never tested: their ``u`` is NaN and ``accepted`` False.

    Attributes
    ----------
    context : int
        The token the iteration starts from.
    k : int
        Draft length.
    greedy : bool
        Whether the iteration was greedy (argmax drafting and checking; no uniform drawn).
    drafted : ndarray of int64, shape (k,)
        The draft tokens :math:`x_1 \dots x_k`.
    q : ndarray of float, shape (k, V)
        The draft rows they were drawn from: ``q[i] = D(x_i, ·)``.
    p : ndarray of float, shape (k + 1, V)
        The target rows at all k + 1 positions (one target pass): ``p[i] = T(x_i, ·)``, so
        ``p[0] = T(context, ·)`` and ``p[k] = T(x_k, ·)``, the bonus row.
    ratio : ndarray of float, shape (k,)
        ``p[i, drafted[i]] / q[i, drafted[i]]`` for each drafted token, finite (a drafted token
        has q > 0); a sampled token is accepted with probability :math:`\min(1, \text{ratio})`.
        Given at every position, checked or not.
    u : ndarray of float, shape (k,)
        The uniform on [0, 1) each checked position was tested with (accepted when
        ``u < ratio``); NaN at positions after the first rejection, and everywhere when
        greedy.
    accepted : ndarray of bool, shape (k,)
        True on the accepted prefix; False at the first rejection and at every position after
        it (never checked; see :attr:`checked`).
    first_rejection : int
        Index of the first rejected position, or k when all k pass: the number of draft
        tokens kept.
    residual : ndarray of float, shape (V,), or None
        At a rejection, the law the correction is drawn from:
        :math:`\max(0, p - q) / \sum \max(0, p - q)` of the rejected position's rows (the
        target's row if it has no mass, as :func:`residual_distribution`). When greedy, the
        residual of the two point masses: one-hot on the target's argmax. None when all pass.
    residual_token : int or None
        The token drawn from ``residual`` (the target's argmax when greedy); None when all pass.
    bonus_row : ndarray of float, shape (V,), or None
        When all k pass, the target's row at position k, ``p[k]``, the bonus token's law;
        None at a rejection.
    bonus_token : int or None
        The token drawn from ``bonus_row`` (its argmax when greedy); None at a rejection.
    emitted : ndarray of int64, shape (first_rejection + 1,)
        The tokens this iteration emits, 1 to k + 1 of them: the accepted draft tokens, then
        the residual or bonus token. The next iteration starts from the last one.
    kinds : ndarray of int8, same shape as ``emitted``
        :data:`ACCEPTED` for each kept draft token, then :data:`RESAMPLED` or :data:`BONUS`.
    verification : str
        ``"token"`` or ``"block"``. Under block verification every position is checked (``u``
        holds all k uniforms :math:`\eta_i`), ``accepted`` is the kept prefix of length
        ``first_rejection`` (:math:`\tau`, the last position whose :math:`\eta_i < h_i`) and
        ``residual`` is the block residual :math:`\propto \max(w_\tau p - q, 0)` of that position.
    block_weight, block_stop : ndarray of float, shape (k,), or None
        Under block verification, the weights :math:`w_1 \dots w_k` and the stopping chances
        :math:`h_1 \dots h_k` (see ``_block.py``); None under token verification.
    """

    context: int
    k: int
    greedy: bool
    drafted: np.ndarray
    q: np.ndarray
    p: np.ndarray
    ratio: np.ndarray
    u: np.ndarray
    accepted: np.ndarray
    first_rejection: int
    residual: np.ndarray | None
    residual_token: int | None
    bonus_row: np.ndarray | None
    bonus_token: int | None
    emitted: np.ndarray
    kinds: np.ndarray
    verification: str = "token"
    block_weight: np.ndarray | None = None
    block_stop: np.ndarray | None = None

    @property
    def checked(self) -> np.ndarray:
        """Draft positions the target tested: 0 … ``first_rejection``, or all k under block verification."""
        if self.verification == "block":
            return np.ones(self.k, dtype=bool)
        return np.arange(self.k) <= self.first_rejection

    @property
    def all_accepted(self) -> bool:
        """Whether all k draft tokens passed (then the iteration ends with the bonus token)."""
        return self.first_rejection == self.k


def _argmax_rows(M: np.ndarray) -> np.ndarray:
    """Each row as a point mass on its argmax (the lowest index of a tie, as :func:`numpy.argmax`)."""
    return np.eye(M.shape[1])[np.argmax(M, axis=1)]


def speculative_iteration(target, draft, context, k, rng=None, greedy=False, verification="token") -> IterationTrace:
    r"""Run one iteration of speculative decoding from the token ``context`` and record every step.

    One call of Leviathan et al. (2023), Algorithm 1 (SpeculativeDecodingStep), equivalently
    Chen et al. (2023), Algorithm 2 (there the draft is p and the target q), on bigram chains:

    1. the draft proposes :math:`x_i \sim q_i = D(x_{i-1}, \cdot)` for i = 1 … k, with
       :math:`x_0` = ``context``;
    2. the target scores all k + 1 positions: :math:`p_i = T(x_{i-1}, \cdot)`, i = 1 … k + 1;
    3. in order, :math:`x_i` is accepted when :math:`u_i < p_i(x_i) / q_i(x_i)`,
       :math:`u_i \sim U[0, 1)`: with probability :math:`\min(1, p_i(x_i) / q_i(x_i))`;
    4. at the first rejection, position j, the iteration ends with a token drawn from
       :math:`r(x) = \max(0, p_j(x) - q_j(x)) / \sum_y \max(0, p_j(y) - q_j(y))`; if all k
       pass, with a bonus token drawn from :math:`p_{k+1}`.

    Each emitted token is distributed as the target chain's next token (Leviathan et al.,
    Appendix A.1), so iterations chained from each one's last token generate the target chain.
    The draft loop, the test and the final draw are those of :func:`speculative_decode`, drawn
    from ``rng`` in the same order: from the same generator state, an iteration is the one
    ``speculative_decode`` would run there.

    With ``greedy=True`` both models decode at temperature 0: the draft proposes the argmax
    of :math:`q_i`, a draft token is accepted exactly when it is the argmax of :math:`p_i`,
    and the correction or bonus token is the argmax of the target's row. This is the same
    algorithm with each row replaced by a point mass on its argmax, run through the same
    code; ties go to the lowest token index, as :func:`numpy.argmax`. No randomness is
    used, and ``rng`` is left untouched.

    With ``verification="block"`` the same draft is checked by Sun et al.'s (2024) block
    verification (see ``_block.py``), as ``speculative_decode(..., verification="block")`` runs it
    from the same generator state; the trace then also holds the block weights and stopping
    chances. ``"token"`` is the rule above.

    Parameters
    ----------
    target, draft : array_like, shape (V, V)
        Row-stochastic bigram transition matrices over the same V tokens.
    context : int
        The current token, 0 to V − 1.
    k : int
        Draft length, 0 to :data:`MAX_DECODE_DRAFT` (0 is one plain target step).
    rng : numpy.random.Generator, int or None
        Source of randomness; pass one Generator to chain iterations.
    greedy : bool, default False
        Argmax drafting and checking instead of sampling.
    verification : {"token", "block"}, default "token"
        Token-by-token or block verification.

    Returns
    -------
    specmath.iteration.IterationTrace
        The drafted tokens, both models' rows, the ratios, uniforms and accept flags, the
        first rejection, the residual or bonus row and its token, and the emitted tokens.
    """
    target, draft = _as_chain_pair(target, draft)
    size = target.shape[0]
    # A token index passes the integer checks of a draft length, capped at the last token.
    token = as_draft_length(context, "context", cap=size - 1)
    if token.ndim != 0:
        raise ValueError(f"context must be a single token index, got an array of shape {token.shape}")
    context = int(token)
    k = _as_decode_draft(k)
    rng = as_rng(rng)
    if not isinstance(greedy, (bool, np.bool_)):
        raise ValueError(f"greedy must be True or False, got {shown(greedy):.80}")
    greedy = bool(greedy)
    verification = _as_verification(verification)

    if greedy:
        # Point masses: every draw is its row's argmax and every ratio is 0 or 1, whatever
        # the uniforms, so a private generator feeds the kernels and the caller's is kept.
        chains = _argmax_rows(target), _argmax_rows(draft)
        draws = np.random.default_rng(0)
    else:
        chains, draws = (target, draft), rng
    tables = _tables(*chains)
    block = verification == "block"
    if block:
        uniforms = _uniforms(draws, 1, k)
        path, u, prefix, final, weight, stop = _block.step(tables, *chains, np.array([context]), k, *uniforms)
    else:
        # One chunk of k: every position is drafted and scored, the ones after a rejection too.
        path, u, prefix, final = _run_step(tables, *chains, np.array([context]), k, draws, "token", chunk=max(k, 1))
    positions, u = path[0, : k + 1], u[0]  # the context of each of the k + 1 positions
    contexts, drafted = positions[:k], positions[1:]
    first_rejection, final = int(prefix[0]), int(final[0])
    rejected = first_rejection < k

    p = target[positions]
    ratio = target[contexts, drafted] / draft[contexts, drafted]
    checked = np.ones(k, dtype=bool) if block else np.arange(k) <= first_rejection
    residual = None
    if rejected and block:
        # The block residual at the stopping position: max(w p - q, 0) normalized, w_0 = 1.
        w = weight[0, first_rejection - 1] if first_rejection else 1.0
        at = positions[first_rejection : first_rejection + 1]
        residual = _block.final_rows(np.array([w]), at, np.array([False]), *chains)[0]
    elif rejected:
        residual = tables.residual[contexts[first_rejection]]
    kinds = np.full(first_rejection + 1, ACCEPTED, dtype=np.int8)
    kinds[-1] = RESAMPLED if rejected else BONUS
    return IterationTrace(
        context=context,
        k=k,
        greedy=greedy,
        drafted=drafted,
        q=draft[contexts],
        p=p,
        ratio=ratio,
        u=np.where(checked & (not greedy), u, np.nan),
        accepted=np.arange(k) < first_rejection,
        first_rejection=first_rejection,
        residual=residual,
        residual_token=final if rejected else None,
        bonus_row=None if rejected else p[k],
        bonus_token=None if rejected else final,
        emitted=np.append(drafted[:first_rejection], final),
        kinds=kinds,
        verification=verification,
        block_weight=weight[0] if block else None,
        block_stop=stop[0] if block else None,
    )
