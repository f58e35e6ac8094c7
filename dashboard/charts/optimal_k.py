"""The (α, c) maps: the optimal draft length and the best speedup over the whole grid."""

from __future__ import annotations

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from dashboard.charts.contours import speedup_contours
from dashboard.charts.rounding import C_DIGITS, SPEEDUP_DECIMALS, as_shown
from dashboard.charts.style import FONT_SIZE, TICK_LABELS, axis, base_layout, beside_marker, figure
from dashboard.params import format_number

C_TICKS = (1, 2, 5, 10, 20, 50, 100, 200)
_SPEEDUP_FORMAT = f".{SPEEDUP_DECIMALS}f"
_C_HOVER = f"c = %{{customdata[1]:.{C_DIGITS}g}}"


def _map_layout(
    title: str, subtitle: str, alpha_grid: np.ndarray, alpha: float, c: float, k_star: int, best: float
) -> dict:
    """Axes of an (α, c) map and the annotation at the user's point.

    The c axis is linear in log10(c), labelled in c: plotly.js then paints a heatmap on an evenly
    spaced grid as one image of grid cells, scaled up pixelated. On a log axis it paints every
    cell into a canvas of the plot's size and encodes that as a PNG on each redraw, which every
    slider move would wait for. Every y of a map is log10(c).
    """
    you = {
        "x": alpha,
        "y": np.log10(c),
        "text": f"α = {format_number(alpha)}, c = {format_number(c)}: k* = {k_star}, {best:.2f}×",
        **beside_marker(left=alpha > 0.5),
        "bgcolor": "rgba(255,255,255,0.9)",
        "font": {"size": FONT_SIZE},
    }
    return base_layout(
        title,
        height=620,
        subtitle=subtitle,
        legend="none",
        margin={"r": 140},  # the colour bar, its ticks and its title
        annotations=[you],
        xaxis=axis("acceptance rate α", range=[float(alpha_grid[0]), float(alpha_grid[-1])]),
        yaxis=axis(
            "cost ratio c = target step / draft step (log scale)",
            tickvals=np.log10(C_TICKS),
            ticktext=[format_number(v) for v in C_TICKS],
        ),
    )


def _heatmap(z, alpha_grid, c_grid, other, hovertemplate: str, colorbar_title: str, colorscale: str) -> dict:
    """A map's heatmap; its hover reads ``other`` (the other grid, as shown) and c from ``customdata``."""
    c_cells = np.broadcast_to(as_shown(c_grid, digits=C_DIGITS)[:, None], z.shape)
    return {
        "type": "heatmap",
        "z": z,
        "x": alpha_grid,
        "y": np.log10(c_grid),
        "customdata": np.stack([np.asarray(other, dtype=np.float32), c_cells], axis=-1),
        "hovertemplate": hovertemplate,
        # The stops plotly.py's validation would give the named scale (plotly.js's own differ).
        "colorscale": plotly.colors.get_colorscale(colorscale),
        "colorbar": {"title": {"text": colorbar_title}, **TICK_LABELS},
        "name": "",
    }


def _your_point(alpha: float, c: float, k_star: int, best: float) -> dict:
    return {
        "type": "scatter",
        "x": [alpha],
        "y": [np.log10(c)],
        "mode": "markers",
        "name": "your α, c",
        "marker": {"symbol": "x-thin", "size": 22, "line": {"width": 4, "color": "#FFFFFF"}},
        "hovertemplate": f"your α = {format_number(alpha)}, c = {format_number(c)}<br>"
        f"optimal k = {k_star}, speedup {best:.2f}×<extra></extra>",
        "showlegend": False,
    }


def optimal_k_map(
    alpha_grid: np.ndarray,
    c_grid: np.ndarray,
    k_star: np.ndarray,
    best: np.ndarray,
    alpha: float,
    c: float,
    current: tuple[int, float],
    max_k: int,
    contours: list[dict] | None = None,
) -> go.Figure:
    """Heatmap of the optimal draft length over (alpha, c), with contours of the best speedup.

    ``k_star`` and ``best`` have shape ``(c_grid.size, alpha_grid.size)``, as
    ``optimal_k(alpha_grid, c_grid[:, None])`` returns them; ``current`` is ``optimal_k`` at
    the user's (alpha, c). ``contours`` is :func:`speedup_contours` of the same grid, computed
    here when not given (a caller can keep it: it does not depend on the user's point).
    """
    heat = _heatmap(
        k_star,
        alpha_grid,
        c_grid,
        as_shown(best, decimals=SPEEDUP_DECIMALS),
        f"α = %{{x:.3f}}<br>{_C_HOVER}<br>optimal k = %{{z}}<br>speedup %{{customdata[0]:{_SPEEDUP_FORMAT}}}×"
        "<extra></extra>",
        "optimal k",
        "Viridis",
    )
    if contours is None:
        contours = speedup_contours(alpha_grid, c_grid, best)
    subtitle = f"searching k = 1 … {max_k}; white lines: best speedup (×)"
    layout = _map_layout("Optimal draft length k*", subtitle, alpha_grid, alpha, c, *current)
    return figure([heat, *contours, _your_point(alpha, c, *current)], layout)


def best_speedup_map(
    alpha_grid: np.ndarray,
    c_grid: np.ndarray,
    k_star: np.ndarray,
    best: np.ndarray,
    alpha: float,
    c: float,
    current: tuple[int, float],
    max_k: int,
) -> go.Figure:
    """Heatmap of the best achievable speedup over (alpha, c); arguments as :func:`optimal_k_map`."""
    heat = _heatmap(
        as_shown(best, decimals=SPEEDUP_DECIMALS),
        alpha_grid,
        c_grid,
        k_star,
        f"α = %{{x:.3f}}<br>{_C_HOVER}<br>best speedup %{{z:{_SPEEDUP_FORMAT}}}×<br>at k = %{{customdata[0]}}"
        "<extra></extra>",
        "speedup ×",
        "Magma",
    )
    layout = _map_layout("Best achievable speedup", f"searching k = 1 … {max_k}", alpha_grid, alpha, c, *current)
    return figure([heat, _your_point(alpha, c, *current)], layout)
