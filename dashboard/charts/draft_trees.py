"""The Draft trees page: expected tokens and speedup against the tree budget, and a tree drawn.

ECharts options (``dashboard.charts.echart``): a budget press redraws all three, which plotly
charts could only do by remounting each.

:func:`tree_layout` places a tree's nodes in layers, one per depth: leaves side by side in
depth-first order (children by rank), each parent centred over its first and last child.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from dashboard.charts.echart import (
    STAR,
    axis_tooltip,
    category_axis,
    legend_below,
    line,
    mark_areas,
    mark_lines,
    option,
    point,
    rule,
    slower_region,
    value_axis,
    with_gaps,
)
from dashboard.charts.style import CHOSEN_COLOUR, FONT_SIZE, PALETTE, beside_marker

#: Line styles of the three families of trees, in both curve charts.
STYLES = {
    "chain": {"color": PALETTE[0], "width": 3, "type": "dotted"},
    "best": {"color": "#000000", "width": 4},
    "eagle": {"color": PALETTE[1], "width": 3},
}
#: Node colours by depth, the root black, then Okabe-Ito without its yellow (a projector washes it
#: out), in turn.
DEPTH_COLOURS = ("#000000", PALETTE[0], PALETTE[1], PALETTE[2], PALETTE[3], PALETTE[4], PALETTE[5])


def tree_layout(parents) -> tuple[np.ndarray, np.ndarray]:
    """``(x, depth)`` of every node of a parent array (``parents[0] == -1``, parents before children).

    Leaves get x = 0, 1, 2, … in depth-first order with siblings in rank (index) order; a parent
    sits midway between its first and its last child. Subtrees hold disjoint ranges of x, so no
    two nodes of one layer meet, and a node's children go left to right by rank.
    """
    parents = np.asarray(parents, dtype=np.int64)
    n = parents.size
    children: list[list[int]] = [[] for _ in range(n)]
    depth = np.zeros(n, dtype=np.int64)
    for i in range(1, n):
        children[parents[i]].append(i)
        depth[i] = depth[parents[i]] + 1
    x = np.zeros(n)
    next_leaf = 0
    stack = [(0, False)]  # (node, its children placed): a depth-first walk without recursion
    while stack:
        node, placed = stack.pop()
        if not children[node]:
            x[node], next_leaf = next_leaf, next_leaf + 1
        elif placed:
            x[node] = (x[children[node][0]] + x[children[node][-1]]) / 2
        else:
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(children[node]))
    return x, depth


def _curve(x, y, name: str, style: dict) -> dict:
    """One curve over budgets, a non-finite y a gap, its values listed by the chart's tooltip at
    the hovered budget (:func:`axis_tooltip`); a single point (EAGLE at topk 1) is drawn as a
    marker."""
    y = np.asarray(y, dtype=float)
    series = with_gaps(line(name, x, y, style["color"], None, width=style["width"], dash=style.get("type", "solid")))
    if np.count_nonzero(np.isfinite(y)) == 1:
        return series | {"type": "scatter", "symbolSize": 12}
    return series


def _budget_axis(budgets: np.ndarray) -> dict:
    return value_axis("tree budget m (nodes verified, root included)", low=0, high=int(budgets[-1]))


#: Rows the legend under the two curve charts holds: their series one under another in a
#: half-width column, the same for both so that their plots line up.
LEGEND_ROWS = 4


def tree_tokens(
    budgets: np.ndarray,
    curves: Mapping[str, tuple[str, np.ndarray]],
    chosen_budget: int,
    subtitle: str,
) -> dict:
    """Expected tokens per target pass against the budget; ``curves`` maps a style to (name, F)."""
    series = [_curve(budgets, values, name, STYLES[style]) for style, (name, values) in curves.items()]
    if series:
        series[0]["markLine"] = mark_lines(rule("xAxis", chosen_budget, CHOSEN_COLOUR, label=f"m = {chosen_budget}"))
    spec = option(
        "Expected tokens per target pass",
        series,
        _budget_axis(budgets),
        value_axis("expected tokens F", low=0),
        subtitle=subtitle,
    )
    return legend_below(axis_tooltip(spec), LEGEND_ROWS)


def tree_speedups(
    budgets: np.ndarray,
    curves: Mapping[str, tuple[str, np.ndarray]],
    best: tuple[int, int, float],
    chosen_budget: int,
    subtitle: str,
) -> dict:
    """Speedup against the budget when the target's pass over m positions costs T(m).

    ``best`` = (budget, depth, speedup) is starred, labelled as where a bigger tree stops paying.
    The star's series carries the marks: the region slower than plain decoding, shaded, its
    label at the end of the foot away from the chosen budget's rule, and that rule.
    """
    series = []
    for style, (name, values) in curves.items():
        series.append(_curve(budgets, values, name, STYLES[style]))
    m, d, s = best
    star = {
        "type": "scatter",
        "name": "best (m, depth)",
        "data": [point([int(m), float(s)], f"best: {m} nodes, {s:.3f}×")],
        "symbol": STAR,
        "symbolSize": 18,
        "itemStyle": {"color": "#FFD700", "borderColor": "#000000", "borderWidth": 1},
        "z": 3,
    }
    label = clear_of_rule(m, chosen_budget, float(budgets[-1]))
    text = {
        "show": True,
        "formatter": f"best: m = {m}, depth {d}\nbigger trees pay less",
        # beside_marker's anchor: text left of where it is anchored reads from the right.
        "position": "left" if label["xanchor"] == "right" else "right",
        "distance": abs(label["xshift"]),
        "offset": [0, -label["yshift"]],
        "fontSize": FONT_SIZE - 2,
        "lineHeight": FONT_SIZE + 2,
        "color": "#111111",
    }
    if label["x"] == m:
        star["label"] = text
    else:  # beside the rule, at the star's height
        # An invisible point carries the label: ECharts draws no label on a "none" symbol.
        anchor = {"symbol": "circle", "symbolSize": 1, "itemStyle": {"color": "rgba(0, 0, 0, 0)"}}
        star["markPoint"] = {"silent": True, "label": text, "data": [{"coord": [label["x"], s]}]} | anchor
    far_right = chosen_budget > budgets[-1] / 2
    slower, at_one = slower_region(
        "slower than plain decoding",
        position="insideBottomLeft" if far_right else "insideBottomRight",
        color=CHOSEN_COLOUR,
    )
    star["markLine"] = mark_lines(rule("xAxis", chosen_budget, CHOSEN_COLOUR, label=f"m = {chosen_budget}"), at_one)
    star["markArea"] = mark_areas(slower)
    spec = option(
        "Speedup when verifying m positions costs T(m)",
        [*series, star],
        _budget_axis(budgets),
        value_axis("speedup over plain decoding (×)", low=0),
        subtitle=subtitle,
    )
    return legend_below(axis_tooltip(spec), LEGEND_ROWS)


#: The best tree's label's width, as a share of the x axis (its longer line, "bigger trees pay
#: less", at FONT_SIZE - 2 in a half-page column of a 1024-pixel-wide window, with room to spare).
LABEL_WIDTH = 0.35


def clear_of_rule(star: float, rule: float, x_max: float) -> dict:
    """Where the star's label goes (``x``, ``xanchor`` and the rest of :func:`beside_marker`) so
    that the dashed rule at ``rule`` does not cross it, on an x axis from 0 to ``x_max``.

    Beside the star, right or left, where the label's :data:`LABEL_WIDTH` fits between the star
    and the rule or the plot's edge; else where it has the most room of two places the rule
    cannot cross: beside the star facing away from the rule, or beside the rule facing away
    from the star.
    """
    width = LABEL_WIDTH * x_max
    right = (rule if rule > star else x_max) - star  # room right of the star, up to the rule or the edge
    left = star - (rule if rule < star else 0.0)
    if right >= width or left >= width:
        return {"x": star} | beside_marker(left=right < width)
    away = left if rule > star else right  # the star's side without the rule
    beyond = x_max - rule if rule > star else rule
    if beyond > away:
        return {"x": rule} | beside_marker(left=rule < star)
    return {"x": star} | beside_marker(left=rule > star)


def tree_picture_height(parents) -> int:
    """The tree picture's height in pixels: room for the title and a layer every 70 pixels."""
    _, depth = tree_layout(parents)
    return max(360, 150 + 70 * int(depth.max()))


