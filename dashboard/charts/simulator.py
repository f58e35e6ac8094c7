"""What the simulator measures: tokens per target call and acceptance by draft position (the
calibrate page draws the latter for an engine's measured rates too).

ECharts options (``dashboard.charts.echart``): each press of the Simulator's k slider redraws
both, which plotly charts could only do by remounting each.
"""

from __future__ import annotations

import numpy as np

from dashboard.charts.echart import bars_at, hover_points, line, option, value_axis, whole_number_axis
from dashboard.charts.style import CHOSEN_COLOUR, PALETTE

#: The height of a legend row beyond the first.
LEGEND_ROW = 30
#: Up to this k the position axes tick every whole number; beyond, the ticks would crowd.
TICK_EACH_UP_TO_K = 20


def _position_axis(name: str, first: int, last: int, k: int) -> dict:
    """An axis of whole positions ``first`` … ``last``: a tick at each while k is small."""
    return whole_number_axis(name, first, last, interval=1 if k <= TICK_EACH_UP_TO_K else None)


def tokens_per_call(emitted_counts: np.ndarray, pmf: np.ndarray, alpha_fit: float, k: int) -> dict:
    """Histogram of tokens emitted per target call against the i.i.d. law at the fitted alpha.

    ``emitted_counts[n - 1]`` and ``pmf[n - 1]`` are for n = 1 … k + 1 tokens.
    """
    n = np.arange(1, k + 2)
    iterations = int(emitted_counts.sum())
    shares = emitted_counts / iterations
    law = line(
        f"i.i.d. law at fitted α = {alpha_fit:.3f}",
        n,
        pmf,
        CHOSEN_COLOUR,
        [f"{m} tokens: {y:.4f} predicted" for m, y in zip(n, pmf, strict=True)],
        markers=True,
        dash="dotted",  # as the i.i.d. references are
    )
    measured = bars_at(
        "measured", n, shares, PALETTE[0], [f"{m} tokens: {y:.4f} of calls" for m, y in zip(n, shares, strict=True)]
    )
    series = [measured, law | {"symbolSize": 10}]
    spec = option(
        f"Tokens per target call · k = {k}, {iterations:,} target calls",
        series,
        _position_axis("tokens emitted in one iteration (accepted + 1)", 1, k + 1, k),
        value_axis("share of target calls"),
    )
    return spec


def position_acceptance(unconditional: np.ndarray, conditional: np.ndarray, alpha_fit: float) -> dict:
    """Per-position acceptance, both ways engines and papers define it, against i.i.d. alpha.

    Unconditional (vLLM's per-position rate): P(at least i + 1 accepted), alpha^(i+1) if i.i.d.
    Conditional: P(position i accepted | position i - 1 accepted), alpha at every i if i.i.d.
    """
    k = unconditional.size
    position = np.arange(1, k + 1)

    def hover(name: str, values: np.ndarray) -> list[str]:
        # A conditional rate no draft reached has no value: no bar, and this if hovered.
        return [
            f"{name}\ni = {i}: " + (f"{v:.4f}" if np.isfinite(v) else "none")
            for i, v in zip(position, values, strict=True)
        ]

    measured = (("unconditional P(≥ i accepted)", unconditional), ("conditional P(i | i − 1)", conditional))
    iid = (("i.i.d.: α^i", alpha_fit**position), ("i.i.d.: α", np.full(k, alpha_fit)))
    colours = (PALETTE[0], PALETTE[2])
    series = [bars_at(name, position, y, c, hover(name, y)) for (name, y), c in zip(measured, colours, strict=True)]
    series += [
        hover_points(line(name, position, y, c, hover(name, y), dash="dotted"))
        for (name, y), c in zip(iid, colours, strict=True)
    ]
    spec = option(
        f"Acceptance by draft position · fitted α = {alpha_fit:.3f}",
        series,
        _position_axis("draft position i", 1, k, k),
        value_axis("acceptance", low=0, high=1.05),
    )
    spec["yAxis"]["axisLabel"] |= {"showMaxLabel": False}  # 1.05, the headroom above 1, would overprint 1
    spec["grid"]["top"] += LEGEND_ROW  # four long names: in a half-width column the legend wraps to two rows
    return spec
