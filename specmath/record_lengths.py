r"""What an engine's counts say about its drafts: the mean acceptance length, the mean draft
length and, where the engine says each draft's length, the mix of lengths.

The counts are plain numbers (accepted tokens, drafts, draft tokens, a printed mean, per-position
rates, …), each None where the engine does not print it; reading them from an engine's output is
not this package's business.

An engine that changes its draft length as it runs (vLLM's ``num_speculative_tokens_per_batch_size``,
llama.cpp's ``--draft-min`` and ``--spec-draft-p-min``) prints counts over drafts of several lengths
and names one k, the longest. Three numbers of such a record depend on the lengths the drafts had,
not on k:

- the i.i.d. alpha (:func:`specmath.fit_alpha`, which reads this module's :func:`draft_lengths`);
- the time a drafting step took: d draft steps and one target pass, :math:`T_t (1 + d / c)` in the
  chapter's model, linear in d, so the mean step is :math:`T_t (1 + \bar d / c)` whatever the mix
  and the speedup the run had is :math:`L / (1 + \bar d / c)`, with :math:`\bar d` the mean draft
  length (draft tokens / drafts), not k;
- the share of draft tokens accepted that alpha predicts (:func:`predicted_acceptance_rate`), which
  depends on the mix itself, not only on :math:`\bar d`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import _kernels
from ._validate import as_alpha, as_count, as_float_array, as_number, shown
from .speedup import MAX_DRAFT_LENGTH

#: Half a unit in the last decimal of a mean acceptance length printed to two decimals (vLLM V1
#: ``%.2f``, llama-server ``%5.2f``): how far drafts inferred from a printed mean can be off.
HALF_MEAN = 0.005


#: Largest count taken (accepted tokens, drafts, draft tokens): far above any engine's run.
MAX_COUNT = 10**15


class Counts(NamedTuple):
    """An engine's acceptance counts and printed figures, validated (:func:`_counts`); None where not known."""

    accepted: int | None
    drafts: int | None
    k: int
    draft_tokens: int | None
    mean_acceptance_length: float | None
    per_position: tuple[float, ...] | None
    accept_rate: float | None
    drafts_allowed: tuple[int, int] | None
    position_drafts: tuple[int, ...] | None
    by_draft_length: tuple[tuple[int, int, int], ...] | None


def _optional_count(value, name: str) -> int | None:
    return None if value is None else as_count(value, name, MAX_COUNT, minimum=0)


def _optional_rates(value, name: str) -> tuple[float, ...] | None:
    if value is None:
        return None
    rates = as_float_array(value, name)
    if rates.ndim != 1:
        raise ValueError(f"{name} must be one number per position, got an array of shape {rates.shape}")
    return tuple(float(u) for u in rates)


