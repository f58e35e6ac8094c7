"""The (α, c) maps: the optimal draft length and the best speedup over the whole grid.

Drawn by ECharts under a fixed key (``dashboard/charts/echart.py``): a press of α or c moves only
the marker, and a keyed chart takes the new option in place where a plotly chart was remounted.
The cells are one picture filling the plot (``_png``); the axes under it are category axes, one
category a grid point, labelled at the ticks; the contour lines, their labels and the marker lie
on a second, hidden grid of value axes over the same box, in α and log10(c), spanning the cells'
outer edges. The cells have no hover: the picture is silent; the marker has its own. The colour
bar beside them is painted the same way (``_colour_bar``), so each of its colours is a cell's.
"""

from __future__ import annotations

import base64
import functools
import struct
import zlib

import numpy as np
import plotly.colors

from dashboard.charts import echart
from dashboard.charts.contours import speedup_contours
from dashboard.charts.style import FONT_SIZE
from dashboard.params import format_number

C_TICKS = (1, 2, 5, 10, 20, 50, 100, 200)
ALPHA_TICKS = (0, 0.2, 0.4, 0.6, 0.8, 1)
HEIGHT = 620
#: Most labels on the colour bar: every k at the default max k of 20.
BAR_LABELS = 21
#: An X drawn as one filled outline (ECharts' own symbols have none, and a path symbol is filled).
CROSS = "path://M0,2L2,0L10,8L18,0L20,2L12,10L20,18L18,20L10,12L2,20L0,18L8,10Z"


def _edges(grid: np.ndarray) -> tuple[float, float]:
    """The outer edges of an evenly spaced grid's first and last cells."""
    half = (grid[-1] - grid[0]) / (grid.size - 1) / 2
    return float(grid[0] - half), float(grid[-1] + half)


def _category(name: str, labels: list[str]) -> dict:
    axis = echart.category_axis(name, labels)
    axis["axisLabel"] |= {"rotate": 0}
    return axis | {"axisTick": {"show": False}, "splitLine": {"show": False}}


def _png(z: np.ndarray, colours: list[str], scale: int = 8) -> str:
    """:func:`_painted`, kept for the few grids a session shows (a press of α or c keeps the grid)
    with their colour bars."""
    return _painted(np.ascontiguousarray(z).tobytes(), z.shape, z.dtype.str, tuple(colours), scale)


def _picture(name: str, symbol: str, index: int) -> tuple[dict, dict, dict]:
    """A picture (``symbol``, :func:`_png`) filling the box of grid ``index``: a bar of length 1 on
    a value axis 0 … 1 over a category axis of one. Returns the series and its hidden x and y axes."""
    series = {
        "type": "pictorialBar",
        "name": name,
        "xAxisIndex": index,
        "yAxisIndex": index,
        "data": [1],
        "symbol": symbol,
        "symbolSize": ["100%", "100%"],
        "symbolPosition": "start",
        "barCategoryGap": "0%",
        "silent": True,
    }
    x_axis = {"type": "category", "gridIndex": index, "data": [""], "show": False}
    return series, x_axis, {"type": "value", "gridIndex": index, "min": 0, "max": 1, "show": False}


