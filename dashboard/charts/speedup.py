"""Speedup against draft length: the speedup page's curves, the calibrate page's prediction, and
the speedup-vs-k chart and best-k stars the hardware page's chart shares with them.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from dashboard.charts.style import (
    CHOSEN_COLOUR,
    FONT_SIZE,
    PALETTE,
    axis,
    base_layout,
    beside_marker,
    figure,
    slower_region,
    vline,
)
from dashboard.params import format_number

if TYPE_CHECKING:  # the rows' type only: the builders take what the page read
    from dashboard.features.speedup import PublishedResult


#: The speedup chart's height and bottom margin, and with the published points. The legend is
#: under the plot, so that the plot starts right under the title, on the first screen of a
#: 1024 × 768 projector; each bottom margin holds its legend as it wraps at the tests' 1600 px
#: (one row, and two for the points' two-line entries).
DEFAULT_HEIGHT, PUBLISHED_HEIGHT = 560, 620
DEFAULT_BOTTOM, PUBLISHED_BOTTOM = 130, 170


def best_k_stars(optima: Mapping, curves: list, name: str, hovertemplate: str) -> dict:
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
    published: Sequence[dict] = (),
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
    published : list of trace dicts
        Measured results beside the curves (:func:`published_points`), drawn over the curves and
        under the stars; none by default.
    """
    slowest = min(float(np.min(s)) for s in curves.values())
    fastest = max(float(np.max(s)) for s in [*curves.values(), *(t["y"] for t in published)])
    shapes, annotations = slower_region("slower than plain decoding")
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
    traces += published
    traces.append(
        best_k_stars(
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
            **beside_marker(left=chosen_k > 0.75 * float(k.max())),
            "font": {"color": CHOSEN_COLOUR, "size": FONT_SIZE + 1},
            "bgcolor": "rgba(255,255,255,0.85)",
        }
    )
    subtitle = (
        f"α = {format_number(alpha)}, k = {chosen_k}, c = {format_number(c)} "
        f"(Leviathan c = {format_number(round(1 / c, 4))}) → {chosen_speedup:.2f}×"
    )
    layout = base_layout(
        "Speedup vs draft length",
        PUBLISHED_HEIGHT if published else DEFAULT_HEIGHT,
        subtitle=subtitle,
        legend="below",
        margin={"b": PUBLISHED_BOTTOM if published else DEFAULT_BOTTOM},
        shapes=shapes,
        annotations=annotations,
        xaxis=axis("draft length k", range=[0.5, float(k.max()) + 0.5]),
        yaxis=axis("speedup over plain decoding (×)", range=[min(0.0, slowest), fastest * 1.1]),
    )
    return figure(traces, layout)


#: Marker of each source's measured points (symbol, fill), black-edged; a source not listed gets
#: the next of :data:`_MORE_MARKERS`. White and greys: the curves take the palette's colours.
PUBLISHED_MARKERS = {"leviathan2023": ("diamond", "#FFFFFF"), "chen2023": ("square", "#999999")}
_MORE_MARKERS = (("triangle-up", "#FFFFFF"), ("pentagon", "#999999"), ("hexagon", "#444444"))


def _c_range(rows: Sequence[PublishedResult]) -> str:
    """The cost ratios the rows were measured at, for a legend: "at c = 9.1–50"."""
    given = sorted({round(r.c_chapter, 1) for r in rows if r.c_chapter is not None})
    if not given:
        return "c not given"
    shown = format_number(given[0]) + (f"–{format_number(given[-1])}" if len(given) > 1 else "")
    missing = " or not given" if any(r.c_chapter is None for r in rows) else ""
    return f"at c = {shown}{missing}"


