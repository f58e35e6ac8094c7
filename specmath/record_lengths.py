r"""What one engine record says about its drafts: the mean acceptance length, the mean draft
length and, where the engine says each draft's length, the mix of lengths.

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

from engines.record import EngineMetrics

from . import _kernels
from ._validate import as_alpha, shown
from .speedup import MAX_DRAFT_LENGTH

#: Half a unit in the last decimal of a mean acceptance length printed to two decimals (vLLM V1
#: ``%.2f``, llama-server ``%5.2f``): how far drafts inferred from a printed mean can be off.
HALF_MEAN = 0.005


class DraftLengths(NamedTuple):
    """The acceptance length and the draft lengths of one engine record (:func:`draft_lengths`).

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


def _acceptance_length(metrics: EngineMetrics, k: int) -> tuple[float | None, list[str]]:
    """The mean acceptance length the record gives, most exact source first, and what was assumed."""
    if metrics.drafts and metrics.accepted is not None:
        return 1.0 + metrics.accepted / metrics.drafts, []
    if metrics.mean_acceptance_length is not None and math.isfinite(metrics.mean_acceptance_length):
        return float(metrics.mean_acceptance_length), []
    if metrics.per_position:
        return 1.0 + float(sum(metrics.per_position)), []
    rate = metrics.accept_rate
    if rate is not None and 0.0 <= rate <= 1.0:
        return 1.0 + k * rate, [
            f"The record has accepted / drafted but no mean acceptance length: assuming every draft had k = {k} "
            "tokens, the mean is 1 + k × accepted / drafted (shorter drafts would make it lower)."
        ]
    return None, []


def _drafts(metrics: EngineMetrics, mean: float) -> tuple[float | None, bool]:
    """The number of drafts, and whether it was counted (True) or inferred from a printed mean (False).

    Inferred: accepted / (mean − 1), as the whole number nearest it among those the record's
    printed values fit (:attr:`EngineMetrics.drafts_allowed`) where the parser says which.
    """
    if metrics.drafts:
        return float(metrics.drafts), True
    if metrics.accepted and mean > 1.0:
        estimate = metrics.accepted / (mean - 1.0)
        if metrics.drafts_allowed is not None:
            fewest, most = metrics.drafts_allowed
            estimate = float(min(max(round(estimate), fewest), most))
        return estimate, False
    return None, False


def _inferred_note(metrics: EngineMetrics, mean: float, drafts: float) -> str:
    """What was assumed of drafts the record does not count (said where they set the draft length)."""
    said = f"accepted / (mean acceptance length − 1) = {metrics.accepted:,} / {mean - 1.0:.2f}"
    exact = metrics.accepted / (mean - 1.0)
    if metrics.drafts_allowed is None:
        return f"The record does not count its drafts: assuming {said} = {drafts:,.1f}."
    fewest, most = metrics.drafts_allowed
    fit = f"among the {fewest:,} to {most:,} its printed values fit"
    if abs(drafts - exact) < 0.05:
        return f"The record does not count its drafts: assuming {drafts:,.0f} = {said}, {fit}."
    return f"The record does not count its drafts: assuming {drafts:,.0f}, nearest {said} = {exact:,.1f} {fit}."


def _shorter(metrics: EngineMetrics, k: int, drafts: float | None, counted: bool, mean: float) -> bool:
    """Whether the counts show drafts shorter than k: draft tokens / drafts < k, for every number of
    drafts the record allows (beyond the rounding of the printed values)."""
    tokens = metrics.draft_tokens
    if tokens is None or drafts is None:
        return False
    if counted:
        return tokens < drafts * k
    if metrics.drafts_allowed is not None:
        return tokens < metrics.drafts_allowed[0] * k
    fewest = metrics.accepted / (mean - 1.0 + HALF_MEAN)  # the fewest drafts the printed mean allows
    return tokens < fewest * k


def _mix(metrics: EngineMetrics, drafts: float | None) -> tuple[tuple[int, int], ...] | None:
    """Drafts of each length, where the engine says: its per-step lengths, or how many drafts reached each position."""
    if metrics.by_draft_length:
        return tuple((int(d), int(n)) for d, n, _ in metrics.by_draft_length if n > 0)
    reached = metrics.position_drafts
    if reached and drafts is not None:
        at_least = [round(drafts), *reached, 0]  # drafts with a token at position i, i = 0 … k + 1
        mix = tuple((d, at_least[d] - at_least[d + 1]) for d in range(len(at_least) - 1))
        return tuple((d, n) for d, n in mix if n > 0)
    return None


def draft_lengths(metrics) -> DraftLengths:
    r"""The mean acceptance length and the mean draft length of one engine record.

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
    metrics : EngineMetrics
        One record (:func:`parse_engine_metrics`) with its ``k`` known.

    Returns
    -------
    DraftLengths

    Raises
    ------
    ValueError
        If ``metrics`` is not an :class:`EngineMetrics`, its k is unknown or out of range, its
        ``drafts_allowed`` is not a range of whole numbers, it has nothing to take a mean
        acceptance length from, or that mean is impossible at k.

    Examples
    --------
    Issue 33's V1 line, 300 drafts of 4 and 500 of 2: 1144 / (2.43 − 1) = 800 drafts, 2200 / 800 tokens each.

    >>> from engines import EngineMetrics
    >>> line = EngineMetrics("vLLM", "vLLM V1 log", 4, None, 2200, 1144, None, 2.43, (0.696, 0.512, 0.133, 0.089))
    >>> lengths = draft_lengths(line)
    >>> round(lengths.drafts), round(lengths.draft_length, 2), lengths.shorter
    (800, 2.75, True)
    """
    if not isinstance(metrics, EngineMetrics):
        raise ValueError(f"metrics must be an EngineMetrics, got {type(metrics).__name__}")
    k = metrics.k
    if k is None:
        raise ValueError("metrics.k is None: the record does not say its draft length; replace one in to fit")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= MAX_DRAFT_LENGTH:
        raise ValueError(f"metrics.k must be a whole number within 1 to {MAX_DRAFT_LENGTH}, got {shown(k)}")
    k = int(k)
    allowed = metrics.drafts_allowed
    if allowed is not None and not (
        isinstance(allowed, tuple)
        and len(allowed) == 2
        and all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in allowed)
        and 1 <= allowed[0] <= allowed[1]
    ):
        raise ValueError(
            f"metrics.drafts_allowed must be None or two whole numbers 1 <= fewest <= most, got {shown(allowed)}"
        )
    mean, notes = _acceptance_length(metrics, k)
    if mean is None:
        raise ValueError(
            "metrics has no acceptance counts, mean acceptance length, per-position rates or "
            "acceptance rate to fit from"
        )
    if not 1.0 <= mean <= k + 1:
        raise ValueError(
            f"the mean acceptance length {mean:.3f} is impossible for k = {k} (it must be within 1 to {k + 1})"
        )
    drafts, counted = _drafts(metrics, mean)
    mix = _mix(metrics, drafts) if counted else None
    shorter = _shorter(metrics, k, drafts, counted, mean)
    if mix:
        length = sum(d * n for d, n in mix) / sum(n for _, n in mix)
        shorter = length < k
    elif shorter:
        length = metrics.draft_tokens / drafts
        if not counted:
            notes.append(_inferred_note(metrics, mean, drafts))
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
    :func:`specmath.expected_tokens` less the bonus token; accepted / drafted is the engines' share
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
