"""The hardware page: speedup under the roofline, the batch sweep, and the verification cost."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from dashboard.charts.speedup import best_k_stars, speedup_vs_k
from dashboard.charts.style import (
    CHOSEN_COLOUR,
    FONT_SIZE,
    PALETTE,
    axis,
    base_layout,
    figure,
    hline,
    slower_region,
    vline,
)
from dashboard.params import format_count, format_number


def acceptance_label(alpha: float | str) -> str:
    """A title's acceptance: "α = 0.8" for a number, else the text given (a preset's name, "typed profile")."""
    return alpha if isinstance(alpha, str) else f"α = {format_number(alpha)}"


def hardware_speedup(
    k: np.ndarray,
    free: np.ndarray,
    roofline: np.ndarray,
    optima: Mapping[str, tuple[int, float]],
    alpha: float | str,
    chosen_k: int,
    setup_label: str,
) -> go.Figure:
    """Speedup against k under free verification and under the roofline cost model.

    ``optima`` maps each curve's name ("free verification", "roofline") to its best (k, speedup).
    """
    traces = [
        {
            "type": "scatter",
            "x": k,
            "y": y,
            "mode": "lines",
            "name": name,
            "line": style,
            "hovertemplate": f"{name}<br>k = %{{x}}<br>speedup %{{y:.3f}}×<extra></extra>",
        }
        for name, y, style in (
            ("free verification", free, {"color": PALETTE[0], "width": 3, "dash": "dot"}),
            ("roofline", roofline, {"color": "#000000", "width": 4}),
        )
    ]
    traces.append(
        best_k_stars(optima, list(optima), "best k", "%{customdata}: best k = %{x}, %{y:.3f}×<extra></extra>")
    )
    title = f"Speedup vs draft length · {acceptance_label(alpha)}"
    return speedup_vs_k(traces, chosen_k, f"k = {chosen_k}", title, subtitle=setup_label)


def batch_sweep(
    batch: np.ndarray,
    best_k: np.ndarray,
    best: np.ndarray,
    crossover: int | None,
    alpha: float | str,
    setup_label: str,
    fits: np.ndarray | None = None,
) -> go.Figure:
    """Best speedup (left axis) and best k (right axis) as the batch grows; the crossover marked.

    ``fits`` says at which batches the target's weights and KV cache fit in the GPU's memory; the
    batches where they do not are greyed out (their speedups are what the roofline says, for a
    GPU that does not exist).
    """
    traces = [
        {
            "type": "scatter",
            "x": batch,
            "y": best,
            "mode": "lines+markers",
            "name": "best speedup",
            "line": {"color": "#000000", "width": 3},
            "hovertemplate": "batch %{x}<br>best speedup %{y:.3f}×<extra></extra>",
            "xaxis": "x",
            "yaxis": "y",
        },
        {
            "type": "scatter",
            "x": batch,
            "y": best_k,
            "mode": "lines+markers",
            "name": "best k",
            "line": {"color": PALETTE[1], "width": 2, "shape": "hv"},
            "hovertemplate": "batch %{x}<br>best k = %{y}<extra></extra>",
            "xaxis": "x",
            "yaxis": "y2",
        },
    ]
    shapes, annotations = slower_region()
    if crossover is not None:
        rule, label = vline(
            crossover,
            {"dash": "dash", "color": CHOSEN_COLOUR},
            f"speculation stops paying at batch {crossover}",
            side="right",
            log_axis=True,
        )
        shapes, annotations = shapes + rule, annotations + label
    if fits is not None and not np.all(fits):
        # Memory grows with the batch, so the batches that do not fit are the largest ones.
        first = int(np.argmin(fits))
        start = float(np.sqrt(batch[first - 1] * batch[first])) if first else float(batch[0]) / np.sqrt(2)
        shapes.append(
            {"type": "rect", "xref": "x", "x0": start, "x1": float(batch[-1]), "yref": "y domain"}
            | {"y0": 0, "y1": 1, "fillcolor": "rgba(90, 90, 90, 0.25)", "line": {"width": 0}, "layer": "below"}
        )
        annotations.append(
            {"text": "target does not<br>fit in GPU<br>memory", "showarrow": False, "align": "left"}
            | {"xref": "x", "x": np.log10(start), "xanchor": "left", "yref": "y domain", "y": 0.03, "yanchor": "bottom"}
            | {"font": {"color": "#333333", "size": FONT_SIZE - 3}}
        )
    layout = base_layout(
        f"Best k and speedup as the batch grows · {acceptance_label(alpha)}",
        height=500,
        subtitle=setup_label,
        legend="below",
        shapes=shapes,
        annotations=annotations,
        xaxis=axis(
            "batch size (log)",
            anchor="y",
            domain=[0.0, 0.94],
            type="log",
            tickvals=batch,
            ticktext=[str(b) for b in batch],
        ),
        yaxis=axis("best speedup (×)", anchor="x", domain=[0.0, 1.0], rangemode="tozero"),
        # Whole draft lengths only: plotly would otherwise align this axis' ticks with the left axis' grid.
        yaxis2=axis(
            "best k",
            anchor="x",
            overlaying="y",
            side="right",
            rangemode="tozero",
            showgrid=False,
            tickmode="linear",
            tick0=0,
            dtick=max(1, int(np.ceil(float(np.max(best_k)) / 5))),
        ),
    )
    return figure(traces, layout)


def verification_cost(widths: np.ndarray, target_ms: np.ndarray, draft_ms: float, ridge_width: float) -> go.Figure:
    """Target forward-pass time over w positions, beside one draft step; the roofline ridge marked."""
    trace = {
        "type": "scatter",
        "x": widths,
        "y": target_ms,
        "mode": "lines+markers",
        "name": "target pass over w positions",
        "line": {"color": "#000000", "width": 3},
        "hovertemplate": "w = %{x}: %{y:.3f} ms<extra></extra>",
    }
    shapes, annotations = hline(draft_ms, {"dash": "dot", "color": PALETTE[0]}, f"one draft step: {draft_ms:.3f} ms")
    if ridge_width <= widths[-1]:
        rule, label = vline(ridge_width, {"dash": "dash", "color": CHOSEN_COLOUR}, "compute-bound →")
        shapes, annotations = shapes + rule, annotations + label
    layout = base_layout(
        "Verification cost: T_target(w)",
        height=500,
        legend="below",
        shapes=shapes,
        annotations=annotations,
        xaxis=axis("positions verified per sequence, w = k + 1"),
        yaxis=axis("milliseconds", rangemode="tozero"),
    )
    return figure([trace], layout)


#: Where speculation does not pay on the schedule chart: the slower-region colour, a little stronger.
NO_SPECULATION_FILL = "rgba(213, 94, 0, 0.14)"


def k_schedule(
    batch: np.ndarray,
    best_k: np.ndarray,
    best: np.ndarray,
    schedule: list[tuple[int, int, int]],
    acceptance: str,
    setup_label: str,
) -> go.Figure:
    """The k schedule as a step chart: the scheduled k against the batch, each k = 0 range shaded.

    ``batch``, ``best_k`` and ``best`` are the sweep the schedule (``specmath.batch_k_schedule``)
    came from; the best k is drawn dotted where its speedup is not above 1, so the reader sees
    what the schedule turned off. ``acceptance`` names what the speedups assume ("α = 0.8").
    """
    scheduled = np.where(best > 1.0, best_k, 0)
    traces = [
        {
            "type": "scatter",
            "x": batch,
            "y": scheduled,
            "mode": "lines",
            "name": "k in the schedule",
            "line": {"color": "#000000", "width": 3, "shape": "hv"},
            "customdata": best,
            "hovertemplate": "batch %{x}<br>k = %{y}<br>predicted speedup %{customdata:.3f}×<extra></extra>",
        },
        {
            "type": "scatter",
            "x": batch,
            "y": np.where(best > 1.0, np.nan, best_k),
            "mode": "lines",
            "name": "best k, were it to speculate",
            "line": {"color": PALETTE[1], "width": 2, "dash": "dot", "shape": "hv"},
            "customdata": best,
            "hovertemplate": "batch %{x}<br>best k = %{y}: %{customdata:.3f}×, slower<extra></extra>",
        },
    ]
    shapes, annotations = [], []
    for lo, hi, k in schedule:
        if k == 0:
            shapes.append(
                {"type": "rect", "xref": "x", "x0": lo - 0.5, "x1": hi + 0.5, "yref": "y domain", "y0": 0, "y1": 1}
                | {"fillcolor": NO_SPECULATION_FILL, "line": {"width": 0}, "layer": "below"}
            )
            annotations.append(
                {"text": "speculation<br>does not pay", "showarrow": False, "align": "left"}
                | {"xref": "x", "x": float(np.log10(lo - 0.5)), "xanchor": "left", "xshift": 4}
                | {"yref": "y domain", "y": 0.97, "yanchor": "top", "font": {"color": CHOSEN_COLOUR}}
            )
    top = int(np.max(best_k)) if len(best_k) else 1
    ticks = [int(b) for b in 2 ** np.arange(0, int(np.log2(batch[-1])) + 1)]
    layout = base_layout(
        f"Draft length schedule by batch size · {acceptance}",
        height=500,
        subtitle=setup_label,
        legend="below",
        # Validation drops empty lists: left out, the figure is sent the same either way.
        **({"shapes": shapes, "annotations": annotations} if shapes else {}),
        xaxis=axis(
            "batch size (log)",
            type="log",
            range=[float(np.log10(batch[0] - 0.5)), float(np.log10(batch[-1] + 0.5))],
            tickvals=ticks,
            ticktext=[str(t) for t in ticks],
        ),
        yaxis=axis(
            "draft length k",
            range=[0, max(top, 1) * 1.15],
            tickmode="linear",
            tick0=0,
            dtick=max(1, int(np.ceil(max(top, 1) / 5))),
        ),
    )
    return figure(traces, layout)


def verification_by_batch(batch: np.ndarray, ratios: Mapping[str, np.ndarray], k: int, setup_label: str) -> go.Figure:
    """``T(k + 1) / T(1)`` against the batch, one line per model (the target, a dense model of its
    active size): how much dearer a verify pass over k + 1 positions is than a decoding step."""
    traces = [
        {
            "type": "scatter",
            "x": batch,
            "y": ratio,
            "mode": "lines+markers",
            "name": name,
            "line": {"color": "#000000" if i == 0 else PALETTE[0], "width": 3 if i == 0 else 2}
            | ({} if i == 0 else {"dash": "dot"}),
            "hovertemplate": f"{name}<br>batch %{{x}}<br>T(k + 1) / T(1) = %{{y:.3f}}<extra></extra>",
        }
        for i, (name, ratio) in enumerate(ratios.items())
    ]
    # Below the rule: no ratio is under 1, so no curve can run through the label there.
    shapes, annotations = hline(1.0, {"dash": "dash", "color": "#777777"}, "free verification", below=True)
    layout = base_layout(
        f"Verification cost against the batch · k = {k}",
        height=500,
        subtitle=setup_label,
        legend="below",
        shapes=shapes,
        annotations=annotations,
        xaxis=axis("batch size (log)", type="log", tickvals=batch, ticktext=[str(b) for b in batch]),
        yaxis=axis(f"T(k + 1) / T(1), k + 1 = {k + 1}", rangemode="tozero"),
    )
    return figure(traces, layout)


def batch_context_map(
    batch: np.ndarray,
    context: np.ndarray,
    best_k: np.ndarray,
    best: np.ndarray,
    fits: np.ndarray,
    alpha: float | str,
    setup_label: str,
) -> go.Figure:
    """The best speedup over (batch, context) as a heatmap, each cell labelled with its best k.

    ``best_k``, ``best`` and ``fits`` have one row per context and one column per batch. Cells
    where no k pays read "–" (the schedule's k = 0); cells whose target does not fit in memory
    are marked "*". Colours diverge at 1: blue speeds up, red slows down.
    """
    labels = np.where(best > 1.0, best_k.astype(str), "–")
    labels = np.where(fits, labels, np.char.add(labels, "*"))
    rows = [format_count(int(c)) for c in context]
    top = max(float(np.max(best)), 1.05)
    heat = {
        "type": "heatmap",
        "z": best,
        "x": [str(b) for b in batch],
        "y": rows,
        "text": labels,
        "texttemplate": "%{text}",
        "customdata": best_k,
        "hovertemplate": "batch %{x}, context %{y}<br>best k = %{customdata}: %{z:.3f}×<extra></extra>",
        "colorscale": [[0.0, "#B2182B"], [min(0.999, 1 / top), "#F7F7F7"], [1.0, "#2166AC"]],
        "zmin": 0.0,
        "zmax": top,
        "colorbar": {"title": {"text": "speedup ×"}},
        "name": "best speedup by batch and context",
    }
    layout = base_layout(
        f"Best k and speedup over batch and context · {acceptance_label(alpha)}",
        height=520,
        subtitle=setup_label,
        legend="none",
        # Rotated batch labels, six-digit contexts and the colour bar: margins that hold them at
        # half of 1600 px, so plotly.js lays the chart out once.
        xaxis=axis("batch size  (–: no k pays, *: does not fit)", type="category", tickangle=-90),
        yaxis=axis("context (cached tokens)", type="category"),
        margin={"l": 130, "r": 160, "b": 170},
    )
    return figure([heat], layout)
