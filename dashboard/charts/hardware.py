"""The hardware page: speedup under the roofline, the batch sweep, and the verification cost.

ECharts options (``dashboard.charts.echart``): a press of the page's α or batch slider redraws
the open tab's charts in place (the k schedule's is drawn by
``dashboard.features.hardware.show_schedule``), which plotly charts could only do by remounting each.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from dashboard.charts.echart import (
    STAR,
    band,
    category_axis,
    colour_bar,
    heatmap,
    hover_points,
    legend_below,
    legend_room,
    line,
    log_axis,
    mark_areas,
    mark_lines,
    option,
    point,
    rule,
    slower_region,
    value_axis,
    with_colour_bar,
    with_gaps,
)
from dashboard.charts.style import CHOSEN_COLOUR, FONT_SIZE, PALETTE
from dashboard.params import format_count, format_number

#: Rows the legends under the two charts of a row hold, the same for both so that their plots line up.
LEGEND_ROWS = 3


def acceptance_label(alpha: float | str) -> str:
    """A title's acceptance: "α = 0.8" for a number, else the text given (a preset's name, "typed profile")."""
    return alpha if isinstance(alpha, str) else f"α = {format_number(alpha)}"


def _batch_axis(batch: np.ndarray) -> dict:
    """The batch sizes' log axis, a tick at each power of two from the first batch to the last."""
    return log_axis("batch size (log)", low=float(batch[0]), high=float(batch[-1]), base=2)


def hardware_speedup(
    k: np.ndarray,
    free: np.ndarray,
    roofline: np.ndarray,
    optima: Mapping[str, tuple[int, float]],
    alpha: float | str,
    chosen_k: int,
    setup_label: str,
) -> dict:
    """Speedup against k under free verification and under the roofline cost model.

    ``optima`` maps each curve's name ("free verification", "roofline") to its best (k, speedup),
    starred; each star's point holds (k, speedup, the curve's name). The stars' series carries the
    marks: the region slower than plain decoding, shaded, and the rule at the chosen k.
    """
    series = [
        hover_points(
            line(name, k, y, colour, [f"{name}\nk = {a}\nspeedup {b:.3f}×" for a, b in zip(k, y, strict=True)], **w)
        )
        for name, y, colour, w in (
            ("free verification", free, PALETTE[0], {"dash": "dotted"}),
            ("roofline", roofline, "#000000", {"width": 4}),
        )
    ]
    stars = {
        "type": "scatter",
        "name": "best k",
        "data": [
            point([int(best_k), float(s), name], f"{name}: best k = {best_k}, {s:.3f}×")
            for name, (best_k, s) in optima.items()
        ],
        "symbol": STAR,
        "symbolSize": 18,
        "itemStyle": {"color": "#FFD700", "borderColor": "#000000", "borderWidth": 1},
        "z": 3,
    }
    slower, at_one = slower_region()
    stars["markArea"] = mark_areas(slower)
    stars["markLine"] = mark_lines(
        at_one, rule("xAxis", chosen_k, CHOSEN_COLOUR, label=f"k = {chosen_k}", align="left")
    )
    spec = option(
        f"Speedup vs draft length · {acceptance_label(alpha)}",
        [*series, stars],
        value_axis("draft length k", low=int(k[0]), high=int(k[-1])),
        value_axis("speedup over plain decoding (×)", low=0),
        subtitle=setup_label,
    )
    return legend_below(spec, LEGEND_ROWS)


