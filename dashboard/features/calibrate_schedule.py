"""Calibrate's batch-size schedule of k: the Hardware page's schedule from the measured acceptance,
for the sidebar's models, GPU and serving (drafter kind, tensor parallelism), on the roofline
scaled to the user's step times when given (:func:`specmath.fit_roofline`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

import specmath
from dashboard import texts
from dashboard.features import engine_views, hardware
from dashboard.features.calibrate import Calibration, Measurement
from dashboard.params import PRECISIONS


def _fit_message(fit: specmath.calibration.RooflineFit, shown: Mapping[str, Any]) -> tuple[str, str]:
    """("markdown" or "warning", the sentence) saying what the step times imply (:func:`specmath.fit_roofline`)."""
    said = {
        **shown,
        "efficiency": fit.efficiency,
        "overhead_ms": fit.overhead_s * 1e3,
        "roof_target_ms": fit.roofline_s[0] * 1e3,
        "roof_draft_ms": fit.roofline_s[1] * 1e3,
        "fit_target_ms": fit.fitted_s[0] * 1e3,
        "fit_draft_ms": fit.fitted_s[1] * 1e3,
    }
    if fit.too_fast:
        return "warning", texts.CALIBRATE_FIT_FAST.format(**said)
    if fit.exact:
        return "markdown", texts.CALIBRATE_FIT.format(**said)
    if fit.efficiency >= 1.0 and fit.overhead_s > 0:
        return "warning", texts.CALIBRATE_FIT_OVERHEAD.format(**said)
    return "warning", texts.CALIBRATE_FIT_INEXACT.format(**said)


def schedule(
    measurement: Measurement,
    result: Calibration,
    chosen: Mapping[str, Any],
    step_times: tuple[float, float] | None,
) -> None:
    """The page's schedule: on the roofline of ``chosen`` (the settings of :data:`dashboard.params.CALIBRATE_KEYS`
    under the Hardware page's names), from the measured profile if there is one, else the fitted α; scaled to
    ``step_times`` (target, draft in ms, measured at ``chosen["batch"]`` and the chosen tensor
    parallelism) when given and the drafter runs a model (:func:`specmath.fit_roofline`)."""
    st.subheader("A batch-size schedule of k for your engine")
    profile = measurement.per_position
    if profile is not None:
        acceptance = tuple(float(u) for u in profile)
        label = f"measured profile, k = {measurement.k}"
        said = f"the per-position profile measured at k = {measurement.k}, extrapolated past it"
    else:
        acceptance = result.fit.alpha
        label = f"α = {acceptance:.3f}"
        said = f"the fitted i.i.d. α = {acceptance:.3f}"
    st.markdown(texts.CALIBRATE_SCHEDULE_INTRO.format(acceptance=said))
    names = (chosen["target_model"], chosen["draft_model"], chosen["gpu"], PRECISIONS[chosen["precision"]])
    batch, context = chosen["batch"], chosen["context"]
    served = hardware.serving(chosen)
    on = hardware.gpus(chosen["gpu"], served.tp)
    overhead_ms = bandwidth = peak = 0.0
    fit = None
    if step_times is None:
        st.caption(texts.CALIBRATE_DATASHEET.format(gpu=on))
    elif served.drafter == "model_free":
        st.caption(texts.CALIBRATE_FIT_MODEL_FREE.format(gpu=on))
    else:
        setup = hardware.hardware_setup(hardware.Deployment(*names, context, serving=served), batch)
        # The times were measured at the chosen tensor parallelism: its all-reduces are not the kernels' to fit.
        fit = specmath.fit_roofline(
            step_times[0] / 1e3, step_times[1] / 1e3, setup.target.model, setup.draft.model, setup.target.gpu,
            batch, context, tp=served.tp, draft_tp=served.draft_tp, interconnect=served.link,
        )  # fmt: skip
        bandwidth, peak = fit.gpu.memory_bandwidth / 1e9, fit.gpu.peak_flops / 1e12
        overhead_ms = fit.overhead_s * 1e3
        shown = {"batch": batch, "target_ms": step_times[0], "draft_ms": step_times[1], "gpu": on}
        kind, message = _fit_message(fit, shown)
        getattr(st, kind)(message)
    deployment = hardware.Deployment(*names, context, overhead_ms, bandwidth, peak, served)
    sweep = hardware.schedule_sweep(acceptance, deployment, chosen["max_batch"])
    at_batch = hardware.best_at(hardware.batch_sweep(acceptance, deployment), batch)
    said = {"batch": batch, "scheduled": at_batch[0], "recommended": result.recommended_k}
    st.caption(texts.CALIBRATE_VS_RECOMMENDED.format(**said))
    stem = f"k_schedule_calibrated_k{measurement.k}_ctx{context}_maxbatch{chosen['max_batch']}"
    setting = hardware.Setting(
        acceptance=label,
        target_model=chosen["target_model"],
        draft_model=chosen["draft_model"],
        gpu=chosen["gpu"],
        context=context,
        max_batch=chosen["max_batch"],
        method=chosen["method"],
        sglang_batch=batch,
        drafter=chosen["drafter"],
        data_parallel=chosen["data_parallel"],
        n_predict=chosen["n_predict"],
        tp=served.tp,
        draft_tp=served.draft_tp,
        chart_file=stem,
        json_file=f"{stem}_{chosen['method']}.json",
    )
    inputs = {
        "acceptance": {"per_position": list(acceptance)} if profile is not None else {"alpha": acceptance},
        "measured_draft_length": measurement.k,
        "measured_from": measurement.source,
        "precision": chosen["precision"],
        "drafter_kind": served.drafter,
        "tensor_parallel": {"target": served.tp, "draft": served.draft_tp, "interconnect": served.interconnect},
        "step_times_ms": None if step_times is None else {"target": step_times[0], "draft": step_times[1]},
        "roofline_fit": None if fit is None else {
            "efficiency": fit.efficiency, "overhead_ms_per_pass": overhead_ms, "fits_both_times": fit.exact,
        },
    }  # fmt: skip
    engine_views.show_drafter_mismatch(served.drafter, chosen["method"])
    hardware.show_schedule(sweep, setting)
    hardware.show_engines(sweep, setting, at_batch, acceptance, inputs)
    hardware.show_caveat()
