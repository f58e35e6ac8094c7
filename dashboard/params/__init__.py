"""Every widget parameter of the dashboard, defined once: label, default, bounds, step, URL key.

The URL key is the widget key (Streamlit's ``bind="query-params"`` uses the key as the query
parameter name), so a parameter's name in the address bar, in ``st.session_state`` and here is
the same string. This module is pure Python: ``dashboard.binding`` turns a :class:`Param` into a
Streamlit widget and explains a link value a widget cannot take.
"""

from __future__ import annotations

from dataclasses import replace

from dashboard.params import chapter, serving, simulation, verification
from dashboard.params.base import DEFAULT_WIDGETS, Param, Section, format_count, format_number, section_keys
from dashboard.params.chapter import ALPHA_CHOICES, C_OPTIONS, SAMPLE_COUNTS
from dashboard.params.serving import (
    AUTO_DRAFT_TP,
    BATCHES,
    CONTEXTS,
    HARDWARE_SECTIONS,
    HARDWARE_TABS,
    PRECISIONS,
    ROOFLINE_OVERRIDES,
    TP_DEGREES,
    TREE_MAX_BUDGET,
    TREE_MAX_DEPTH,
    TREE_MAX_RANKS,
    TREE_MAX_TOPK,
)
from dashboard.params.simulation import SIMULATOR_SEQUENCE, STEP_COUNT, STEP_MAX_K, TEMPERATURES, TOKEN_COUNTS

#: Every parameter by its key (= widget key = URL key), one module per page family.
PARAMS: dict[str, Param] = {
    p.key: p for p in (*chapter.PARAMS, *simulation.PARAMS, *serving.PARAMS, *verification.PARAMS)
}

# The Step through page's draft strengths are the Simulator's, under keys of their own in the URL.
PARAMS |= {
    f"step_{key}": replace(PARAMS[key], key=f"step_{key}", shown_when=("step_draft", key))
    for key in ("noise", "temperature")
}

# The Draft trees page's toy pair and cost model are the Simulator's and the Hardware page's
# parameters under keys of their own (its widgets appear only for some choices of the page's).
PARAMS |= {
    f"tree_{key}": replace(PARAMS[key], key=f"tree_{key}", shown_when=("tree_source", "pair"))
    for key in ("target", "chain_vocab", "contexts")
}
#: Its typed acceptance vector: any text reaches the box, and the page says what it cannot read.
PARAMS["acceptance"] = Param(
    "acceptance",
    "p₁, p₂, … (commas or spaces)",
    "text",
    "0.5, 0.2, 0.1, 0.05",
    "The rate at which the draft's r-th choice is accepted, p₁ first.",
    shown_when=("tree_source", "typed"),
)
# Its target is served as on the Hardware page: tensor parallelism over the same links (its draft's
# cost is the target's step over c, so it needs no draft GPUs).
TREE_SERVING_KEYS = ("tp", "interconnect", "link_bandwidth", "link_latency_us")
PARAMS |= {
    f"tree_{key}": replace(PARAMS[key], key=f"tree_{key}", shown_when=("tree_cost", "roofline"))
    for key in ("target_model", "gpu", "precision", "context", *TREE_SERVING_KEYS)
}
PARAMS["tree_batch"] = replace(PARAMS["batch"], key="tree_batch", default=16, shown_when=("tree_cost", "roofline"))

# Calibrate's schedule has the Hardware page's settings, but for its roofline overrides, under keys
# of their own, in the Hardware page's order (its widgets appear only with cal_schedule on); its batch
# is also the one the step times were measured at.
CALIBRATE_SCHEDULE = ("cal_schedule", True)
_CALIBRATE_LABELS = {
    "batch": {
        "label": "Batch size (of your step times)",
        "help": "Sequences decoded together when you measured the step times; SGLang's flags are for this batch.",
    }
}


def _calibrate_copy(param: Param) -> Param:
    # A condition on another Hardware setting becomes one on its copy (lookup_ms: a model-free
    # drafter); cal_drafter_kind itself shows only with cal_schedule on, so both hold.
    when = CALIBRATE_SCHEDULE if param.shown_when is None else (f"cal_{param.shown_when[0]}", param.shown_when[1])
    return replace(param, key=f"cal_{param.key}", shown_when=when, **_CALIBRATE_LABELS.get(param.key, {}))


#: Calibrate's copies of the Hardware page's settings, in its order.
CALIBRATE_KEYS = tuple(f"cal_{key}" for key in section_keys(HARDWARE_SECTIONS) if key not in ROOFLINE_OVERRIDES)
PARAMS |= {key: _calibrate_copy(PARAMS[key.removeprefix("cal_")]) for key in CALIBRATE_KEYS}

SHARED_KEYS = tuple(key for key, p in PARAMS.items() if p.shared)

__all__ = [
    "ALPHA_CHOICES",
    "AUTO_DRAFT_TP",
    "BATCHES",
    "CALIBRATE_KEYS",
    "CONTEXTS",
    "C_OPTIONS",
    "DEFAULT_WIDGETS",
    "HARDWARE_SECTIONS",
    "HARDWARE_TABS",
    "PARAMS",
    "PRECISIONS",
    "SAMPLE_COUNTS",
    "SHARED_KEYS",
    "SIMULATOR_SEQUENCE",
    "STEP_COUNT",
    "STEP_MAX_K",
    "TEMPERATURES",
    "TOKEN_COUNTS",
    "TP_DEGREES",
    "TREE_MAX_BUDGET",
    "TREE_MAX_DEPTH",
    "TREE_MAX_RANKS",
    "TREE_MAX_TOPK",
    "TREE_SERVING_KEYS",
    "Param",
    "Section",
    "format_count",
    "format_number",
    "section_keys",
]
