"""The Predictions vs measurements page's chart: predicted against measured speedup, one point a run."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts.style import PALETTE, WIDE_PALETTE, axis, base_layout, figure

#: The marker of each group of runs (:func:`dashboard.features.predictions.marker`'s names):
#: filled for small batches, open from batch 16 on; a diamond for a mixture of experts.
SYMBOLS = {
    "dense, batch < 16": "circle",
    "MoE, batch < 16": "diamond",
    "dense, batch ≥ 16": "circle-open",
    "MoE, batch ≥ 16": "diamond-open",
}
GREY = "#777777"


def predicted_vs_measured(
    predicted: Sequence[float],
    measured: Sequence[float],
    sources: Sequence[str],
    groups: Sequence[str],
    labels: Sequence[str],
) -> go.Figure:
    """Measured (y) against predicted (x) speedup, a point a run, coloured by source, shaped by group
    (a key of :data:`SYMBOLS`), with the line y = x where prediction and measurement agree.

    ``labels`` name the runs in the hover text.
    """
    predicted, measured = np.asarray(predicted, float), np.asarray(measured, float)
    top = max(float(np.max(predicted, initial=1.0)), float(np.max(measured, initial=1.0))) * 1.1
    traces = [
        {
            "type": "scatter",
            "x": [0.0, top],
            "y": [0.0, top],
            "mode": "lines",
            "name": "y = x: prediction right",
            "line": {"color": GREY, "width": 2, "dash": "dash"},
            "hoverinfo": "skip",
        }
    ]
    named = list(dict.fromkeys(sources))
    palette = PALETTE if len(named) <= len(PALETTE) else WIDE_PALETTE
    for i, source in enumerate(named):
        where = [j for j, s in enumerate(sources) if s == source]
        error = (predicted[where] - measured[where]) / measured[where] * 100
        traces.append(
            {
                "type": "scatter",
                "x": predicted[where],
                "y": measured[where],
                "mode": "markers",
                "name": source,
                "marker": {
                    "size": 13,
                    "color": palette[i % len(palette)],
                    "symbol": [SYMBOLS[groups[j]] for j in where],
                    "line": {"width": 2, "color": palette[i % len(palette)]},
                },
                "customdata": np.stack([np.array([labels[j] for j in where], dtype=object), error], axis=1),
                "hovertemplate": "%{customdata[0]}<br>predicted %{x:.2f}×, measured %{y:.2f}×"
                "<br>error %{customdata[1]:+.1f} %<extra>" + source + "</extra>",
            }
        )
    for group in dict.fromkeys(groups):  # the symbols' legend, in grey
        traces.append(
            {
                "type": "scatter",
                "x": [None],
                "y": [None],
                "mode": "markers",
                "name": group,
                "marker": {"size": 13, "color": GREY, "symbol": SYMBOLS[group], "line": {"width": 2, "color": GREY}},
                "hoverinfo": "skip",
            }
        )
    layout = base_layout(
        "Predicted vs measured speedup",
        subtitle=f"{predicted.size} measured runs, acceptance as measured; above the line the model underestimates",
        legend="below",
        margin={"b": 200},  # the sources and the groups wrap to three rows under the plot at 1600 px
        xaxis=axis("predicted speedup (specmath.predict_speedup)", range=[0, top]),
        yaxis=axis("measured speedup", range=[0, top]),
    )
    return figure(traces, layout)
