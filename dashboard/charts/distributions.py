"""Charts of distributions: rejection sampling's emitted tokens, and acceptance against KL."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts.style import BOUND_COLOURS, PALETTE, axis, base_layout, figure
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


def alpha_vs_kl(
    kl: np.ndarray,
    alpha: np.ndarray,
    bounds: Mapping[str, tuple[np.ndarray, np.ndarray]],
    log_x: bool,
    vocab_size: int,
    seed: int,
) -> go.Figure:
    """Scatter of acceptance rate against KL(p‖q) for random pairs, with lower-bound curves.

    ``bounds`` maps a curve's legend name to its ``(kl, alpha)`` points.
    """
    traces = [
        {
            "type": "scatter",
            "x": kl,
            "y": alpha,
            "mode": "markers",
            "name": "random (p, q) pair",
            # Overlaps show through the opacity, not a white outline: plotly.js strokes and
            # paints each point's outline as an SVG path of its own on every redraw.
            "marker": {"size": 8, "color": PALETTE[0], "opacity": 0.75},
            "customdata": np.stack([np.arange(kl.size), 1 - alpha], axis=1),
            "hovertemplate": "pair #%{customdata[0]}<br>KL(p‖q) = %{x:.4f} nats<br>α = %{y:.4f}"
            "<br>TV = 1 − α = %{customdata[1]:.4f}<extra></extra>",
        }
    ]
    for i, (name, (x, y)) in enumerate(bounds.items()):
        traces.append(
            {
                "type": "scatter",
                "x": x,
                "y": y,
                "mode": "lines",
                "name": name,
                "line": {"color": BOUND_COLOURS[i % 2], "width": 3, "dash": "dash" if i else "solid"},
                "hovertemplate": f"{name}<br>KL = %{{x:.4f}}<br>α ≥ %{{y:.4f}}<extra></extra>",
            }
        )
    layout = base_layout(
        "Acceptance rate vs KL divergence",
        subtitle=f"{kl.size} pairs, vocabulary {vocab_size}, seed {seed}",
        xaxis=axis("KL(p ‖ q) in nats" + (" (log)" if log_x else ""), type="log" if log_x else "linear"),
        yaxis=axis("acceptance rate α = Σ min(p, q)", range=[0, 1.02]),
    )
    return figure(traces, layout)
