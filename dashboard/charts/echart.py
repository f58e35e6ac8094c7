"""The look of charts drawn by ECharts (``st.echarts_chart``) and the pieces their builders share.

Why ECharts for some pages: Streamlit 1.67 gives a plotly chart a new element id whenever its
figure changes (``streamlit/elements/plotly_chart.py`` lines 913-926 at 1.67.0), so each slider
press remounts the chart and plotly.js draws it anew; a keyed ``st.echarts_chart`` keeps its
instance and takes the new option in place (``streamlit/elements/echarts_chart.py`` lines
1577-1598 at 1.67.0; the frontend calls ``setOption(option, {notMerge: true})``). On a page
that redraws four charts a press that is the difference between 2.9x and 1.6x the bare page
(docs/performance.md, 2026-12-05).

An option is plain JSON. ECharts shows its strings as plain text; the tooltip is drawn as rich
text, not HTML, so a label from a link stays literal there too. Each point's hover text is
formatted here (``point``), because a formatter function cannot be sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from dashboard.charts.style import FONT_SIZE, PALETTE, SLOWER_FILL

#: Height of a chart, as the plotly charts' default.
HEIGHT = 560
#: Room the title takes, and a one-row legend under it.
TITLE_HEIGHT, SUBTITLE_HEIGHT, LEGEND_HEIGHT = 34, 26, 34


def _text(size: int = FONT_SIZE) -> dict:
    return {"fontSize": size, "color": "#111111"}


def value_axis(
    name: str, *, low: float | None = None, high: float | None = None, interval: float | None = None
) -> dict:
    """A numeric axis named ``name``, its range ``low`` … ``high`` where given."""
    axis = {
        "type": "value",
        "name": name,
        "nameLocation": "middle",
        "nameGap": 40,
        "nameTextStyle": _text(),
        "axisLabel": _text(FONT_SIZE - 2),
        "splitLine": {"lineStyle": {"color": "#E5ECF6"}},
    }
    for key, value in (("min", low), ("max", high), ("interval", interval)):
        if value is not None:
            axis[key] = value
    return axis


#: Beyond this many categories their labels stand upright, each still shown.
UPRIGHT_LABELS = 8


def category_axis(name: str, labels: Sequence[str]) -> dict:
    """An axis of named categories (``labels``, in order), every label shown, upright when there
    are more than ``UPRIGHT_LABELS``.

    ECharts 6 (what Streamlit 1.67 bundles: ``grid.outerBoundsMode``, ``axis.nameMoveOverlap``)
    keeps the labels inside the chart and moves the axis name clear of them.
    """
    labels = [str(label) for label in labels]
    return {
        "type": "category",
        "name": name,
        "nameLocation": "middle",
        "nameGap": 40,
        "nameTextStyle": _text(),
        "axisLabel": _text(FONT_SIZE - 2) | {"interval": 0, "rotate": 90 if len(labels) > UPRIGHT_LABELS else 0},
        "data": labels,
    }


def log_axis(name: str, *, low: float | None = None, high: float | None = None, base: int = 10) -> dict:
    """A logarithmic axis named ``name``, its range ``low`` … ``high`` where given, a tick at every
    power of ``base`` (2 for batch sizes)."""
    return value_axis(name, low=low, high=high, interval=1) | {"type": "log", "logBase": base}


def point(value, hover: str) -> dict:
    """One data item and the text its tooltip shows."""
    return {"value": value, "tooltip": {"formatter": hover}}


def points(x: np.ndarray, y: np.ndarray, hover: Sequence[str] | None, as_y=float) -> list[dict]:
    """The data items (x, y) of a line, scatter or bar series, each with its hover text (none where
    ``hover`` is None: a chart with :func:`axis_tooltip`); ``as_y`` turns each y into what the
    option holds (``finite`` where a NaN must become a gap)."""
    if hover is None:
        return [{"value": [float(a), as_y(b)]} for a, b in zip(x, y, strict=True)]
    return [point([float(a), as_y(b)], text) for a, b, text in zip(x, y, hover, strict=True)]


def line(
    name: str,
    x: np.ndarray,
    y: np.ndarray,
    colour: str,
    hover: Sequence[str] | None,
    *,
    markers: bool = False,
    width: float = 3,
    dash: str = "solid",
) -> dict:
    """A line series of the points (x, y), each with its hover text (see :func:`points`), drawn
    ``width`` wide, ``dash`` ("solid", "dotted", "dashed")."""
    return {
        "type": "line",
        "name": name,
        "data": points(x, y, hover),
        "showSymbol": markers,
        "symbolSize": 8,
        "lineStyle": {"width": width, "type": dash, "color": colour},
        "itemStyle": {"color": colour},
    }


def hover_points(series: dict) -> dict:
    """``series`` (of :func:`line`, drawn without markers) with an unseen marker at each point, shown
    while hovered, so that its point's tooltip opens there: ECharts opens an item's tooltip over
    its marker only (the line between is no item), where plotly opens the nearest point's.

    :func:`as_figure` reads such a series as plotly's ``mode="lines"``.
    """
    unseen = series["itemStyle"] | {"opacity": 0}
    return series | {
        "showSymbol": True,
        "symbolSize": 10,
        "itemStyle": unseen,
        "emphasis": {"itemStyle": {"opacity": 1}},
    }


def axis_tooltip(spec: dict) -> dict:
    """``spec`` with one tooltip for the hovered x, listing every line there (ECharts' ``trigger:
    "axis"``), its lines' points as plain values: that tooltip shows no text of a point's own.

    For curves of many points: :func:`hover_points` draws an unseen marker at each, which on
    Draft trees' two charts (768 points) made a press 2.71x the bare page against 1.92-2.22x.
    """
    series = [
        s | {"data": [item["value"] if isinstance(item, dict) else item for item in s["data"]]}
        if s.get("type") == "line"
        else s
        for s in spec["series"]
    ]
    return spec | {"series": series, "tooltip": spec["tooltip"] | {"trigger": "axis"}}


def bars(name: str, values: Sequence[float], colours: str | Sequence[str], hover: Sequence[str]) -> dict:
    """A bar series over a category axis, one colour for all bars or one each."""
    each = [colours] * len(values) if isinstance(colours, str) else list(colours)
    items = [
        point(float(v), text) | {"itemStyle": {"color": colour}}
        for v, colour, text in zip(values, each, hover, strict=True)
    ]
    return {"type": "bar", "name": name, "data": items, "itemStyle": {"color": each[0] if each else PALETTE[0]}}


def rule(
    axis: str,
    at: float,
    colour: str,
    *,
    label: str | None = None,
    dash: str = "dotted",
    width: float = 2,
    below: bool = False,
    **label_style,
) -> dict:
    """One line across the plot, at x = ``at`` (``axis`` "xAxis") or y = ``at`` ("yAxis"): a data
    item of :func:`mark_lines`, with its own style and label (none where ``label`` is None).

    A vertical rule's label stands above its top (``align`` "left" reads rightwards from the
    rule, "right" ends at it); a horizontal rule's inside its right end, above the rule or
    ``below`` it.
    """
    item = {axis: float(at), "lineStyle": {"color": colour, "type": dash, "width": width}}
    if label is None:
        return item | {"label": {"show": False}}
    position = "end" if axis == "xAxis" else ("insideEndBottom" if below else "insideEndTop")
    style = {"show": True, "formatter": label, "position": position, "color": colour, "fontSize": FONT_SIZE - 2}
    return item | {"label": style | label_style}


def mark_lines(*rules: dict) -> dict:
    """A ``markLine`` drawing ``rules`` (:func:`rule`), each with its own style and label."""
    return {"silent": True, "symbol": "none", "data": list(rules)}


def band(axis: str, low: float, high: float, colour: str, label: str | None = None, **label_style) -> list[dict]:
    """A shaded band from ``low`` to ``high`` along ``axis`` ("xAxis" or "yAxis"), across the
    whole plot the other way: a data item of :func:`mark_areas`, its label (plain text, lines
    split by newlines) placed and styled by ``label_style`` (``position``, ``color``, …)."""
    first = {axis: float(low), "itemStyle": {"color": colour}}
    if label is not None:
        style = {"show": True, "fontSize": FONT_SIZE - 2} | label_style
        first |= {"name": label, "label": style | {"lineHeight": round(style["fontSize"] * 1.25)}}
    return [first, {axis: float(high)}]


def mark_areas(*bands: list[dict]) -> dict:
    """A ``markArea`` shading ``bands`` (:func:`band`) under the series."""
    return {"silent": True, "label": {"show": False}, "data": list(bands)}


def slower_region(label: str | None = None, **label_style) -> tuple[list[dict], dict]:
    """Speedup below 1, where speculation is slower than plain decoding, shaded, and the line at
    1: (a :func:`band`, a :func:`rule`) for a speedup axis, as ``style.slower_region`` draws it;
    the band's ``label``, if given, placed and styled by ``label_style`` (see :func:`band`)."""
    return band("yAxis", 0, 1, SLOWER_FILL, label, **label_style), rule("yAxis", 1, "#666666", dash="dashed", width=1)