def tree_picture(
    parents: np.ndarray,
    ranks: np.ndarray,
    scores: np.ndarray,
    title: str,
    subtitle: str,
) -> dict:
    """The tree as nodes and edges, layered by depth: colour = depth, size and hover = path score.

    A node's path score, the product of p_rank from the root to it, is the probability that it is
    accepted, and so its contribution to F: the scores sum to F. Each node's point holds
    (x, depth, rank, score); the edges are one line broken between edges (``[None, None]``).
    Draw it :func:`tree_picture_height` pixels high.
    """
    x, depth = tree_layout(parents)
    edge_points: list[list] = []
    for child in range(1, len(parents)):
        parent = int(parents[child])
        edge_points += [[float(x[parent]), int(depth[parent])], [float(x[child]), int(depth[child])], [None, None]]
    edges = {
        "type": "line",
        "name": "edges",
        "data": edge_points,
        "connectNulls": False,
        "showSymbol": False,
        "silent": True,
        "tooltip": {"show": False},
        "lineStyle": {"color": "#999999", "width": 1.5},
    }
    nodes = [
        point(
            [float(xi), int(d), int(rank), float(score)],
            f"depth {int(d)}, rank {int(rank)}\naccepted with probability {float(score):.4f}\n(its contribution to F)",
        )
        | {
            "symbolSize": float(9 + 17 * np.sqrt(score)),
            "itemStyle": {"color": DEPTH_COLOURS[0 if d == 0 else 1 + (int(d) - 1) % (len(DEPTH_COLOURS) - 1)]},
        }
        for xi, d, rank, score in zip(x, depth, ranks, scores, strict=True)
    ]
    max_depth = int(depth.max())
    layers = category_axis("depth", ["root", *(str(d) for d in range(1, max_depth + 1))])
    layers["axisLabel"]["rotate"] = 0
    layers |= {"inverse": True, "axisTick": {"show": False}, "axisLine": {"show": False}}
    return option(
        title,
        [
            edges,
            {
                "type": "scatter",
                "name": "nodes",
                "data": nodes,
                "itemStyle": {"borderColor": "#FFFFFF", "borderWidth": 1, "opacity": 1},
                "z": 3,
            },
        ],
        {"type": "value", "show": False, "min": float(x.min()) - 0.8, "max": float(x.max()) + 0.8},
        layers,
        subtitle=subtitle,
        legend=False,
    )
