"""Pure figure builders: arrays in, a ``plotly.graph_objects.Figure`` or an ECharts option out.

No Streamlit and no math beyond arranging what the caller computed with ``specmath``, so each
builder is tested by reading its traces back. Every figure's title states the parameters it
was drawn with, so a screenshot explains itself; the fonts are large enough for a projector.

- ``style``: the template, palette and font, the toolbar config, and the helpers every builder
  shares.
- ``echart``: the same for the charts ECharts draws, which update in place (the pages
  whose presses redraw several charts).
- ``contours``: the optimal-k map's contour lines and their labels.
- one module per page, named as its script in ``app_pages/``: that page's builders.

Callers write ``from dashboard import charts`` and ``charts.speedup_curves(...)``.
"""

from dashboard.charts.acceptance_vs_kl import alpha_vs_kl
from dashboard.charts.calibrate import acceptance_length_curve
from dashboard.charts.contours import monotone_contours, speedup_contours
from dashboard.charts.draft_trees import tree_layout, tree_picture, tree_picture_height, tree_speedups, tree_tokens
from dashboard.charts.echart import HEIGHT as ECHART_HEIGHT
from dashboard.charts.echart import with_export
from dashboard.charts.hardware import (
    batch_context_map,
    batch_sweep,
    hardware_speedup,
    k_schedule,
    verification_by_batch,
    verification_cost,
)
from dashboard.charts.optimal_k import C_TICKS, best_speedup_map, optimal_k_map
from dashboard.charts.optimal_k import HEIGHT as MAP_HEIGHT
from dashboard.charts.predictions import predicted_vs_measured
from dashboard.charts.rejection_sampling import sampling_histogram
from dashboard.charts.simulator import position_acceptance, tokens_per_call
from dashboard.charts.speedup import (
    calibrated_speedup,
    measured_against_iid,
    published_hover,
    published_points,
    speedup_curves,
)
from dashboard.charts.step_through import ROLE_COLOURS, acceptance_checks, position_scores, timeline, word_bars
from dashboard.charts.style import TRACE_TYPES, chart_config
from dashboard.charts.verification_rules import (
    alpha_against_temperature,
    block_against_token,
    first_token_laws,
    rule_alphas,
)

__all__ = [
    "C_TICKS",
    "ECHART_HEIGHT",
    "MAP_HEIGHT",
    "ROLE_COLOURS",
    "TRACE_TYPES",
    "acceptance_checks",
    "acceptance_length_curve",
    "alpha_against_temperature",
    "alpha_vs_kl",
    "batch_context_map",
    "batch_sweep",
    "best_speedup_map",
    "block_against_token",
    "calibrated_speedup",
    "chart_config",
    "first_token_laws",
    "hardware_speedup",
    "k_schedule",
    "measured_against_iid",
    "monotone_contours",
    "optimal_k_map",
    "position_acceptance",
    "position_scores",
    "predicted_vs_measured",
    "published_hover",
    "published_points",
    "rule_alphas",
    "sampling_histogram",
    "speedup_contours",
    "speedup_curves",
    "timeline",
    "tokens_per_call",
    "tree_layout",
    "tree_picture",
    "tree_picture_height",
    "tree_speedups",
    "tree_tokens",
    "verification_by_batch",
    "verification_cost",
    "with_export",
    "word_bars",
]