def option(
    title: str,
    series: list[dict],
    x_axis: dict,
    y_axis: dict,
    *,
    subtitle: str | None = None,
    legend: bool = True,
) -> dict:
    """The whole option: title and subtitle at the top left, the legend under them, the plot below.

    Titles, legend and tooltip use the plotly charts' sizes (``style.FONT_SIZE``), readable on a
    projector.
    """
    top = TITLE_HEIGHT + (SUBTITLE_HEIGHT if subtitle else 0)
    # A few pixels in from the edges: a glyph's box reaches above and left of where its text is placed.
    heading = {"text": title, "left": 3, "top": 6, "textStyle": _text(FONT_SIZE + 2) | {"fontWeight": "normal"}}
    if subtitle:
        heading |= {"subtext": subtitle, "subtextStyle": _text(FONT_SIZE - 2) | {"color": "#444444"}}
    out = {
        "animation": False,
        "color": list(PALETTE),
        "textStyle": {"fontSize": FONT_SIZE},
        "title": heading,
        "grid": {"left": 70, "right": 30, "top": top + (LEGEND_HEIGHT if legend else 0) + 20, "bottom": 60},
        "tooltip": {"trigger": "item", "renderMode": "richText", "textStyle": _text(FONT_SIZE - 1)},
        "xAxis": x_axis,
        "yAxis": y_axis,
        "series": series,
    }
    if legend:
        out["legend"] = {"top": top, "right": 0, "textStyle": _text()}
    return out


