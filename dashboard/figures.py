"""Pure figure builders: arrays in, ``plotly.graph_objects.Figure`` out.

No Streamlit and no math beyond arranging what the caller computed with ``specmath``, so each
builder is tested by reading its traces back. Every figure's title states the parameters it
was drawn with, so a screenshot explains itself; the fonts are large enough for a projector.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.colors
import plotly.graph_objects as go
import plotly.io as pio

from dashboard.params import format_count, format_number

#: The trace types the builders use.
TRACE_TYPES = ("scatter", "bar", "heatmap")


def _white_template() -> go.layout.Template:
    """plotly_white as far as these charts use it: its layout without the polar, ternary, 3-D and
    map settings, and its defaults for the trace types the builders use only.

    Every figure carries its template, and the server copies it and the browser parses and merges
    it on each redraw: the whole of plotly_white is about 2000 Python objects a figure, most of
    the copying when a figure is sent. Charts resolve to the same attributes in plotly.js.
    """
    white = pio.templates["plotly_white"]
    layout = white.layout.to_plotly_json()
    for unused in ("polar", "ternary", "scene", "geo", "coloraxis"):
        layout.pop(unused)
    return go.layout.Template(layout=layout, data={kind: white.data[kind] for kind in TRACE_TYPES})


# Assigning a template to each figure re-validates the whole template (20-40 ms a figure, most
# of a rerun's budget); the default template is applied without that cost, so it is set once.
pio.templates["dashboard_white"] = _white_template()
pio.templates.default = "dashboard_white"

FONT_SIZE = 16
#: Okabe-Ito, readable by colour-blind viewers and on a washed-out projector.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
CHOSEN_COLOUR = "#D55E00"
SLOWER_FILL = "rgba(213, 94, 0, 0.10)"
BOUND_COLOURS = ("#D55E00", "#009E73")
C_TICKS = (1, 2, 5, 10, 20, 50, 100, 200)


def chart_config(filename: str) -> dict:
    """Plotly toolbar config: PNG export at 2x scale under a file name that says what it shows."""
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "png", "scale": 2, "filename": filename},
    }


LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.22, "xanchor": "left", "x": 0.0}


#: Whether :func:`_figure` runs plotly.py's validation. The tests turn it on and check that every
#: page's figures serialise exactly as without it (``test_app_pages``).
VALIDATE = False


def _figure(traces: list[dict], layout: dict) -> go.Figure:
    """The figure from plain trace and layout dicts, in a single constructor call.

    Building a figure step by step (``add_trace``, ``update_layout``, ``add_hline``) re-validates
    and re-merges it on every call: 25-55 ms a figure, most of a slider's wait. Validating even
    once, in one call, took 8.6 ms for the speedup chart and 1.6 ms without (plotly.py walks
    every property through its validators), so it is left to the tests: with :data:`VALIDATE`
    on, a wrong property name or value raises as before. ``_validate`` is how plotly.py builds
    its own templates unvalidated.
    """
    return go.Figure(data=traces, layout=layout, _validate=VALIDATE)


def _layout(title: str, height: int = 560, *, legend_below: bool = False, margin: dict | None = None, **extra) -> dict:
    """Title, fonts, size and legend shared by every chart; ``extra`` adds axes, shapes and the like.

    ``legend_below`` puts the legend under the plot, for figures drawn in half-width columns
    where it would cover the title. ``margin`` widens the default margins: each chart's margins
    must hold what it puts there (colour bar, tick labels, legend) at the 1600 px the tests and
    the bench use, because a margin plotly.js has to widen makes it lay the whole chart out a
    second time: the sampling chart's draw took 59 ms instead of 30 for 2 pixels.
    """
    layout = {
        "title": {"text": title, "x": 0.0, "xanchor": "left", "font": {"size": FONT_SIZE + 2}},
        "font": {"size": FONT_SIZE},
        "height": height,
        "margin": {"l": 70, "r": 30, "t": 90, "b": 130 if legend_below else 60} | (margin or {}),
        "legend": dict(LEGEND_BELOW)
        if legend_below
        else {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0},
        "hoverlabel": {"font": {"size": FONT_SIZE - 1}},
    }
    layout.update(extra)
    return layout


#: Tick labels are drawn as placed, never hidden: the margins hold them. plotly.js's default for
#: an axis hides labels that overflow the chart, measuring every label once per label placed.
TICK_LABELS = {"ticklabeloverflow": "allow"}


def _axis(title: str, **extra) -> dict:
    return {"title": {"text": title}, **TICK_LABELS, **extra}


def _hline(y: float, line: dict, label: str | None = None) -> tuple[list[dict], list[dict]]:
    """A horizontal rule across the plot at ``y``, with its label at the right end: (shapes, annotations)."""
    shape = {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": y, "y1": y, "line": line}
    annotations = []
    if label is not None:
        annotations.append(
            {"text": label, "showarrow": False, "xref": "x domain", "x": 1, "xanchor": "right"}
            | {"yref": "y", "y": y, "yanchor": "bottom"}
        )
    return [shape], annotations


def _vline(
    x: float, line: dict, label: str, side: str = "left", log_axis: bool = False
) -> tuple[list[dict], list[dict]]:
    """A vertical rule at ``x``, labelled at the top on its ``side`` ("left" puts the text right of it).

    On a log axis plotly.js places shapes by data value but annotations by the exponent.
    """
    shape = {"type": "line", "xref": "x", "x0": x, "x1": x, "yref": "y domain", "y0": 0, "y1": 1, "line": line}
    at = float(np.log10(x)) if log_axis else x
    annotation = {"text": label, "showarrow": False, "xref": "x", "x": at, "xanchor": side}
    annotation |= {"yref": "y domain", "y": 1, "yanchor": "top"}
    return [shape], [annotation]


def _slower_region(label: str | None = None) -> tuple[list[dict], list[dict]]:
    """Shade speedup < 1, where speculation is slower than plain decoding, and rule the line at 1."""
    band = {"type": "rect", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": 0, "y1": 1}
    band |= {"fillcolor": SLOWER_FILL, "line": {"width": 0}, "layer": "below"}
    annotations = []
    if label:
        annotations.append(
            {"text": label, "showarrow": False, "font": {"color": CHOSEN_COLOUR}}
            | {"xref": "x domain", "x": 1, "xanchor": "right", "yref": "y", "y": 0, "yanchor": "bottom"}
        )
    rule, _ = _hline(1, {"dash": "dash", "color": "#666666", "width": 1})
    return [band, *rule], annotations


def _beside_marker(left: bool) -> dict:
    """Where a marker's label goes: just above it, on its left or right (away from the plot's edge).

    No arrow: plotly.js measures an annotation's arrow path on every draw, which makes the browser
    lay out the whole page first (7 ms a chart).
    """
    side = {"xanchor": "right", "xshift": -14} if left else {"xanchor": "left", "xshift": 14}
    return {"showarrow": False, "yanchor": "bottom", "yshift": 10, **side}


def _best_k_stars(optima: Mapping, curves: list, name: str, hovertemplate: str) -> dict:
    """Gold stars at each curve's best (k, speedup) in ``optima``; the hover shows the curve's key."""
    return {
        "type": "scatter",
        "x": [optima[curve][0] for curve in curves],
        "y": [optima[curve][1] for curve in curves],
        "mode": "markers",
        "name": name,
        "customdata": curves,
        "marker": {"symbol": "star", "size": 16, "color": "#FFD700", "line": {"color": "#000000", "width": 1}},
        "hovertemplate": hovertemplate,
    }


def speedup_curves(
    k: np.ndarray,
    curves: Mapping[float, np.ndarray],
    optima: Mapping[float, tuple[int, float]],
    alpha: float,
    chosen_k: int,
    c: float,
) -> go.Figure:
    """Speedup against draft length, one curve per acceptance rate.

    Parameters
    ----------
    k : array of int
        Draft lengths on the x axis.
    curves : mapping alpha -> array
        ``speedup(alpha, k, c)`` for each acceptance rate; must include ``alpha``.
    optima : mapping alpha -> (k*, speedup)
        The best draft length of each curve, marked with a star.
    alpha, chosen_k, c : float, int, float
        The user's configuration, drawn bold and marked.
    """
    slowest = min(float(np.min(s)) for s in curves.values())
    fastest = max(float(np.max(s)) for s in curves.values())
    shapes, annotations = _slower_region("slower than plain decoding")
    traces = []
    others = [a for a in sorted(curves) if a != alpha]
    for i, a in enumerate([*others, alpha]):
        chosen = a == alpha
        traces.append(
            {
                "type": "scatter",
                "x": k,
                "y": curves[a],
                "mode": "lines",
                "name": f"α = {format_number(a)}" + (" (chosen)" if chosen else ""),
                "line": {"color": "#000000", "width": 4}
                if chosen
                else {"color": PALETTE[i % (len(PALETTE) - 1)], "width": 2},
                "hovertemplate": f"α = {format_number(a)}<br>k = %{{x}}<br>speedup %{{y:.3f}}×<extra></extra>",
            }
        )
    traces.append(
        _best_k_stars(
            optima,
            sorted(optima),
            "best k of each curve",
            "α = %{customdata}<br>best k = %{x}<br>speedup %{y:.3f}×<extra></extra>",
        )
    )
    chosen_speedup = float(curves[alpha][np.flatnonzero(k == chosen_k)[0]])
    traces.append(
        {
            "type": "scatter",
            "x": [chosen_k],
            "y": [chosen_speedup],
            "mode": "markers",
            "name": f"chosen k = {chosen_k}",
            "marker": {
                "symbol": "circle",
                "size": 15,
                "color": CHOSEN_COLOUR,
                "line": {"color": "#000000", "width": 2},
            },
            "hovertemplate": "chosen k = %{x}<br>speedup %{y:.3f}×<extra></extra>",
        }
    )
    annotations.append(
        {
            "x": chosen_k,
            "y": chosen_speedup,
            "text": f"k = {chosen_k}: {chosen_speedup:.2f}×",
            **_beside_marker(left=chosen_k > 0.75 * float(k.max())),
            "font": {"color": CHOSEN_COLOUR, "size": FONT_SIZE + 1},
            "bgcolor": "rgba(255,255,255,0.85)",
        }
    )
    title = (
        f"Speedup vs draft length · α = {format_number(alpha)}, k = {chosen_k}, c = {format_number(c)} "
        f"(Leviathan c = {format_number(round(1 / c, 4))}) → {chosen_speedup:.2f}×"
    )
    layout = _layout(
        title,
        shapes=shapes,
        annotations=annotations,
        xaxis=_axis("draft length k", range=[0.5, float(k.max()) + 0.5]),
        yaxis=_axis("speedup over plain decoding (×)", range=[min(0.0, slowest), fastest * 1.1]),
    )
    return _figure(traces, layout)


def _map_layout(title: str, alpha_grid: np.ndarray, alpha: float, c: float, k_star: int, best: float) -> dict:
    """Axes of an (α, c) map and the annotation at the user's point.

    The c axis is linear in log10(c), labelled in c: plotly.js then paints a heatmap on an evenly
    spaced grid as one image of grid cells, scaled up pixelated. On a log axis it paints every
    cell into a canvas of the plot's size and encodes that as a PNG on each redraw: about 50 ms
    more main-thread time and 30 ms more wait per slider move on the reference machine. Every y
    of a map is log10(c).
    """
    you = {
        "x": alpha,
        "y": np.log10(c),
        "text": f"α = {format_number(alpha)}, c = {format_number(c)}: k* = {k_star}, {best:.2f}×",
        **_beside_marker(left=alpha > 0.5),
        "bgcolor": "rgba(255,255,255,0.9)",
        "font": {"size": FONT_SIZE},
    }
    return _layout(
        title,
        height=620,
        margin={"r": 140},  # the colour bar, its ticks and its title
        annotations=[you],
        xaxis=_axis("acceptance rate α", range=[float(alpha_grid[0]), float(alpha_grid[-1])]),
        yaxis=_axis(
            "cost ratio c = target step / draft step (log scale)",
            tickvals=np.log10(C_TICKS),
            ticktext=[format_number(v) for v in C_TICKS],
        ),
    )


#: The maps' hovers print a speedup to 3 decimals and c to 3 significant digits; the heatmaps
#: send them rounded so (:func:`as_shown`), and their hover formats are made from these.
SPEEDUP_DECIMALS = 3
C_DIGITS = 3
_SPEEDUP_FORMAT = f".{SPEEDUP_DECIMALS}f"
_C_HOVER = f"c = %{{customdata[1]:.{C_DIGITS}g}}"


def as_shown(values: np.ndarray, *, decimals: int | None = None, digits: int | None = None) -> np.ndarray:
    """``values`` rounded as a hover prints them (``decimals`` places or ``digits`` significant
    digits), as float32.

    A map's hover numbers are most of its figure's bytes, and the browser parses and copies the
    figure several times per redraw: float32 halves them. Once rounded, every value sits within
    float32's relative error (6e-8) of its printed decimal, far from a rounding tie, so it prints
    exactly as the float64 value it came from (``test_figures`` checks every cell of the page's
    grid).
    """
    values = np.asarray(values, dtype=float)
    if digits is not None:
        # The scale that leaves `digits` significant digits before the decimal point; 0 stays 0.
        magnitude = np.floor(np.log10(np.abs(np.where(values == 0, 1.0, values))))
        scale = 10.0 ** (digits - 1 - magnitude)
        return (np.round(values * scale) / scale).astype(np.float32)
    return np.round(values, decimals or 0).astype(np.float32)


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
    title = f"Optimal draft length k* (searching k = 1 … {max_k}); white lines: best speedup (×)"
    layout = _map_layout(title, alpha_grid, alpha, c, *current)
    return _figure([heat, *contours, _your_point(alpha, c, *current)], layout)


def speedup_contours(alpha_grid: np.ndarray, c_grid: np.ndarray, best: np.ndarray) -> list[dict]:
    """The optimal-k map's white lines of whole best speedups and their labels: two traces.

    The best speedup grows with α and with c, so its contours are found in numpy: plotly.js's
    own contour trace took about 55 ms of main-thread time per redraw of this map (traced).
    """
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


#: A dark halo that keeps white text readable on the light end of a colour scale.
LABEL_SHADOW = "0 0 3px #000000, 0 0 3px #000000, 0 0 1px #000000"


def _contour_labels(
    alpha_grid: np.ndarray, c_grid: np.ndarray, best: np.ndarray, levels: np.ndarray, min_gap: float = 0.04
) -> dict:
    """A label for each speedup contour, where it crosses the map's diagonal: one text trace.

    The best speedup grows with both α and c, so along the diagonal from (α, c) = (first, first)
    to (last, last) it never decreases and each contour level in its range crosses it exactly
    once. A label closer than ``min_gap`` (a fraction of the diagonal) to the previous one is left
    out, so the crowded high levels near α = 1 do not overprint.
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
    # redraw (about 13 ms for these labels); the shadow keeps white text readable on yellow.
    return {
        "type": "scatter",
        "x": x,
        "y": y,
        "text": text,
        "mode": "text",
        "textfont": {"color": "#FFFFFF", "size": 14, "weight": "bold", "shadow": LABEL_SHADOW},
        "hoverinfo": "skip",
        "showlegend": False,
        "name": "best speedup labels",
    }


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
    title = f"Best achievable speedup over k = 1 … {max_k}"
    return _figure([heat, _your_point(alpha, c, *current)], _map_layout(title, alpha_grid, alpha, c, *current))


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
    layout = _layout(
        title,
        height=640,
        margin={"l": 80},  # the share axis's tick labels and title
        barmode="stack",
        xaxis={"anchor": "y", "domain": [0.0, 1.0], "matches": "x2", "showticklabels": False},
        yaxis=_axis("share of rounds", anchor="x", domain=[_LOWER_PANEL + _PANEL_GAP, 1.0]),
        xaxis2=_axis("token", anchor="y2", domain=[0.0, 1.0]),
        yaxis2=_axis("residual r", anchor="x2", domain=[0.0, _LOWER_PANEL]),
    )
    layout["legend"]["traceorder"] = "normal"
    return _figure(traces, layout)


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
            # Overlaps show through the opacity. A white outline per point cost 20 ms a redraw
            # at 200 points (each is an SVG path, stroked and painted on its own).
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
    title = f"Acceptance rate vs KL divergence · {kl.size} pairs, vocabulary {vocab_size}, seed {seed}"
    layout = _layout(
        title,
        xaxis=_axis("KL(p ‖ q) in nats" + (" (log)" if log_x else ""), type="log" if log_x else "linear"),
        yaxis=_axis("acceptance rate α = Σ min(p, q)", range=[0, 1.02]),
    )
    return _figure(traces, layout)


