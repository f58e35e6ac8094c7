"""Every widget parameter of the dashboard, defined once: label, default, bounds, step, URL key.

The URL key is the widget key (Streamlit's ``bind="query-params"`` uses the key as the query
parameter name), so a parameter's name in the address bar, in ``st.session_state`` and here is
the same string. This module is pure Python: ``dashboard.ui`` turns a :class:`Param` into a
Streamlit widget, and ``dashboard.link_check`` explains a link value a widget cannot take.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import specmath
from dashboard import toy_language
from dashboard.presets import PRESET_LABELS


def format_number(value: float) -> str:
    """Shortest plain form of a number for labels and URLs: 20, 1.5, 0.05."""
    return f"{value:g}"


def format_count(value: int) -> str:
    """Sample counts as 1k, 30k, 1M, 10M: short in the URL and on the slider."""
    for unit, name in ((1_000_000, "M"), (1_000, "k")):
        if value >= unit and value % unit == 0:
            return f"{value // unit}{name}"
    return str(value)


DEFAULT_WIDGETS = {
    "float": "slider",
    "int": "slider",
    "choice": "select_slider",
    "multi": "multiselect",
    "bool": "toggle",
}


@dataclass(frozen=True)
class Param:
    """One widget parameter.

    ``kind`` says what the value is: ``"float"`` and ``"int"`` range over [low, high] with
    ``step``; ``"choice"`` is one of ``options``, shown and written to the URL with ``fmt``;
    ``"multi"`` several of ``options``; ``"bool"`` true or false. ``widget`` names the Streamlit
    widget (the name of its AppTest element): :data:`DEFAULT_WIDGETS` unless set.
    """

    key: str
    label: str
    kind: str
    default: Any
    help: str = ""
    low: float | None = None
    high: float | None = None
    step: float | None = None
    options: Sequence[Any] = field(default_factory=tuple)
    fmt: Callable[[Any], str] = str
    widget: str = ""
    shared: bool = False  # carried from page to page by the navigation links

    @property
    def widget_type(self) -> str:
        return self.widget or DEFAULT_WIDGETS[self.kind]

    def url_text(self, value: Any) -> str | list[str]:
        """``value`` as a link carries it, what the widget's binding reads (a list for ``"multi"``)."""
        if self.kind == "bool":
            return "true" if value else "false"
        if self.kind == "multi":
            return [self.fmt(v) for v in value]
        if self.kind == "int":
            return str(int(value))
        if self.kind == "float":
            return format_number(value)
        return self.fmt(value)

    def describe_range(self) -> str:
        if self.kind in ("float", "int"):
            return f"{format_number(self.low)} to {format_number(self.high)}"
        if self.kind in ("choice", "multi"):
            shown = [self.fmt(o) for o in self.options]
            return ", ".join(shown) if len(shown) <= 8 else f"{', '.join(shown[:4])}, …, {shown[-1]}"
        return "true or false"


#: Cost ratios offered by the c slider: roughly log-spaced, so 1 to 200 fits one slider with
#: fine steps where c is small and the chapter's 10, 20 and 50 all on it.
C_OPTIONS = (
    1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 18, 20, 22, 25, 30, 35,
    40, 45, 50, 60, 70, 80, 90, 100, 120, 140, 160, 180, 200,
)  # fmt: skip

#: Acceptance rates offered for the comparison curves.
ALPHA_CHOICES = (*(round(0.05 * i, 2) for i in range(1, 20)), 0.99)

BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
CONTEXTS = (0, 512, 1024, 2048, 4096, 8192, 16384, 32768, 131072)
PRECISIONS = {"bf16": 2.0, "fp8": 1.0, "int4": 0.5}  # bytes per parameter

TEMPERATURES = (0.25, 0.33, 0.5, 0.67, 0.8, 1.25, 1.5, 2, 3, 4)
TOKEN_COUNTS = (10_000, 30_000, 100_000, 300_000, 1_000_000)
#: The simulator generates its tokens as independent sequences of this length. Side by side,
#: shorter sequences mean fewer decoding rounds in Python: 200 takes 60 % of 500's time at the
#: defaults, and shorter ones no less (numpy's work, not the loop, is then what counts).
SIMULATOR_SEQUENCE = 200

