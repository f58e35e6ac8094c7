"""Acceptance vs divergence: α against KL(p‖q) for the chapter's random pairs, with lower bounds."""

import streamlit as st

from dashboard import charts, limits, texts, ui
from dashboard.features import acceptance_vs_kl
from dashboard.params import PARAMS

ctx = ui.page()


def view() -> None:
    ctx.show(acceptance_vs_kl.EXPERIMENT)
    pairs, vocab, seed, log_x = (ctx.values[key] for key in acceptance_vs_kl.EXPERIMENT.keys)

    capped = limits.kl_pairs(pairs, vocab, minimum=int(PARAMS["pairs"].low))
    if capped.note:
        st.info(capped.note)
    pairs = capped.value
    result = acceptance_vs_kl.kl_experiment(pairs, vocab, seed)
    bounds = acceptance_vs_kl.bound_curves(result.kl, log_x)

    metrics_area = st.container()  # above the chart, filled after it (see ui.interactive)
    ui.chart(
        charts.alpha_vs_kl(result.kl, result.alpha, bounds, log_x, vocab, seed),
        f"alpha_vs_kl_pairs{pairs}_vocab{vocab}_seed{seed}",
        "kl_alpha_vs_kl",
    )

    row = ui.metric_row(metrics_area)
    row.metric("Pairs", f"{pairs:,}")
    row.metric("Mean α", f"{result.alpha.mean():.3f}")
    row.metric("Median KL(p‖q)", f"{float(sorted(result.kl)[len(result.kl) // 2]):.3f} nats")
    row.metric("Lowest α", f"{result.alpha.min():.3f}")


ui.interactive(ctx, view)
st.latex(texts.FORMULAS["pinsker"])
st.latex(texts.FORMULAS["bretagnolle_huber"])
st.markdown(texts.KL_EXPLAINER)
