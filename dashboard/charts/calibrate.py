"""What a pasted sweep measured: the mean acceptance length against the draft length."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from dashboard.charts.style import PALETTE, axis, base_layout, figure


def acceptance_length_curve(
    k: np.ndarray,
    mean_length: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    profile_tokens: np.ndarray,
    line_name: str = "1 + Σ u_i of the profile",
) -> go.Figure:
    """Measured L(k) with its interval as error bars, and the expected tokens a model gives at every k
    from 1 to the longest measured (``profile_tokens[i]`` at k = i + 1), named ``line_name``.

    Points without an interval (NaN ends) are drawn without bars.
    """
    known = ~np.isnan(low)
    bars = {
        "type": "data",
        "symmetric": False,
        "array": np.where(known, high - mean_length, 0.0),
        "arrayminus": np.where(known, mean_length - low, 0.0),
        "color": PALETTE[0],
    }
    every = np.arange(1, profile_tokens.size + 1)
    traces = [
        {
            "type": "scatter",
            "x": every,
            "y": profile_tokens,
            "mode": "lines",
            "name": line_name,
            "line": {"color": PALETTE[2], "dash": "dot", "width": 3},
            "hovertemplate": "k = %{x}<br>%{y:.3f} tokens a step<extra></extra>",
        },
        {
            "type": "scatter",
            "x": k,
            "y": mean_length,
            "mode": "markers",
            "name": "measured, 95% interval",
            "marker": {"size": 11, "color": PALETTE[0]},
            "error_y": bars,
            "hovertemplate": "k = %{x}<br>%{y:.3f} tokens a step (measured)<extra></extra>",
        },
    ]
    layout = base_layout(
        f"Mean acceptance length against k · {k.size} draft lengths measured",
        height=500,
        legend="below",
        xaxis=axis("draft length k", dtick=1),
        yaxis=axis("tokens per verification step (bonus included)"),
    )
    return figure(traces, layout)
