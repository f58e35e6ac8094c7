"""The Calibrate page's family: what it measures from (a paste of engine output or typed counts),
the fit and the recommendation, the counts a link carries and its cached call (the example pastes
are in :mod:`dashboard.features.calibrate_examples`, the batch-size schedule in
:mod:`dashboard.features.calibrate_schedule`).

The pure part (everything but :func:`calibration`) turns every failure into a message for the
page, never an exception, whatever was pasted.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

import engines
import specmath
from dashboard import texts
from dashboard.features import verification_rules
from dashboard.features.calibrate_sweep import is_sweep
from dashboard.params import CALIBRATE_KEYS, PARAMS, Section
from engines import definitions
from specmath.speedup import MAX_DRAFT_LENGTH

#: st.session_state keys of the paste box and of the draft length asked for a paste that does not print it.
PASTE = "engine_paste"
ASK_K = "paste_k"


def hold_paste_counts() -> None:
    """Set the k, drafts and accepted widgets to the counts the paste reduces to (:func:`link_counts`).

    A widget callback (the paste box's, the examples', the asked k's, and the count widgets'
    through their sections): Streamlit runs it before the rerun, when a widget's value may still
    be written, and the binding writes it to the address. While the box holds a paste, the counts
    the view uses are the paste's, so a count moved by hand returns to them. A sweep or a paste
    that gives no measurement leaves the widgets as they are.
    """
    text = st.session_state.get(PASTE) or ""
    if not text or text.isspace() or is_sweep(paste_tail(text)[0]):
        return
    measurement = from_paste(text, st.session_state.get(ASK_K))
    if not isinstance(measurement, Measurement):
        return
    counts = link_counts(measurement)
    k_moves = "k" in counts and st.session_state.get("k") != counts["k"]
    st.session_state.update(counts)
    if k_moves:
        # k's widget is the router's, outside the page's fragment: only a whole rerun redraws it and
        # the links that carry it (Streamlit 1.67 runs a callback's st.rerun() as one).
        st.rerun()


#: The page's parameters: the counts beside the paste box, the step times, and the schedule's
#: copies of the Hardware page's settings (``dashboard.params.CALIBRATE_KEYS``). A paste holds
#: k and the counts (:func:`hold_paste_counts`).
COUNTS = Section(None, ("drafts", "accepted"), on_change=hold_paste_counts)
STEP_TIMES = Section("Step times (optional)", ("target_ms", "draft_ms"))
SCHEDULE = Section("Schedule for your engine (optional)", ("cal_schedule", *CALIBRATE_KEYS))
SECTIONS = (Section(None, ("k", "c"), on_change=hold_paste_counts), COUNTS, STEP_TIMES, SCHEDULE)

#: Characters of a paste read at most: its end, where an engine's latest reports are. The box
#: itself takes any length: with Streamlit's ``max_chars`` the browser drops a longer paste whole,
#: without a word (``useUpdateUiValue`` in the 1.67 frontend ignores such a change).
MAX_PASTE_CHARS = 1_000_000

#: Largest draft length the recommendation searches: the k slider's.
MAX_K = int(PARAMS["k"].high)


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
    #: Whether k came from the user (the paste does not print it), not from the paste.
    k_given: bool = False
    #: The i.i.d. alpha (:func:`engines.fit_alpha`); None only for a measurement built by hand.
    fit: specmath.calibration.AlphaFit | None = None
    #: L(d) for each draft length d the engine drafted, where it said each step's (vLLM's detailed metrics).
    by_draft_length: specmath.sweep.AcceptanceCurve | None = None
    #: What the paste says of its drafts' lengths (:func:`engines.draft_lengths`); None for typed counts.
    lengths: specmath.record_lengths.DraftLengths | None = None
    #: Why the per-position rates cannot be trusted beside the counts (:func:`profile_conflict`), or None.
    #: Then every answer comes from the counts' fit, and the profile is drawn for reference only.
    profile_conflict: str | None = None
    #: The acceptance figures the paste prints, by registry key (:attr:`engines.EngineMetrics.printed`).
    printed: tuple[tuple[str, float], ...] = ()

    @property
    def draft_length(self) -> float:
        """Mean draft tokens per drafting step: k, unless the paste shows drafts shorter than k."""
        return float(self.k) if self.lengths is None else self.lengths.draft_length


@dataclass(frozen=True)
class KUnknown:
    """A paste read whole but for its draft length, which the fit needs: the page asks for it."""

    source: str
    mean_length: float | None
    notes: tuple[str, ...] = ()
    accept_rate: float | None = None
    printed: tuple[tuple[str, float], ...] = ()


def from_counts(k: int, drafts: int, accepted: int) -> Measurement | str:
    """A measurement typed as counts, or what is wrong with them."""
    for name, value, low in (("drafts", drafts, 1), ("accepted", accepted, 0)):
        if value < low:
            return f"{name} = {value:,} is out of range: it must be at least {low}."
    if accepted > k * drafts:
        return (
            f"{accepted:,} accepted tokens in {drafts:,} drafting steps of k = {k} is impossible: "
            f"at most k × drafts = {k * drafts:,} draft tokens were proposed."
        )
    fit = specmath.alpha_interval(accepted, drafts, k)
    return Measurement("counts you entered", k, 1.0 + accepted / drafts, drafts, accepted, fit=fit)


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


def from_paste(text: str, k: int | None = None) -> Measurement | KUnknown | str:
    """A measurement read from the end of pasted engine output (:func:`paste_tail`), or why it cannot be read.

    ``k`` is the draft length the user gave for a paste that does not print one; without it such
    a paste gives a :class:`KUnknown`, never a fit at a guessed k. A paste that prints k ignores it.
    """
    tail, read = paste_tail(text)
    measured = _measure(tail, k)
    if read is None:
        return measured
    if isinstance(measured, str):
        return f"{read} {measured}"
    return replace(measured, notes=(read, *measured.notes))


def _measure(text: str, given_k: int | None) -> Measurement | KUnknown | str:
    try:
        metrics = engines.parse_engine_metrics(text)
    except ValueError as exc:
        return f"Could not read the paste: {exc}"
    notes = list(metrics.notes)
    source = f"{metrics.engine} ({metrics.format})"
    k = metrics.k
    per_position = None if metrics.per_position is None else np.asarray(metrics.per_position, dtype=float)
    if k is None:
        if given_k is None:
            return KUnknown(source, metrics.mean_acceptance_length, tuple(notes), metrics.accept_rate, metrics.printed)
        k = given_k
        notes.append(f"The paste does not say the draft length; using the k you gave (k = {k}).")
    if not 1 <= k <= MAX_DRAFT_LENGTH:
        return f"The draft length k = {k:,} is out of range: the fits take k from 1 to {MAX_DRAFT_LENGTH:,}."
    if per_position is not None and per_position.size != k:
        notes.append(f"{per_position.size} per-position rates for k = {k}; the profile uses the rates as given.")
    record = replace(metrics, k=int(k))
    try:
        lengths = engines.draft_lengths(record)
        fit = engines.fit_alpha(record)
    except ValueError as exc:
        said = f"Could not fit α to the paste: {exc}"
        return f"{said} ({'; '.join(notes)})." if notes else f"{said}."
    notes.extend(fit.notes)
    conflict = None if per_position is None else profile_conflict(per_position, lengths.acceptance_length)
    # A printed rate that needs k (SGLang's accept len ÷ (k + 1)) converts once k is known.
    accept_rate = (
        metrics.accept_rate if metrics.accept_rate is not None else definitions.accept_rate(metrics.printed, k)
    )
    if per_position is not None and fit.k < min(k, per_position.size):
        per_position = per_position[: fit.k]
        notes.append(
            f"The predictions use the per-position rates of positions 1 to {fit.k} only, which every draft "
            "reached, and extrapolate past them (see the note above)."
        )
    return Measurement(
        source,
        int(k),
        lengths.acceptance_length,
        metrics.drafts,
        metrics.accepted,
        per_position,
        tuple(notes),
        accept_rate,
        metrics.tree_topk,
        k_given=metrics.k is None,
        fit=fit,
        by_draft_length=engines.acceptance_curve(metrics) if metrics.by_draft_length else None,
        lengths=lengths,
        profile_conflict=conflict,
        printed=metrics.printed,
    )


#: Rounding an engine's printed figures allows: rates to 3 decimals each (vLLM, llama-server), the
#: mean acceptance length to 2.
_RATE_ROUNDING, _MEAN_ROUNDING = 0.0005, 0.005


def profile_conflict(per_position: np.ndarray, mean_length: float) -> str | None:
    """Why ``per_position`` (unconditional, P(at least i + 1 accepted)) contradicts ``mean_length``, or None.

    Such rates add up to the mean acceptance length less 1 (E[accepted] = Σ P(at least i + 1)), and
    cannot rise with position. Beyond the printed figures' rounding either failing means the rates and
    the counts do not describe the same drafts, so one of them answers everything: the counts.
    """
    slack = per_position.size * _RATE_ROUNDING + _MEAN_ROUNDING
    implied = 1.0 + float(per_position.sum())
    if abs(implied - mean_length) > slack:
        return texts.CALIBRATE_PROFILE_SUM.format(implied=implied, mean=mean_length)
    if (np.diff(per_position) > 2 * _RATE_ROUNDING).any():
        return texts.CALIBRATE_PROFILE_RISES
    return None


@dataclass(frozen=True)
class Calibration:
    """Everything the page draws from one measurement at one cost ratio."""

    fit: specmath.calibration.AlphaFit
    has_interval: bool
    k_axis: np.ndarray
    iid: np.ndarray
    iid_band: tuple[np.ndarray, np.ndarray]
    profile: np.ndarray | None
    recommended_k: int
    recommended_speedup: float
    #: The speedup the measured run had, L / (1 + d̄ / c): a drafting step of d̄ tokens on average
    #: costs d̄ draft steps and one target step (:func:`specmath.draft_lengths`), d̄ = k for full drafts.
    measured_speedup: float
    #: The best k (and its speedup) at the interval's two ends, low α first.
    k_at_ends: tuple[tuple[int, float], tuple[int, float]]


def calibrate(measurement: Measurement, c: float, max_k: int = MAX_K) -> Calibration:
    """Fit alpha, predict the speedup at every k up to ``max_k``, and pick the best k.

    The recommendation follows the measured profile when there is one (it knows how
    acceptance changes along the draft) and it agrees with the counts
    (:attr:`Measurement.profile_conflict`), the i.i.d. fit otherwise.
    """
    k = measurement.k
    fit = measurement.fit
    if fit is None:  # a measurement built by hand: the counts' fit, or the mean's
        fit = specmath.fit_alpha(
            measurement.accepted, measurement.drafts, k, mean_acceptance_length=measurement.mean_length
        )
    has_interval = fit.has_interval
    k_axis = np.arange(1, max_k + 1)
    iid = specmath.speedup(fit.alpha, k_axis, c)
    band = (specmath.speedup(fit.low, k_axis, c), specmath.speedup(fit.high, k_axis, c))
    profile = None
    if measurement.per_position is not None:
        profile = specmath.speedup(specmath.acceptance(per_position=measurement.per_position), k_axis, c)
    chooser = profile if profile is not None and measurement.profile_conflict is None else iid
    best = int(np.argmax(chooser))
    ends = tuple((int(np.argmax(curve)) + 1, float(curve.max())) for curve in band)
    return Calibration(
        fit=fit,
        has_interval=has_interval,
        k_axis=k_axis,
        iid=iid,
        iid_band=band,
        profile=profile,
        recommended_k=int(k_axis[best]),
        recommended_speedup=float(chooser[best]),
        measured_speedup=float(measurement.mean_length / (1.0 + measurement.draft_length / c)),
        k_at_ends=ends,
    )


def speedup_now_metric(measurement: Measurement, result: Calibration, c: float) -> tuple[str, str, str]:
    """The "Speedup now" metric's label, value and help: at k, or at the mean draft length when drafts were shorter."""
    value = f"{result.measured_speedup:.2f}×"
    if measurement.draft_length == measurement.k:
        return f"Speedup now (k = {measurement.k}, c = {c:.3g})", value, texts.CALIBRATE_SPEEDUP_NOW_HELP
    label = f"Speedup now (drafts of {measurement.draft_length:.2f} tokens on average, c = {c:.3g})"
    return label, value, texts.CALIBRATE_SPEEDUP_NOW_MIXED_HELP.format(k=measurement.k)