@functools.lru_cache(maxsize=16)
def _painted(data: bytes, shape: tuple[int, int], dtype: str, colours: tuple[str, ...], scale: int = 8) -> str:
    """The grid ``data`` (``shape``, ``dtype``) painted through ``colours`` (evenly spaced stops),
    row 0 at the bottom, each cell ``scale`` pixels square, as a PNG data URL (stdlib zlib: no
    imaging package needed)."""
    z = np.frombuffer(data, dtype=dtype).reshape(shape)
    stops = np.array([[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in colours], dtype=float)
    low, high = float(np.min(z)), float(np.max(z))
    t = (np.asarray(z, dtype=float) - low) / ((high - low) or 1.0) * (len(colours) - 1)
    rgb = np.stack([np.interp(t, np.arange(len(colours)), stops[:, i]) for i in range(3)], axis=-1)
    pixels = np.repeat(np.repeat(rgb[::-1].round().astype(np.uint8), scale, axis=0), scale, axis=1)
    height, width = pixels.shape[:2]
    raw = b"".join(b"\x00" + row.tobytes() for row in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    return "image://data:image/png;base64," + base64.b64encode(png).decode()


def _bar_rows(z: np.ndarray) -> tuple[np.ndarray, list]:
    """The colour bar's rows, lowest first, and the values labelled on it, both ends among them.

    An integer map (k*) gets one row a value, each labelled while they fit (``BAR_LABELS``), else
    every 2nd, 5th, 10th …; a real-valued one (the speedup) 101 rows evenly from its lowest value to
    its highest, labelled at round values (at most ``BAR_LABELS // 2``).
    """
    whole = np.issubdtype(z.dtype, np.integer)
    low, high = z.min().item(), z.max().item()
    most = BAR_LABELS if whole else BAR_LABELS // 2
    steps = (m * 10**e for e in range(0 if whole else -2, 6) for m in (1, 2, 5))
    step = next(s for s in steps if (high - low) / s < most - 1)
    inner = np.round(np.arange(np.floor(low / step) + 1, np.ceil(high / step)) * step, 6)
    # An inner label within half a step of an end would crowd the end's (1 and 2 on a bar of 40 bands).
    labelled = sorted({low, high, *inner[(inner - low > step / 2) & (high - inner > step / 2)].tolist()})
    if whole:
        return np.arange(low, high + 1), [int(v) for v in labelled]
    return np.linspace(low, high, 101), labelled


def _colour_bar(z: np.ndarray, name: str, colours: list[str], box: dict) -> tuple[list, list, list, dict]:
    """The colour bar right of the plot, its height the plot's: its rows (``_bar_rows``) painted as
    the map's cells are (``_png``, the same lowest and highest value), so a cell's colour is found
    on it, and labelled on a category axis beside it, as the map's axes are. Returns its two grids
    (the picture's and the labels'), their x axes, their y axes and the picture's series."""
    rows, labelled = _bar_rows(z)
    texts = [format_number(v) if float(v).is_integer() else f"{v:.3g}" for v in labelled]
    grid = {"top": box["top"], "bottom": box["bottom"], "right": 70, "width": 18}
    # A square picture (each row one value across), as the map's: the browser fits a picture into
    # its square box keeping its shape before ECharts stretches the box, so a narrow one would be a
    # hairline. Rows tall enough that the browser's smoothing blurs no band.
    square = np.repeat(rows[:, None], rows.size, axis=1)
    picture, x_axis, y_axis = _picture("colour bar", _png(square, colours, max(8, -(-512 // rows.size))), 3)
    labels = _category(name, _ticks(rows, labelled, texts)) | {
        "gridIndex": 4,
        "position": "right",
        "nameLocation": "end",
        "nameGap": 12,
        "axisLine": {"show": False},
    }
    return (
        [grid, grid],
        [x_axis, {"type": "category", "gridIndex": 4, "data": [""], "show": False}],
        [y_axis, labels],
        picture,
    )


def _ticks(grid: np.ndarray, ticks, texts=None) -> list[str]:
    """One label a grid point: each tick's text at the grid point nearest it (within half a cell),
    the others blank."""
    labels = [""] * grid.size
    for tick, text in zip(ticks, texts or [format_number(t) for t in ticks], strict=True):
        labels[int(np.abs(grid - tick).argmin())] = text
    return labels


def _map(title, subtitle, z, name, palette, alpha_grid, c_grid, alpha, c, current, extra_series) -> dict:
    """The map: ``z`` painted as one image (a picture bar filling the plot), the lines and the
    user's point on the hidden value grid over it.

    One image, not a heatmap series: ECharts builds and redraws every one of a heatmap's 10,201
    cells on each update (3.5x the bare page against 1.7x; docs/performance.md, 2026-12-05).
    """
    log_c = np.log10(c_grid)
    colours = [colour for _, colour in plotly.colors.get_colorscale(palette)]
    image, image_x, image_y = _picture("map", _png(z, colours), 2)
    image["z"] = 1
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
        [image, *extra_series, you],
        [
            _category("acceptance rate α", _ticks(alpha_grid, ALPHA_TICKS)),
            {"type": "value", "gridIndex": 1, "min": x_low, "max": x_high, "show": False},
            image_x,
        ],
        [
            _category(
                "cost ratio c = target step / draft step (log scale)",
                _ticks(log_c, np.log10(C_TICKS), [format_number(v) for v in C_TICKS]),
            ),
            {"type": "value", "gridIndex": 1, "min": y_low, "max": y_high, "show": False},
            image_y,
        ],
        subtitle=subtitle,
        legend=False,
    )
    box = spec["grid"] | {"left": 80, "right": 130}
    grids, x_axes, y_axes, bar = _colour_bar(z, name, colours, box)
    spec["grid"] = [box, box, box, *grids]
    spec["xAxis"] = [*spec["xAxis"], *x_axes]
    spec["yAxis"] = [*spec["yAxis"], *y_axes]
    spec["series"] = [*spec["series"], bar]
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
        "Optimal draft length k*", subtitle, k_star, "optimal k", "Viridis",
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
        "Best achievable speedup", subtitle, best, "speedup ×", "Cividis",
        alpha_grid, c_grid, alpha, c, current, _lines(break_even),
    )  # fmt: skip