def _position_axis(title: str, k: int) -> dict:
    """An axis of whole positions 1 … k: a tick at each while they fit."""
    return _axis(title, dtick=1) if k <= 20 else _axis(title)


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
    layout = _layout(
        f"Tokens per target call · k = {k}, {iterations:,} target calls",
        height=500,
        legend_below=True,
        xaxis=_position_axis("tokens emitted in one iteration (accepted + 1)", k),
        yaxis=_axis("share of target calls"),
    )
    return _figure(traces, layout)


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
    layout = _layout(
        f"Acceptance by draft position · fitted α = {alpha_fit:.3f}",
        height=500,
        legend_below=True,
        margin={"b": 175},  # four legend entries wrap to two rows in a half-width column
        barmode="group",
        xaxis=_position_axis("draft position i", k),
        yaxis=_axis("acceptance", range=[0, 1.05]),
    )
    return _figure(traces, layout)


def _speedup_vs_k(traces: list[dict], marked_k: int, mark: str, title: str) -> go.Figure:
    """A half-width speedup-vs-k chart: the slower region shaded and one draft length marked."""
    shapes, annotations = _slower_region()
    rule, label = _vline(marked_k, {"dash": "dot", "color": CHOSEN_COLOUR}, mark)
    layout = _layout(
        title,
        height=510,
        legend_below=True,
        shapes=shapes + rule,
        annotations=annotations + label,
        xaxis=_axis("draft length k"),
        yaxis=_axis("speedup over plain decoding (×)", rangemode="tozero"),
    )
    return _figure(traces, layout)


