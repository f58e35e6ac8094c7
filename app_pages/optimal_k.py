"""Optimal draft length map: the best k and best speedup over every (α, c)."""

import streamlit as st

import specmath
from dashboard import charts, texts, ui
from dashboard.features import optimal_k
from dashboard.params import format_number

ctx = ui.page()
# The fragment draws the metrics and the map above the formula and the table below it, the map
# first (see ui.interactive). The view switch is the page's: it changes rarely, and redrawing it
# on every move of a slider cost time.
metrics_area = st.container()
ctx.show(optimal_k.VIEW, st)
shown = ctx.values["view"]
map_area = st.container()
st.latex(texts.FORMULAS["optimal_k"])
st.markdown(texts.OPTIMAL_K_EXPLAINER)
table_area = st.container()


def view() -> None:
    ctx.show(optimal_k.SIDEBAR)
    alpha, c, max_k = (ctx.values[key] for key in optimal_k.SIDEBAR.keys)

    k_star, best = optimal_k.optimal_k_grid(max_k)
    current = tuple(v.item() for v in specmath.optimal_k(alpha, c, max_k=max_k))

    with map_area:
        _map(alpha, c, max_k, k_star, best, current)
    with metrics_area:
        _metrics(alpha, c, current)
    with table_area:
        _table(max_k)


def _metrics(alpha, c, current) -> None:
    row = ui.metric_row()
    row.metric(f"Optimal k at α = {alpha:g}, c = {c:g}", f"{current[0]}")
    row.metric("Its speedup", f"{current[1]:.2f}×")
    row.metric("Speculation pays here?", "yes" if current[1] > 1 else "no: plain decoding is faster")


def _map(alpha, c, max_k, k_star, best, current) -> None:
    grid = (optimal_k.GRID_ALPHA, optimal_k.GRID_C, k_star, best, alpha, c, current, max_k)
    if shown == "k":
        fig, name = charts.optimal_k_map(*grid, contours=optimal_k.map_contours(max_k)), "optimal_k"
    else:
        fig, name = charts.best_speedup_map(*grid), "best_speedup"
    ui.chart(
        fig,
        f"{name}_map_alpha{alpha:.2f}_c{c:g}_maxk{max_k}",
        key="optimal_k_map",
        height=charts.MAP_HEIGHT,
    )


def _table(max_k) -> None:
    st.subheader("The chapter's table")
    table = optimal_k.chapter_table(max_k)
    st.caption(texts.CHAPTER_TABLE_CAPTION if max_k == 20 else f"The chapter's grid, searched over k = 1 … {max_k}.")
    # A static table, printed as the chapter prints it: twelve rows need no scrolling or sorting,
    # and Streamlit's interactive grid cost more to redraw than the rest of the page below the map.
    printed = table.assign(
        α=table["α"].map(format_number), c=table["c"].map(format_number), speedup=table["speedup"].map("{:.2f}×".format)
    )
    st.table(printed, hide_index=True, width="content")
    ui.csv_download(table, f"optimal_k_table_maxk{max_k}.csv")


ui.interactive(ctx, view)
