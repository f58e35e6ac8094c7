"""Speedup vs draft length: curves over k for the chosen α and a comparison set."""

import streamlit as st

import specmath
from dashboard import cached, charts, texts, ui

ctx = ui.page()


def view() -> None:
    alpha, k, c = ctx.values["alpha"], ctx.values["k"], ctx.values["c"]
    compare = ctx.widget("compare")

    alphas = tuple(sorted({*compare, alpha}))
    grid, optima = cached.speedup_curves(alphas, float(c))
    best_k, best_speedup = optima[alpha]

    metrics_area = st.container()  # above the chart, filled after it (see ui.interactive)
    ui.chart(
        charts.speedup_curves(cached.K_AXIS, dict(zip(alphas, grid, strict=True)), optima, alpha, k, c),
        f"speedup_alpha{alpha:.2f}_k{k}_c{c:g}",
    )

    row = ui.metric_row(metrics_area)
    row.metric(f"Speedup at k = {k}", f"{specmath.speedup(alpha, k, c):.2f}×")
    row.metric("Expected tokens per target call", f"{specmath.expected_tokens(alpha, k):.2f}")
    row.metric(f"Best k for α = {alpha:g}, c = {c:g}", f"{best_k} → {best_speedup:.2f}×")
    row.metric("Leviathan et al. c (draft / target)", f"{specmath.to_leviathan_cost(c):.4g}")


ui.interactive(ctx, view)
st.latex(texts.FORMULAS["speedup"])
st.markdown(texts.SPEEDUP_EXPLAINER)