def published_hover(row: PublishedResult, formula: float | None) -> str:
    """A point's citation: source and table, models and hardware, task and decoding, α, k, the
    measured speedup, the c it was measured at, and the i.i.d. formula at its own α, k, c.

    The data file's text is shown as text (escaped for plotly.js's hover markup).
    """

    def text(value: str) -> str:
        return html.escape(value, quote=False)

    alpha = f"α = {format_number(row.alpha)}" if row.alpha is not None else "α not given"
    if row.c_chapter is not None:
        paper_c = format_number(round(1 / row.c_chapter, 4))
        cost = f"measured at c = {format_number(round(row.c_chapter, 3))} (the paper's c = {paper_c}), not your c"
    else:
        cost = "c not given by the source, not your c"
    if formula is not None:
        model = f"i.i.d. formula at this α, k, c: {formula:.2f}× (measured / formula = {row.speedup / formula:.2f})"
    else:
        missing = [name for name, value in (("α", row.alpha), ("c", row.c_chapter)) if value is None]
        model = f"no i.i.d. formula value: the source gives no {' and no '.join(missing)}"
    lines = [
        f"<b>{text(row.authors)}</b>, {text(row.table)}",
        f"{text(row.method)}: {text(row.model_draft)} → {text(row.model_target)}",
        text(row.hardware),
        f"{text(row.task)}, {text(row.decoding)}",
        f"{alpha} · k = {row.k} · measured speedup <b>{format_number(row.speedup)}×</b>",
        cost,
        model,
    ]
    return "<br>".join(lines)


