"""The (α, c) maps: the optimal draft length and the best speedup over the whole grid.

Drawn by ECharts under a fixed key (``dashboard/charts/echart.py``): a press of α or c moves only
the marker, and a keyed chart takes the new option in place where a plotly chart was remounted.
The heatmap lies on two category axes (one category per grid point: ECharts draws a cartesian
heatmap only on category axes); the contour lines, their labels and the marker lie on a second,
hidden grid of value axes over the same box, in α and log10(c), spanning the cells' outer edges.
"""

from __future__ import annotations

import numpy as np
import plotly.colors

from dashboard.charts import echart
from dashboard.charts.contours import speedup_contours
from dashboard.charts.style import FONT_SIZE
from dashboard.params import format_number

C_TICKS = (1, 2, 5, 10, 20, 50, 100, 200)
ALPHA_TICKS = (0, 0.2, 0.4, 0.6, 0.8, 1)
#: The maps' hovers print a speedup to 3 decimals and c to 3 significant digits.
SPEEDUP_DECIMALS = 3
C_DIGITS = 3
HEIGHT = 620
#: An X drawn as one filled outline (ECharts' own symbols have none, and a path symbol is filled).
CROSS = "path://M0,2L2,0L10,8L18,0L20,2L12,10L20,18L18,20L10,12L2,20L0,18L8,10Z"


def _edges(grid: np.ndarray) -> tuple[float, float]:
    """The outer edges of an evenly spaced grid's first and last cells."""
    half = (grid[-1] - grid[0]) / (grid.size - 1) / 2
    return float(grid[0] - half), float(grid[-1] + half)


def _nearest(grid: np.ndarray, ticks) -> list[int]:
    return [int(np.abs(grid - t).argmin()) for t in ticks]


def _category(name: str, labels: list[str], shown: list[int]) -> dict:
    axis = echart.category_axis(name, labels)
    axis["axisLabel"] |= {"rotate": 0, "customValues": shown}
    axis["axisTick"] = {"customValues": shown, "alignWithLabel": True}
    return axis | {"splitLine": {"show": False}}


def _map(title, subtitle, z, other, names, palette, alpha_grid, c_grid, alpha, c, current, extra_series) -> dict:
    log_c = np.log10(c_grid)
    rows, cols = np.indices(z.shape)
    # One row a cell: its column (α) and row (c) index, the mapped value, the other map's value, and
    # α and c as the hover prints them.
    data = np.column_stack([cols.ravel(), rows.ravel(), z.ravel(), np.asarray(other, dtype=float).ravel()]).tolist()
    alpha_text = [f"{a:.2f}" for a in alpha_grid]
    c_text = [f"{v:.{C_DIGITS}g}" for v in c_grid]
    for row in data:
        row[0], row[1] = int(row[0]), int(row[1])
    heat = {
        "type": "heatmap",
        "name": "",
        "data": data,
        "dimensions": ["α", "c", names[0], names[1]],
        "encode": {"x": 0, "y": 1, "tooltip": [0, 1, 2, 3]},
        "progressive": 0,
        "emphasis": {"disabled": True},
    }
    colours = [colour for _, colour in plotly.colors.get_colorscale(palette)]
    k_star, best = current
    you = {
        "type": "scatter",
        "name": "your α, c",
        "xAxisIndex": 1,
        "yAxisIndex": 1,
        "symbol": CROSS,
        "symbolSize": 20,
        "itemStyle": {"color": "#FFFFFF", "borderColor": "#333333", "borderWidth": 0.5},
        "data": [
            echart.point(
                [float(alpha), float(np.log10(c))],
                f"your α = {format_number(alpha)}, c = {format_number(c)}\noptimal k = {k_star}, speedup {best:.2f}×",
            )
        ],
        "label": {
            "show": True,
            "formatter": f"α = {format_number(alpha)}, c = {format_number(c)}: k* = {k_star}, {best:.2f}×",
            "position": "left" if alpha > 0.5 else "right",
            "backgroundColor": "rgba(255,255,255,0.9)",
            "padding": 4,
            "fontSize": FONT_SIZE,
            "color": "#111111",
        },
        "z": 5,
    }
    x_low, x_high = _edges(alpha_grid)
    y_low, y_high = _edges(log_c)
    spec = echart.option(
        title,
        [heat, *extra_series, you],
        [
            _category("acceptance rate α", alpha_text, _nearest(alpha_grid, ALPHA_TICKS)),
            {"type": "value", "gridIndex": 1, "min": x_low, "max": x_high, "show": False},
        ],
        [
            _category("cost ratio c = target step / draft step (log scale)", c_text, _nearest(c_grid, C_TICKS)),
            {"type": "value", "gridIndex": 1, "min": y_low, "max": y_high, "show": False},
        ],
        subtitle=subtitle,
        legend=False,
    )
    box = spec["grid"] | {"left": 80, "right": 130}
    spec["grid"] = [box, box]
    spec["visualMap"] = {
        "type": "continuous",
        "seriesIndex": 0,
        "dimension": 2,
        "min": float(np.min(z)),
        "max": float(np.max(z)),
        "inRange": {"color": colours},
        "calculable": False,
        "right": 10,
        "top": "middle",
        "itemHeight": 300,
        "text": [f"{format_number(float(np.max(z)))}  {names[0]}", format_number(float(np.min(z)))],
        "textStyle": {"fontSize": FONT_SIZE - 2, "color": "#111111"},
        "precision": 2,
    }
    return spec


