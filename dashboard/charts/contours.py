"""The optimal-k map's contour lines of the best speedup, found in numpy, and their labels."""

from __future__ import annotations

import numpy as np


def monotone_contours(x: np.ndarray, y: np.ndarray, z: np.ndarray, levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Contour lines of a grid ``z`` that never decreases along either axis, as one polyline.

    ``z[i, j]`` is the value at ``(x[j], y[i])``. Each level's line is made of the points where it
    crosses a grid edge, linearly interpolated between the edge's two ends, as marching squares
    finds them. On such a grid the line falls as x grows, so ordering its points by x, then by y
    downward, joins them in order. Lines are separated by NaN, which plotly.js leaves as a gap.

    Returns
    -------
    xs, ys : ndarray
        The polyline's coordinates.
    """
    xs, ys = [], []
    for level in levels:
        # Crossings on the vertical edges (along y in each column), then on the horizontal ones.
        px, py = _edge_crossings(z, y, level)
        qy, qx = _edge_crossings(z.T, x, level)
        line_x = np.concatenate([x[px], qx])
        line_y = np.concatenate([py, y[qy]])
        order = np.lexsort((-line_y, line_x))
        xs += [line_x[order], [np.nan]]
        ys += [line_y[order], [np.nan]]
    if not xs:
        return np.array([]), np.array([])
    return np.concatenate(xs)[:-1], np.concatenate(ys)[:-1]


def _edge_crossings(z: np.ndarray, axis: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """(column index, position along ``axis``) where each column of ``z`` first reaches ``level``."""
    below, above = z[:-1] < level, z[1:] >= level
    rows, cols = np.nonzero(below & above)
    z0, z1 = z[rows, cols], z[rows + 1, cols]
    t = (level - z0) / (z1 - z0)
    return cols, axis[rows] + t * (axis[rows + 1] - axis[rows])


def speedup_contours(
    alpha_grid: np.ndarray, c_grid: np.ndarray, best: np.ndarray, levels: np.ndarray | None = None
) -> list[dict]:
    """White lines of the best speedup at ``levels`` (default: every whole speedup) and their
    labels: two traces.

    The best speedup grows with α and with c, so its contours are found in numpy: plotly.js's own
    contour trace recomputes them on the browser's main thread at every redraw.
    """
    if levels is None:
        levels = np.arange(1.0, np.ceil(best.max()) + 1)
    line_x, line_y = monotone_contours(alpha_grid, np.log10(c_grid), best, levels)
    lines = {
        "type": "scatter",
        "x": line_x,
        "y": line_y,
        "mode": "lines",
        "line": {"color": "#FFFFFF", "width": 1.5},
        "hoverinfo": "skip",
        "showlegend": False,
        "name": "best speedup",
    }
    return [lines, _contour_labels(alpha_grid, c_grid, best, levels)]


#: How near the map's left or right edge, as a fraction of its width, a label may be centred: the
#: widest label is about 30 px wide with its halo, the map about 350 px at 1024 px with the sidebar
#: open. (The c axis is autoranged, and plotly.js's autorange makes room for the text.)
EDGE = 0.06


def _inwards(x: float) -> str:
    """Plotly's ``textposition`` for a label at ``x``, 0 to 1 across the map: centred on its point,
    or beside it on the inner side where it is within :data:`EDGE` of the left or right edge."""
    return "middle " + ("left" if x > 1 - EDGE else "right" if x < EDGE else "center")


#: A dark halo that keeps white text readable on the light end of a colour scale.
LABEL_SHADOW = "0 0 3px #000000, 0 0 3px #000000, 0 0 1px #000000"


def _contour_labels(
    alpha_grid: np.ndarray, c_grid: np.ndarray, best: np.ndarray, levels: np.ndarray, min_gap: float = 0.04
) -> dict:
    """A label for each speedup contour, where it crosses the map's diagonal: one text trace.

    The best speedup grows with both α and c, so along the diagonal from (α, c) = (first, first)
    to (last, last) it never decreases and each contour level in its range crosses it exactly
    once. A label closer than ``min_gap`` (a fraction of the diagonal) to the previous one is left
    out, so the crowded high levels near α = 1 do not overprint. A label centred near the map's
    edge would be clipped there (the highest, "15×", sits in the top right corner): it is drawn on
    the inner side of its point instead (:func:`_inwards`; the map's α axis spans the grid).
    """
    steps = min(alpha_grid.size, c_grid.size)
    rows = np.linspace(0, c_grid.size - 1, steps).round().astype(int)
    cols = np.linspace(0, alpha_grid.size - 1, steps).round().astype(int)
    along = best[rows, cols]
    along_alpha, along_log_c = alpha_grid[cols], np.log10(c_grid[rows])
    position = np.linspace(0.0, 1.0, steps)
    x, y, text, last = [], [], [], -np.inf
    for level in levels:
        if not along[0] <= level <= along[-1]:
            continue
        t = float(np.interp(level, along, position))
        if t - last < min_gap:
            continue
        last = t
        x.append(float(np.interp(t, position, along_alpha)))
        y.append(float(np.interp(t, position, along_log_c)))
        text.append(f"{level:g}×")
    # A text trace, not annotations: plotly.js measures and boxes every annotation on each
    # redraw; the shadow keeps white text readable on yellow.
    return {
        "type": "scatter",
        "x": x,
        "y": y,
        "text": text,
        "textposition": [_inwards((at - alpha_grid[0]) / (alpha_grid[-1] - alpha_grid[0])) for at in x],
        "mode": "text",
        "textfont": {"color": "#FFFFFF", "size": 14, "weight": "bold", "shadow": LABEL_SHADOW},
        "hoverinfo": "skip",
        "showlegend": False,
        "name": "best speedup labels",
    }
