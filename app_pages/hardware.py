"""Hardware: speedup when verifying k + 1 positions is not free, from a roofline of your GPU."""

import numpy as np
import streamlit as st

import specmath
from dashboard import acceptance, charts, texts, ui
from dashboard.features import engine_views, hardware, predictions
from dashboard.params import AUTO_DRAFT_TP, HARDWARE_SECTIONS, PRECISIONS

ctx = ui.page()


def view() -> None:
    models, parallelism, workload, own, engine = HARDWARE_SECTIONS
    ctx.show(models)
    ctx.show(parallelism)
    values = ctx.values
    alpha, k, kind, lookup_ms = values["alpha"], values["k"], values["drafter_kind"], values["lookup_ms"]
    choice = acceptance.chosen(values)
    if (note := acceptance.sidebar_note(choice)) is not None:
        getattr(st.sidebar, note[0])(note[1])
    names = {key: values[key] for key in ("target_model", "draft_model", "gpu", "precision")}
    served = {key: values[key] for key in parallelism.keys}
    tp, link = served["tp"], served["interconnect"]
    # "auto" puts the draft on the target's GPUs, as the engines do (hardware.draft_gpus).
    serving = hardware.serving(served | {"drafter_kind": kind, "lookup_ms": lookup_ms})
    draft_tp = serving.draft_tp
    if served["draft_tp"] == AUTO_DRAFT_TP and tp > 1 and kind != "model_free":
        st.sidebar.caption(hardware.draft_gpus_said(serving))
    for section in (workload, hardware.FALLOFF, own, engine):
        ctx.show(section)
    batch, context, overhead_ms = (values[key] for key in workload.keys)
    # The acceptance at the page's context: the chosen one itself (the slider's float by default) unless
    # a fall-off with context is chosen.
    falloff = values["acc_falloff"]
    accepted = acceptance.at_context(choice.value, falloff, context)
    shown = alpha if accepted is choice.value and not choice.measured else choice.label
    if falloff != acceptance.NO_FALLOFF:
        shown = f"{choice.label}, at {context:,} tokens of context"
        st.sidebar.caption(acceptance.falloff_note(falloff))
    bandwidth, peak = (values[key] for key in own.keys)
    max_batch, method, drafter, data_parallel, n_predict = (values[key] for key in engine.keys)

    deployment = hardware.Deployment(
        names["target_model"], names["draft_model"], names["gpu"], PRECISIONS[names["precision"]],
        context, overhead_ms, bandwidth, peak, serving,
    )  # fmt: skip
    setup = hardware.hardware_setup(deployment, batch)
    if not setup.target.fits:
        holds = f"each of {tp} {names['gpu']} GPUs holds" if tp > 1 else f"one {names['gpu']} holds"
        st.warning(
            f"{names['target_model']} needs {setup.target.memory_needed / 1e9:,.0f} GB per GPU at batch {batch} with "
            f"{context:,} cached tokens, more than {holds}; the times assume it fits "
            "(as if sharded over more GPUs with perfect scaling). Raise the target's GPUs.",
            icon=":material/memory:",
        )

    widths = hardware.HARDWARE_K + 1
    max_k = int(hardware.HARDWARE_K[-1])
    # Free verification: the target's pass over k + 1 positions costs one step, whatever the drafter.
    step = float(setup.target(1))
    free = specmath.general_speedup(accepted, hardware.HARDWARE_K, setup.draft, step, drafter=kind)
    roof = specmath.general_speedup(accepted, hardware.HARDWARE_K, setup.draft, setup.target, drafter=kind)
    best_free = specmath.general_optimal_k(accepted, setup.draft, step, max_k=max_k, drafter=kind)
    best_roof = specmath.general_optimal_k(accepted, setup.draft, setup.target, max_k=max_k, drafter=kind)
    extra_ops = specmath.operations_factor(accepted, best_roof[0], setup.arithmetic_ratio)

    metrics_area = st.container()  # above the tabs, filled after them (see ui.interactive)

    drafting = (
        "n-gram lookup"
        if kind == "model_free"
        else names["draft_model"] + (" (parallel)" if kind == "parallel" else "")
    )
    gpus = hardware.gpus(names["gpu"], tp)
    label = f"{drafting} → {names['target_model']} on {gpus}, batch {batch}, context {context:,}"
    # Only the open tab is computed and drawn: a press of α redraws its charts, not the page's six.
    with ctx.tab("hw_view"):
        opened = values["hw_view"]
        if opened == "speedup":
            left, right = ui.side_by_side()
            with left:
                ui.chart(
                    charts.hardware_speedup(
                        hardware.HARDWARE_K,
                        free,
                        roof,
                        {"free verification": tuple(v.item() for v in best_free), "roofline": best_roof},
                        shown,
                        k,
                        label,
                    ),
                    f"hardware_speedup_{choice.slug}_batch{batch}_ctx{context}",
                    key="hardware_speedup",
                )
            with right:
                ui.chart(
                    charts.verification_cost(
                        widths, setup.target(widths) * 1e3, setup.draft_step * 1e3, setup.target.ridge_width
                    ),
                    f"verification_cost_batch{batch}_ctx{context}",
                    key="verification_cost",
                )
            sweep = hardware.batch_sweep(accepted, deployment)
            ui.chart(
                charts.batch_sweep(
                    sweep.batch,
                    sweep.k,
                    sweep.speedup,
                    sweep.crossover_batch,
                    shown,
                    label.split(", batch")[0],
                    fits=sweep.target_fits,
                ),
                f"batch_sweep_{choice.slug}_ctx{context}",
                key="batch_sweep",
            )
            if specmath.deployment.find_model(names["target_model"]).is_moe and (note := predictions.moe_record_note()):
                st.caption(note)
        elif opened == "experts":
            st.markdown(texts.HARDWARE_MOE)
            left, right = ui.side_by_side()
            with left:
                ratios = hardware.verification_by_batch(k, deployment)
                target_label = f"{names['target_model']} on {gpus}, context {context:,}"
                ui.chart(
                    charts.verification_by_batch(np.array(hardware.BATCHES), ratios, k, target_label, batch),
                    f"verification_by_batch_k{k}_ctx{context}",
                    key="verification_by_batch",
                )
            with right:
                best_k, best, fits = hardware.context_map(choice.value, deployment, falloff)
                map_label = alpha if not choice.measured else choice.label
                if falloff != acceptance.NO_FALLOFF:
                    map_label = f"{choice.label}, falling with context"
                ui.chart(
                    charts.batch_context_map(
                        np.array(hardware.BATCHES), np.array(hardware.CONTEXTS), best_k, best, fits, map_label,
                        label.split(", batch")[0],
                    ),
                    f"batch_context_map_{choice.slug}",
                    key="batch_context_map",
                )  # fmt: skip
                if falloff != acceptance.NO_FALLOFF:
                    st.caption(acceptance.falloff_note(falloff))
        else:  # the schedule, and on a tab of its own the schedule in each engine's terms
            schedule_sweep = hardware.schedule_sweep(accepted, deployment, max_batch)
            setting = hardware.Setting(
                acceptance=shown if isinstance(shown, str) else f"α = {alpha:g}",
                target_model=names["target_model"],
                draft_model=names["draft_model"],
                gpu=names["gpu"],
                context=context,
                max_batch=max_batch,
                method=method,
                sglang_batch=batch,
                drafter=drafter,
                data_parallel=data_parallel,
                n_predict=n_predict,
                tp=tp,
                draft_tp=draft_tp,
                chart_file=f"k_schedule_{choice.slug}_ctx{context}_maxbatch{max_batch}",
                json_file=f"k_schedule_{method}_{choice.slug}_ctx{context}_maxbatch{max_batch}.json",
            )
            if opened == "schedule":
                st.markdown(texts.SCHEDULE_INTRO)
                hardware.show_schedule(schedule_sweep, setting)
            else:
                inputs = {
                    **acceptance.document(choice, falloff),
                    "precision": names["precision"],
                    "overhead_ms_per_pass": overhead_ms,
                    "drafter_kind": kind,
                    "tensor_parallel": {"target": tp, "draft": draft_tp, "interconnect": link},
                    # What the roofline used: the overrides, else the datasheet's (its FP8 peak for FP8 weights).
                    "memory_bandwidth_gb_s": setup.target.gpu.memory_bandwidth / 1e9,
                    "peak_tflop_s": setup.target.gpu.peak_flops / 1e12,
                }
                chosen = (int(best_roof[0]), float(best_roof[1])) if best_roof[1] > 1 else (0, 1.0)
                engine_views.show_drafter_mismatch(kind, method)
                hardware.show_engines(schedule_sweep, setting, chosen, accepted, inputs)
            hardware.show_caveat()

    row = ui.metric_row(metrics_area)
    draft_label = "Draft lookup" if kind == "model_free" else "Draft step T_draft(1)"
    row.metric(draft_label, f"{setup.draft_step * 1e3:.3f} ms")
    row.metric("Target step T_target(1)", f"{setup.target(1) * 1e3:.3f} ms")
    row.metric(f"Target over k + 1 = {k + 1} positions", f"{setup.target(k + 1) * 1e3:.3f} ms")
    row.metric("Implied c = T_target(1) / T_draft(1)", f"{setup.c:.2f}" if np.isfinite(setup.c) else "∞")
    row = ui.metric_row(metrics_area)  # a row of its own: what the step times above make of speculation
    row.metric("Best k, free verification", f"{best_free[0]} → {best_free[1]:.2f}×")
    row.metric("Best k, roofline", f"{best_roof[0]} → {best_roof[1]:.2f}×")
    at_k = specmath.general_speedup(accepted, k, setup.draft, setup.target, drafter=kind)
    row.metric(f"Speedup at k = {k}, roofline", f"{at_k:.2f}×")
    row.metric(
        "Arithmetic spent at the best k",
        f"{extra_ops:.2f}×",
        help="Leviathan et al. Theorem 3.11: total FLOPs relative to plain decoding, ĉ = draft/target FLOPs",
    )
    if max_k in (best_free[0], best_roof[0]):  # the search's edge, not an optimum
        metrics_area.caption(
            texts.HARDWARE_AT_CAP.format(k=max_k) + (texts.HARDWARE_AT_CAP_BLOCK if kind == "parallel" else "")
        )


ui.interactive(ctx, view)
for formula in ("general_speedup", "drafting", "roofline", "roofline_memory", "roofline_experts", "roofline_compute"):
    st.latex(texts.FORMULAS[formula])
st.markdown(texts.HARDWARE_EXPLAINER)
