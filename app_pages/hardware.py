"""Hardware: speedup when verifying k + 1 positions is not free, from a roofline of your GPU."""

import pandas as pd
import streamlit as st

import specmath
from dashboard import cached, charts, engine_config, texts, ui
from dashboard.params import PRECISIONS

ctx = ui.page()


def view() -> None:
    alpha, k = ctx.values["alpha"], ctx.values["k"]
    st.sidebar.subheader("Models and GPU")
    names = {key: ctx.widget(key) for key in ("target_model", "draft_model", "gpu", "precision")}
    st.sidebar.subheader("Workload")
    batch, context, overhead_ms = (ctx.widget(key) for key in ("batch", "context", "overhead_ms"))
    st.sidebar.subheader("Your own numbers")
    bandwidth, peak = ctx.widget("bandwidth"), ctx.widget("peak")
    st.sidebar.subheader("Schedule for your engine")
    max_batch, method = ctx.widget("max_batch"), ctx.widget("method")

    settings = (names["gpu"], PRECISIONS[names["precision"]])
    setup = cached.hardware_setup(
        names["target_model"], names["draft_model"], *settings, batch, context, overhead_ms, bandwidth, peak
    )
    if not setup.target.fits:
        st.warning(
            f"{names['target_model']} needs {setup.target.memory_needed / 1e9:,.0f} GB at batch {batch} with "
            f"{context:,} cached tokens, more than one {names['gpu']} holds; the times assume it fits "
            "(as if sharded with perfect scaling).",
            icon=":material/memory:",
        )

    widths = cached.HARDWARE_K + 1
    free = specmath.speedup(alpha, cached.HARDWARE_K, setup.c)
    roof = specmath.general_speedup(alpha, cached.HARDWARE_K, setup.draft, setup.target)
    best_free = specmath.optimal_k(alpha, setup.c, max_k=int(cached.HARDWARE_K[-1]))
    best_roof = specmath.optimal_k_general(alpha, setup.draft, setup.target, max_k=int(cached.HARDWARE_K[-1]))
    extra_ops = specmath.operations_factor(alpha, best_roof[0], setup.arithmetic_ratio)

    row = ui.metric_row()
    row.metric("Draft step T_draft(1)", f"{setup.draft(1) * 1e3:.3f} ms")
    row.metric("Target step T_target(1)", f"{setup.target(1) * 1e3:.3f} ms")
    row.metric(f"Target over k + 1 = {k + 1} positions", f"{setup.target(k + 1) * 1e3:.3f} ms")
    row.metric("Implied c = T_target(1) / T_draft(1)", f"{setup.c:.2f}")
    row = ui.metric_row()  # a row of its own: what the step times above make of speculation
    row.metric("Best k, free verification", f"{best_free[0]} → {best_free[1]:.2f}×")
    row.metric("Best k, roofline", f"{best_roof[0]} → {best_roof[1]:.2f}×")
    row.metric(f"Speedup at k = {k}, roofline", f"{specmath.general_speedup(alpha, k, setup.draft, setup.target):.2f}×")
    row.metric(
        "Arithmetic spent at the best k",
        f"{extra_ops:.2f}×",
        help="Leviathan et al. Theorem 3.11: total FLOPs relative to plain decoding, ĉ = draft/target FLOPs",
    )

    label = f"{names['draft_model']} → {names['target_model']} on {names['gpu']}, batch {batch}, context {context:,}"
    left, right = ui.side_by_side()
    with left:
        ui.chart(
            charts.hardware_speedup(
                cached.HARDWARE_K,
                free,
                roof,
                {"free verification": tuple(v.item() for v in best_free), "roofline": best_roof},
                alpha,
                k,
                label,
            ),
            f"hardware_speedup_alpha{alpha:.2f}_batch{batch}_ctx{context}",
        )
    with right:
        ui.chart(
            charts.verification_cost(
                widths, setup.target(widths) * 1e3, float(setup.draft(1)) * 1e3, setup.target.ridge_width
            ),
            f"verification_cost_batch{batch}_ctx{context}",
        )
    sweep = cached.batch_sweep(
        alpha, names["target_model"], names["draft_model"], *settings, context, overhead_ms, bandwidth, peak
    )
    ui.chart(
        charts.batch_sweep(
            sweep.batch,
            sweep.k,
            sweep.speedup,
            sweep.crossover_batch,
            alpha,
            label.split(", batch")[0],
            fits=sweep.target_fits,
        ),
        f"batch_sweep_alpha{alpha:.2f}_ctx{context}",
    )
    best_here = best_roof[0] if best_roof[1] > 1 else 0
    _schedule(alpha, names, settings, (batch, context, overhead_ms, bandwidth, peak), max_batch, method, best_here)