def with_export(spec: dict, filename: str) -> dict:
    """``spec`` with a download button saving the chart as ``filename`` (SVG, as it is drawn)."""
    # The file is what is drawn, SVG: with the SVG renderer ECharts writes SVG whatever the type asked.
    tools = {"right": 0, "top": 0, "feature": {"saveAsImage": {"type": "svg", "name": filename, "title": "Download"}}}
    return spec | {"toolbox": tools}


#: Plotly's name for each ECharts axis type, for :func:`as_figure`.
AXIS_TYPES = {"value": "linear", "log": "log", "category": "category"}


def as_figure(spec: dict) -> dict:
    """Read an option back in the shape of a plotly figure's JSON: its title and subtitle, its x
    axis's type (plotly's name for it), and one trace per series with its ``type`` ("bar", or
    "scatter" for a line), ``name``, ``x`` and ``y``.

    So that what reads charts (the tests, the screenshot and bench scripts) reads both kinds alike.
    A heatmap (:func:`heatmap`) reads as plotly's: its ``z`` one row per y category, its cells'
    labels as ``text`` and their further values as ``customdata``.
    A line or scatter series also gets plotly's ``mode`` ("lines", "lines+markers" or "markers"),
    and its points' values past x and y, where they have any, as ``customdata`` (one row a point;
    a gap, ``[x, None]``, has none).
    """
    x_axis = spec.get("xAxis", {})
    x_axis = x_axis[0] if isinstance(x_axis, list) else x_axis
    traces = []
    for series in spec.get("series", []):
        if series.get("type") == "pictorialBar":
            traces.append(_image(series))
            continue
        if series.get("type") == "heatmap":
            traces.append(_heatmap_trace(series, x_axis, spec.get("yAxis", {})))
            continue
        items = [item["value"] if isinstance(item, dict) else item for item in series.get("data", [])]
        if series.get("type") == "bar" and x_axis.get("type") == "category":
            x, y = list(x_axis.get("data", [])), items
        else:
            x, y = [item[0] for item in items], [item[1] for item in items]
        trace = {
            "type": "scatter" if series["type"] == "line" else series["type"],
            "name": series.get("name"),
            "x": x,
            "y": y,
        }
        if series["type"] in ("line", "scatter"):
            # ECharts shows a line's symbols unless told not to; a scatter series is its symbols.
            symbols = series.get("showSymbol", True) and series.get("itemStyle", {}).get("opacity") != 0
            trace["mode"] = "markers" if series["type"] == "scatter" else ("lines+markers" if symbols else "lines")
            if all(isinstance(item, dict) and "name" in item for item in series.get("data", [])) and items:
                trace["text"] = [item["name"] for item in series["data"]]
            if any(isinstance(item, list) and len(item) > 2 for item in items):
                trace["customdata"] = [item[2:] if isinstance(item, list) else [] for item in items]
        traces.append(trace)
    title = spec.get("title", {})
    heading = {"text": title.get("text")} | ({"subtitle": {"text": title["subtext"]}} if "subtext" in title else {})
    x_type = AXIS_TYPES.get(x_axis.get("type"), x_axis.get("type"))
    return {"layout": {"title": heading, "xaxis": {"type": x_type}}, "data": traces}


