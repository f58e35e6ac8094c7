"""The Verification rules page's charts: α per rule, α against temperature, first-token laws, block vs token.

ECharts options (``dashboard.charts.echart``): a temperature press redraws all four, which
plotly charts could only do by remounting each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from dashboard.charts.echart import bars, category_axis, hover_points, line, mark_lines, option, rule, value_axis
from dashboard.charts.style import CHOSEN_COLOUR, PALETTE


def rule_alphas(alphas: Mapping[str, float], subtitle: str) -> dict:
    """α of each rule as one bar each."""
    names = list(alphas)
    colours = [PALETTE[i % len(PALETTE)] for i in range(len(names))]
    hover = [f"{name}\nα = {alphas[name]:.4f}" for name in names]
    series = [bars("α", [alphas[n] for n in names], colours, hover)]
    return option(
        "Acceptance rate α by rule",
        series,
        category_axis("", names),
        value_axis("α", low=0, high=1.02),
        subtitle=subtitle,
        legend=False,
    )


def alpha_against_temperature(
    temperatures: np.ndarray, alphas: Mapping[str, np.ndarray], chosen: float, subtitle: str
) -> dict:
    """α of each rule against the temperature, the chosen temperature marked."""
    series = [
        hover_points(
            line(
                name,
                temperatures,
                values,
                PALETTE[i % len(PALETTE)],
                [f"{name}\nT = {t:.2f}\nα = {a:.4f}" for t, a in zip(temperatures, values, strict=True)],
            )
        )
        for i, (name, values) in enumerate(alphas.items())
    ]
    if series:
        series[0]["markLine"] = mark_lines(rule("xAxis", chosen, CHOSEN_COLOUR, label=f"T = {chosen:g}"))
    return option(
        "α against temperature",
        series,
        value_axis("temperature T (both models)", low=float(temperatures[0]), high=float(temperatures[-1])),
        value_axis("α", low=0, high=1.02),
        subtitle=subtitle,
    )


def first_token_laws(labels: Sequence[str], p: np.ndarray, laws: Mapping[str, np.ndarray], subtitle: str) -> dict:
    """The first emitted token's law under each rule, grouped beside the target p."""
    labels = [str(label) for label in labels]
    series = [bars("target p", p, "#000000", [f"p({x}) = {v:.4f}" for x, v in zip(labels, p, strict=True)])]
    for i, (name, law) in enumerate(laws.items()):
        hover = [f"{name}\nP({x}) = {v:.4f}" for x, v in zip(labels, law, strict=True)]
        series.append(bars(name, law, PALETTE[i % len(PALETTE)], hover))
    spec = option(
        "First token's law under each rule",
        series,
        category_axis("token", labels),
        value_axis("probability", low=0, high=1.02),
        subtitle=subtitle,
    )
    # p and a bar a rule, the lossy ones named with their settings: the legend wraps into rows.
    spec["grid"]["top"] += 2 * 30
    return spec


def block_against_token(ks: np.ndarray, token: np.ndarray, block: np.ndarray, subtitle: str) -> dict:
    """Expected accepted draft tokens per iteration over k, token against block verification."""
    series = [
        line(
            name,
            ks,
            values,
            PALETTE[i],
            [f"{name}\nk = {k:d}\naccepted = {v:.4f}" for k, v in zip(ks, values, strict=True)],
            markers=True,
        )
        for i, (name, values) in enumerate((("token verification", token), ("block verification", block)))
    ]
    return option(
        "Block against token verification",
        series,
        value_axis("draft length k", low=int(ks[0]), high=int(ks[-1]), interval=1),
        value_axis("expected accepted draft tokens per iteration"),
        subtitle=subtitle,
    )
