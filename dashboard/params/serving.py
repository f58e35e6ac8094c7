"""The parameters of the serving pages: Calibrate's counts and times, the Hardware page, Draft trees."""

from __future__ import annotations

import engines
import specmath
from dashboard import acceptance, engine_config
from dashboard.params.base import Param, Section, format_count, format_number
from specmath.deployment import PRECISIONS  # bytes per parameter

BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
CONTEXTS = (0, 512, 1024, 2048, 4096, 8192, 16384, 32768, 131072)
#: Tensor-parallel degrees offered: one GPU to a full 8-GPU node.
TP_DEGREES = (1, 2, 4, 8)
#: The draft's GPUs when the user sets none: where the engines run it
#: (:func:`dashboard.features.hardware.draft_gpus`).
AUTO_DRAFT_TP = "auto"


def format_degree(value: int | str) -> str:
    """A draft's tensor-parallel choice as the slider and the link write it: "auto", or the number."""
    return value if value == AUTO_DRAFT_TP else format_number(value)


#: The Draft trees page's caps: its dynamic program over 32 ranks, 128 nodes and depth 16 stays
#: well inside a run's budget (bench/bench_trees.py); an EAGLE frontier of 8 drafts at most 8 + 15 × 64 nodes.
TREE_MAX_BUDGET = 128
TREE_MAX_DEPTH = 16
TREE_MAX_TOPK = 8
#: Longest typed acceptance vector: Sequoia's has 32 ranks.
TREE_MAX_RANKS = 32

#: The Hardware page's tabs, each value's label; the address holds the label, as Streamlit's
#: bound tabs write it.
HARDWARE_TABS = {
    "speedup": "Speedup",
    "experts": "Experts and context",
    "schedule": "Schedule",
    "engines": "Engine configs",
}

