"""An engine's record handed to :mod:`specmath`'s fits as the plain counts they take.

:mod:`specmath` fits counts (accepted tokens, drafts, k, a printed mean, per-position rates, …)
and knows nothing of the engines; these functions read an :class:`EngineMetrics` or an
:class:`EngineSweep` into those counts and call the fit of the same name.
"""

from __future__ import annotations

import math

import specmath

from .record import EngineMetrics, EngineSweep


def record_counts(metrics) -> dict:
    """The keyword arguments of :func:`specmath.fit_alpha` and :func:`specmath.draft_lengths` for one record.

    Parameters
    ----------
    metrics : EngineMetrics
        One record (:func:`engines.parse_engine_metrics`); its ``k`` must be known
        (``dataclasses.replace`` one in when the engine does not print it).

    Returns
    -------
    dict
        ``accepted``, ``drafts``, ``k`` and the other counts and printed figures, by name.

    Raises
    ------
    ValueError
        If ``metrics`` is not an :class:`EngineMetrics`, or its k is unknown.
    """
    if not isinstance(metrics, EngineMetrics):
        raise ValueError(f"metrics must be an EngineMetrics, got {type(metrics).__name__}")
    if metrics.k is None:
        raise ValueError("metrics.k is None: the record does not say its draft length; replace one in to fit")
    return {
        "accepted": metrics.accepted,
        "drafts": metrics.drafts,
        "k": metrics.k,
        "draft_tokens": metrics.draft_tokens,
        "mean_acceptance_length": metrics.mean_acceptance_length,
        "per_position": metrics.per_position,
        "accept_rate": metrics.accept_rate,
        "drafts_allowed": metrics.drafts_allowed,
        "position_drafts": metrics.position_drafts,
        "by_draft_length": metrics.by_draft_length,
    }


def draft_lengths(metrics) -> specmath.record_lengths.DraftLengths:
    """:func:`specmath.draft_lengths` of one record (:func:`record_counts`)."""
    return specmath.draft_lengths(**record_counts(metrics))


def fit_alpha(metrics, confidence=0.95) -> specmath.calibration.AlphaFit:
    """:func:`specmath.fit_alpha` of one record (:func:`record_counts`)."""
    return specmath.fit_alpha(**record_counts(metrics), confidence=confidence)


def acceptance_curve(measured, confidence=0.95) -> specmath.sweep.AcceptanceCurve:
    """The mean acceptance length at each draft length a sweep ran or a record's engine drafted.

    A sweep: :func:`specmath.acceptance_curve` of its runs. A record whose engine said each
    step's draft length (``by_draft_length``, vLLM's detailed per-request metrics):
    :func:`specmath.acceptance_curve_from_counts` of those exact counts.
    """
    if isinstance(measured, EngineMetrics):
        if not measured.by_draft_length:
            raise ValueError(
                "measured has no acceptance by draft length (by_draft_length is None): the engine did not say "
                "each step's draft length"
            )
        lengths, steps, accepted = zip(*measured.by_draft_length, strict=True)
        return specmath.acceptance_curve_from_counts(lengths, steps, accepted, confidence)
    if not isinstance(measured, EngineSweep):
        raise ValueError(f"measured must be an EngineSweep or an EngineMetrics, got {type(measured).__name__}")
    return specmath.acceptance_curve(
        measured.draft_length,
        measured.mean_acceptance_length,
        batch=measured.batch,
        output_tokens=[math.nan if t is None else t for t in measured.output_tokens],
        topk=measured.topk,
        confidence=confidence,
    )


def measured_schedule(sweep, curve: specmath.sweep.AcceptanceCurve) -> specmath.sweep.MeasuredSchedule:
    """:func:`specmath.measured_schedule` of a sweep's runs and ``curve`` (:func:`acceptance_curve` of it)."""
    if not isinstance(sweep, EngineSweep):
        raise ValueError(f"sweep must be an EngineSweep, got {type(sweep).__name__}")
    return specmath.measured_schedule(sweep.batch, sweep.draft_length, sweep.step_time_s, curve, topk=sweep.topk)
