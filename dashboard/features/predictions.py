"""The Predictions vs measurements page: each measured run (``dashboard/data/measured_runs.json``)
beside the speedup :func:`specmath.predict_speedup` gives it, the errors, and the runs it cannot price.

Pure computation here (:func:`compare`, :func:`summarize`, :func:`run_table`), cached for the page
(:func:`comparison`); ``scripts/predictions_figure.py`` writes ``docs/predictions.md`` from the same
functions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.measured import load_measured_runs
from specmath.deployment import find_model
from specmath.predict import MEASURED_OVERHEADS, NO_OVERHEADS, Overheads, Prediction, fit_overheads, predict

#: The page has no parameters: it shows the file.
SECTIONS = ()

#: The run table's columns the page shows, narrow enough for a 1024 px projector; the CSV has them all.
SHOWN_COLUMNS = ("run", "accept length", "measured", "predicted", "error %")

#: The batch from which a run counts as served at a large batch (its own marker on the chart).
LARGE_BATCH = 16


class Priced(NamedTuple):
    """A run :func:`specmath.predict_speedup` priced, with its prediction's parts."""

    run: Mapping
    prediction: Prediction
    moe: bool  # the target is a mixture of experts

    @property
    def error_pct(self) -> float:
        """(predicted − measured) / measured, in percent: above 0 the model promises too much."""
        return (self.prediction.speedup - self.run["speedup"]) / self.run["speedup"] * 100.0


class Unpriced(NamedTuple):
    """A run :func:`specmath.predict_speedup` could not price, and its ValueError's message."""

    run: Mapping
    message: str


class Comparison(NamedTuple):
    """Every run of the file, priced or not, and the file's sources."""

    priced: tuple[Priced, ...]
    unpriced: tuple[Unpriced, ...]
    sources: Mapping[str, Mapping]


def compare(runs: Sequence[Mapping], sources: Mapping[str, Mapping]) -> Comparison:
    """Price every run (:func:`specmath.predict.predict`); a run it cannot price keeps the message why."""
    priced, unpriced = [], []
    for run in runs:
        try:
            prediction = predict(run)
        except ValueError as error:
            unpriced.append(Unpriced(run, str(error)))
            continue
        priced.append(Priced(run, prediction, find_model(run["target"]).is_moe))
    return Comparison(tuple(priced), tuple(unpriced), sources)


class Errors(NamedTuple):
    """The median and worst absolute percentage error of some runs."""

    runs: int
    median: float
    worst: float


def errors(priced: Sequence[Priced]) -> Errors:
    """Median and worst of ``|predicted − measured| / measured`` over ``priced``, in percent (NaN if none)."""
    absolute = np.abs([p.error_pct for p in priced])
    if absolute.size == 0:
        return Errors(0, float("nan"), float("nan"))
    return Errors(int(absolute.size), float(np.median(absolute)), float(absolute.max()))


def summarize(comparison: Comparison) -> dict[str, Errors]:
    """The errors over every priced run (key ``"all"``) and per source, in the sources' order."""
    by_source = {key: [p for p in comparison.priced if p.run["source"] == key] for key in comparison.sources}
    return {"all": errors(comparison.priced)} | {key: errors(runs) for key, runs in by_source.items() if runs}


def drafting(run: Mapping, width: int) -> str:
    """The run's draft as a table cell: "k = 4", or a tree's tokens (the verify pass's ``width``,
    as the prediction read them under any of their names) and steps."""
    if not run["tree"]:
        return f"k = {run['k']}"
    return f"tree, {width} tokens, k = {run['k']}"


def run_table(comparison: Comparison) -> pd.DataFrame:
    """One row a priced run: what it is, measured and predicted, the error, and the iteration's parts in ms."""
    rows = []
    for p in comparison.priced:
        run, parts = p.run, p.prediction
        rows.append(
            {
                "run": run["id"],
                "source": run["source"],
                "target": run["target"],
                "method": run["method"],
                "GPUs": f"{run['gpu_count']}×{run['gpu']}",
                "batch": run["batch"],
                "draft": drafting(run, parts.width),
                "accept length": run["mean_acceptance_length"],
                "measured": run["speedup"],
                "predicted": round(parts.speedup, 3),
                "error %": round(p.error_pct, 1),
                "T_draft per iteration (ms)": round(parts.draft_s * 1e3, 4),
                "T_target(1) (ms)": round(parts.target_step_s * 1e3, 4),
                "T_target(w) (ms)": round(parts.verify_s * 1e3, 4),
                "w": parts.width,
            }
        )
    return pd.DataFrame(rows)