#: The longest draft the Step through page steps through, and its steps for that draft: k to
#: draft, one to score, k to check, one for the correction or bonus word, one for the outcome.
STEP_MAX_K = 8
STEP_COUNT = 2 * STEP_MAX_K + 3

#: Up to 3M: 10M rounds took 0.5 to 0.8 s of a shared server (bench_load.py), past one run's budget.
SAMPLE_COUNTS = (1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000)

PARAMS: dict[str, Param] = {
    p.key: p
    for p in (
        Param(
            "alpha",
            "Acceptance rate α",
            "float",
            0.8,
            "Probability that the target accepts a draft token, α = Σ min(p, q).",
            low=0.0,
            high=1.0,
            step=0.01,
            shared=True,
        ),
        Param(
            "k",
            "Draft length k",
            "int",
            8,
            "Tokens the draft proposes per iteration.",
            low=1,
            high=64,
            step=1,
            shared=True,
        ),
        Param(
            "c",
            "Cost ratio c (target step / draft step)",
            "choice",
            20,
            "How many draft steps fit in one target step. c = 20: the draft is 20× faster.",
            options=C_OPTIONS,
            fmt=format_number,
            shared=True,
        ),
        Param(
            "compare",
            "Compare with α =",
            "multi",
            (0.5, 0.6, 0.7, 0.8, 0.9),
            "Acceptance rates drawn as comparison curves (the chapter's set by default).",
            options=ALPHA_CHOICES,
            fmt=format_number,
        ),
        Param(
            "published",
            "Published results",
            "bool",
            False,
            "Measured speedups from the papers beside the curves, each with its citation "
            "(dashboard/data/SOURCES.md); Spec-Bench's, which have no fixed k, in a table.",
        ),
        Param(
            "max_k",
            "Longest draft considered (max k)",
            "int",
            20,
            "optimal_k searches k = 1 … max k; the chapter uses 20.",
            low=1,
            high=64,
            step=1,
        ),
        Param(
            "preset",
            "Distributions",
            "choice",
            "chapter",
            "Start from a preset, then edit p and q in the table.",
            options=tuple(PRESET_LABELS),
            fmt=str,
            widget="selectbox",
        ),
        Param(
            "vocab",
            "Vocabulary size",
            "int",
            10,
            "Tokens in the random Dirichlet pair.",
            low=2,
            high=50,
            step=1,
        ),
        Param(
            "n",
            "Number of samples",
            "choice",
            100_000,
            "Independent speculative sampling rounds.",
            options=SAMPLE_COUNTS,
            fmt=format_count,
        ),
        Param(
            "seed",
            "Random seed",
            "int",
            42,
            "Same seed, same samples.",
            low=0,
            high=9999,
            step=1,
            widget="number_input",
        ),
        Param(
            "pairs",
            "Number of pairs",
            "int",
            200,
            "Random (p, q) pairs; the chapter draws 200.",
            low=10,
            high=5000,
            step=10,
        ),
        Param(
            "kl_vocab",
            "Vocabulary size",
            "int",
            20,
            "Tokens per distribution; the chapter uses 20.",
            low=2,
            high=1000,
            step=1,
        ),
        Param("logx", "Log scale for KL", "bool", False, "Spread out the small divergences."),
        Param(
            "target",
            "Target chain",
            "choice",
            "regimes",
            "regimes: sticky predictable and unpredictable stretches, like boilerplate and content. "
            "random: every context drawn independently.",
            options=("regimes", "random"),
            widget="selectbox",
        ),
        Param(
            "draft",
            "Draft made by",
            "choice",
            "merged",
            "merged: a smaller model that cannot tell some contexts apart. temperature: the target "
            "sampled hotter or colder. noise: the target blurred toward uniform.",
            options=("merged", "temperature", "noise"),
            widget="selectbox",
        ),
        Param(
            "contexts",
            "Contexts the draft can tell apart",
            "int",
            2,
            "1 is a unigram draft; the vocabulary size is the target itself.",
            low=1,
            high=26,
            step=1,
        ),
        Param(
            "temperature",
            "Draft temperature",
            "choice",
            2,
            "Above 1 flatter than the target, below 1 sharper.",
            options=TEMPERATURES,
            fmt=format_number,
        ),
        Param(
            "noise", "Noise weight", "float", 0.3, "0 is the target, 1 a uniform draft.", low=0.0, high=1.0, step=0.05
        ),
        Param(
            "chain_vocab",
            "Vocabulary size",
            "int",
            8,
            "Tokens of the toy language, shown as letters.",
            low=2,
            high=26,
            step=1,
        ),
        Param(
            "tokens",
            "Tokens to generate",
            "choice",
            100_000,
            f"Generated as independent sequences of {SIMULATOR_SEQUENCE} tokens.",
            options=TOKEN_COUNTS,
            fmt=format_count,
        ),
        Param(
            "drafts",
            "Drafting steps",
            "int",
            1000,
            "Target verification steps that checked a draft (vLLM: num_drafts).",
            low=1,
            high=10**12,
            step=1,
            widget="number_input",
        ),
        Param(
            "accepted",
            "Accepted draft tokens",
            "int",
            2400,
            "Draft tokens the target accepted, bonus tokens not counted.",
            low=0,
            high=64 * 10**12,
            step=1,
            widget="number_input",
        ),
        Param(
            "target_ms",
            "Target step (ms)",
            "float",
            0.0,
            "Measured time of one target forward pass; with the draft's, sets c. 0: use the c slider.",
            low=0.0,
            high=100_000.0,
            step=0.1,
            widget="number_input",
        ),
        Param(
            "draft_ms",
            "Draft step (ms)",
            "float",
            0.0,
            "Measured time of one draft forward pass.",
            low=0.0,
            high=100_000.0,
            step=0.1,
            widget="number_input",
        ),
        Param(
            "target_model",
            "Target model",
            "choice",
            "Llama-3.1-8B",
            "Sizes from each model's config.json (see specmath.presets).",
            options=tuple(specmath.MODEL_PRESETS),
            widget="selectbox",
        ),
        Param(
            "draft_model",
            "Draft model",
            "choice",
            "Llama-3.2-1B",
            "The small model that proposes tokens.",
            options=tuple(specmath.MODEL_PRESETS),
            widget="selectbox",
        ),
        Param(
            "gpu",
            "GPU",
            "choice",
            "H100 SXM",
            "Memory bandwidth and dense BF16 peak from the vendor's datasheet.",
            options=tuple(specmath.GPU_PRESETS),
            widget="selectbox",
        ),
        Param(
            "precision",
            "Weights stored as",
            "choice",
            "bf16",
            "Bytes per parameter: bf16 2, fp8 1, int4 0.5 (KV cache stays 16-bit).",
            options=tuple(PRECISIONS),
            widget="radio",
        ),
        Param(
            "batch",
            "Batch size",
            "choice",
            1,
            "Sequences decoded together; the draft drafts for all of them.",
            options=BATCHES,
            fmt=format_number,
        ),
        Param(
            "context",
            "Context length (cached tokens)",
            "choice",
            1024,
            "KV-cache tokens each sequence reads per step.",
            options=CONTEXTS,
            fmt=format_count,
        ),
        Param(
            "overhead_ms",
            "Fixed overhead per forward pass (ms)",
            "float",
            0.0,
            "Kernel launches, sampling and scheduling; it makes small drafts dearer than their size says.",
            low=0.0,
            high=100.0,
            step=0.05,
            widget="number_input",
        ),
        Param(
            "bandwidth",
            "Memory bandwidth override (GB/s, 0 = the GPU's)",
            "float",
            0.0,
            "Type your own hardware's figure.",
            low=0.0,
            high=100_000.0,
            step=10.0,
            widget="number_input",
        ),
        Param(
            "peak",
            "Peak compute override (TFLOP/s, 0 = the GPU's)",
            "float",
            0.0,
            "Dense 16-bit peak.",
            low=0.0,
            high=100_000.0,
            step=10.0,
            widget="number_input",
        ),
        Param(
            "max_batch",
            "Largest batch in the schedule",
            "choice",
            256,
            "The k schedule covers batch sizes 1 to this (vLLM's --max-num-seqs); beyond it vLLM keeps the last k.",
            options=BATCHES[3:],
            fmt=format_number,
        ),
        Param(
            "method",
            "Speculative method",
            "choice",
            "draft_model",
            "vLLM's method in --speculative-config: a separate draft model, an EAGLE or EAGLE-3 head, the "
            "target's own MTP layers, or n-grams from the prompt. The model above still sets the draft's cost.",
            options=("draft_model", "eagle", "eagle3", "mtp", "ngram"),
            widget="selectbox",
        ),
        Param(
            "step",
            "Step",
            "int",
            1,
            "Where in the iteration: drafting, the target's pass, the checks, the last word, the outcome.",
            low=1,
            high=STEP_COUNT,
            step=1,
        ),
        Param(
            "step_draft",
            "Draft made by",
            "choice",
            "noise",
            "noise: the target blurred toward uniform, so it proposes words that make no sense. "
            "temperature: the target sampled hotter or colder. merged: a smaller model that cannot "
            "tell some words apart.",
            options=("noise", "temperature", "merged"),
            widget="selectbox",
        ),
        Param(
            "step_contexts",
            "Words the draft can tell apart",
            "int",
            4,
            "The words fall into this many groups of neighbours in the word list; the draft sees only "
            f"the group of the previous word. 1 is a unigram draft, {toy_language.V} the target itself.",
            low=1,
            high=toy_language.V,
            step=1,
        ),
        Param(
            "greedy",
            "Greedy decoding",
            "bool",
            False,
            "Both models take their most likely word (temperature 0): a draft word passes exactly "
            "when it is the target's most likely word. Off: both sample, as in the papers.",
        ),
        Param(
            "presenter",
            "Presenter mode",
            "bool",
            False,
            "For a projector: larger type, big Back and Next buttons, the sidebar collapsed.",
        ),
        Param(
            "view",
            "Colour the map by",
            "choice",
            "k",
            "The optimal draft length k*, or the best speedup it achieves.",
            options=("k", "speedup"),
            widget="radio",
        ),
    )
}