def predicted_rate_metric(measurement: Measurement, alpha: float) -> tuple[str, str, str]:
    """The label, value and help of the accepted / drafted share α predicts for the drafts the paste
    counted (:func:`specmath.predicted_acceptance_rate`): at k, for the engine's mix of lengths, or
    the range over every mix with the mean draft length."""
    k = measurement.k
    lengths = measurement.lengths
    if lengths is None or not lengths.shorter:
        rate = float(specmath.draft_acceptance_rate(alpha, k))
        return f"Rate α predicts at k = {k}", f"{100 * rate:.1f}%", "(α − α^(k+1)) / ((1 − α) k)"
    low, high = specmath.predicted_acceptance_rate(alpha, lengths)
    mean = f"{lengths.draft_length:.2f}"
    if lengths.mix:
        return (
            f"Rate α predicts for these drafts ({mean} tokens on average)",
            f"{100 * low:.1f}%",
            (texts.CALIBRATE_RATE_MIX_HELP),
        )
    shown = f"{100 * low:.1f}%" if f"{100 * low:.1f}" == f"{100 * high:.1f}" else f"{100 * low:.1f}–{100 * high:.1f}%"
    return (
        f"Rate α predicts for drafts of {mean} tokens on average",
        shown,
        texts.CALIBRATE_RATE_RANGE_HELP.format(k=k, mean=mean),
    )


