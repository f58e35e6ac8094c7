"""The Calibrate page's sweep view: a pasted benchmark sweep reduced to an acceptance-length curve over k,
the per-position profile it implies, a batch-size schedule of k from its measured step times, and
that schedule in every engine's terms with its synthetic-acceptance benchmark
(:mod:`dashboard.features.engine_views`, as the counts view's schedule shows them).

Split from :mod:`dashboard.features.calibrate`, which reads one measurement: a sweep is many runs
and is drawn on its own. :func:`from_sweep` turns every failure into a message, never an exception.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

import engines
import specmath
from dashboard import charts, engine_config, texts, ui
from dashboard.address import literal
from dashboard.features import engine_views, hardware

#: Characters shown of a note (sentences that may quote the paste).
NOTE_LIMIT = 600


@dataclass(frozen=True)
class SweepResult:
    """What the page draws from one sweep."""

    sweep: engines.EngineSweep
    curve: specmath.sweep.AcceptanceCurve
    profile: np.ndarray
    #: The i.i.d. alpha of the shortest measured k: the reference line of the profile chart.
    alpha: float
    schedule: specmath.sweep.MeasuredSchedule | None
    #: Why there is no schedule, when there is none.
    no_schedule: str | None
    #: Plain step time (ms) at each of the schedule's batch sizes.
    plain_ms: tuple[float, ...]
    notes: tuple[str, ...]


def is_sweep(text: str) -> bool:
    """Whether a paste is a sweep (bench_speculative.py's lines) rather than one engine report."""
    return '"acc_length"' in text and '"step_time"' in text


def from_sweep(text: str) -> SweepResult | str:
    """The sweep's curve, profile and schedule, or what is wrong with the paste."""
    try:
        sweep = engines.parse_engine_sweep(text)
    except ValueError as exc:
        return f"Could not read the sweep: {exc}"
    try:
        curve = engines.acceptance_curve(sweep)
    except ValueError as exc:
        return f"The sweep's acceptance lengths give no curve: {exc}"
    if curve.k.size == 0:
        return "The sweep has no chain run (topk = 1, steps at least 1): there is no acceptance length against k."
    try:
        measured = specmath.acceptance(lengths=list(zip(curve.k.tolist(), curve.mean_length.tolist(), strict=True)))
    except ValueError as exc:
        return f"The sweep's acceptance lengths give no profile: {exc}"
    notes = list(sweep.notes)
    trees = sum(1 for t in sweep.topk if t > 1)
    if trees:
        notes.append(texts.SWEEP_TREES.format(runs=trees))
    profile = np.array(measured.per_position)
    if measured.adjusted:
        notes.append(texts.SWEEP_PROFILE_ADJUSTED)
    if np.isnan(curve.low).any():
        notes.append(texts.SWEEP_NO_INTERVAL)
    alpha = measured.fitted_alpha(k=int(curve.k[0])).alpha
    schedule, no_schedule, plain = None, None, ()
    try:
        schedule = engines.measured_schedule(sweep, curve)
    except ValueError as exc:
        no_schedule = f"No schedule: {exc}."
    if schedule is not None:
        if schedule.without_baseline:
            listed = ", ".join(str(b) for b in schedule.without_baseline)
            notes.append(texts.SWEEP_NO_BASELINE.format(batches=listed))
        runs = {(b, k): t for b, k, t in zip(sweep.batch, sweep.draft_length, sweep.step_time_s, strict=True) if k == 0}
        plain = tuple(1e3 * runs[(int(b), 0)] for b in schedule.batch)
    return SweepResult(sweep, curve, profile, alpha, schedule, no_schedule, plain, tuple(notes))


@st.cache_data(max_entries=16, show_spinner=False)
def sweep_result(text: str) -> SweepResult | str:
    """:func:`from_sweep`, kept: a rerun that moves no input reads the sweep once."""
    return from_sweep(text)


def _speedup_table(result: SweepResult) -> pd.DataFrame:
    schedule = result.schedule
    rows = {"batch": schedule.batch, "plain step (ms)": [f"{t:.2f}" for t in result.plain_ms]}
    for j, k in enumerate(schedule.k):
        rows[f"k = {k}"] = ["—" if np.isnan(s) else f"{s:.2f}×" for s in schedule.speedup[:, j]]
    rows["best k"] = [int(k) if s > 1 else 0 for k, s in zip(schedule.best_k, schedule.best_speedup, strict=True)]
    return pd.DataFrame(rows)


def benchmark_batch(schedule: specmath.sweep.MeasuredSchedule, batch: int) -> tuple[int, int, float]:
    """The measured batch the engines' one-k settings and the synthetic benchmark are for, its best k
    (0 where no k beats plain decoding) and its measured speedup (1 there).

    ``batch`` itself if the sweep ran it, else the largest measured batch below it, else the smallest:
    a measured speedup is only known at a measured batch.
    """
    measured = [int(b) for b in schedule.batch]
    at = max((b for b in measured if b <= batch), default=measured[0])
    i = measured.index(at)
    speedup = float(schedule.best_speedup[i])
    return (at, int(schedule.best_k[i]), speedup) if speedup > 1.0 else (at, 0, 1.0)


def show_engines(result: SweepResult, chosen: Mapping[str, Any] | None) -> None:
    """The measured schedule in every engine's terms and its synthetic-acceptance benchmark, for the
    sidebar's schedule settings ``chosen`` (as :func:`~dashboard.features.calibrate_schedule.schedule` takes
    them); a hint without them."""
    if chosen is None:
        st.info(texts.SWEEP_ENGINES_HINT)
        return
    schedule = result.schedule
    found = engine_config.drafter(chosen["method"], chosen["draft_model"], chosen["target_model"], chosen["drafter"])
    for kind, message in found.messages:
        getattr(st, kind)(message)
    model = found.model
    batch, k, speedup = benchmark_batch(schedule, chosen["batch"])
    target = engine_config.hub_name(specmath.MODEL_PRESETS[chosen["target_model"]])
    st.markdown(texts.SCHEDULE_ENGINES)
    st.caption(
        texts.SWEEP_ENGINES_SETTINGS.format(
            method=chosen["method"], target=target, drafter=model or f"none ({chosen['method']} loads none)"
        )
    )
    if batch != chosen["batch"]:
        st.caption(texts.SWEEP_ENGINES_BATCH.format(batch=chosen["batch"], measured=batch))
    parallel = {
        "data_parallel_size": chosen["data_parallel"], "n_predict": chosen["n_predict"],
        # The draft's GPUs as the Hardware page resolves "auto" (hardware.draft_gpus).
        "tensor_parallel_size": chosen["tp"], "draft_tensor_parallel_size": hardware.serving(chosen).draft_tp,
    }  # fmt: skip
    ranges = [(int(lo), int(hi), int(k_)) for lo, hi, k_ in schedule.schedule]
    engine_views.show_drafter_mismatch(chosen["drafter_kind"], chosen["method"])
    engine_views.show_configs(
        engines.engine_configs(ranges, chosen["method"], model, k, batch, target=target, **parallel)
    )
    runs = engines.synthetic_runs(
        tuple(float(u) for u in result.profile), ranges, chosen["method"], model, k, batch,
        target=target, context=chosen["context"], predicted_speedup=speedup, **parallel,
    )  # fmt: skip
    engine_views.show_synthetic(runs, batch, k, speedup)
    if runs:
        st.caption(texts.SWEEP_SYNTHETIC_COMPARE.format(batch=batch))


def show(result: SweepResult, chosen: Mapping[str, Any] | None = None) -> None:
    """The sweep's view: what was read, the curve and the profile, the measured schedule and (with the
    sidebar's schedule settings ``chosen``) every engine's config and synthetic benchmark for it."""
    sweep, curve = result.sweep, result.curve
    batches = sorted(set(sweep.batch))
    st.success(
        f"Read a {sweep.format} sweep: {len(sweep.batch)} runs at batch sizes "
        f"{', '.join(str(b) for b in batches)}; chains of k = {', '.join(str(k) for k in curve.k)}."
    )
    st.caption(texts.CALIBRATE_LINK_SWEEP)
    for note in result.notes:
        st.caption(literal(note, limit=NOTE_LIMIT))
    row = ui.metric_row()
    row.metric(f"Mean acceptance length at k = {curve.k[-1]}", f"{curve.mean_length[-1]:.3f}")
    row.metric(f"i.i.d. α at k = {curve.k[0]}", f"{result.alpha:.3f}")
    row.metric("Profile positions", f"{result.profile.size}")
    left, right = ui.side_by_side()
    profile = specmath.acceptance(per_position=result.profile)
    tokens = specmath.expected_tokens(profile, np.arange(1, result.profile.size + 1))
    with left:
        ui.chart(
            charts.acceptance_length_curve(curve.k, curve.mean_length, curve.low, curve.high, tokens),
            f"sweep_acceptance_length_k{curve.k[-1]}",
        )
    with right:
        conditional = np.array(profile.conditional)
        ui.chart(
            charts.position_acceptance(result.profile, conditional, result.alpha),
            f"sweep_position_acceptance_k{result.profile.size}",
            "sweep_position_acceptance",
        )
    st.markdown(texts.SWEEP_PROFILE.format(k=curve.k[-1]))
    st.subheader("A batch-size schedule of k from your measured step times")
    if result.schedule is None:
        st.info(literal(result.no_schedule, limit=NOTE_LIMIT))
        return
    schedule = result.schedule
    st.markdown(texts.SWEEP_SCHEDULE)
    left, right = ui.side_by_side()
    with left:
        ui.chart(
            charts.k_schedule(
                schedule.batch,
                schedule.best_k,
                schedule.best_speedup,
                schedule.schedule,
                "measured",
                f"{sweep.format} sweep, measured step times",
            ),
            f"sweep_k_schedule_maxbatch{int(schedule.batch[-1])}",
            key="sweep_k_schedule",
        )
    with right:
        st.table(_speedup_table(result), hide_index=True)
        ranges = "; ".join(f"batch {lo}–{hi}: k = {k}" for lo, hi, k in schedule.schedule)
        st.caption(f"The schedule: {ranges} (k = 0: no speculation).")
    show_engines(result, chosen)