#: In the order the pages show them.
PARAMS: tuple[Param, ...] = (
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
        "Bytes per parameter: bf16 2, fp8 1, int4 0.5 (KV cache stays 16-bit). With fp8 the GPU's "
        "dense FP8 peak is used where its datasheet gives one.",
        options=tuple(PRECISIONS),
        widget="radio",
    ),
    Param(
        "drafter_kind",
        "Drafter",
        "choice",
        "sequential",
        "sequential: the draft runs once per drafted token (a draft model, EAGLE, chained MTP). "
        "parallel: it proposes the whole block in one pass over k positions (PARD, DFlash). "
        "model_free: n-gram or suffix matching, a fixed lookup time whatever k.",
        options=specmath.general.DRAFTERS,
        widget="radio",
    ),
    Param(
        "lookup_ms",
        "Lookup time per iteration (ms)",
        "float",
        0.0,
        "What one n-gram or suffix lookup costs; 0 makes drafting free (c = ∞).",
        low=0.0,
        high=100.0,
        step=0.01,
        widget="number_input",
        shown_when=("drafter_kind", "model_free"),
    ),
    Param(
        "tp",
        "Target GPUs (tensor parallel)",
        "choice",
        1,
        "The target's weights, KV cache and FLOPs split over this many GPUs, plus two all-reduces a layer.",
        options=TP_DEGREES,
        fmt=format_number,
    ),
    Param(
        "draft_tp",
        "Draft GPUs (tensor parallel)",
        "choice",
        AUTO_DRAFT_TP,
        "auto: where the engines run the draft. A head (EAGLE, EAGLE-3, MTP: the draft model is one, or the "
        "method runs one) and a DFlash draft run on the target's GPUs in every engine; a separate draft "
        "model (method draft_model) on one GPU, which only vLLM can do: SGLang and TensorRT-LLM draft on "
        "the target's GPUs, as the configs below say. A number sets the draft's GPUs whatever the method.",
        options=(AUTO_DRAFT_TP, *TP_DEGREES),
        fmt=format_degree,
    ),
    Param(
        "interconnect",
        "Link between the GPUs",
        "choice",
        "NVLink (H100 SXM)",
        "Bandwidth each way and the latency of one all-reduce, with sources (specmath.INTERCONNECT_PRESETS).",
        options=tuple(specmath.INTERCONNECT_PRESETS),
        widget="selectbox",
    ),
    Param(
        "link_bandwidth",
        "Link bandwidth override (GB/s each way, 0 = the link's)",
        "float",
        0.0,
        "Type your own interconnect's figure.",
        low=0.0,
        high=100_000.0,
        step=10.0,
        widget="number_input",
    ),
    Param(
        "link_latency_us",
        "All-reduce latency override (µs, 0 = the link's)",
        "float",
        0.0,
        "One all-reduce call's fixed time, as nccl-tests' all_reduce_perf prints it for small messages.",
        low=0.0,
        high=10_000.0,
        step=0.5,
        widget="number_input",
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
        "acc_falloff",
        "Acceptance against context",
        "choice",
        acceptance.NO_FALLOFF,
        "none: acceptance does not change with context. A head: its measured fall-off of accepted tokens "
        "with context, fitted (specmath.fit_context_falloff to specmath.presets.CONTEXT_MEASUREMENTS), applied to "
        "the acceptance chosen above, taken as that at no context.",
        options=acceptance.FALLOFFS,
        widget="selectbox",
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
        "target's own MTP layers, n-grams from the prompt, suffix trees of the prompt and earlier "
        "responses, or a DFlash draft (dflash), which drafts the block in one pass: the parallel drafter. "
        "The model above still sets the draft's cost.",
        options=tuple(engines.SPECULATIVE_METHODS),
        widget="selectbox",
    ),
    Param(
        "data_parallel",
        "Data-parallel size",
        "int",
        1,
        "vLLM's --data-parallel-size (SGLang: attention data parallelism). Above 1, vLLM ignores a "
        "per-batch-size schedule and SGLang's adaptive steps are off: the configs say what they take instead.",
        low=1,
        high=64,
        step=1,
        widget="number_input",
    ),
    Param(
        "n_predict",
        "MTP layers of the target (n_predict)",
        "int",
        1,
        "For method mtp: the MTP modules the target ships (num_nextn_predict_layers in its config.json). "
        "vLLM wants num_speculative_tokens above it to be a multiple of it.",
        low=1,
        high=16,
        step=1,
        widget="number_input",
    ),
    Param(
        "drafter",
        "Draft model or head name (optional)",
        "text",
        "",
        "The Hugging Face name or local path of the model your engine drafts with: your own draft "
        "model, or an EAGLE or EAGLE-3 head trained for your target (such as "
        "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B). It goes only into the engines' configs below; "
        "the draft model chosen above still sets the draft's cost. Empty: the draft model's name, "
        "or a placeholder for a head.",
        max_chars=engine_config.MAX_DRAFTER_NAME,
        allowed=engine_config.valid_drafter_name,
        rule=engine_config.DRAFTER_NAME_RULE,
        placeholder="org/model or ./path/to/model",
    ),
    Param(
        "cal_schedule",
        "Batch-size schedule for a GPU",
        "bool",
        False,
        "From the measured acceptance, the best k at every batch size on a GPU's roofline, and the "
        "engines' settings for it. With your step times, the roofline is scaled to them.",
    ),
    Param(
        "tree_cost",
        "Verification cost T(m)",
        "choice",
        "roofline",
        "roofline: the target's pass over m positions on a GPU, as on the Hardware page. linear: "
        "T(m) = T(1) (1 + β (m − 1)). free: T(m) = T(1), the chapter's model, where only the draft "
        "steps cost.",
        options=("roofline", "linear", "free"),
        widget="radio",
    ),
    Param(
        "tree_beta",
        "β: extra cost of each verified position",
        "float",
        0.05,
        "T(m) = T(1) (1 + β (m − 1)): 0 is free verification, 1 as dear as m separate steps.",
        low=0.0,
        high=1.0,
        step=0.01,
        shown_when=("tree_cost", "linear"),
    ),
    Param(
        "tree_source",
        "Acceptance vector from",
        "choice",
        "sequoia",
        "chain: the shared α, one rank (p₁ = α). sequoia: the vector Sequoia measured "
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
    Param(
        "hw_view",
        "Part of the page",
        "choice",
        "speedup",
        "The Hardware page's tabs; only the open one is computed and drawn.",
        options=tuple(HARDWARE_TABS),
        fmt=HARDWARE_TABS.get,
        widget="tabs",
    ),
)

#: The Hardware page's sidebar, section by section (``dashboard.features.hardware`` declares the page
#: with it). Here rather than there: Calibrate's schedule copies these parameters (``dashboard.params``).
HARDWARE_SECTIONS = (
    Section("Models and GPU", ("target_model", "draft_model", "gpu", "precision", "drafter_kind", "lookup_ms")),
    Section("Tensor parallelism", ("tp", "draft_tp", "interconnect", "link_bandwidth", "link_latency_us")),
    Section("Workload", ("batch", "context", "overhead_ms")),
    Section("Your own numbers", ("bandwidth", "peak")),
    Section("Schedule for your engine", ("max_batch", "method", "drafter", "data_parallel", "n_predict")),
)
#: The Hardware page's roofline overrides, which Calibrate's schedule does not show: it fits them to
#: the measured step times instead (``dashboard.features.calibrate_schedule``).
ROOFLINE_OVERRIDES = ("overhead_ms", "bandwidth", "peak")
