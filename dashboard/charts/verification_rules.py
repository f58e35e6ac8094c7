"""The Verification rules page's charts: α per rule, α against temperature, first-token laws, block vs token."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts.style import CHOSEN_COLOUR, PALETTE, axis, base_layout, figure, vline


def rule_alphas(alphas: Mapping[str, float], subtitle: str) -> go.Figure:
    """α of each rule as one bar each."""
    names = list(alphas)
    trace = {
        "type": "bar",
        "x": names,
        "y": [alphas[n] for n in names],
        "marker": {"color": [PALETTE[i % len(PALETTE)] for i in range(len(names))]},
        "hovertemplate": "%{x}<br>α = %{y:.4f}<extra></extra>",
        "name": "α",
    }
    layout = base_layout(
        "Acceptance rate α by rule", subtitle=subtitle, legend="none", yaxis=axis("α", range=[0, 1.02])
    )
    return figure([trace], layout)


def alpha_against_temperature(
    temperatures: np.ndarray, alphas: Mapping[str, np.ndarray], chosen: float, subtitle: str
) -> go.Figure:
    """α of each rule against the temperature, the chosen temperature marked."""
    traces = [
        {
            "type": "scatter",
            "x": temperatures,
            "y": values,
            "mode": "lines",
            "name": name,
            "line": {"color": PALETTE[i % len(PALETTE)], "width": 3},
            "hovertemplate": f"{name}<br>T = %{{x:.2f}}<br>α = %{{y:.4f}}<extra></extra>",
        }
        for i, (name, values) in enumerate(alphas.items())
    ]
    shapes, annotations = vline(chosen, {"color": CHOSEN_COLOUR, "dash": "dot", "width": 2}, f" T = {chosen:g}")
    layout = base_layout(
        "α against temperature",
        subtitle=subtitle,
        xaxis=axis("temperature T (both models)"),
        yaxis=axis("α", range=[0, 1.02]),
        shapes=shapes,
        annotations=annotations,
    )
    return figure(traces, layout)


def first_token_laws(labels: Sequence[str], p: np.ndarray, laws: Mapping[str, np.ndarray], subtitle: str) -> go.Figure:
    """The first emitted token's law under each rule, grouped beside the target p."""
    traces = [
        {
            "type": "bar",
            "x": list(labels),
            "y": p,
            "name": "target p",
            "marker": {"color": "#000000"},
            "hovertemplate": "p(%{x}) = %{y:.4f}<extra></extra>",
        }
    ]
    for i, (name, law) in enumerate(laws.items()):
        traces.append(
            {
                "type": "bar",
                "x": list(labels),
                "y": law,
                "name": name,
                "marker": {"color": PALETTE[i % len(PALETTE)]},
                "hovertemplate": f"{name}<br>P(%{{x}}) = %{{y:.4f}}<extra></extra>",
            }
        )
    layout = base_layout(
        "First token's law under each rule",
        subtitle=subtitle,
        legend_rows=3,  # p and a bar a rule, the lossy ones named with their settings
        barmode="group",
        xaxis=axis("token"),
        yaxis=axis("probability", range=[0, 1.02]),
    )
    return figure(traces, layout)


def block_against_token(ks: np.ndarray, token: np.ndarray, block: np.ndarray, subtitle: str) -> go.Figure:
    """Expected accepted draft tokens per iteration over k, token against block verification."""
    traces = [
        {
            "type": "scatter",
            "x": ks,
            "y": values,
            "mode": "lines+markers",
            "name": name,
            "line": {"color": PALETTE[i], "width": 3},
            "hovertemplate": f"{name}<br>k = %{{x}}<br>accepted = %{{y:.4f}}<extra></extra>",
        }
        for i, (name, values) in enumerate((("token verification", token), ("block verification", block)))
    ]
    layout = base_layout(
        "Block against token verification",
        subtitle=subtitle,
        xaxis=axis("draft length k", dtick=1),
        yaxis=axis("expected accepted draft tokens per iteration"),
    )
    return figure(traces, layout)