def _counts(
    accepted,
    drafts,
    k,
    *,
    draft_tokens=None,
    mean_acceptance_length=None,
    per_position=None,
    accept_rate=None,
    drafts_allowed=None,
    position_drafts=None,
    by_draft_length=None,
) -> Counts:
    """The arguments of :func:`draft_lengths` and :func:`fit_alpha` checked, as a :class:`Counts`."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= MAX_DRAFT_LENGTH:
        raise ValueError(f"k must be a whole number within 1 to {MAX_DRAFT_LENGTH}, got {shown(k)}")
    if drafts_allowed is not None and not (
        isinstance(drafts_allowed, tuple)
        and len(drafts_allowed) == 2
        and all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in drafts_allowed)
        and 1 <= drafts_allowed[0] <= drafts_allowed[1]
    ):
        raise ValueError(
            f"drafts_allowed must be None or two whole numbers 1 <= fewest <= most, got {shown(drafts_allowed)}"
        )
    reached = None
    if position_drafts is not None:
        reached = tuple(_optional_count(n, "position_drafts") for n in position_drafts)
    by_length = None
    if by_draft_length is not None:
        if not all(len(row) == 3 for row in by_draft_length):
            raise ValueError(f"by_draft_length must be (d, steps, accepted) triples, got {shown(by_draft_length):.80}")
        by_length = tuple(tuple(_optional_count(n, "by_draft_length") for n in row) for row in by_draft_length)
    return Counts(
        _optional_count(accepted, "accepted"),
        _optional_count(drafts, "drafts"),
        int(k),
        _optional_count(draft_tokens, "draft_tokens"),
        None if mean_acceptance_length is None else as_number(mean_acceptance_length, "mean_acceptance_length"),
        _optional_rates(per_position, "per_position"),
        None if accept_rate is None else as_number(accept_rate, "accept_rate"),
        None if drafts_allowed is None else (int(drafts_allowed[0]), int(drafts_allowed[1])),
        reached,
        by_length,
    )


class DraftLengths(NamedTuple):
    """The acceptance length and the draft lengths of an engine's counts (:func:`draft_lengths`).

    Attributes
    ----------
    k : int
        The record's draft length, the longest a draft could be.
    acceptance_length : float
        Mean tokens per verification step, bonus included: 1 + accepted / drafts from counts, else
        the printed mean, else 1 + the sum of the per-position rates, else 1 + k × accepted / drafted.
    drafts : float or None
        Drafting steps: counted, or inferred from the printed mean as accepted / (mean − 1).
    counted : bool
        Whether ``drafts`` was counted (True) or inferred (False).
    draft_length : float
        Mean draft tokens per drafting step, :math:`\\bar d`: from the engine's per-step lengths
        where it gives them, else draft tokens / drafts; k where the drafts were not shorter or
        the record does not say.
    shorter : bool
        Whether the counts show drafts shorter than k (beyond the rounding of a printed mean).
    mix : tuple of (int, int) or None
        ``(d, drafts of d tokens)`` for each length d, where the engine says each step's length
        (vLLM's detailed per-request metrics).
    notes : tuple of str
        What was assumed.
    """

    k: int
    acceptance_length: float
    drafts: float | None
    counted: bool
    draft_length: float
    shorter: bool
    mix: tuple[tuple[int, int], ...] | None
    notes: tuple[str, ...] = ()


def _acceptance_length(counts: Counts, k: int) -> tuple[float | None, list[str]]:
    """The mean acceptance length the record gives, most exact source first, and what was assumed."""
    if counts.drafts and counts.accepted is not None:
        return 1.0 + counts.accepted / counts.drafts, []
    if counts.mean_acceptance_length is not None and math.isfinite(counts.mean_acceptance_length):
        return float(counts.mean_acceptance_length), []
    if counts.per_position:
        return 1.0 + float(sum(counts.per_position)), []
    rate = counts.accept_rate
    if rate is not None and 0.0 <= rate <= 1.0:
        return 1.0 + k * rate, [
            f"The record has accepted / drafted but no mean acceptance length: assuming every draft had k = {k} "
            "tokens, the mean is 1 + k × accepted / drafted (shorter drafts would make it lower)."
        ]
    return None, []


def _drafts(counts: Counts, mean: float) -> tuple[float | None, bool]:
    """The number of drafts, and whether it was counted (True) or inferred from a printed mean (False).

    Inferred: accepted / (mean − 1), as the whole number nearest it among those the record's
    printed values fit (``drafts_allowed``) where the parser says which.
    """
    if counts.drafts:
        return float(counts.drafts), True
    if counts.accepted and mean > 1.0:
        estimate = counts.accepted / (mean - 1.0)
        if counts.drafts_allowed is not None:
            fewest, most = counts.drafts_allowed
            estimate = float(min(max(round(estimate), fewest), most))
        return estimate, False
    return None, False


def _inferred_note(counts: Counts, mean: float, drafts: float) -> str:
    """What was assumed of drafts the record does not count (said where they set the draft length)."""
    said = f"accepted / (mean acceptance length − 1) = {counts.accepted:,} / {mean - 1.0:.2f}"
    exact = counts.accepted / (mean - 1.0)
    if counts.drafts_allowed is None:
        return f"The record does not count its drafts: assuming {said} = {drafts:,.1f}."
    fewest, most = counts.drafts_allowed
    fit = f"among the {fewest:,} to {most:,} its printed values fit"
    if abs(drafts - exact) < 0.05:
        return f"The record does not count its drafts: assuming {drafts:,.0f} = {said}, {fit}."
    return f"The record does not count its drafts: assuming {drafts:,.0f}, nearest {said} = {exact:,.1f} {fit}."


def _shorter(counts: Counts, k: int, drafts: float | None, counted: bool, mean: float) -> bool:
    """Whether the counts show drafts shorter than k: draft tokens / drafts < k, for every number of
    drafts the record allows (beyond the rounding of the printed values)."""
    tokens = counts.draft_tokens
    if tokens is None or drafts is None:
        return False
    if counted:
        return tokens < drafts * k
    if counts.drafts_allowed is not None:
        return tokens < counts.drafts_allowed[0] * k
    fewest = counts.accepted / (mean - 1.0 + HALF_MEAN)  # the fewest drafts the printed mean allows
    return tokens < fewest * k


def _mix(counts: Counts, drafts: float | None) -> tuple[tuple[int, int], ...] | None:
    """Drafts of each length, where the engine says: its per-step lengths, or how many drafts reached each position."""
    if counts.by_draft_length:
        return tuple((int(d), int(n)) for d, n, _ in counts.by_draft_length if n > 0)
    reached = counts.position_drafts
    if reached and drafts is not None:
        at_least = [round(drafts), *reached, 0]  # drafts with a token at position i, i = 0 … k + 1
        mix = tuple((d, at_least[d] - at_least[d + 1]) for d in range(len(at_least) - 1))
        return tuple((d, n) for d, n in mix if n > 0)
    return None


def draft_lengths(
    accepted,
    drafts,
    k,
    *,
    draft_tokens=None,
    mean_acceptance_length=None,
    per_position=None,
    accept_rate=None,
    drafts_allowed=None,
    position_drafts=None,
    by_draft_length=None,
) -> DraftLengths:
    r"""The mean acceptance length and the mean draft length of an engine's counts.

    The mean draft length is :math:`\bar d = \sum_d d\, n_d / \sum_d n_d` over the engine's
    per-step lengths where it gives them (vLLM's detailed per-request metrics), else draft tokens
    / drafts, with the drafts counted or inferred from the printed mean as accepted / (mean − 1)
    (the nearest whole number the printed values fit, where the record says which, and noted);
    it is k where the counts do not show shorter drafts (within the mean's rounding,
    :data:`HALF_MEAN`) or have no draft tokens. A drafting step of :math:`\bar d` tokens on
    average costs :math:`1 + \bar d / c` target steps (the chapter's cost model, linear in d), so
    the speedup a record had is :math:`L / (1 + \bar d / c)`.

    Parameters
    ----------
    accepted, drafts : int or None
        Accepted draft tokens (the accepted prefixes, bonus token not included) and drafting steps;
        ``drafts`` None (or 0) where the engine does not count them.
    k : int
        The draft length the engine was set to, the longest a draft could be.
    draft_tokens : int or None
        Draft tokens proposed.
    mean_acceptance_length : float or None
        Tokens per verification step, bonus included, as printed.
    per_position : sequence of float or None
        Unconditional P(at least i + 1 draft tokens accepted), i = 0 … k - 1.
    accept_rate : float or None
        The engine's accepted / drafted share, as a fraction.
    drafts_allowed : (int, int) or None
        Where ``drafts`` is None: the fewest and the most drafts the engine's rounded printed
        values fit; the inferred drafts are kept within it.
    position_drafts : sequence of int or None
        Drafts that had a token at position i + 1 (i = 0 … k - 1), where the engine says each
        draft's length.
    by_draft_length : sequence of (int, int, int) or None
        ``(d, steps, accepted)`` for each length d drafted, where the engine says each step's.

    Returns
    -------
    specmath.record_lengths.DraftLengths

    Raises
    ------
    ValueError
        If k is out of range, a count is not a whole number >= 0, ``drafts_allowed`` is not a
        range of whole numbers, nothing gives a mean acceptance length, or that mean is
        impossible at k.

    Examples
    --------
    Issue 33's V1 line, 300 drafts of 4 and 500 of 2: 1144 / (2.43 − 1) = 800 drafts, 2200 / 800 tokens each.

    >>> lengths = draft_lengths(1144, None, 4, draft_tokens=2200, mean_acceptance_length=2.43)
    >>> round(lengths.drafts), round(lengths.draft_length, 2), lengths.shorter
    (800, 2.75, True)
    """
    counts = _counts(
        accepted,
        drafts,
        k,
        draft_tokens=draft_tokens,
        mean_acceptance_length=mean_acceptance_length,
        per_position=per_position,
        accept_rate=accept_rate,
        drafts_allowed=drafts_allowed,
        position_drafts=position_drafts,
        by_draft_length=by_draft_length,
    )
    return _lengths(counts)


def _lengths(counts: Counts) -> DraftLengths:
    """:func:`draft_lengths` of checked counts."""
    k = counts.k
    mean, notes = _acceptance_length(counts, k)
    if mean is None:
        raise ValueError(
            "no acceptance counts, mean acceptance length, per-position rates or acceptance rate to fit from"
        )
    if not 1.0 <= mean <= k + 1:
        raise ValueError(
            f"the mean acceptance length {mean:.3f} is impossible for k = {k} (it must be within 1 to {k + 1})"
        )
    drafts, counted = _drafts(counts, mean)
    mix = _mix(counts, drafts) if counted else None
    shorter = _shorter(counts, k, drafts, counted, mean)
    if mix:
        length = sum(d * n for d, n in mix) / sum(n for _, n in mix)
        shorter = length < k
    elif shorter:
        length = counts.draft_tokens / drafts
        if not counted:
            notes.append(_inferred_note(counts, mean, drafts))
    else:
        length = float(k)
    return DraftLengths(k, mean, drafts, counted, length, shorter, mix, tuple(notes))


def _accepted_equal(alpha, draft_length, k):
    r"""Accepted tokens a draft under i.i.d. acceptance, interpolated between whole draft lengths.

    :math:`f(d) = \sum_{i \le d} \alpha^i` (:func:`specmath.expected_tokens` − 1) for whole d;
    for :math:`d = w + p`, :math:`0 \le p < 1`, :math:`f(w) + p\, \alpha^{w+1}`: a share p of drafts
    one token longer. ``alpha`` an array, ``draft_length`` in [0, k].
    """
    whole = min(int(draft_length), k)
    part = draft_length - whole
    return _kernels.expected_tokens(alpha, whole) - 1.0 + part * alpha ** (whole + 1)


def _accepted_extremes(alpha, draft_length, k):
    r"""Accepted tokens a draft when drafts of mean length :math:`\bar d` are of 1 and k tokens only.

    :math:`s\, \alpha + (1 - s) f(k)` with :math:`s = (k - \bar d)/(k - 1)` the share of one-token
    drafts; with :func:`_accepted_equal` at :math:`\bar d`, the two ends every mix of lengths in
    [1, k] with that mean lies between (:math:`f` is concave in d: Jensen's inequality).
    """
    share_one = (k - draft_length) / (k - 1)
    return share_one * alpha + (1.0 - share_one) * (_kernels.expected_tokens(alpha, k) - 1.0)


def predicted_acceptance_rate(alpha, lengths: DraftLengths) -> tuple[float, float]:
    r"""The share of draft tokens accepted, accepted / drafted, that i.i.d. ``alpha`` predicts for the
    drafts a record made, as a range (low, high).

    Drafts of k tokens: :func:`specmath.draft_acceptance_rate` at k (low = high). A known mix
    :math:`n_d`: :math:`\sum_d n_d f(d) / \sum_d n_d\, d` with :math:`f(d) = \sum_{i \le d} \alpha^i`
    (low = high). Shorter drafts of an unknown mix with mean length :math:`\bar d` (at least 1):
    :math:`f` is concave in d, so by Jensen's inequality the rate lies between
    :func:`_accepted_extremes` and :func:`_accepted_equal` at :math:`\bar d`, over
    :math:`\bar d` (every draft at least one token long). A mean below one token, which that
    excludes, gives the range of every mix: :math:`f(k)/k` (all k long) to alpha (all one long).

    Parameters
    ----------
    alpha : float
        The i.i.d. per-token acceptance, in [0, 1].
    lengths : DraftLengths
        The record's lengths (:func:`draft_lengths`).

    Returns
    -------
    tuple of float
        (low, high), both in [0, 1].

    Raises
    ------
    ValueError
        If ``alpha`` is not one number in [0, 1], or ``lengths`` is not a :class:`DraftLengths`.

    Notes
    -----
    :math:`f(d)` is the i.i.d. model's expected accepted prefix of a d-token draft,
    :func:`specmath.expected_tokens` less the bonus token; accepted / drafted is the servers' share
    as :func:`specmath.draft_acceptance_rate` defines it (vLLM's "Draft acceptance rate").
    """
    if np.ndim(alpha) != 0:
        raise ValueError(f"alpha must be one number, got an array of shape {np.shape(alpha)}")
    a = float(as_alpha(alpha))
    if not isinstance(lengths, DraftLengths):
        raise ValueError(f"lengths must be a DraftLengths, got {type(lengths).__name__}")
    k, mean = lengths.k, lengths.draft_length
    if lengths.mix:
        drafted = sum(d * n for d, n in lengths.mix)
        accepted = sum(n * (float(_kernels.expected_tokens(a, d)) - 1.0) for d, n in lengths.mix)
        rate = accepted / drafted if drafted else 0.0
        return rate, rate
    if not lengths.shorter or mean >= k:
        rate = (float(_kernels.expected_tokens(a, k)) - 1.0) / k
        return rate, rate
    if mean < 1.0:
        return (float(_kernels.expected_tokens(a, k)) - 1.0) / k, a
    low = float(_accepted_extremes(a, mean, k)) / mean if k > 1 else a
    high = float(_accepted_equal(a, mean, k)) / mean
    return min(low, high), max(low, high)
