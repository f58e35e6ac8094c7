"""The Step through page: one speculative iteration drawn a step at a time, on words.

- :func:`word_bars`: a distribution over the words (the draft's q, the residual, the bonus row),
  the word drawn from it highlighted;
- :func:`position_scores`: the target's one pass, p beside q of each drafted word;
- :func:`acceptance_checks`: position by position, the acceptance probability min(1, p/q) (or
  block verification's stopping chance h) as a stretch of [0, 1] and the uniform as a marker on it;
- :func:`timeline`: the iteration's k short draft steps and one target step against the same
  words decoded one target step each.

``large`` draws for a projector: larger type. Every chart is :data:`HEIGHT` tall in both modes:
it fits under the page's heading (beside the step's numbers in presenter mode) on a 1024 × 768 projector
and a 1280 × 720 laptop screen (tests/browser/test_step_keys.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts.style import FONT_SIZE, PALETTE, TITLE_LINE, axis, base_layout, figure
from dashboard.params import format_number

#: Font size of the charts in presenter mode.
LARGE_FONT = FONT_SIZE + 6
#: The height of every Step through chart, in pixels.
HEIGHT = 440
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
#: Each rule's names of the checks' accepting and rejecting stretches and of the uniform.
CHECK_NAMES = {
    "token": ("accepts: u < min(1, p/q)", "rejects", "uniform u"),
    "greedy": ("accepted: the target's most likely word", "rejected: not its most likely word", "uniform u"),
    "block": ("keeps the prefix: η < h", "does not stop here", "uniform η"),
}
U_MARKER = {"symbol": "diamond", "size": 18, "color": "#000000", "line": {"width": 2, "color": "#FFFFFF"}}


def _layout(title: str, large: bool, **extra) -> dict:
    """:func:`base_layout` at :data:`HEIGHT`, with the type and the left and top margins grown for
    a projector when ``large``."""
    if large:
        margin = extra["margin"]
        extra["margin"] = margin | {"l": round(margin["l"] * 1.3), "t": margin["t"] + 16, "b": margin["b"] + 10}
    layout = base_layout(title, height=HEIGHT, **extra)
    if large:
        layout["font"] = {"size": LARGE_FONT}
        layout["title"]["font"] = {"size": LARGE_FONT + 2}
        layout["hoverlabel"] = {"font": {"size": LARGE_FONT - 1}}
    return layout


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
    residual they make), named in a legend.
    """
    values = np.asarray(values, dtype=float)
    chosen = ROLE_COLOURS[role]
    colours = [chosen if i == drawn else PLAIN_COLOUR for i in range(len(words))]
    traces = [
        {
            "type": "bar",
            "orientation": "h",
            "x": values,
            "y": list(words),
            "name": name,
            "marker": {"color": colours},
            "hovertemplate": f"%{{y}}: {name} = %{{x:.3f}}<extra></extra>",
        }
    ]
    top = float(values.max())
    for i, (marker_name, marker_values) in enumerate((markers or {}).items()):
        marker_values = np.asarray(marker_values, dtype=float)
        top = max(top, float(marker_values.max()))
        traces.append(
            {
                "type": "scatter",
                "x": marker_values,
                "y": list(words),
                "mode": "markers",
                "name": marker_name,
                "marker": {"symbol": "line-ns", "size": 20, "line": {"width": 3, "color": MARKER_COLOURS[i % 2]}},
                "hovertemplate": f"%{{y}}: {marker_name} = %{{x:.3f}}<extra></extra>",
            }
        )
    annotations = []
    if drawn is not None:
        annotations.append(
            {"x": float(values[drawn]), "y": words[drawn], "text": f"← drawn: “{words[drawn]}”", "showarrow": False}
            | {"xanchor": "left", "xshift": 8, "font": {"color": chosen}}
        )
    # Without markers the one series needs no legend: its rows get the room.
    legend = {"legend": "top", "margin": {"l": 90, "r": 30, "t": 100 + _lines(subtitle), "b": 70}}
    if not markers:
        margin = {"l": 90, "r": 30, "t": 48 + _lines(subtitle), "b": 70}
        legend = {"legend": "none", "showlegend": False, "margin": margin}
    layout = _layout(
        title,
        large,
        subtitle=subtitle,
        **legend,
        barmode="overlay",
        xaxis=axis("probability", range=[0, top * 1.35 + 0.02]),
        yaxis=axis("", autorange="reversed", type="category", dtick=1),
        annotations=annotations,
    )
    # Every word's row must hold its label: the type shrinks to the rows' height.
    plot = HEIGHT - layout["margin"]["t"] - layout["margin"]["b"]
    layout["yaxis"]["tickfont"] = {"size": min(layout["font"]["size"], int(plot / len(words)) - 2)}
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

    ``labels`` name the positions ("1<br>sat": a line each for the position and the word);
    ``q[i]`` and ``p[i]`` are the two models' probabilities of the word drafted at position i.
    """
    traces = [
        {
            "type": "bar",
            "x": list(labels),
            "y": np.asarray(values, dtype=float),
            "name": name,
            "marker": {"color": colour},
            "hovertemplate": f"position %{{x}}<br>{name} = %{{y:.3f}}<extra></extra>",
        }
        for name, values, colour in (
            ("draft q(xᵢ)", q, ROLE_COLOURS["drafted"]),
            ("target p(xᵢ)", p, TARGET_COLOUR),
        )
    ]
    layout = _layout(
        title,
        large,
        subtitle=subtitle,
        margin={"l": 70, "r": 30, "t": 100 + _lines(subtitle), "b": 100},  # two lines of tick labels: position, word
        barmode="group",
        xaxis=axis("position · drafted word", type="category"),
        yaxis=axis("probability of the drafted word", range=[0, 1.05]),
    )
    return figure(traces, layout)


def acceptance_checks(
    labels: Sequence[str],
    accept_probability: np.ndarray,
    u: np.ndarray,
    title: str,
    *,
    subtitle: str | None = None,
    rule: str = "token",
    large: bool = False,
) -> go.Figure:
    """The checks so far, one row per position from the top: [0, 1] split where u accepts and rejects.

    ``rule`` ``"token"``: row i's stretch is [0, min(1, p/q)), where a uniform u accepts the word;
    the rest rejects. ``"greedy"``: a word passes exactly when it is the target's most likely
    word, so ``accept_probability`` is 1 or 0, the whole row accepting or rejecting. ``"block"``:
    the stretch is [0, h), the stopping chance of block verification (Sun et al. 2024), where the
    uniform η keeps the prefix up to that word. ``u`` (NaN where none was drawn, as when greedy) is
    drawn as a marker on its row.
    """
    accept = np.asarray(accept_probability, dtype=float)
    u = np.asarray(u, dtype=float)
    rows = list(labels)
    accept_name, reject_name, u_name = CHECK_NAMES[rule]
    chance = "stop chance h =" if rule == "block" else "accepts with probability"
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
        subtitle=subtitle,
        margin={"l": 150, "r": 30, "t": 100, "b": 70},
        barmode="stack",
        xaxis=axis(f"{u_name.split()[-1]} ~ uniform on [0, 1]", range=[0, 1]),
        yaxis=axis("", autorange="reversed", type="category"),
    )
    return figure(traces, layout)


def timeline(drafted_words: Sequence[str], emitted_words: Sequence[str], c: float, *, large: bool = False) -> go.Figure:
    """This iteration's time against plain decoding's, in target steps.

    Speculative: k draft steps of 1/c each (one per drafted word), then one target pass of 1.
    Plain: one target step per emitted word.
    """
    k, n = len(drafted_words), len(emitted_words)
    speculative, plain = "speculative", "one target step a word"
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
            "text": [f"checks {k}, emits {n}"],
            "textposition": "inside",
            "insidetextanchor": "middle",
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
        margin={"l": 210, "r": 30, "t": 100, "b": 70},
        barmode="overlay",
        xaxis=axis("time (target steps)", range=[0, max(spent, n) * 1.05]),
        yaxis=axis("", type="category", categoryorder="array", categoryarray=[plain, speculative]),
    )
    return figure(traces, layout)