def error_table(summary: Mapping[str, Errors]) -> pd.DataFrame:
    """The summary as a table: runs, median and worst absolute error, overall then per source."""
    return pd.DataFrame(
        [
            {
                "runs of": key,
                "priced": e.runs,
                "median %": round(e.median, 1),
                "worst %": round(e.worst, 1),
            }
            for key, e in summary.items()
        ]
    )


#: A run priced further off than this, in percent, gets a reason (:func:`far_off`).
FAR_OFF_PCT = 25.0


def far_off(comparison: Comparison) -> list[tuple[str, str]]:
    """Each run priced more than :data:`FAR_OFF_PCT` off, and why as far as its parts tell.

    An iteration's time in plain steps is what the speedup turns on: measured, it is the acceptance
    length over the measured speedup; priced, the drafting, the verify pass and the overhead over the
    plain step. Which side is off, by how much, and what the model leaves out there, is the reason.
    """
    reasons = []
    for p in comparison.priced:
        if abs(p.error_pct) <= FAR_OFF_PCT:
            continue
        run, parts = p.run, p.prediction
        step = parts.target_step_s
        priced = (parts.draft_s + parts.verify_s + parts.iteration_s) / step
        measured = run["mean_acceptance_length"] / run["speedup"]
        verify = parts.verify_s / step
        if measured > priced:
            why = (
                f"the measured iteration takes {measured:.2f} plain steps, the priced one {priced:.2f}: "
                f"{measured - priced:.2f} steps of time the model does not price (the engine's time per "
                "iteration beyond its passes, or passes slower than their roofline at this width and batch)"
            )
        else:
            why = (
                f"the priced iteration takes {priced:.2f} plain steps, the measured one {measured:.2f}; "
                f"the verify pass alone is priced at {verify:.2f} steps"
            )
            if p.moe:
                why += ", with every token of it waking experts as if routed at random (uniform routing)"
            why += ", or the plain step is dearer than priced"
        reasons.append((run["id"], f"{p.error_pct:+.0f} %: {why}."))
    return reasons


def marker(priced: Priced) -> str:
    """The chart's marker group of a run: MoE or dense, batch below or from :data:`LARGE_BATCH`."""
    kind = "MoE" if priced.moe else "dense"
    return f"{kind}, batch {'≥' if priced.run['batch'] >= LARGE_BATCH else '<'} {LARGE_BATCH}"


def priced_iteration(p: Priced) -> float:
    """One iteration as priced, in plain steps T_target(1)."""
    parts = p.prediction
    return (parts.draft_s + parts.verify_s + parts.iteration_s) / parts.target_step_s


def measured_iteration(p: Priced) -> float:
    """One iteration as the measurement implies, in plain steps: accept length / measured speedup."""
    return p.run["mean_acceptance_length"] / p.run["speedup"]


#: Batch sizes a setting must have been run at to appear in :func:`batch_sweeps`.
SWEEP_BATCHES = 4


def batch_sweeps(comparison: Comparison) -> pd.DataFrame:
    """Every setting a source ran at :data:`SWEEP_BATCHES` or more batch sizes: one iteration in plain
    steps, priced and measured, at each batch, so that a cost that moves with the batch shows."""
    groups: dict[tuple, list[Priced]] = {}
    for p in comparison.priced:
        run = p.run
        key = (run["source"], run["target"], run["method"], run["k"], json.dumps(run["tree"], sort_keys=True))
        groups.setdefault(key, []).append(p)
    rows = [
        {
            "run": p.run["id"],
            "batch": p.run["batch"],
            "verify width": p.prediction.width,
            "iteration / step, predicted": round(priced_iteration(p), 2),
            "iteration / step, measured": round(measured_iteration(p), 2),
        }
        for runs in groups.values()
        if len({p.run["batch"] for p in runs}) >= SWEEP_BATCHES
        for p in sorted(runs, key=lambda p: p.run["batch"])
    ]
    return pd.DataFrame(rows)


class Record(NamedTuple):
    """How far :func:`specmath.predict_speedup` was from a group of measured runs: signed errors in percent."""

    runs: int
    publishers: int
    median_pct: float
    low_pct: float  # the 10th percentile
    high_pct: float  # the 90th