def batch_sweep(
    batch: np.ndarray,
    best_k: np.ndarray,
    best: np.ndarray,
    crossover: int | None,
    alpha: float | str,
    setup_label: str,
    fits: np.ndarray | None = None,
) -> dict:
    """Best speedup (left axis) and best k (right axis) as the batch grows; the crossover marked.

    ``fits`` says at which batches the target's weights and KV cache fit in the GPU's memory; the
    batches where they do not are greyed out (their speedups are what the roofline says, for a
    GPU that does not exist). The speedup's series carries the marks.
    """
    speedup = line(
        "best speedup",
        batch,
        best,
        "#000000",
        [f"batch {b}\nbest speedup {s:.3f}×" for b, s in zip(batch, best, strict=True)],
        markers=True,
    )
    ks = line(
        "best k",
        batch,
        best_k,
        PALETTE[1],
        [f"batch {b}\nbest k = {k}" for b, k in zip(batch, best_k, strict=True)],
        markers=True,
        width=2,
    ) | {"step": "end", "yAxisIndex": 1}  # "end": across to the next batch, then up or down, as plotly's "hv"
    slower, at_one = slower_region()
    areas, rules = [slower], [at_one]
    if crossover is not None:
        label = f"speculation stops paying at batch {crossover}"
        rules.append(rule("xAxis", crossover, CHOSEN_COLOUR, label=label, dash="dashed", align="right"))
    if fits is not None and not np.all(fits):
        # Memory grows with the batch, so the batches that do not fit are the largest ones.
        first = int(np.argmin(fits))
        start = float(np.sqrt(batch[first - 1] * batch[first])) if first else float(batch[0]) / np.sqrt(2)
        note = "target does not\nfit in GPU\nmemory"
        grey = band(
            "xAxis", start, float(batch[-1]), "rgba(90, 90, 90, 0.25)", note,
            position="insideBottomLeft", color="#333333", fontSize=FONT_SIZE - 3, align="left",
        )  # fmt: skip
        areas.append(grey)
    speedup |= {"markArea": mark_areas(*areas), "markLine": mark_lines(*rules)}
    # Whole draft lengths only, on their own ticks: the left axis' grid is the speedup's.
    k_axis = value_axis("best k", low=0, interval=max(1, int(np.ceil(float(np.max(best_k)) / 5))))
    k_axis |= {"position": "right", "splitLine": {"show": False}}
    spec = option(
        f"Best k and speedup as the batch grows · {acceptance_label(alpha)}",
        [speedup, ks],
        _batch_axis(batch),
        [value_axis("best speedup (×)", low=0), k_axis],
        subtitle=setup_label,
    )
    spec["grid"]["right"] = 70  # the right axis' labels and name
    return spec


def verification_cost(widths: np.ndarray, target_ms: np.ndarray, draft_ms: float, ridge_width: float) -> dict:
    """Target forward-pass time over w positions, beside one draft step; the roofline ridge marked."""
    curve = line(
        "target pass over w positions",
        widths,
        target_ms,
        "#000000",
        [f"w = {w}: {t:.3f} ms" for w, t in zip(widths, target_ms, strict=True)],
        markers=True,
    )
    rules = [rule("yAxis", draft_ms, PALETTE[0], label=f"one draft step: {draft_ms:.3f} ms")]
    if ridge_width <= widths[-1]:
        rules.append(rule("xAxis", ridge_width, CHOSEN_COLOUR, label="compute-bound →", dash="dashed", align="left"))
    curve["markLine"] = mark_lines(*rules)
    spec = option(
        "Verification cost: T_target(w)",
        [curve],
        value_axis("positions verified per sequence, w = k + 1"),
        value_axis("milliseconds", low=0),
    )
    return legend_below(spec, LEGEND_ROWS)


#: Where speculation does not pay on the schedule chart: the slower-region colour, a little stronger.
NO_SPECULATION_FILL = "rgba(213, 94, 0, 0.14)"


def k_schedule(
    batch: np.ndarray,
    best_k: np.ndarray,
    best: np.ndarray,
    schedule: list[tuple[int, int, int]],
    acceptance: str,
    setup_label: str,
) -> dict:
    """The k schedule as a step chart: the scheduled k against the batch, each k = 0 range shaded.

    ``batch``, ``best_k`` and ``best`` are the sweep the schedule (``specmath.batch_k_schedule``)
    came from; the best k is drawn dotted where its speedup is not above 1, so the reader sees
    what the schedule turned off (a gap where it pays). ``acceptance`` names what the speedups
    assume ("α = 0.8").
    """
    scheduled = np.where(best > 1.0, best_k, 0)
    would_be = np.where(best > 1.0, np.nan, best_k)
    in_schedule = line(
        "k in the schedule",
        batch,
        scheduled,
        "#000000",
        [f"batch {b}\nk = {k}\npredicted speedup {s:.3f}×" for b, k, s in zip(batch, scheduled, best, strict=True)],
    )
    hover = [f"batch {b}\nbest k = {k}: {s:.3f}×, slower" for b, k, s in zip(batch, best_k, best, strict=True)]
    slower = with_gaps(line("best k, were it to speculate", batch, would_be, PALETTE[1], hover, width=2, dash="dotted"))
    series = [hover_points(s) | {"step": "end"} for s in (in_schedule, slower)]
    note = {"position": "insideTopLeft", "color": CHOSEN_COLOUR, "fontSize": FONT_SIZE, "align": "left"}
    shaded = [
        band("xAxis", lo - 0.5, hi + 0.5, NO_SPECULATION_FILL, "speculation\ndoes not pay", **note)
        for lo, hi, k in schedule
        if k == 0
    ]
    if shaded:
        series[0]["markArea"] = mark_areas(*shaded)
    top = max(int(np.max(best_k)) if len(best_k) else 1, 1)
    x_axis = log_axis("batch size (log)", low=float(batch[0]) - 0.5, high=float(batch[-1]) + 0.5, base=2)
    # The ends are half a batch past the first and last: not powers of two, so not labelled.
    x_axis["axisLabel"] |= {"showMinLabel": False, "showMaxLabel": False}
    y_axis = value_axis("draft length k", low=0, high=top * 1.15, interval=max(1, int(np.ceil(top / 5))))
    y_axis["axisLabel"] |= {"showMaxLabel": False}  # the headroom above the largest k, not a draft length
    spec = option(
        f"Draft length schedule by batch size · {acceptance}",
        series,
        x_axis,
        y_axis,
        subtitle=setup_label,
    )
    return legend_below(spec, LEGEND_ROWS)