def rate_conversion(measurement: Measurement) -> str | None:
    """A sentence saying how the engine's rate shown was converted from a printed figure that needs k, or None."""
    for key, value in measurement.printed:
        definition = definitions.BY_KEY.get(key)
        if definition is None or definition.rate(value, None) is not None or key in definitions.LENGTH_KEYS:
            continue  # a figure that is accepted ÷ drafted as printed, or a length
        rate = definitions.accept_rate(((key, value),), measurement.k)
        if rate is not None:
            return texts.CALIBRATE_RATE_CONVERTED.format(
                engine=definition.engine, metric=definition.metric.split(" (")[0].removesuffix(": X"), value=value,
                meaning=definition.meaning.split(":")[0], versions=definition.versions, k=measurement.k, rate=rate,
            )  # fmt: skip
    return None


#: The translator table's columns (:func:`translator_table`).
TRANSLATOR_COLUMNS = (
    "Engine", "Figure as printed", "Versions", "Meaning here", "Converts to", "Source", "In your paste",
    "→ accepted ÷ drafted", "→ mean length L",
)  # fmt: skip


def translator_table(measurement: Measurement) -> dict[str, list]:
    """The registry of engines' acceptance figures as the page's table, the paste's figures converted at its k.

    Rows of the paste's engine come first; a figure the paste does not print has empty paste columns.
    """
    values = definitions.translated(measurement.printed, measurement.k)
    engine = measurement.source.split(" (")[0]
    rows = sorted(definitions.DEFINITIONS, key=lambda d: (d.key not in values, d.engine != engine))
    columns = {name: [] for name in TRANSLATOR_COLUMNS}
    for d in rows:
        printed, rate, length = values.get(d.key, (None, None, None))
        cells = (
            d.engine, d.metric, d.versions, d.meaning, d.to_alpha, d.source,
            None if printed is None else f"{printed:.4g}",
            None if rate is None else f"{100 * min(1.0, max(0.0, rate)):.1f}%",
            None if length is None else f"{length:.2f}",
        )  # fmt: skip
        for name, cell in zip(TRANSLATOR_COLUMNS, cells, strict=True):
            columns[name].append(cell)
    return columns


