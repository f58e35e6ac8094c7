"""The Acceptance vs divergence page's chart: α against KL(p‖q) for random pairs, with lower bounds."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from dashboard.charts.style import BOUND_COLOURS, PALETTE, axis, base_layout, figure


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