def calibrated_speedup(
    k: np.ndarray,
    iid: np.ndarray,
    iid_band: tuple[np.ndarray, np.ndarray],
    profile: np.ndarray | None,
    measured_k: int,
    measured_profile_k: int,
    c: float,
    alpha: tuple[float, float, float],
) -> go.Figure:
    """Predicted speedup against draft length from an engine's measurements.

    ``iid`` is the closed form at the fitted alpha, ``iid_band`` at the ends of its interval;
    ``profile`` (optional) uses the measured per-position rates, solid up to
    ``measured_profile_k`` and dotted where extrapolated. ``alpha`` is (fit, low, high); with
    low = high (a mean acceptance length alone gives no interval) no band is drawn.
    """
    traces = []
    if alpha[1] < alpha[2]:
        traces.append(
            {
                "type": "scatter",
                "x": np.concatenate([k, k[::-1]]),
                "y": np.concatenate([iid_band[1], iid_band[0][::-1]]),
                "fill": "toself",
                "fillcolor": "rgba(0, 114, 178, 0.15)",
                "line": {"width": 0},
                "name": f"α interval {alpha[1]:.3f} … {alpha[2]:.3f}",
                "hoverinfo": "skip",
            }
        )
    traces += [
        {
            "type": "scatter",
            "x": k,
            "y": iid,
            "mode": "lines",
            "name": f"i.i.d. at fitted α = {alpha[0]:.3f}",
            "line": {"color": PALETTE[0], "width": 3},
            "hovertemplate": "k = %{x}<br>speedup %{y:.3f}× (i.i.d.)<extra></extra>",
        },
    ]
    if profile is not None:
        measured = k <= measured_profile_k
        tail = k >= measured_profile_k
        traces += [
            {
                "type": "scatter",
                "x": k[measured],
                "y": profile[measured],
                "mode": "lines+markers",
                "name": "measured per-position profile",
                "line": {"color": "#000000", "width": 3},
                "hovertemplate": "k = %{x}<br>speedup %{y:.3f}× (profile)<extra></extra>",
            },
            {
                "type": "scatter",
                "x": k[tail],
                "y": profile[tail],
                "mode": "lines",
                "name": "profile, extrapolated",
                "line": {"color": "#000000", "width": 2, "dash": "dot"},
                "hovertemplate": "k = %{x}<br>speedup %{y:.3f}× (extrapolated)<extra></extra>",
            },
        ]
    title = f"Predicted speedup vs draft length at c = {format_number(round(c, 3))}"
    return _speedup_vs_k(traces, measured_k, f"measured k = {measured_k}", title)