def recommendation_caveat(measurement: Measurement, result: Calibration) -> str | None:
    """What to know about how sure the recommended k is, or None when nothing needs saying.

    Said when there is no interval (a mean length alone); when the data is one drafting step or
    the best k at the interval's two ends differ (with the speedup range at the recommended k);
    when the recommended k is beyond the measured one (its prediction extrapolates); and when it
    is the largest k searched.
    """
    said = []
    k = result.recommended_k
    if not result.has_interval:
        said.append(texts.CALIBRATE_NO_INTERVAL)
    else:
        (k_low, s_low), (k_high, s_high) = result.k_at_ends
        one = measurement.drafts == 1
        if one:
            said.append(texts.CALIBRATE_ONE_DRAFT)
        if one or k_low != k_high:
            fit = result.fit
            said.append(
                texts.CALIBRATE_WIDE.format(
                    low=fit.low, high=fit.high, k_low=k_low, k_high=k_high, s_low=s_low, s_high=s_high
                )
            )
            at_k = sorted(float(curve[k - 1]) for curve in result.iid_band)
            said.append(texts.CALIBRATE_AT_K.format(k=k, low=at_k[0], high=at_k[1]))
    by_profile = measurement.per_position is not None and measurement.profile_conflict is None
    measured = measurement.per_position.size if by_profile else measurement.k
    if k > measured:
        how = texts.CALIBRATE_BEYOND_PROFILE if by_profile else texts.CALIBRATE_BEYOND_IID
        said.append(texts.CALIBRATE_BEYOND.format(k=k, measured=measured, first=measured + 1, how=how))
    if k == int(result.k_axis[-1]):
        said.append(texts.CALIBRATE_AT_CAP.format(k=k))
    return " ".join(said) or None


#: The keys of the typed-counts mode, which a link carries for a paste.
COUNT_KEYS = ("k", "drafts", "accepted")


#: The Verification rules page's pair on which Calibrate shows what a greedy draft costs.
RULE_PRESET = "close"
#: Where SGLang's target-only kernel is read (``verification_rules.ENGINE_RULES`` cites it).
SGLANG_KERNEL = "sgl-kernel/csrc/speculative/speculative_sampling.cuh lines 78-103 at 120affb"