def _lines(contours: list[dict]) -> list[dict]:
    """The contour traces (plotly-shaped, :func:`speedup_contours`) as series on the hidden grid."""
    lines, labels = contours
    xs, ys = np.asarray(lines["x"], dtype=float), np.asarray(lines["y"], dtype=float)
    line = {
        "type": "line",
        "name": lines["name"],
        "xAxisIndex": 1,
        "yAxisIndex": 1,
        "data": [[float(a), echart.finite(b)] if np.isfinite(a) else [None, None] for a, b in zip(xs, ys, strict=True)],
        "showSymbol": False,
        "connectNulls": False,
        "silent": True,
        "lineStyle": {"color": "#FFFFFF", "width": 1.5},
        "z": 3,
        "tooltip": {"show": False},
    }
    where = {"middle left": "left", "middle right": "right", "middle center": "inside"}
    text = {
        "type": "scatter",
        "name": labels["name"],
        "xAxisIndex": 1,
        "yAxisIndex": 1,
        "symbolSize": 0,
        "silent": True,
        "z": 4,
        "data": [
            {"value": [float(a), float(b)], "name": t, "label": {"position": where[p]}}
            for a, b, t, p in zip(labels["x"], labels["y"], labels["text"], labels["textposition"], strict=True)
        ],
        "label": {
            "show": True,
            "formatter": "{b}",
            "color": "#FFFFFF",
            "fontSize": 14,
            "fontWeight": "bold",
            "textShadowColor": "#000000",
            "textShadowBlur": 3,
        },
        "tooltip": {"show": False},
    }
    return [line, text]


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
) -> dict:
    """Heatmap of the optimal draft length over (alpha, c), with contours of the best speedup.

    ``k_star`` and ``best`` have shape ``(c_grid.size, alpha_grid.size)``, as
    ``optimal_k(alpha_grid, c_grid[:, None])`` returns them; ``current`` is ``optimal_k`` at
    the user's (alpha, c). ``contours`` is :func:`speedup_contours` of the same grid, computed
    here when not given (a caller can keep it: it does not depend on the user's point).
    """
    if contours is None:
        contours = speedup_contours(alpha_grid, c_grid, best)
    subtitle = f"searching k = 1 … {max_k}; white lines: best speedup (×)"
    return _map(
        "Optimal draft length k*", subtitle, k_star, best, ("optimal k", "speedup ×"), "Viridis",
        alpha_grid, c_grid, alpha, c, current, _lines(contours),
    )  # fmt: skip


def best_speedup_map(
    alpha_grid: np.ndarray,
    c_grid: np.ndarray,
    k_star: np.ndarray,
    best: np.ndarray,
    alpha: float,
    c: float,
    current: tuple[int, float],
    max_k: int,
) -> dict:
    """Heatmap of the best achievable speedup over (alpha, c); arguments as :func:`optimal_k_map`."""
    # Where speculation stops paying: below the line it is slower than plain decoding.
    break_even = speedup_contours(alpha_grid, c_grid, best, levels=np.array([1.0]))
    subtitle = f"searching k = 1 … {max_k}; white line: speedup 1× (below it, slower than plain decoding)"
    # Cividis: lightness grows with the speedup, and the scale reads the same to colour-blind eyes.
    return _map(
        "Best achievable speedup", subtitle, best, k_star, ("speedup ×", "at k"), "Cividis",
        alpha_grid, c_grid, alpha, c, current, _lines(break_even),
    )  # fmt: skip