def moe_record(comparison: Comparison, min_batch: int = LARGE_BATCH) -> Record | None:
    """The signed errors of the priced runs with an MoE target at batch ``min_batch`` or more; None if none."""
    chosen = [p for p in comparison.priced if p.moe and p.run["batch"] >= min_batch]
    if not chosen:
        return None
    errors = np.array([p.error_pct for p in chosen])
    low, median, high = np.percentile(errors, [10, 50, 90])
    publishers = {comparison.sources[p.run["source"]]["publisher"] for p in chosen}
    return Record(len(chosen), len(publishers), float(median), float(low), float(high))


def moe_record_note() -> str | None:
    """The Hardware page's caption for an MoE target: how the model fared on measured MoE runs at large batches."""
    record = moe_record(comparison())
    if record is None:
        return None
    runs = (
        f"Measured against: {record.runs} published runs with an MoE target at batch {LARGE_BATCH} or more "
        f"({record.publishers} publishers)"
    )
    if record.median_pct <= 0:
        return (
            f"{runs}: this model's speedups were a median {-record.median_pct:.0f} % below theirs (10th to 90th "
            f"percentile {record.low_pct:+.0f} to {record.high_pct:+.0f} %). Page *Predictions vs measurements*."
        )
    return (
        f"{runs}: with their own measured acceptance, this model promised them a median {record.median_pct:.0f} % "
        f"more speedup than they measured (10th to 90th percentile {record.low_pct:+.0f} to "
        f"{record.high_pct:+.0f} %). Read this chart's large batches as an upper bound. Page *Predictions vs "
        "measurements*."
    )


@st.cache_data(max_entries=1, show_spinner=False)
def comparison() -> Comparison:
    """The file's runs, priced by :func:`specmath.predict.predict`, :func:`specmath.predict_speedup` with
    its parts (cached: the file changes only with the code)."""
    return compare(*load_measured_runs())


def overhead_fits(comparison: Comparison) -> pd.DataFrame:
    """The overheads :func:`specmath.predict.fit_overheads` finds on the priced runs, and how well they
    hold: in sample, and for each source left out of the fit and priced with the others' overheads.

    Beside them the roofline alone (:data:`specmath.predict.NO_OVERHEADS`). Errors in percent.
    """
    runs = [p.run for p in comparison.priced]
    measured = np.array([run["speedup"] for run in runs], dtype=float)
    sources = np.array([run["source"] for run in runs])

    def scored(overheads: Overheads, chosen: np.ndarray) -> np.ndarray:
        """The errors of the ``chosen`` runs priced with ``overheads`` (all three of its times)."""
        picked = [run for run, keep in zip(runs, chosen, strict=True) if keep]
        return np.array([predict(run, overheads).speedup for run in picked]) / measured[chosen] - 1

    def row(what: str, overheads: Overheads | None, errors: np.ndarray) -> dict:
        return {
            "fit": what,
            "µs a layer": "" if overheads is None else f"{overheads.per_layer_s * 1e6:.0f}",
            "ms an iteration": "" if overheads is None else f"{overheads.per_iteration_s * 1e3:.2f}",
            "ms an SGLang iteration without overlap": ""
            if overheads is None
            else f"{overheads.sglang_no_overlap_s * 1e3:.2f}",
            "runs": len(errors),
            "median %": f"{np.median(np.abs(errors)) * 100:.1f}",
            "worst %": f"{np.abs(errors).max() * 100:.1f}",
        }

    everything = np.ones(len(runs), dtype=bool)
    fitted = fit_overheads(runs, measured).overheads
    rows = [
        row("roofline alone", NO_OVERHEADS, scored(NO_OVERHEADS, everything)),
        row("default: measured apart", MEASURED_OVERHEADS, scored(MEASURED_OVERHEADS, everything)),
        row("fitted, in sample", fitted, scored(fitted, everything)),
    ]
    publishers = np.array([comparison.sources[s]["publisher"] for s in sources])
    for label, groups in (("source", sources), ("publisher", publishers)):
        pooled = []
        for group in dict.fromkeys(groups):
            kept = groups != group
            others = fit_overheads([r for r, k in zip(runs, kept, strict=True) if k], measured[kept]).overheads
            errors = scored(others, ~kept)
            pooled.append(errors)
            if label == "publisher":
                rows.append(row(f"fitted without {group}", others, errors))
        rows.append(row(f"fitted, each {label} left out", None, np.concatenate(pooled)))
    return pd.DataFrame(rows)


@st.cache_data(max_entries=1, show_spinner=False)
def overhead_table() -> pd.DataFrame:
    """:func:`overhead_fits` of the file's runs, cached as :func:`comparison` is."""
    return overhead_fits(comparison())
