"""The charts' look and the pieces every builder shares: a slim plotly_white template, the
palette and font, the toolbar config, and helpers for figures, layouts, axes and rules.
"""

from __future__ import annotations

import numpy as np
import plotly.colors
import plotly.graph_objects as go
import plotly.io as pio

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


# Assigning a template to each figure re-validates the whole template, most of a rerun's time;
# the default template is applied without that cost, so it is set once. Streamlit sets its own
# default when first imported, so the app's scripts import Streamlit before this module.
pio.templates["dashboard_white"] = _white_template()
pio.templates.default = "dashboard_white"

FONT_SIZE = 16
#: Okabe-Ito, readable by colour-blind viewers and on a washed-out projector.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
#: For a chart with more series than PALETTE has colours: Plotly's colour-blind-safe qualitative set
#: (``plotly.colors.qualitative.Safe``, Carto's) without its grey, which the charts keep for references.
WIDE_PALETTE = tuple(c for c in plotly.colors.qualitative.Safe if c != "rgb(136, 136, 136)")
CHOSEN_COLOUR = "#D55E00"
SLOWER_FILL = "rgba(213, 94, 0, 0.10)"
BOUND_COLOURS = ("#D55E00", "#009E73")


def chart_config(filename: str) -> dict:
    """Plotly toolbar config: PNG export at 2x scale under a file name that says what it shows."""
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "png", "scale": 2, "filename": filename},
    }


LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.22, "xanchor": "left", "x": 0.0}

#: The title sits at the top of the figure, this far down; it and its subtitle take ``TITLE_LINE`` each.
TITLE_PAD = 12
TITLE_LINE = 26
#: The height of a one-row legend at the legend's font size, and what each further row adds.
LEGEND_ROW = 34
LEGEND_NEXT_ROW = 24


def figure(traces: list[dict], layout: dict) -> go.Figure:
    """The figure from plain trace and layout dicts, in a single constructor call."""
    return go.Figure(data=traces, layout=layout)


def base_layout(
    title: str,
    height: int = 560,
    *,
    subtitle: str | None = None,
    legend: str = "top",
    legend_rows: int = 1,
    margin: dict | None = None,
    **extra,
) -> dict:
    """Title, fonts, size and legend shared by every chart; ``extra`` adds axes, shapes and the like.

    The title is pinned to the top of the figure; ``subtitle`` puts the parameters on a second line,
    so that a title fits a chart 500 px wide. The legend hangs from just under the title and grows
    downwards as it wraps into rows on a narrow screen: plotly.js then moves the plot down to make
    room, where a legend anchored to the plot's top grew upwards over the title.

    ``legend="below"`` puts the legend under the plot instead, for charts in half-width columns;
    ``legend="none"`` leaves no room for one. ``legend_rows`` is how many rows the top margin holds
    for a top legend, as it wraps at 1600 px. ``margin`` widens the default margins:
    each chart's margins must hold what it puts there (colour bar, tick labels, legend) at the
    1600 px the tests and the bench use, because a margin plotly.js has to widen, even by a pixel
    or two, makes it lay the whole chart out a second time.
    """
    # A few pixels in from the edge: a glyph such as "w" reaches left of where its text starts.
    heading = {"text": title, "x": 0.0, "xanchor": "left", "pad": {"l": 3}, "font": {"size": FONT_SIZE + 2}}
    heading |= {"yref": "container", "y": 1 - TITLE_PAD / height, "yanchor": "top"}
    if subtitle is not None:
        heading["subtitle"] = {"text": subtitle, "font": {"size": FONT_SIZE - 2}}
    title_height = TITLE_PAD + (1 if subtitle is None else 2) * TITLE_LINE
    legend_top = title_height + 10
    if legend == "top":
        top = legend_top + LEGEND_ROW + (legend_rows - 1) * LEGEND_NEXT_ROW + 16
        placed = {"orientation": "h", "xanchor": "right", "x": 1.0}
        placed |= {"yref": "container", "yanchor": "top", "y": 1 - legend_top / height}
    elif legend == "below":
        top, placed = max(90, title_height + 24), dict(LEGEND_BELOW)
    elif legend == "none":
        top, placed = max(90, title_height + 24), {"visible": False}
    else:
        raise ValueError(f"legend must be 'top', 'below' or 'none', not {legend!r}")
    layout = {
        "title": heading,
        "font": {"size": FONT_SIZE},
        "height": height,
        "margin": {"l": 70, "r": 30, "t": top, "b": 130 if legend == "below" else 60} | (margin or {}),
        "legend": placed,
        "hoverlabel": {"font": {"size": FONT_SIZE - 1}},
    }
    layout.update(extra)
    return layout


#: Tick labels are drawn as placed, never hidden: the margins hold them. plotly.js's default for
#: an axis hides labels that overflow the chart, measuring every label once per label placed.
TICK_LABELS = {"ticklabeloverflow": "allow"}


def axis(title: str, **extra) -> dict:
    return {"title": {"text": title}, **TICK_LABELS, **extra}


def hline(y: float, line: dict, label: str | None = None, below: bool = False) -> tuple[list[dict], list[dict]]:
    """A horizontal rule across the plot at ``y``, with its label at the right end, above the rule
    or ``below`` it: (shapes, annotations)."""
    shape = {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": y, "y1": y, "line": line}
    annotations = []
    if label is not None:
        annotations.append(
            {"text": label, "showarrow": False, "xref": "x domain", "x": 1, "xanchor": "right"}
            | {"yref": "y", "y": y, "yanchor": "top" if below else "bottom"}
        )
    return [shape], annotations


def vline(
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


def slower_region(label: str | None = None) -> tuple[list[dict], list[dict]]:
    """Shade speedup < 1, where speculation is slower than plain decoding, and rule the line at 1."""
    band = {"type": "rect", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": 0, "y1": 1}
    band |= {"fillcolor": SLOWER_FILL, "line": {"width": 0}, "layer": "below"}
    annotations = []
    if label:
        annotations.append(
            {"text": label, "showarrow": False, "font": {"color": CHOSEN_COLOUR}}
            | {"xref": "x domain", "x": 1, "xanchor": "right", "yref": "y", "y": 0, "yanchor": "bottom"}
        )
    rule, _ = hline(1, {"dash": "dash", "color": "#666666", "width": 1})
    return [band, *rule], annotations


def beside_marker(left: bool) -> dict:
    """Where a marker's label goes: just above it, on its left or right (away from the plot's edge).

    No arrow: plotly.js measures an annotation's arrow path on every draw, which makes the browser
    lay out the whole page first.
    """
    side = {"xanchor": "right", "xshift": -14} if left else {"xanchor": "left", "xshift": 14}
    return {"showarrow": False, "yanchor": "bottom", "yshift": 10, **side}