#: A five-pointed star as an ECharts symbol (its built-in symbols have none), for a best point.
STAR = "path://M50,0L61,35L98,35L68,57L79,91L50,70L21,91L32,57L2,35L39,35Z"
#: A legend row's height (:func:`legend_below`) at the legend's font size, its gap included.
LEGEND_ROW = 26


def with_gaps(series: dict) -> dict:
    """``series`` (of :func:`line`) with each point whose y is not finite made a gap, ``[x, None]``.

    An option is JSON, which has no NaN; ECharts leaves a gap at a null y (``connectNulls`` is
    false by default) and shows no symbol or tooltip there.
    """
    data = [item if finite(item["value"][1]) is not None else [item["value"][0], None] for item in series["data"]]
    return series | {"data": data, "connectNulls": False}


def legend_room(rows: int) -> int:
    """The grid's bottom margin under a chart whose legend (:func:`legend_below`) has ``rows`` rows:
    for a chart without one beside it, so that the two plots end at one height."""
    return rows * LEGEND_ROW + 30


def legend_below(spec: dict, rows: int) -> dict:
    """``spec`` with its legend under the x axis's name, one series a row, room for ``rows`` rows
    in a chart :data:`HEIGHT` high.

    For a chart in a half-width column, where a legend beside the title would wrap into as many
    rows as the width allows: the plot's height would then depend on the window's width. Two
    charts side by side given the same ``rows`` line up whatever their series.
    """
    bottom = legend_room(rows)
    grid = spec["grid"] | {"top": spec["grid"]["top"] - LEGEND_HEIGHT, "bottom": bottom}
    # Just under the axis name: ECharts 6 keeps the axes' labels and names inside the grid's box.
    top = HEIGHT - bottom + 14
    legend = {"orient": "vertical", "left": 0, "top": top, "itemGap": LEGEND_ROW - 14, "textStyle": _text()}
    return spec | {"grid": grid, "legend": legend}


def bars_at(name: str, x: np.ndarray, y: np.ndarray, colour: str, hover: Sequence[str]) -> dict:
    """A bar series standing at the numbers ``x`` of a value axis, each bar with its hover text.

    ECharts makes a bar as wide as the smallest gap between the ``x``; bar series sharing the
    axis stand side by side, as plotly's ``barmode="group"``. ``as_figure`` reads the ``x`` back
    from the points, as it does for a line. A NaN in ``y`` is no bar (``finite``).
    """
    return {"type": "bar", "name": name, "data": points(x, y, hover, finite), "itemStyle": {"color": colour}}


def whole_number_axis(name: str, first: int, last: int, *, interval: float | None = None) -> dict:
    """A value axis for bars at the whole numbers ``first`` … ``last``: one free step either side
    (the bars' room), ticks ``interval`` apart (ECharts picks them where None), the two outer
    steps left unlabelled."""
    axis = value_axis(name, low=first - 1, high=last + 1, interval=interval)
    axis["axisLabel"] |= {"showMinLabel": False, "showMaxLabel": False}
    return axis


def finite(value: float) -> float | None:
    """``value`` as JSON can carry it: None (no bar, no point) where it is NaN or infinite, as
    ``st.echarts_chart`` refuses NaN; ``as_figure`` reads it back as None (``np.asarray(y, dtype=float)``
    makes it NaN again)."""
    value = float(value)
    return value if np.isfinite(value) else None


def scatter(
    name: str, x: np.ndarray, y: np.ndarray, colour: str, hover: Sequence[str], *, size: int = 8, opacity: float = 0.75
) -> dict:
    """A series of markers at the points (x, y), each with its hover text.

    Overlaps show through the opacity, without an outline round each marker.
    """
    return {
        "type": "scatter",
        "name": name,
        "data": points(x, y, hover),
        "symbolSize": size,
        "itemStyle": {"color": colour, "opacity": opacity, "borderWidth": 0},
    }


def _image(series: dict) -> dict:
    """A picture bar filling the plot (the Optimal k map) as plotly's image trace: its ``source``,
    the picture's data URL."""
    return {"type": "image", "name": series.get("name"), "source": series["symbol"].removeprefix("image://")}


