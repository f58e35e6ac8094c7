"""The Draft trees page: expected tokens and speedup against the tree budget, and a tree drawn.

:func:`tree_layout` places a tree's nodes in layers, one per depth: leaves side by side in
depth-first order (children by rank), each parent centred over its first and last child.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from dashboard.charts.speedup import best_k_stars
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

#: Line styles of the three families of trees, in both curve charts.
STYLES = {
    "chain": {"color": PALETTE[0], "width": 3, "dash": "dot"},
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


def _curve(x, y, name: str, style: dict, what: str, customdata=None, extra: str = "") -> dict:
    """One curve over budgets; a single point (EAGLE at topk 1) is drawn as a marker."""
    points = int(np.count_nonzero(np.isfinite(np.asarray(y, dtype=float))))
    trace = {
        "type": "scatter",
        "x": x,
        "y": y,
        "mode": "lines" if points > 1 else "markers",
        "name": name,
        "line": style,
        "marker": {"color": style["color"], "size": 12},
        "hovertemplate": f"{name}<br>m = %{{x}} nodes<br>{what}{extra}<extra></extra>",
    }
    if customdata is not None:
        trace["customdata"] = customdata
    return trace


def tree_tokens(
    budgets: np.ndarray,
    curves: Mapping[str, tuple[str, np.ndarray]],
    chosen_budget: int,
    subtitle: str,
) -> go.Figure:
    """Expected tokens per target pass against the budget; ``curves`` maps a style to (name, F)."""
    traces = [
        _curve(budgets, values, name, STYLES[style], "F = %{y:.3f} tokens") for style, (name, values) in curves.items()
    ]
    shapes, annotations = vline(chosen_budget, {"dash": "dash", "color": CHOSEN_COLOUR}, f" m = {chosen_budget}")
    layout = base_layout(
        "Expected tokens per target pass",
        height=560,
        subtitle=subtitle,
        legend="below",
        legend_rows=2,
        margin={"b": 200},  # as the speedup chart beside it, so that their plots line up
        shapes=shapes,
        annotations=annotations,
        xaxis=axis("tree budget m (nodes verified, root included)", rangemode="tozero"),
        yaxis=axis("expected tokens F", rangemode="tozero"),
    )
    return figure(traces, layout)


def tree_speedups(
    budgets: np.ndarray,
    curves: Mapping[str, tuple[str, np.ndarray]],
    best_depths: np.ndarray,
    best: tuple[int, int, float],
    chosen_budget: int,
    subtitle: str,
) -> go.Figure:
    """Speedup against the budget when the target's pass over m positions costs T(m).

    ``curves["best"]``'s hover names the depth each budget's best tree uses (``best_depths``);
    ``best`` = (budget, depth, speedup) is starred, labelled as where a bigger tree stops paying.
    """
    traces = []
    for style, (name, values) in curves.items():
        if style == "best":
            traces.append(
                _curve(budgets, values, name, STYLES[style], "%{y:.3f}×", best_depths, "<br>at depth %{customdata}")
            )
        else:
            traces.append(_curve(budgets, values, name, STYLES[style], "%{y:.3f}×"))
    m, d, s = best
    traces.append(
        best_k_stars({"best": (m, s)}, ["best"], "best (m, depth)", "best: %{x} nodes, %{y:.3f}×<extra></extra>")
    )
    shapes, annotations = slower_region("slower than plain decoding")
    far_right = chosen_budget > budgets[-1] / 2
    rule, label = vline(
        chosen_budget,
        {"dash": "dash", "color": CHOSEN_COLOUR},
        f"m = {chosen_budget} " if far_right else f" m = {chosen_budget}",
        side="right" if far_right else "left",
    )
    label[0] |= {"y": 0, "yanchor": "bottom"}  # at the foot: the top is the best tree's label
    if far_right:  # the foot's right end is the rule's label: the shaded region's goes left
        annotations[0] |= {"x": 0, "xanchor": "left"}
    shapes, annotations = shapes + rule, annotations + label
    annotations.append(
        {"text": f"best: m = {m}, depth {d}<br>bigger trees pay less", "y": s, "xref": "x", "yref": "y"}
        | {"font": {"size": FONT_SIZE - 2}}
        | clear_of_rule(m, chosen_budget, float(budgets[-1]))
    )
    layout = base_layout(
        "Speedup when verifying m positions costs T(m)",
        height=560,
        subtitle=subtitle,
        legend="below",
        legend_rows=2,
        margin={"b": 200},  # the legend's four entries, one under another in a half-width column
        shapes=shapes,
        annotations=annotations,
        xaxis=axis("tree budget m (nodes verified, root included)", rangemode="tozero"),
        yaxis=axis("speedup over plain decoding (×)", rangemode="tozero"),
    )
    return figure(traces, layout)


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


def tree_picture(
    parents: np.ndarray,
    ranks: np.ndarray,
    scores: np.ndarray,
    title: str,
    subtitle: str,
) -> go.Figure:
    """The tree as nodes and edges, layered by depth: colour = depth, size and hover = path score.

    A node's path score, the product of p_rank from the root to it, is the probability that it is
    accepted, and so its contribution to F: the scores sum to F.
    """
    x, depth = tree_layout(parents)
    edge_x, edge_y = [], []
    for child in range(1, len(parents)):
        parent = int(parents[child])
        edge_x += [float(x[parent]), float(x[child]), None]
        edge_y += [int(depth[parent]), int(depth[child]), None]
    edges = {
        "type": "scatter",
        "x": edge_x,
        "y": edge_y,
        "mode": "lines",
        "name": "edges",
        "line": {"color": "#999999", "width": 1.5},
        "hoverinfo": "skip",
        "showlegend": False,
    }
    nodes = {
        "type": "scatter",
        "x": x,
        "y": depth,
        "mode": "markers",
        "name": "nodes",
        "showlegend": False,
        "customdata": np.column_stack([ranks, scores]),
        "marker": {
            "size": 9 + 17 * np.sqrt(scores),
            "color": [DEPTH_COLOURS[0 if d == 0 else 1 + (int(d) - 1) % (len(DEPTH_COLOURS) - 1)] for d in depth],
            "line": {"color": "#FFFFFF", "width": 1},
        },
        "hovertemplate": "depth %{y}, rank %{customdata[0]}<br>"
        "accepted with probability %{customdata[1]:.4f}<br>(its contribution to F)<extra></extra>",
    }
    max_depth = int(depth.max())
    layout = base_layout(
        title,
        height=max(360, 150 + 70 * max_depth),
        subtitle=subtitle,
        legend="none",
        xaxis={"visible": False, "range": [float(x.min()) - 0.8, float(x.max()) + 0.8]},
        yaxis=axis(
            "depth",
            autorange="reversed",
            tickvals=list(range(max_depth + 1)),
            ticktext=["root", *(str(d) for d in range(1, max_depth + 1))],
            zeroline=False,
        ),
    )
    return figure([edges, nodes], layout)
