"""Rejection sampling: type p and q, run many rounds, compare the output with p."""

import streamlit as st

import specmath
from dashboard import charts, texts, ui
from dashboard.features import rejection_sampling
from dashboard.presets import PRESET_LABELS

ctx = ui.page()
# The distributions and their editor belong to the page; only the sample count and what it
# drives rerun as a fragment, so moving n neither re-sends the editor's table nor makes the
# browser lay it out again. Changing the preset, the vocabulary, the seed or a cell reruns the
# whole page.
ctx.show(rejection_sampling.PRESET)
preset = ctx.values["preset"]
st.sidebar.caption(PRESET_LABELS[preset])
ctx.show(rejection_sampling.VOCAB)
vocab = ctx.values["vocab"] if preset == "random" else None
n_area = st.sidebar.container()
seed = ctx.values["seed"]

table = rejection_sampling.distribution_table(ctx, preset, vocab, seed)
report_area = st.container()
# The table takes one cell of three, never narrower than the table, and the chart two; where three
# such cells do not fit (1024 px with the sidebar open) the chart goes under the table.
layout = st.grid(3, min_column_width=rejection_sampling.TABLE_WIDTH)
left, right = layout.cell(), layout.cell(column_span=2)
with left:
    checked = rejection_sampling.distribution_editor(table)


def view() -> None:
    ctx.show(rejection_sampling.COUNT, n_area)
    n = ctx.values["n"]
    if checked is None:
        return
    p, q = checked

    accepted, resampled = rejection_sampling.sample_counts(tuple(p), tuple(q), n, seed)
    with right:  # the chart before the metrics above it (see ui.interactive)
        ui.chart(
            charts.sampling_histogram(
                table.labels, p, q, specmath.residual_distribution(p, q), accepted, resampled, seed
            ),
            f"rejection_sampling_{preset}_n{n}_seed{seed}",
        )

    report = rejection_sampling.sampling_report(p, q, accepted, resampled)
    row = ui.metric_row(report_area)
    row.metric("α = Σ min(p, q)", f"{report.alpha:.4f}")
    row.metric("1 − TV(p, q)", f"{report.one_minus_tv:.4f}")
    row.metric("Observed acceptance rate", f"{report.observed_acceptance:.4f}")
    row.metric("Max deviation from p", f"{report.max_deviation:.4f}")
    row.metric("χ² p-value (output ~ p)", f"{report.chi_square_pvalue:.3g}")


ui.interactive(ctx, view)
st.latex(texts.FORMULAS["lossless"])
st.markdown(texts.SAMPLING_EXPLAINER)
