"""What the simulator measures: tokens per target call and acceptance by draft position (the
calibrate page draws the latter for an engine's measured rates too).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from dashboard.charts.style import CHOSEN_COLOUR, PALETTE, axis, base_layout, figure


def _position_axis(title: str, k: int) -> dict:
    """An axis of whole positions 1 … k: a tick at each while they fit."""
    return axis(title, dtick=1) if k <= 20 else axis(title)


def tokens_per_call(emitted_counts: np.ndarray, pmf: np.ndarray, alpha_fit: float, k: int) -> go.Figure:
    """Histogram of tokens emitted per target call against the i.i.d. law at the fitted alpha.

    ``emitted_counts[n - 1]`` and ``pmf[n - 1]`` are for n = 1 … k + 1 tokens.
    """
    n = np.arange(1, k + 2)
    iterations = int(emitted_counts.sum())
    traces = [
        {
            "type": "bar",
            "x": n,
            "y": emitted_counts / iterations,
            "name": "measured",
            "marker": {"color": PALETTE[0]},
            "hovertemplate": "%{x} tokens: %{y:.4f} of calls<extra></extra>",
        },
        {
            "type": "scatter",
            "x": n,
            "y": pmf,
            "mode": "markers+lines",
            "name": f"i.i.d. law at fitted α = {alpha_fit:.3f}",
            "marker": {"size": 10, "color": CHOSEN_COLOUR},
            "line": {"dash": "dot", "color": CHOSEN_COLOUR},
            "hovertemplate": "%{x} tokens: %{y:.4f} predicted<extra></extra>",
        },
    ]
    layout = base_layout(
        f"Tokens per target call · k = {k}, {iterations:,} target calls",
        height=500,
        legend="below",
        xaxis=_position_axis("tokens emitted in one iteration (accepted + 1)", k),
        yaxis=axis("share of target calls"),
    )
    return figure(traces, layout)


def position_acceptance(unconditional: np.ndarray, conditional: np.ndarray, alpha_fit: float) -> go.Figure:
    """Per-position acceptance, both ways engines and papers define it, against i.i.d. alpha.

    Unconditional (vLLM's per-position rate): P(at least i + 1 accepted), alpha^(i+1) if i.i.d.
    Conditional: P(position i accepted | position i - 1 accepted), alpha at every i if i.i.d.
    """
    k = unconditional.size
    position = np.arange(1, k + 1)
    traces = [
        {"type": "bar", "x": position, "y": unconditional, "name": "unconditional P(≥ i accepted)"}
        | {"marker": {"color": PALETTE[0]}},
        {"type": "bar", "x": position, "y": conditional, "name": "conditional P(i | i − 1)"}
        | {"marker": {"color": PALETTE[2]}},
        {"type": "scatter", "x": position, "y": alpha_fit**position, "mode": "lines", "name": "i.i.d.: α^i"}
        | {"line": {"color": PALETTE[0], "dash": "dot", "width": 3}},
        {"type": "scatter", "x": position, "y": np.full(k, alpha_fit), "mode": "lines", "name": "i.i.d.: α"}
        | {"line": {"color": PALETTE[2], "dash": "dot", "width": 3}},
    ]
    layout = base_layout(
        f"Acceptance by draft position · fitted α = {alpha_fit:.3f}",
        height=500,
        legend="below",
        margin={"b": 175},  # four legend entries wrap to two rows in a half-width column
        barmode="group",
        xaxis=_position_axis("draft position i", k),
        yaxis=axis("acceptance", range=[0, 1.05]),
    )
    return figure(traces, layout)
