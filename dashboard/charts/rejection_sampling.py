"""The Rejection sampling page's chart: emitted tokens against the target p, and the residual."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts.style import PALETTE, axis, base_layout, figure
from dashboard.params import format_count

#: Two panels sharing the token axis: 72 % and 28 % of the height with a gap of 8 %.
_PANEL_GAP = 0.08
_LOWER_PANEL = 0.28 * (1 - _PANEL_GAP)


def sampling_histogram(
    labels: Sequence[str],
    p: np.ndarray,
    q: np.ndarray,
    residual: np.ndarray,
    accepted_counts: np.ndarray,
    resampled_counts: np.ndarray,
    seed: int,
) -> go.Figure:
    """Empirical distribution of emitted tokens against the target p, with q and the residual.

    The top panel stacks, per token, the share of rounds that emitted it by accepting the
    draft and by resampling from the residual; their sum should sit on p's tick. The bottom
    panel shows the residual distribution that rejections draw from.
    """
    n = int(accepted_counts.sum() + resampled_counts.sum())
    top = {"xaxis": "x", "yaxis": "y"}
    traces = [
        {"type": "bar", "x": labels, "y": accepted_counts / n, "name": "accepted draft"}
        | {"marker": {"color": PALETTE[0]}}
        | top,
        {"type": "bar", "x": labels, "y": resampled_counts / n, "name": "resampled from residual"}
        | {"marker": {"color": PALETTE[1]}}
        | top,
        {
            "type": "scatter",
            "x": labels,
            "y": p,
            "mode": "markers",
            "name": "target p",
            "marker": {"symbol": "line-ew", "size": 34, "line": {"width": 4, "color": "#000000"}},
            "hovertemplate": "%{x}: p = %{y:.4f}<extra></extra>",
        }
        | top,
        {
            "type": "scatter",
            "x": labels,
            "y": q,
            "mode": "markers",
            "name": "draft q",
            "marker": {"symbol": "diamond-open", "size": 12, "line": {"width": 2, "color": PALETTE[3]}},
            "hovertemplate": "%{x}: q = %{y:.4f}<extra></extra>",
        }
        | top,
        {"type": "bar", "x": labels, "y": residual, "name": "residual r", "showlegend": True}
        | {"marker": {"color": PALETTE[2]}, "xaxis": "x2", "yaxis": "y2"},
    ]
    title = f"Speculative sampling: {format_count(n)} rounds, seed {seed}, {len(labels)} tokens"
    layout = base_layout(
        title,
        height=640,
        legend_rows=2,  # five entries wrap in the two thirds of a 1600 px screen the chart gets
        margin={"l": 80},  # the share axis's tick labels and title
        barmode="stack",
        xaxis={"anchor": "y", "domain": [0.0, 1.0], "matches": "x2", "showticklabels": False},
        yaxis=axis("share of rounds", anchor="x", domain=[_LOWER_PANEL + _PANEL_GAP, 1.0]),
        xaxis2=axis("token", anchor="y2", domain=[0.0, 1.0]),
        yaxis2=axis("residual r", anchor="x2", domain=[0.0, _LOWER_PANEL]),
    )
    layout["legend"]["traceorder"] = "normal"
    return figure(traces, layout)