def verification_by_batch(
    batch: np.ndarray, ratios: Mapping[str, np.ndarray], k: int, setup_label: str, chosen_batch: int | None = None
) -> dict:
    """``T(k + 1) / T(1)`` against the batch, one line per model (the target, a dense model of its
    active size): how much dearer a verify pass over k + 1 positions is than a decoding step; the
    page's batch, ``chosen_batch``, marked where given."""
    series = [
        line(
            name,
            batch,
            ratio,
            "#000000" if i == 0 else PALETTE[0],
            [f"{name}\nbatch {b}\nT(k + 1) / T(1) = {r:.3f}" for b, r in zip(batch, ratio, strict=True)],
            markers=True,
            **({} if i == 0 else {"width": 2, "dash": "dotted"}),
        )
        for i, (name, ratio) in enumerate(ratios.items())
    ]
    # Below the rule: no ratio is under 1, so no curve can run through the label there.
    free = rule("yAxis", 1.0, "#777777", label="free verification", dash="dashed", below=True)
    chosen = (
        []
        if chosen_batch is None
        else [rule("xAxis", chosen_batch, CHOSEN_COLOUR, label=f"batch {chosen_batch}", align="left")]
    )
    if series:
        series[0]["markLine"] = mark_lines(free, *chosen)
    spec = option(
        f"Verification cost against the batch · k = {k}",
        series,
        _batch_axis(batch),
        value_axis(f"T(k + 1) / T(1), k + 1 = {k + 1}", low=0),
        subtitle=setup_label,
    )
    return legend_below(spec, LEGEND_ROWS)


def batch_context_map(
    batch: np.ndarray,
    context: np.ndarray,
    best_k: np.ndarray,
    best: np.ndarray,
    fits: np.ndarray,
    alpha: float | str,
    setup_label: str,
) -> dict:
    """The best speedup over (batch, context) as a heatmap, each cell labelled with its best k.

    ``best_k``, ``best`` and ``fits`` have one row per context and one column per batch. Cells
    where no k pays read "–" (the schedule's k = 0); cells whose target does not fit in memory
    are marked "*". Colours diverge at 1: blue speeds up, red slows down. Each cell's value holds
    (batch index, context index, speedup, best k).
    """
    labels = np.where(best > 1.0, best_k.astype(str), "–")
    labels = np.where(fits, labels, np.char.add(labels, "*"))
    rows = [format_count(int(c)) for c in context]
    columns = [str(b) for b in batch]
    hover = np.array(
        [
            [f"batch {b}, context {row}\nbest k = {k}: {s:.3f}×" for b, k, s in zip(columns, ks, speedups, strict=True)]
            for row, ks, speedups in zip(rows, best_k, best, strict=True)
        ]
    )
    top = max(float(np.max(best)), 1.05)
    stops = ((0.0, "#B2182B"), (min(0.999, 1 / top), "#F7F7F7"), (1.0, "#2166AC"))
    heat = heatmap("best speedup by batch and context", best, labels, hover, (0.0, top, stops), extra=best_k)
    contexts = category_axis("context (cached tokens)", rows)
    contexts["axisLabel"]["rotate"] = 0  # across, however many: there is room at the left
    spec = option(
        f"Best k and speedup over batch and context · {acceptance_label(alpha)}",
        [heat],
        category_axis("batch size  (–: no k pays, *: does not fit)", columns),
        contexts,
        subtitle=setup_label,
        legend=False,
    )
    # The legend's rows under the chart beside it: the two plots end at one height.
    spec["grid"]["bottom"] = legend_room(LEGEND_ROWS)
    return with_colour_bar(spec, colour_bar(0.0, top, stops, spec["grid"]["top"]), "speedup ×")
