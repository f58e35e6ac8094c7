"""The Step through page: one speculative iteration drawn a step at a time, on words.

- :func:`word_bars`: a distribution over the words (the draft's q, the residual, the bonus row),
  the word drawn from it highlighted;
- :func:`position_scores`: the target's one pass, p beside q of each drafted word;
- :func:`acceptance_checks`: position by position, the acceptance probability min(1, p/q) (or
  block verification's stopping chance h) as a stretch of [0, 1] and the uniform as a marker on it;
- :func:`timeline`: the iteration's k short draft steps and one target step against the same
  words decoded one target step each.

``large`` draws for a projector (presenter mode): every text at least :data:`MIN_LARGE_FONT` px,
so that the back of a room reads it, in a chart :data:`LARGE_HEIGHT` tall, which fits beside the
step's explanation under its heading, sentence and numbers on a 1024 × 768 projector
(tests/browser/test_step_keys.py). At that size a row per word of the 21-word language would
shrink the words to 12 px: the word bars show the most likely words and sum the rest in one row,
and the target's pass puts the positions in rows, as the checks do, so that their words read
across instead of turned on end. Otherwise every chart is :data:`HEIGHT` tall, which fits the
first screen of a 1280 × 720 laptop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts.style import FONT_SIZE, LEGEND_NEXT_ROW, PALETTE, TITLE_LINE, axis, base_layout, figure
from dashboard.params import format_number

#: Font size of the charts in presenter mode, and the least any of their texts may have there.
LARGE_FONT = FONT_SIZE + 6
MIN_LARGE_FONT = 18
#: The height of a Step through chart, in pixels; in presenter mode :data:`LARGE_HEIGHT`.
HEIGHT = 440
LARGE_HEIGHT = 420
#: A row of a large chart (a word, a position): the type and room above and below it.
LARGE_ROW = LARGE_FONT + 8
#: How much more height the title and subtitle take at the large type (the top margin grows by it).
LARGE_TITLE_EXTRA = 12
#: What happened to a word, and the one colour the sentence, the legend and the charts give it;
#: each at least 4.5:1 against the white page (WCAG 2 contrast, tests/dashboard/test_step_charts.py).
ROLE_COLOURS = {
    "drafted": "#6A3D9A",  # the draft's words, and the draft's q
    "accepted": "#0066A6",
    "rejected": "#B3261E",
    "resampled": "#A3520A",  # drawn from the residual
    "bonus": "#00704F",
}
#: The target's p, beside the draft's q.
TARGET_COLOUR = "#37474F"
#: Bars of the words not drawn: 3:1 against white, as a graphic needs (WCAG 2, 1.4.11).
PLAIN_COLOUR = "#8C8C8C"
REJECT_FILL = "rgba(179, 38, 30, 0.22)"
#: The ticks of the target's p and the draft's q drawn beside the residual.
MARKER_COLOURS = (TARGET_COLOUR, ROLE_COLOURS["drafted"])
#: Each verification's names of the checks' accepting and rejecting stretches and of the uniform
#: (``specmath.verification.VERIFICATIONS``), and under greedy decoding (temperature 0) those of
#: :data:`GREEDY_CHECK_NAMES` instead.
CHECK_NAMES = {
    "token": ("accepts: u < min(1, p/q)", "rejects", "uniform u"),
    "block": ("keeps the prefix: η < h", "does not stop here", "uniform η"),
}
GREEDY_CHECK_NAMES = ("accepted: the target's most likely word", "rejected: not its most likely word", "uniform u")
U_MARKER = {"symbol": "diamond", "size": 18, "color": "#000000", "line": {"width": 2, "color": "#FFFFFF"}}


def _layout(title: str, large: bool, **extra) -> dict:
    """:func:`base_layout` at :data:`HEIGHT`; when ``large``, at :data:`LARGE_HEIGHT` with the type
    of :data:`LARGE_FONT`, the subtitle's too, and the left and top margins grown for it."""
    if large:
        margin = extra["margin"]
        extra["margin"] = margin | {
            "l": round(margin["l"] * 1.3),
            "t": margin["t"] + LARGE_TITLE_EXTRA + 4,
            "b": margin["b"] + 10,
        }
    layout = base_layout(title, height=LARGE_HEIGHT if large else HEIGHT, **extra)
    if large:
        layout["font"] = {"size": LARGE_FONT}
        layout["title"]["font"] = {"size": LARGE_FONT + 2}
        if "subtitle" in layout["title"]:
            layout["title"]["subtitle"]["font"] = {"size": LARGE_FONT - 2}
        # The legend at the least size, from the chart's left edge, under the title's start; lower
        # by the larger title's and subtitle's extra height.
        layout["legend"] |= {"font": {"size": MIN_LARGE_FONT}, "xref": "container", "x": 0, "xanchor": "left"}
        if "y" in layout["legend"]:
            layout["legend"]["y"] -= LARGE_TITLE_EXTRA / layout["height"]
        layout["hoverlabel"] = {"font": {"size": LARGE_FONT - 1}}
        # Text in a bar too narrow for it at the least size is left out (the hover has it),
        # where plotly.js would shrink it to fit.
        layout["uniformtext"] = {"minsize": MIN_LARGE_FONT, "mode": "hide"}
    return layout