# The Step through page's draft strengths are the Simulator's, under keys of their own in the URL.
PARAMS |= {f"step_{key}": replace(PARAMS[key], key=f"step_{key}") for key in ("noise", "temperature")}

#: The Draft trees page's caps: its dynamic program over 32 ranks, 128 nodes and depth 16 takes
#: about 30 ms (bench/bench_trees.py); an EAGLE frontier of 8 drafts at most 8 + 15 × 64 nodes.
TREE_MAX_BUDGET = 128
TREE_MAX_DEPTH = 16
TREE_MAX_TOPK = 8
#: Longest typed acceptance vector: Sequoia's has 32 ranks.
TREE_MAX_RANKS = 32

PARAMS |= {
    p.key: p
    for p in (
        Param(
            "tree_source",
            "Acceptance vector from",
            "choice",
            "sequoia",
            "chain: the shared α, one rank (acceptance = (α,)). sequoia: the vector Sequoia measured "
            "for a 68M draft of Llama-2-7B. pair: a toy target chain and a draft that merges its "
            "contexts, under greedy decoding. typed: numbers you type.",
            options=("chain", "sequoia", "pair", "typed"),
            widget="radio",
        ),
        Param(
            "budget",
            "Tree budget m (nodes, root included)",
            "int",
            32,
            "Positions the target verifies in one pass: the root (the target's own token) and m − 1 drafts.",
            low=2,
            high=TREE_MAX_BUDGET,
            step=1,
        ),
        Param(
            "depth",
            "Tree depth limit (draft steps)",
            "int",
            5,
            "Most draft tokens on a root-to-leaf path: the draft steps one iteration runs.",
            low=1,
            high=TREE_MAX_DEPTH,
            step=1,
        ),
        Param(
            "topk",
            "EAGLE topk (--speculative-eagle-topk)",
            "int",
            8,
            "Children per expanded node, and nodes expanded per step.",
            low=1,
            high=TREE_MAX_TOPK,
            step=1,
        ),
        Param(
            "steps",
            "EAGLE steps (--speculative-num-steps)",
            "int",
            5,
            "Draft steps SGLang runs per iteration: the EAGLE tree's depth.",
            low=1,
            high=TREE_MAX_DEPTH,
            step=1,
        ),
    )
}

# The Draft trees page's toy pair and cost model are the Simulator's and the Hardware page's
# parameters under keys of their own (its widgets appear only for some choices of the page's).
PARAMS |= {
    f"tree_{key}": replace(PARAMS[key], key=f"tree_{key}")
    for key in ("target", "chain_vocab", "contexts", "target_model", "gpu", "precision", "context")
}
PARAMS["tree_batch"] = replace(PARAMS["batch"], key="tree_batch", default=16)

SHARED_KEYS = tuple(key for key, p in PARAMS.items() if p.shared)