def hardware_speedup(
    k: np.ndarray,
    free: np.ndarray,
    roofline: np.ndarray,
    optima: Mapping[str, tuple[int, float]],
    alpha: float,
    chosen_k: int,
    setup_label: str,
) -> go.Figure:
    """Speedup against k under free verification and under the roofline cost model.

    ``optima`` maps each curve's name ("free verification", "roofline") to its best (k, speedup).
    """
    traces = [
        {
            "type": "scatter",
            "x": k,
            "y": y,
            "mode": "lines",
            "name": name,
            "line": style,
            "hovertemplate": f"{name}<br>k = %{{x}}<br>speedup %{{y:.3f}}×<extra></extra>",
        }
        for name, y, style in (
            ("free verification", free, {"color": PALETTE[0], "width": 3, "dash": "dot"}),
            ("roofline", roofline, {"color": "#000000", "width": 4}),
        )
    ]
    traces.append(
        _best_k_stars(optima, list(optima), "best k", "%{customdata}: best k = %{x}, %{y:.3f}×<extra></extra>")
    )
    title = f"Speedup vs draft length · α = {format_number(alpha)}<br><sup>{setup_label}</sup>"
    return _speedup_vs_k(traces, chosen_k, f"k = {chosen_k}", title)


def batch_sweep(
    batch: np.ndarray,
    best_k: np.ndarray,
    best: np.ndarray,
    crossover: int | None,
    alpha: float,
    setup_label: str,
    fits: np.ndarray | None = None,
) -> go.Figure:
    """Best speedup (left axis) and best k (right axis) as the batch grows; the crossover marked.

    ``fits`` says at which batches the target's weights and KV cache fit in the GPU's memory; the
    batches where they do not are greyed out (their speedups are what the roofline says, for a
    GPU that does not exist).
    """
    traces = [
        {
            "type": "scatter",
            "x": batch,
            "y": best,
            "mode": "lines+markers",
            "name": "best speedup",
            "line": {"color": "#000000", "width": 3},
            "hovertemplate": "batch %{x}<br>best speedup %{y:.3f}×<extra></extra>",
            "xaxis": "x",
            "yaxis": "y",
        },
        {
            "type": "scatter",
            "x": batch,
            "y": best_k,
            "mode": "lines+markers",
            "name": "best k",
            "line": {"color": PALETTE[1], "width": 2, "shape": "hv"},
            "hovertemplate": "batch %{x}<br>best k = %{y}<extra></extra>",
            "xaxis": "x",
            "yaxis": "y2",
        },
    ]
    shapes, annotations = _slower_region()
    if crossover is not None:
        rule, label = _vline(
            crossover,
            {"dash": "dash", "color": CHOSEN_COLOUR},
            f"speculation stops paying at batch {crossover}",
            side="right",
            log_axis=True,
        )
        shapes, annotations = shapes + rule, annotations + label
    if fits is not None and not np.all(fits):
        # Memory grows with the batch, so the batches that do not fit are the largest ones.
        first = int(np.argmin(fits))
        start = float(np.sqrt(batch[first - 1] * batch[first])) if first else float(batch[0]) / np.sqrt(2)
        shapes.append(
            {"type": "rect", "xref": "x", "x0": start, "x1": float(batch[-1]), "yref": "y domain"}
            | {"y0": 0, "y1": 1, "fillcolor": "rgba(90, 90, 90, 0.25)", "line": {"width": 0}, "layer": "below"}
        )
        annotations.append(
            {"text": "target does not<br>fit in GPU<br>memory", "showarrow": False, "align": "left"}
            | {"xref": "x", "x": np.log10(start), "xanchor": "left", "yref": "y domain", "y": 0.03, "yanchor": "bottom"}
            | {"font": {"color": "#333333", "size": FONT_SIZE - 3}}
        )
    layout = _layout(
        f"Best k and speedup as the batch grows · α = {format_number(alpha)}<br><sup>{setup_label}</sup>",
        height=500,
        legend_below=True,
        shapes=shapes,
        annotations=annotations,
        xaxis=_axis(
            "batch size (log)",
            anchor="y",
            domain=[0.0, 0.94],
            type="log",
            tickvals=batch,
            ticktext=[str(b) for b in batch],
        ),
        yaxis=_axis("best speedup (×)", anchor="x", domain=[0.0, 1.0], rangemode="tozero"),
        # Whole draft lengths only: plotly would otherwise align this axis' ticks with the left axis' grid.
        yaxis2=_axis(
            "best k",
            anchor="x",
            overlaying="y",
            side="right",
            rangemode="tozero",
            showgrid=False,
            tickmode="linear",
            tick0=0,
            dtick=max(1, int(np.ceil(float(np.max(best_k)) / 5))),
        ),
    )
    return _figure(traces, layout)


def verification_cost(widths: np.ndarray, target_ms: np.ndarray, draft_ms: float, ridge_width: float) -> go.Figure:
    """Target forward-pass time over w positions, beside one draft step; the roofline ridge marked."""
    trace = {
        "type": "scatter",
        "x": widths,
        "y": target_ms,
        "mode": "lines+markers",
        "name": "target pass over w positions",
        "line": {"color": "#000000", "width": 3},
        "hovertemplate": "w = %{x}: %{y:.3f} ms<extra></extra>",
    }
    shapes, annotations = _hline(draft_ms, {"dash": "dot", "color": PALETTE[0]}, f"one draft step: {draft_ms:.3f} ms")
    if ridge_width <= widths[-1]:
        rule, label = _vline(ridge_width, {"dash": "dash", "color": CHOSEN_COLOUR}, "compute-bound →")
        shapes, annotations = shapes + rule, annotations + label
    layout = _layout(
        "Verification cost: T_target(w)",
        height=500,
        legend_below=True,
        shapes=shapes,
        annotations=annotations,
        xaxis=_axis("positions verified per sequence, w = k + 1"),
        yaxis=_axis("milliseconds", rangemode="tozero"),
    )
    return _figure([trace], layout)
