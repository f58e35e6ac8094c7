"""Speedup vs draft length: curves over k for the chosen α and a comparison set, and optionally
the published measurements beside them."""

from collections import Counter

import pandas as pd
import streamlit as st

import specmath
from dashboard import acceptance, charts, texts, ui
from dashboard.features import speedup

ctx = ui.page()


def published_results() -> None:
    """What the published points are, why they sit off the curves, and the results without a k."""
    with_k, without_k = speedup.split_by_draft_length(speedup.load_published_results())
    counts = Counter(row.short_citation for row in with_k)
    st.markdown(texts.PUBLISHED_SHOWN.format(sources="; ".join(f"{n} ({c} results)" for n, c in counts.items())))
    st.markdown(texts.PUBLISHED_EXPLAINER)
    if not without_k:
        return
    st.markdown(texts.PUBLISHED_WITHOUT_K)
    for source in dict.fromkeys(row.source for row in without_k):
        rows = [row for row in without_k if row.source == source]
        first = rows[0]
        st.caption(
            f"{first.paper}, {first.table}: {first.model_target}, {first.hardware}; {first.task}, {first.decoding}."
        )
        # A static table, numbers as the source prints them: its long names wrap on a narrow screen
        # where the interactive grid cut them short.
        table = pd.DataFrame(
            {
                "method": [row.method for row in rows],
                "draft": [row.model_draft for row in rows],
                "tokens per target call": [f"{row.mean_accepted_tokens:.2f}" for row in rows],
                "measured speedup": [f"{row.speedup:.2f}×" for row in rows],
            }
        )
        st.table(table, hide_index=True)


def view() -> None:
    ctx.show(speedup.SIDEBAR)
    alpha, k, c, compare, show_published = (ctx.values[key] for key in ("alpha", "k", "c", "compare", "published"))
    choice = acceptance.chosen(ctx.values)
    if (note := acceptance.sidebar_note(choice)) is not None:
        getattr(st.sidebar, note[0])(note[1])

    alphas = tuple(sorted({*compare, alpha}))
    grid, optima = speedup.speedup_curves(alphas, float(c))
    best_k, best_speedup = optima[alpha]
    points = []
    if show_published:
        with_k, _ = speedup.split_by_draft_length(speedup.load_published_results())
        points = charts.published_points(with_k, [speedup.iid_speedup(row) for row in with_k])

    metrics_area = st.container()  # above the chart, filled after it (see ui.interactive)
    ui.chart(
        charts.speedup_curves(
            speedup.K_AXIS, dict(zip(alphas, grid, strict=True)), optima, alpha, k, c, published=points
        ),
        f"speedup_alpha{alpha:.2f}_k{k}_c{c:g}" + ("_published" if show_published else ""),
    )
    if show_published:
        published_results()

    row = ui.metric_row(metrics_area)
    row.metric(f"Speedup at k = {k}", f"{specmath.speedup(alpha, k, c):.2f}×")
    row.metric("Expected tokens per target call", f"{specmath.expected_tokens(alpha, k):.2f}")
    row.metric(f"Best k for α = {alpha:g}, c = {c:g}", f"{best_k} → {best_speedup:.2f}×")
    row.metric("Leviathan et al. c (draft / target)", f"{specmath.to_leviathan_cost(c):.4g}")
    if choice.measured:
        measured_section(choice, k, float(c))


def measured_section(choice: acceptance.Chosen, k: int, c: float) -> None:
    """The chosen curve's or profile's speedup beside the i.i.d. curve of its fitted α, and where they part."""
    st.subheader("The measured acceptance against the i.i.d. model")
    found = speedup.measured_against_iid(choice.value, c)
    fit = found.fit
    names = (choice.label, f"i.i.d. α = {fit.alpha:.3f}, fitted on {found.fitted_on}")
    optima = {names[0]: found.best_measured, names[1]: found.best_iid}
    metrics_area = st.container()
    ui.chart(
        charts.measured_against_iid(
            found.k, found.measured, found.iid_k, found.iid, optima, found.parts_at, names, c,
            acceptance.describe(choice),
        ),
        f"speedup_measured_against_iid_c{c:g}",
    )  # fmt: skip
    row = ui.metric_row(metrics_area)
    row.metric(f"Best k, {choice.label}", f"{found.best_measured[0]} → {found.best_measured[1]:.2f}×")
    row.metric(f"Best k, i.i.d. α = {fit.alpha:.3f}", f"{found.best_iid[0]} → {found.best_iid[1]:.2f}×")
    last = int(found.k[-1])
    row.metric(f"AL({last}) measured / i.i.d.", f"{fit.lengths[-1]:.2f} / {fit.predicted[-1]:.2f}")
    tolerance = f"{100 * speedup.PART_TOLERANCE:.0f} %"
    if found.parts_at is None:
        st.caption(f"The two speedups stay within {tolerance} of each other at every measured k (1 to {last}).")
    else:
        st.caption(
            f"They part at k = {found.parts_at}: the first draft length where the measured speedup is more than "
            f"{tolerance} from the i.i.d. one (at one k and c the speedups' ratio is the acceptance lengths'). "
            f"The i.i.d. α is fitted on {found.fitted_on}; past that the fitted α promises "
            f"{100 * fit.error[-1]:+.0f} % at k = {last}."
        )
    if k > last:
        st.caption(f"The measurement stops at k = {last}: the slider's k = {k} is past it, so it is not marked here.")


ui.interactive(ctx, view)
st.latex(texts.FORMULAS["speedup"])
st.markdown(texts.SPEEDUP_EXPLAINER)