def published_points(rows: Sequence[PublishedResult], formula: Sequence[float | None]) -> list[dict]:
    """Measured results at (k, measured speedup), one trace per source, for :func:`speedup_curves`.

    ``rows`` are results with a draft length k (rows without one cannot be placed on a k axis);
    ``formula[i]`` is the i.i.d. speedup at row i's own α, k and c, ``None`` where the source
    lacks one of them. Each source's legend entry names it and, on a second line (the legend's
    longest entries, which set its column width), the c its points were measured at (not the user's
    c); each point's hover gives its citation (:func:`published_hover`).
    """
    if len(formula) != len(rows):
        raise ValueError(f"{len(rows)} rows but {len(formula)} formula values")
    if any(r.k is None for r in rows):
        raise ValueError("a published result without a draft length k cannot be drawn against k")
    sources = list(dict.fromkeys(r.source for r in rows))
    extra = iter(_MORE_MARKERS * (1 + len(sources) // len(_MORE_MARKERS)))
    traces = []
    for source in sources:
        picked = [i for i, r in enumerate(rows) if r.source == source]
        group = [rows[i] for i in picked]
        symbol, colour = PUBLISHED_MARKERS.get(source) or next(extra)
        traces.append(
            {
                "type": "scatter",
                "x": [r.k for r in group],
                "y": [r.speedup for r in group],
                "mode": "markers",
                "name": f"{html.escape(group[0].authors, quote=False)}<br>{_c_range(group)}",
                "customdata": [published_hover(rows[i], formula[i]) for i in picked],
                "marker": {
                    "symbol": symbol,
                    "size": 13,
                    "color": colour,
                    "line": {"color": "#000000", "width": 2},
                },
                "hovertemplate": "%{customdata}<extra></extra>",
            }
        )
    return traces


def speedup_vs_k(traces: list[dict], marked_k: float, mark: str, title: str, subtitle: str | None = None) -> go.Figure:
    """A half-width speedup-vs-k chart: the slower region shaded and one draft length (or a mean one) marked."""
    shapes, annotations = slower_region()
    rule, label = vline(marked_k, {"dash": "dot", "color": CHOSEN_COLOUR}, mark)
    layout = base_layout(
        title,
        height=510,
        subtitle=subtitle,
        legend="below",
        shapes=shapes + rule,
        annotations=annotations + label,
        xaxis=axis("draft length k"),
        yaxis=axis("speedup over plain decoding (×)", rangemode="tozero"),
    )
    return figure(traces, layout)


def calibrated_speedup(
    k: np.ndarray,
    iid: np.ndarray,
    iid_band: tuple[np.ndarray, np.ndarray],
    profile: np.ndarray | None,
    measured: tuple[int, float, float],
    measured_profile_k: int,
    c: float,
    alpha: tuple[float, float, float],
) -> go.Figure:
    """Predicted speedup against draft length from an engine's measurements.

    ``iid`` is the closed form at the fitted alpha, ``iid_band`` at the ends of its interval;
    ``profile`` (optional) uses the measured per-position rates, solid up to
    ``measured_profile_k`` and dotted where extrapolated. ``alpha`` is (fit, low, high); with
    low = high (a mean acceptance length alone gives no interval) no band is drawn.

    ``measured`` is the run: (its k, its mean draft length d̄, the speedup it had). Drafts of k
    tokens are marked at k, where the curves give the run's speedup. Drafts shorter than k
    (d̄ < k) lie on none of the curves (each is drafts of one length): the rule is at d̄, named a
    mean of mixed lengths, with the run's speedup as a point there.
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
        profiled = k <= measured_profile_k
        tail = k >= measured_profile_k
        traces += [
            {
                "type": "scatter",
                "x": k[profiled],
                "y": profile[profiled],
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
    measured_k, draft_length, run_speedup = measured
    mark = f"measured k = {measured_k}"
    if draft_length < measured_k:  # a run on none of the curves: each is drafts of one length
        mark = f"measured: drafts of {draft_length:.2f} on average (k = {measured_k} at most)"
        about = f"drafts of {draft_length:.2f} tokens on average, mixed lengths up to k = {measured_k}"
        traces.append(
            {
                "type": "scatter",
                "x": [draft_length],
                "y": [run_speedup],
                "mode": "markers",
                "name": f"this run: {run_speedup:.2f}× at a mean draft of {draft_length:.2f} (mixed lengths)",
                "marker": {"size": 13, "symbol": "diamond", "color": CHOSEN_COLOUR, "line": {"width": 1}},
                "hovertemplate": f"{about}<br>speedup %{{y:.3f}}× (measured)<extra></extra>",
            }
        )
    title = f"Predicted speedup vs draft length at c = {format_number(round(c, 3))}"
    return speedup_vs_k(traces, draft_length, mark, title)


def measured_against_iid(
    k: np.ndarray,
    measured: np.ndarray,
    iid_k: np.ndarray,
    iid: np.ndarray,
    optima: Mapping[str, tuple[int, float]],
    parts_at: int | None,
    names: tuple[str, str],
    c: float,
    subtitle: str,
) -> go.Figure:
    """A measured acceptance's speedup (markers at its measured k) beside the i.i.d. curve of its fitted α.

    ``names`` are the two curves' legend names, measured first; ``optima`` maps each name to its best
    (k, speedup); ``parts_at`` is the first k where they part (marked), or None.
    """
    measured_name, iid_name = names
    traces = [
        {
            "type": "scatter",
            "x": iid_k,
            "y": iid,
            "mode": "lines",
            "name": iid_name,
            "line": {"color": PALETTE[0], "width": 3, "dash": "dot"},
            "hovertemplate": f"{html.escape(iid_name)}<br>k = %{{x}}<br>speedup %{{y:.3f}}×<extra></extra>",
        },
        {
            "type": "scatter",
            "x": k,
            "y": measured,
            "mode": "lines+markers",
            "name": measured_name,
            "line": {"color": "#000000", "width": 4},
            "hovertemplate": f"{html.escape(measured_name)}<br>k = %{{x}}<br>speedup %{{y:.3f}}×<extra></extra>",
        },
        best_k_stars(optima, list(optima), "best k", "%{customdata}: best k = %{x}, %{y:.3f}×<extra></extra>"),
    ]
    mark = f"they part at k = {parts_at}" if parts_at is not None else "they never part"
    title = f"Measured acceptance against the i.i.d. model · c = {format_number(c)}"
    return speedup_vs_k(traces, parts_at if parts_at is not None else int(k[-1]), mark, title, subtitle=subtitle)