def _plot_height(layout: dict) -> int:
    """The height of the plot area of ``layout``, inside its margins."""
    return layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]


def _rows_axis(layout: dict, rows: int) -> dict:
    """A y-axis of ``rows`` categories from the top, every label drawn (plotly.js leaves out every
    other one where they crowd) and its type shrunk to the rows' height where they are many."""
    size = min(layout["font"]["size"], int(_plot_height(layout) / rows) - 2)
    return axis("", autorange="reversed", type="category", dtick=1, tickfont={"size": size})


def most_likely(
    values: np.ndarray, drawn: int | None, rows: int, markers: Sequence[np.ndarray] = ()
) -> tuple[np.ndarray, np.ndarray]:
    """The words of ``rows`` rows: (shown, rest), index arrays.

    All of them if they fit; else the ``rows - 1`` most likely by ``values`` or any of ``markers``
    (ties to the lower index), most likely first, the word ``drawn`` always among them, and the
    rest to sum in the last row.
    """
    n = len(values)
    if rows >= n:
        return np.arange(n), np.arange(0)
    weight = np.max([values, *markers], axis=0)
    order = np.argsort(-weight, kind="stable")
    shown = order[: rows - 1]
    if drawn is not None and drawn not in shown:
        shown = np.append(shown[:-1], drawn)
    return shown, np.setdiff1d(np.arange(n), shown)


def _lines(subtitle: str | None) -> int:
    """The top margin's room for a subtitle's line: a chart's title must fit a 500 px column."""
    return 0 if subtitle is None else TITLE_LINE


