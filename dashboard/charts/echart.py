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

import numpy as np

from dashboard.charts.style import FONT_SIZE, PALETTE

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


def point(value, hover: str) -> dict:
    """One data item and the text its tooltip shows."""
    return {"value": value, "tooltip": {"formatter": hover}}


def points(x: np.ndarray, y: np.ndarray, hover: Sequence[str], as_y=float) -> list[dict]:
    """The data items (x, y) of a line, scatter or bar series, each with its hover text; ``as_y``
    turns each y into what the option holds (``finite`` where a NaN must become a gap)."""
    return [point([float(a), as_y(b)], text) for a, b, text in zip(x, y, hover, strict=True)]


def line(name: str, x: np.ndarray, y: np.ndarray, colour: str, hover: Sequence[str], *, markers: bool = False) -> dict:
    """A line series of the points (x, y), each with its hover text."""
    return {
        "type": "line",
        "name": name,
        "data": points(x, y, hover),
        "showSymbol": markers,
        "symbolSize": 8,
        "lineStyle": {"width": 3, "color": colour},
        "itemStyle": {"color": colour},
    }


def bars(name: str, values: Sequence[float], colours: str | Sequence[str], hover: Sequence[str]) -> dict:
    """A bar series over a category axis, one colour for all bars or one each."""
    each = [colours] * len(values) if isinstance(colours, str) else list(colours)
    items = [
        point(float(v), text) | {"itemStyle": {"color": colour}}
        for v, colour, text in zip(values, each, hover, strict=True)
    ]
    return {"type": "bar", "name": name, "data": items, "itemStyle": {"color": each[0] if each else PALETTE[0]}}


def vertical_rule(x: float, label: str, colour: str) -> dict:
    """A dotted vertical line at ``x`` labelled at its top (a ``markLine`` for a series to carry)."""
    return {
        "silent": True,
        "symbol": "none",
        "lineStyle": {"color": colour, "type": "dotted", "width": 2},
        "label": {"formatter": label, "position": "end", "fontSize": FONT_SIZE - 2, "color": colour},
        "data": [{"xAxis": float(x)}],
    }


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
            symbols = series.get("showSymbol", True)
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


def legend_below(spec: dict, rows: int) -> dict:
    """``spec`` with its legend under the x axis's name, one series a row, room for ``rows`` rows
    in a chart :data:`HEIGHT` high.

    For a chart in a half-width column, where a legend beside the title would wrap into as many
    rows as the width allows: the plot's height would then depend on the window's width. Two
    charts side by side given the same ``rows`` line up whatever their series.
    """
    bottom = rows * LEGEND_ROW + 30
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