def _schedule(alpha, names, settings, workload, max_batch, method, best_here) -> None:
    """The batch-size k schedule, its table and step chart, the engines' configs and the JSON download."""
    batch, context, overhead_ms, bandwidth, peak = workload
    st.subheader("A batch-size schedule of k for your engine")
    st.markdown(texts.SCHEDULE_INTRO)
    sweep = cached.schedule_sweep(
        alpha, names["target_model"], names["draft_model"], *settings, context, overhead_ms, bandwidth, peak, max_batch
    )
    schedule = specmath.batch_k_schedule(sweep.batch, sweep.k, sweep.speedup)
    label = f"{names['draft_model']} → {names['target_model']} on {names['gpu']}, context {context:,}"
    left, right = ui.side_by_side()
    with left:
        ui.chart(
            charts.k_schedule(sweep.batch, sweep.k, sweep.speedup, schedule, alpha, label),
            f"k_schedule_alpha{alpha:.2f}_ctx{context}_maxbatch{max_batch}",
        )
    with right:
        st.table(pd.DataFrame(engine_config.schedule_rows(schedule, sweep.batch, sweep.speedup)), hide_index=True)
        if not sweep.target_fits.all():
            first = int(sweep.batch[~sweep.target_fits][0])
            st.caption(
                f"From batch {first} on, {names['target_model']}'s weights and KV cache do not fit in one "
                f"{names['gpu']}: the schedule there assumes it is sharded with perfect scaling."
            )

    presets = specmath.MODEL_PRESETS
    model = engine_config.draft_name(method, presets[names["draft_model"]], presets[names["target_model"]])
    config = engine_config.vllm_config(method, model, schedule)
    st.markdown("**vLLM** (`vllm serve …` with this flag)")
    if config is None:
        st.info("No k beats plain decoding at any batch size here: serve without `--speculative-config`.")
    else:
        st.code(engine_config.vllm_flag(config), language="bash", wrap_lines=True)
        st.caption(texts.SCHEDULE_VLLM)
        if method in ("eagle", "eagle3"):
            kind = "EAGLE-3" if method == "eagle3" else "EAGLE"
            st.caption(texts.SCHEDULE_EAGLE_HEAD.format(placeholder=model, kind=kind))
    sglang = engine_config.sglang_flags(method, model, best_here)
    st.markdown("**SGLang** (`python -m sglang.launch_server …` with these flags)")
    st.caption(texts.SCHEDULE_SGLANG.format(batch=batch, k=best_here))
    if sglang:
        st.code(" \\\n".join(sglang), language="bash", wrap_lines=True)
    else:
        st.info(f"At batch {batch} no k beats plain decoding: serve without the speculative flags.")

    inputs = {
        "alpha": alpha,
        "target_model": engine_config.hub_name(presets[names["target_model"]]),
        "draft_model": engine_config.hub_name(presets[names["draft_model"]]),
        "method": method,
        "gpu": names["gpu"],
        "precision": names["precision"],
        "context_tokens": context,
        "overhead_ms_per_pass": overhead_ms,
        "memory_bandwidth_gb_s": bandwidth or specmath.GPU_PRESETS[names["gpu"]].memory_bandwidth / 1e9,
        "peak_tflop_s": peak or specmath.GPU_PRESETS[names["gpu"]].peak_flops / 1e12,
        "batches_swept": [1, max_batch],
        "sglang_batch": batch,
    }
    st.download_button(
        "Download the schedule as JSON",
        engine_config.schedule_document(schedule, config, inputs, sglang),
        file_name=f"k_schedule_{method}_alpha{alpha:.2f}_ctx{context}_maxbatch{max_batch}.json",
        mime="application/json",
    )
    st.markdown(texts.SCHEDULE_CAVEAT)


ui.interactive(ctx, view)
st.latex(texts.FORMULAS["general_speedup"])
st.latex(texts.FORMULAS["roofline"])
st.markdown(texts.HARDWARE_EXPLAINER)
