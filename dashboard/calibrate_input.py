"""What the Calibrate page measures from: a paste of engine output or typed counts.

Pure Python on top of ``specmath``: every failure becomes a message for the page, never an
exception, whatever was pasted.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

import specmath

#: Characters of a paste read at most: its end, where an engine's latest reports are. The box
#: itself takes any length: with Streamlit's ``max_chars`` the browser drops a longer paste whole,
#: without a word (``useUpdateUiValue`` in the 1.67 frontend ignores such a change).
MAX_PASTE_CHARS = 1_000_000


@dataclass(frozen=True)
class Measurement:
    """Acceptance as measured, in the terms the fits need."""

    source: str
    k: int
    mean_length: float
    drafts: int | None = None
    accepted: int | None = None
    per_position: np.ndarray | None = None
    notes: tuple[str, ...] = ()
    #: The engine's accepted / drafted share (vLLM's "Draft acceptance rate"), when the paste has it.
    accept_rate: float | None = None
    #: SGLang's --speculative-eagle-topk when the paste shows it; above 1 the steps verified trees.
    tree_topk: int | None = None


def from_counts(k: int, drafts: int, accepted: int) -> Measurement | str:
    """A measurement typed as counts, or what is wrong with them."""
    if accepted > k * drafts:
        return (
            f"{accepted:,} accepted tokens in {drafts:,} drafting steps of k = {k} is impossible: "
            f"at most k × drafts = {k * drafts:,} draft tokens were proposed."
        )
    return Measurement("counts you entered", k, 1.0 + accepted / drafts, drafts, accepted)


def paste_tail(text: str) -> tuple[str, str | None]:
    """The end of ``text`` that is read, and a sentence saying how much of it that is, if not all.

    At most :data:`MAX_PASTE_CHARS` characters, from the first line that starts within them.
    """
    if len(text) <= MAX_PASTE_CHARS:
        return text, None
    tail = text[-MAX_PASTE_CHARS:]
    if text[-MAX_PASTE_CHARS - 1] != "\n":  # the cut went through a line: a part of it could misread
        newline = tail.find("\n")
        tail = tail[newline + 1 :] if newline != -1 else tail
    return tail, (
        f"Read the last {len(tail):,} of {len(text):,} characters, the latest reports (at most "
        f"{MAX_PASTE_CHARS:,} are read, from a line start); line numbers count from there."
    )


def from_paste(text: str, slider_k: int) -> Measurement | str:
    """A measurement read from the end of pasted engine output (:func:`paste_tail`), or why it cannot be read."""
    tail, read = paste_tail(text)
    measured = _measure(tail, slider_k)
    if read is None:
        return measured
    if isinstance(measured, str):
        return f"{read} {measured}"
    return replace(measured, notes=(read, *measured.notes))


def _measure(text: str, slider_k: int) -> Measurement | str:
    try:
        metrics = specmath.parse_engine_metrics(text)
    except ValueError as exc:
        return f"Could not read the paste: {exc}"
    notes = list(metrics.notes)
    k = metrics.k
    if k is None:
        k = slider_k
        notes.append(f"The paste does not say the draft length; using the k slider (k = {k}).")
    per_position = None if metrics.per_position is None else np.asarray(metrics.per_position, dtype=float)
    if per_position is not None and per_position.size != k:
        notes.append(f"{per_position.size} per-position rates for k = {k}; the profile uses the rates as given.")
    drafts, accepted = metrics.drafts, metrics.accepted
    mean = metrics.mean_acceptance_length
    if drafts and accepted is not None and drafts > 0:
        mean = 1.0 + accepted / drafts
    elif mean is None and per_position is not None:
        mean = 1.0 + float(per_position.sum())
    elif mean is None and metrics.accept_rate is not None and 0.0 <= metrics.accept_rate <= 1.0:
        mean = 1.0 + k * metrics.accept_rate  # accepted / drafted with every draft k tokens long
        notes.append(
            f"The paste has accepted / drafted but no mean acceptance length: assuming every draft had k = {k} "
            "tokens, the mean is 1 + k × accepted / drafted (shorter drafts would make it lower)."
        )
    if mean is None:
        return "The paste has no acceptance counts or mean acceptance length to fit from."
    if not 1.0 <= mean <= k + 1:
        return f"The mean acceptance length {mean:.3f} is impossible for k = {k} (it must be within 1 to {k + 1})."
    if drafts and accepted is not None and accepted > k * drafts:
        return f"{accepted:,} accepted tokens exceed k × drafts = {k * drafts:,}; check k."
    source = f"{metrics.engine} ({metrics.format})"
    return Measurement(
        source,
        int(k),
        float(mean),
        drafts,
        accepted,
        per_position,
        tuple(notes),
        metrics.accept_rate,
        metrics.tree_topk,
    )


@dataclass(frozen=True)
class Calibration:
    """Everything the page draws from one measurement at one cost ratio."""

    fit: specmath.AlphaFit
    has_interval: bool
    k_axis: np.ndarray
    iid: np.ndarray
    iid_band: tuple[np.ndarray, np.ndarray]
    profile: np.ndarray | None
    recommended_k: int
    recommended_speedup: float
    measured_speedup: float


def calibrate(measurement: Measurement, c: float, max_k: int = 64) -> Calibration:
    """Fit alpha, predict the speedup at every k up to ``max_k``, and pick the best k.

    The recommendation follows the measured profile when there is one (it knows how
    acceptance changes along the draft), the i.i.d. fit otherwise.
    """
    k = measurement.k
    if measurement.drafts and measurement.accepted is not None:
        fit = specmath.alpha_interval(measurement.accepted, measurement.drafts, k)
        has_interval = True
    else:
        alpha = float(specmath.fit_alpha_from_acceptance_length(measurement.mean_length, k))
        fit, has_interval = specmath.AlphaFit(alpha, alpha, alpha), False
    k_axis = np.arange(1, max_k + 1)
    iid = specmath.speedup(fit.alpha, k_axis, c)
    band = (specmath.speedup(fit.low, k_axis, c), specmath.speedup(fit.high, k_axis, c))
    profile = None
    if measurement.per_position is not None:
        profile = specmath.profile_speedup(measurement.per_position, k_axis, c)
    chooser = profile if profile is not None else iid
    best = int(np.argmax(chooser))
    return Calibration(
        fit=fit,
        has_interval=has_interval,
        k_axis=k_axis,
        iid=iid,
        iid_band=band,
        profile=profile,
        recommended_k=int(k_axis[best]),
        recommended_speedup=float(chooser[best]),
        measured_speedup=float(measurement.mean_length / (1.0 + k / c)),
    )