def rule_cause() -> tuple[str, dict[str, str]]:
    """The verification rule as a cause of low acceptance, with ``specmath``'s α of rejection
    sampling and of a greedy draft on the Verification rules page's :data:`RULE_PRESET` pair at
    temperatures 1 and 0; and the query of the link that opens that page on that pair at T = 1."""
    logits = verification_rules.LOGIT_PRESETS[RULE_PRESET]
    rule = verification_rules.PROPOSAL_RULES  # a sampled draft's rule and a greedy draft's
    alpha = {
        (proposal, t): float(specmath.acceptance_probability(*verification_rules.pair(logits, t), rule[proposal]))
        for proposal in ("sampled", "greedy_draft")
        for t in (1.0, 0.0)
    }
    text = texts.ACCEPT_RATE_RULE.format(
        preset=RULE_PRESET,
        rejection=alpha["sampled", 1.0],
        greedy=alpha["greedy_draft", 1.0],
        zero=alpha["greedy_draft", 0.0],
        sglang=f"`{SGLANG_KERNEL}`",
    )
    settings = {"vr_preset": RULE_PRESET, "vr_temperature": 1.0}
    return text, {key: PARAMS[key].url_text(value) for key, value in settings.items()}


def link_counts(measurement: Measurement) -> dict[str, int]:
    """What the address carries of ``measurement``: k, and the counts when the paste has them and the
    widgets can hold them (opened as a link, these are the typed-counts mode of the same numbers).

    The counts are the ones the fit used (:attr:`specmath.calibration.AlphaFit.accepted`, ``drafts``, ``k``):
    for drafts shorter than k, the drafts cut to the positions every draft reached, so that the
    link gives the same α and interval.
    """
    fit = measurement.fit
    if fit is not None and fit.drafts and fit.accepted is not None:
        values = {"k": fit.k, "drafts": fit.drafts, "accepted": fit.accepted}
    else:
        values = {"k": measurement.k}
    return {key: v for key, v in values.items() if PARAMS[key].low <= v <= PARAMS[key].high}


def link_note(measurement: Measurement) -> str:
    """A sentence saying what a copied link opens of a paste's view."""
    carried = link_counts(measurement)
    fit = measurement.fit
    if "drafts" not in carried:
        if fit is not None and fit.has_interval and fit.drafts is None:
            why = "its α is a range over every mix of draft lengths, which counts cannot carry"
        elif fit is not None and fit.drafts is None:
            why = "it has no counts"
        else:
            why = "its counts are beyond what the boxes take"
        if "k" not in carried:
            return texts.CALIBRATE_LINK_NOTHING.format(why=why)
        return texts.CALIBRATE_LINK_K_ONLY.format(why=why, k=measurement.k)
    lost = []
    if measurement.per_position is not None:
        lost.append("the per-position profile (and the recommendation and curve it gives)")
    if measurement.accept_rate is not None:
        lost.append("the engine's own acceptance rate")
    said = texts.CALIBRATE_LINK_COUNTS.format(k=carried["k"], drafts=carried["drafts"], accepted=carried["accepted"])
    if carried["k"] != measurement.k:
        said += (
            f" Those are the drafts cut to the {carried['k']} positions every draft reached, which give this α; "
            f"the link shows them as drafts of k = {carried['k']}."
        )
    return f"{said} It does not carry {' or '.join(lost)}." if lost else said


@st.cache_data(max_entries=32, show_spinner=False)
def calibration(measurement: Measurement, c: float) -> Calibration:
    """:func:`calibrate`, kept: the interval's two bisections (120 evaluations of the i.i.d. model)
    were a third of the page's rerun."""
    return calibrate(measurement, c)


def carried_acceptance(measurement: Measurement) -> specmath.Acceptance | None:
    """What a link to Hardware and Draft trees carries of a measurement: its per-position rates, else its
    acceptance length by draft length (vLLM's detailed metrics); None when it has neither, or when its
    rates conflict with its counts (:attr:`Measurement.profile_conflict`) or do not form a profile."""
    try:
        if measurement.per_position is not None and measurement.profile_conflict is None:
            return specmath.acceptance(per_position=measurement.per_position)
        curve = measurement.by_draft_length
        if curve is not None:
            return curve_acceptance(curve)
    except ValueError:
        return None
    return None


def curve_acceptance(curve: specmath.sweep.AcceptanceCurve) -> specmath.Acceptance:
    """A measured curve L(k) (a sweep's, or vLLM's by draft length) as an acceptance value."""
    return specmath.acceptance(lengths=dict(zip(curve.k.tolist(), curve.mean_length.tolist(), strict=True)))