def word_bars(
    words: Sequence[str],
    values: np.ndarray,
    drawn: int | None,
    name: str,
    title: str,
    *,
    subtitle: str | None = None,
    role: str = "drafted",
    markers: Mapping[str, np.ndarray] | None = None,
    large: bool = False,
) -> go.Figure:
    """One bar per word, in the words' order from the top, the bar of word ``drawn`` highlighted
    in the colour of its ``role`` (:data:`ROLE_COLOURS`); ``subtitle`` is a second title line.

    ``values`` is the distribution the word was drawn from, named ``name`` in the hover;
    ``markers`` adds other distributions over the same words as ticks (p and q beside the
    residual they make), named in a legend. ``large``: the rows that fit at :data:`LARGE_ROW`
    each, the most likely words first and the others summed in the last row
    (:func:`most_likely`).
    """
    values = np.asarray(values, dtype=float)
    markers = {key: np.asarray(marker, dtype=float) for key, marker in (markers or {}).items()}
    chosen = ROLE_COLOURS[role]
    # Without markers the one series needs no legend: its rows get the room.
    legend = {"legend": "top", "margin": {"l": 90, "r": 30, "t": 100 + _lines(subtitle), "b": 70}}
    if not markers:
        margin = {"l": 90, "r": 30, "t": 48 + _lines(subtitle), "b": 70}
        legend = {"legend": "none", "showlegend": False, "margin": margin}
    layout = _layout(title, large, subtitle=subtitle, **legend, barmode="overlay")
    rows = len(words)
    if large:
        rows = max(2, _plot_height(layout) // LARGE_ROW)
    shown, rest = most_likely(values, drawn, rows, list(markers.values()))
    labels = [words[i] for i in shown] + ([f"{rest.size} other words"] if rest.size else [])

    def rows_of(distribution: np.ndarray) -> np.ndarray:
        return np.append(distribution[shown], distribution[rest].sum()) if rest.size else distribution[shown]

    colours = [chosen if i == drawn else PLAIN_COLOUR for i in shown] + [PLAIN_COLOUR] * bool(rest.size)
    bars = rows_of(values)
    traces = [
        {
            "type": "bar",
            "orientation": "h",
            "x": bars,
            "y": labels,
            "name": name,
            "marker": {"color": colours},
            "hovertemplate": f"%{{y}}: {name} = %{{x:.3f}}<extra></extra>",
        }
    ]
    top = float(bars.max())
    for i, (marker_name, marker_values) in enumerate(markers.items()):
        ticks = rows_of(marker_values)
        top = max(top, float(ticks.max()))
        traces.append(
            {
                "type": "scatter",
                "x": ticks,
                "y": labels,
                "mode": "markers",
                "name": marker_name,
                "marker": {"symbol": "line-ns", "size": 20, "line": {"width": 3, "color": MARKER_COLOURS[i % 2]}},
                "hovertemplate": f"%{{y}}: {marker_name} = %{{x:.3f}}<extra></extra>",
            }
        )
    if drawn is not None:
        layout["annotations"] = [
            # Large, the word is on its row's label and in the title: the note keeps to the plot.
            {"x": float(values[drawn]), "y": words[drawn], "text": "← drawn" if large else f"← drawn: “{words[drawn]}”"}
            | {"showarrow": False}
            | {"xanchor": "left", "xshift": 8, "font": {"color": chosen}}
        ]
    layout["xaxis"] = axis("probability", range=[0, top * 1.35 + 0.02])
    layout["yaxis"] = _rows_axis(layout, len(labels))
    return figure(traces, layout)


def position_scores(
    labels: Sequence[str],
    q: np.ndarray,
    p: np.ndarray,
    title: str,
    *,
    subtitle: str | None = None,
    large: bool = False,
) -> go.Figure:
    """The target's pass over the drafted words: q(x_i) the draft gave each, p(x_i) the target gives.

    ``labels`` name the positions ("1 · sat"); ``q[i]`` and ``p[i]`` are the two models'
    probabilities of the word drafted at position i. The positions are columns, each label on two
    lines (position, word); ``large``, they are rows from the top, as the checks' rows, whose
    labels read across at the projector's type where columns turned them on end.
    """
    across = not large
    position, value = ("x", "y") if across else ("y", "x")
    traces = [
        {
            "type": "bar",
            "orientation": "v" if across else "h",
            position: [label.replace(" · ", "<br>") for label in labels] if across else list(labels),
            value: np.asarray(values, dtype=float),
            "name": name,
            "marker": {"color": colour},
            "hovertemplate": f"position %{{{position}}}<br>{name} = %{{{value}:.3f}}<extra></extra>",
        }
        for name, values, colour in (
            ("draft q(xᵢ)", q, ROLE_COLOURS["drafted"]),
            ("target p(xᵢ)", p, TARGET_COLOUR),
        )
    ]
    values_axis = axis("probability of the drafted word", range=[0, 1.05])
    if across:
        # Two lines of tick labels under the plot: position, word.
        margin = {"l": 70, "r": 30, "t": 100 + _lines(subtitle), "b": 100}
        axes = {"xaxis": axis("position · drafted word", type="category"), "yaxis": values_axis}
    else:
        margin = {"l": 115, "r": 30, "t": 100 + _lines(subtitle), "b": 70}
        axes = {"xaxis": values_axis}
    layout = _layout(title, large, subtitle=subtitle, margin=margin, barmode="group", **axes)
    if not across:
        layout["yaxis"] = _rows_axis(layout, len(labels))
    return figure(traces, layout)


def acceptance_checks(
    labels: Sequence[str],
    accept_probability: np.ndarray,
    u: np.ndarray,
    title: str,
    *,
    subtitle: str | None = None,
    verification: str = "token",
    greedy: bool = False,
    large: bool = False,
) -> go.Figure:
    """The checks so far, one row per position from the top: [0, 1] split where u accepts and rejects.

    ``verification`` ``"token"``: row i's stretch is [0, min(1, p/q)), where a uniform u accepts
    the word; the rest rejects. ``"block"``: the stretch is [0, h), the stopping chance of block
    verification (Sun et al. 2024), where the uniform η keeps the prefix up to that word.
    ``greedy`` (decoding at temperature 0): a word passes exactly when it is the target's most
    likely word, so ``accept_probability`` is 1 or 0, the whole row accepting or rejecting. ``u``
    (NaN where none was drawn, as when greedy) is drawn as a marker on its row. ``large`` leaves
    the subtitle out, the legend naming the rule, and holds a row of legend for each entry: at the
    projector's type plotly.js puts each in a row of its own in a 560 px chart.
    """
    accept = np.asarray(accept_probability, dtype=float)
    u = np.asarray(u, dtype=float)
    rows = list(labels)
    accept_name, reject_name, u_name = GREEDY_CHECK_NAMES if greedy else CHECK_NAMES[verification]
    chance = "stop chance h =" if verification == "block" else "accepts with probability"
    traces = [
        {
            "type": "bar",
            "orientation": "h",
            "x": accept,
            "y": rows,
            "name": accept_name,
            "marker": {"color": ROLE_COLOURS["accepted"]},
            "hovertemplate": f"%{{y}}<br>{chance} %{{x:.3f}}<extra></extra>",
        },
        {
            "type": "bar",
            "orientation": "h",
            "x": 1.0 - accept,
            "y": rows,
            "name": reject_name,
            "marker": {"color": REJECT_FILL},
            "hoverinfo": "skip",
        },
    ]
    if np.isfinite(u).any():
        traces.append(
            {
                "type": "scatter",
                "x": u,
                "y": rows,
                "mode": "markers",
                "name": u_name,
                "marker": U_MARKER,
                "hovertemplate": f"%{{y}}<br>{u_name.split()[-1]} = %{{x:.3f}}<extra></extra>",
            }
        )
    layout = _layout(
        title,
        large,
        subtitle=None if large else subtitle,
        margin={"l": 110 if large else 150, "r": 30, "t": 100 + LEGEND_NEXT_ROW * (len(traces) - 1) * large, "b": 70},
        barmode="stack",
        xaxis=axis(f"{u_name.split()[-1]} ~ uniform on [0, 1]", range=[0, 1]),
    )
    layout["yaxis"] = _rows_axis(layout, len(rows))
    return figure(traces, layout)


def timeline(drafted_words: Sequence[str], emitted_words: Sequence[str], c: float, *, large: bool = False) -> go.Figure:
    """This iteration's time against plain decoding's, in target steps.

    Speculative: k draft steps of 1/c each (one per drafted word), then one target pass of 1.
    Plain: one target step per emitted word.
    """
    k, n = len(drafted_words), len(emitted_words)
    # Large, the long label and the pass's text take two lines: the plot gets the width.
    speculative, plain = "speculative", "one target step<br>a word" if large else "one target step a word"
    draft_time = k / c
    traces = [
        {
            "type": "bar",
            "orientation": "h",
            "x": np.full(k, 1.0 / c),
            "base": (np.arange(k) / c).tolist(),  # plotly.py sends a base as a list, not as bytes
            "y": [speculative] * k,
            "name": f"draft step (1/c = {format_number(round(1 / c, 4))})",
            "marker": {"color": ROLE_COLOURS["drafted"], "line": {"width": 1, "color": "#FFFFFF"}},
            "customdata": list(drafted_words),
            "hovertemplate": "draft proposes “%{customdata}”<extra></extra>",
        },
        {
            "type": "bar",
            "orientation": "h",
            "x": [1.0],
            "base": [draft_time],
            "y": [speculative],
            "name": "target pass over k + 1 positions",
            "marker": {"color": TARGET_COLOUR, "line": {"width": 1, "color": "#FFFFFF"}},
            "text": [f"checks {k}{'<br>' if large else ', '}emits {n}"],
            "textposition": "inside",
            "insidetextanchor": "middle",
            **({"textangle": 0} if large else {}),  # two short lines: never turned on end
            "hovertemplate": "one target pass<extra></extra>",
        },
        {
            "type": "bar",
            "orientation": "h",
            "x": np.ones(n),
            "base": list(range(n)),
            "y": [plain] * n,
            "name": "target step",
            "marker": {"color": PALETTE[4], "line": {"width": 2, "color": "#FFFFFF"}},
            "text": list(emitted_words),
            "textposition": "inside",
            "insidetextanchor": "middle",
            "hovertemplate": "target emits “%{text}”<extra></extra>",
        },
    ]
    spent = 1.0 + draft_time
    words = f"{n} word{'s' if n > 1 else ''}"
    # Two short lines: one long line was cut at 1024 px.
    title = f"{words} in {spent:.3g} target steps: {n / spent:.2f}× as fast"
    subtitle = f"1 + {k}/{format_number(c)} target steps speculative; one word a step, {n}"
    layout = _layout(
        title,
        large,
        subtitle=subtitle,
        margin={"l": 130 if large else 210, "r": 30, "t": 100, "b": 70},
        barmode="overlay",
        xaxis=axis("time (target steps)", range=[0, max(spent, n) * 1.05]),
        yaxis=axis("", type="category", categoryorder="array", categoryarray=[plain, speculative]),
    )
    return figure(traces, layout)