def colour_at(stops: Sequence[tuple[float, str]], t: float) -> str:
    """The colour at ``t`` (0 … 1) of a scale given as plotly gives one, ``[(position, "#rrggbb"), …]``
    from position 0 to 1: interpolated in RGB between the stops either side, as plotly.js does."""
    t = min(max(float(t), 0.0), 1.0)
    rgb = [(float(at), [int(colour[i : i + 2], 16) for i in (1, 3, 5)]) for at, colour in stops]
    for (low, start), (high, end) in pairwise(rgb):
        if t <= high:
            share = 0.0 if high == low else (t - low) / (high - low)
            return "#" + "".join(f"{round(a + share * (b - a)):02X}" for a, b in zip(start, end, strict=True))
    return stops[-1][1]


#: Colours a colour bar (:func:`colour_bar`) takes from its scale, evenly spaced: ECharts spaces a
#: continuous visualMap's colours evenly, so a scale with a stop off the middle is sampled finely.
SCALE_SAMPLES = 101


def colour_bar(low: float, high: float, stops: Sequence[tuple[float, str]], top: int) -> dict:
    """A continuous ``visualMap`` colouring a heatmap's values ``low`` … ``high`` by the scale
    ``stops`` (:func:`colour_at`), drawn at the right from ``top`` down, its ends labelled with
    their values (:func:`with_colour_bar` puts it in an option, under a title)."""
    colours = [colour_at(stops, i / (SCALE_SAMPLES - 1)) for i in range(SCALE_SAMPLES)]
    return {
        "type": "continuous",
        "dimension": 2,
        "min": float(low),
        "max": float(high),
        "precision": 2,
        "inRange": {"color": colours},
        "right": 0,
        "top": top,
        "itemWidth": 18,
        "itemHeight": 260,
        "text": [f"{high:.2f}", f"{low:g}"],
        "textStyle": _text(FONT_SIZE - 2),
    }


def with_colour_bar(spec: dict, bar: dict, title: str) -> dict:
    """``spec`` with the colour bar ``bar`` (:func:`colour_bar`) and ``title`` over it, room left for
    both at the plot's right."""
    heading = {"type": "text", "right": 0, "top": bar["top"] - 30, "style": {"text": title} | _text(FONT_SIZE - 2)}
    bar = bar | {"top": bar["top"] + 4}
    return spec | {"visualMap": bar, "graphic": [heading], "grid": spec["grid"] | {"right": 110}}


def _contrast(colour: str) -> str:
    """Black or white, whichever reads on ``colour`` ("#rrggbb"): white on a dark colour."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#FFFFFF" if 0.299 * r + 0.587 * g + 0.114 * b < 140 else "#111111"


def heatmap(
    name: str,
    z: np.ndarray,
    labels: np.ndarray,
    hover: np.ndarray,
    scale: tuple[float, float, Sequence[tuple[float, str]]],
    extra: np.ndarray | None = None,
) -> dict:
    """A heatmap series over a category x and y axis: cell (row i, column j) at the i-th y
    category and the j-th x, coloured by ``z[i, j]`` (through the option's ``visualMap``,
    :func:`colour_bar`), labelled ``labels[i, j]``, its tooltip ``hover[i, j]``.

    ``scale`` is the colour bar's (low, high, stops): each label is drawn black or white, whichever
    reads on its cell's colour. ``extra[i, j]``, where given, is kept in the cell's value past z.
    """
    low, high, stops = scale
    items = []
    for (i, j), value in np.ndenumerate(np.asarray(z, dtype=float)):
        cell = colour_at(stops, (value - low) / (high - low)) if np.isfinite(value) else "#FFFFFF"
        data = [j, i, finite(value)] + ([] if extra is None else [extra[i, j].item()])
        label = {"show": True, "formatter": str(labels[i, j]), "color": _contrast(cell)}
        items.append(point(data, str(hover[i, j])) | {"label": label})
    return {"type": "heatmap", "name": name, "data": items, "label": {"show": True, "fontSize": FONT_SIZE - 2}}


def _heatmap_trace(series: dict, x_axis: dict, y_axis: dict) -> dict:
    """A heatmap series (:func:`heatmap`) in the shape of plotly's heatmap trace."""
    x, y = list(x_axis.get("data", [])), list(y_axis.get("data", []))
    z = [[None] * len(x) for _ in y]
    text = [[""] * len(x) for _ in y]
    customdata = [[None] * len(x) for _ in y]
    for item in series["data"]:
        j, i, value, *rest = item["value"]
        z[i][j], text[i][j] = value, item["label"]["formatter"]
        customdata[i][j] = rest[0] if len(rest) == 1 else rest
    return {
        "type": "heatmap",
        "name": series.get("name"),
        "x": x,
        "y": y,
        "z": z,
        "text": text,
        "customdata": customdata,
    }
