"""The Acceptance vs divergence page's chart: α against KL(p‖q) for random pairs, with lower bounds.

An ECharts option (``dashboard.charts.echart``): a press of the pairs slider redraws up to
thousands of points, which a plotly chart could only do by remounting.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from dashboard.charts.echart import hover_points, line, option, scatter, value_axis
from dashboard.charts.style import BOUND_COLOURS, PALETTE


def alpha_vs_kl(
    kl: np.ndarray,
    alpha: np.ndarray,
    bounds: Mapping[str, tuple[np.ndarray, np.ndarray]],
    log_x: bool,
    vocab_size: int,
    seed: int,
) -> dict:
    """Scatter of acceptance rate against KL(p‖q) for random pairs, with lower-bound curves.

    ``bounds`` maps a curve's legend name to its ``(kl, alpha)`` points.
    """
    hover = [
        f"pair #{i}\nKL(p‖q) = {d:.4f} nats\nα = {a:.4f}\nTV = 1 − α = {1 - a:.4f}"
        for i, (d, a) in enumerate(zip(kl, alpha, strict=True))
    ]
    series = [scatter("random (p, q) pair", kl, alpha, PALETTE[0], hover)]
    for i, (name, (x, y)) in enumerate(bounds.items()):
        curve = hover_points(
            line(
                name,
                x,
                y,
                BOUND_COLOURS[i % 2],
                [f"{name}\nKL = {a:.4f}\nα ≥ {b:.4f}" for a, b in zip(x, y, strict=True)],
                dash="dashed" if i else "solid",
            )
        )
        series.append(curve)
    x_axis = value_axis("KL(p ‖ q) in nats" + (" (log)" if log_x else ""))
    if log_x:
        x_axis["type"] = "log"
    return option(
        "Acceptance rate vs KL divergence",
        series,
        x_axis,
        value_axis("acceptance rate α = Σ min(p, q)", low=0, high=1.02),
        subtitle=f"{kl.size} pairs, vocabulary {vocab_size}, seed {seed}",
    )
