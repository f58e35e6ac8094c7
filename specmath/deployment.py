"""A deployment's cost models: two models, a GPU, the weights' precision, how they are served.

One way to build the costs of a deployment, for :func:`specmath.predict_speedup` and the
dashboard's Hardware, Calibrate and Draft trees pages alike: :class:`Deployment` names the
presets and the edits, :func:`hardware_setup` turns it into the draft's and the target's
:class:`~specmath.Roofline` at a batch size (:class:`HardwareSetup`). Also here, as facts the
cost side needs: the bytes per parameter of each precision (:data:`PRECISIONS`), the drafter kind
each speculative method drafts as (:data:`METHOD_DRAFTERS`) and the link between a GPU's peers
(:data:`GPU_INTERCONNECTS`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from ._validate import shown
from .costs import Roofline
from .presets import GPU_PRESETS, INTERCONNECT_PRESETS, MODEL_PRESETS
from .specs import GPUSpec, Interconnect, ModelSpec

#: Bytes per parameter of the weights' precisions the pages offer (the KV cache stays 16-bit).
PRECISIONS = {"bf16": 2.0, "fp8": 1.0, "int4": 0.5}

#: The drafter kind (:data:`specmath.general.DRAFTERS`) of each speculative method, as the engines run it,
#: read from vLLM 0.33.0 and 0.34.0 (PyPI wheels, commits 4ba787ec9 and 62d4bc3c7) and SGLang 0.5.23:
#:
#: - ``draft_model``, ``eagle``, ``eagle3`` and ``mtp`` draft one token a pass, k passes for k
#:   tokens: sequential.
#: - ``ngram`` and ``suffix`` look the tokens up in the prompt and earlier text, no model: model-free.
#: - ``dflash`` drafts a block in one pass: parallel. vLLM: "dflash and dspark always draft in
#:   parallel, and no other method supports it" (0.34.0 ``vllm/config/speculative.py`` lines
#:   1688-1698); 0.33.0 sets ``parallel_drafting`` for them (``speculative.py`` lines 1581-1582).
#:   SGLang: ``--speculative-algorithm DFLASH`` (``sglang/srt/arg_groups/fields/spec.py`` line 33).
#:
#: :mod:`engines.configs` writes each engine's settings for these methods; not written there:
#: vLLM's ``dspark`` (a DFlash draft with a Markov head), SGLang's ``DSPARK``, and PARD, which vLLM
#: 0.33.0 ran as ``draft_model`` with ``parallel_drafting: true`` (``speculative.py`` lines 511-515,
#: 2085-2089), a key 0.34.0 deprecates to no effect. Their kind is parallel as well.
METHOD_DRAFTERS = {
    "draft_model": "sequential",
    "eagle": "sequential",
    "eagle3": "sequential",
    "mtp": "sequential",
    "ngram": "model_free",
    "suffix": "model_free",
    "dflash": "parallel",
}

#: The link tensor parallelism crosses on each GPU's usual 8-GPU board, a key of
#: :data:`~specmath.INTERCONNECT_PRESETS`. H100 SXM: its datasheet's NVLink (the preset's own
#: source). H200 SXM: the same fourth-generation NVLink, "NVLink 4.0: 450GB/s unidirectional
#: bandwidth, 900GB/s bidirectional bandwidth" (https://www.saulelectric.com/nvidia-h200.html,
#: section 2.5, a distributor's copy of the specifications, not NVIDIA's sheet). B200 (HGX): its
#: fifth-generation NVLink, a preset of its own. GPUs not listed have no link preset yet: a
#: deployment over several of them must name its own.
GPU_INTERCONNECTS = {
    "H100 SXM": "NVLink (H100 SXM)",
    "H200 SXM": "NVLink (H100 SXM)",
    "B200 (HGX)": "NVLink 5 (HGX B200)",
}


class Serving(NamedTuple):
    """How the target is served and the draft drafts, in a tuple a cache can hash. The defaults
    are one GPU and a draft model run k times."""

    drafter: str = "sequential"  # specmath.general.DRAFTERS
    lookup_ms: float = 0.0  # a model-free drafter's lookup per iteration
    tp: int = 1
    draft_tp: int = 1
    interconnect: str = "NVLink (H100 SXM)"  # a key of specmath.INTERCONNECT_PRESETS
    link_bandwidth_gbs: float = 0.0  # 0: the interconnect's
    link_latency_us: float = 0.0  # 0: the interconnect's

    @property
    def link(self) -> Interconnect:
        """The interconnect with the overrides applied."""
        link = INTERCONNECT_PRESETS[self.interconnect]
        return replace(
            link,
            bandwidth=self.link_bandwidth_gbs * 1e9 if self.link_bandwidth_gbs > 0 else link.bandwidth,
            latency_s=self.link_latency_us * 1e-6 if self.link_latency_us > 0 else link.latency_s,
        )


#: One GPU for each model and a draft model run once per drafted token: the Hardware page's
#: defaults (Calibrate's schedule's too).
ONE_GPU = Serving()


@dataclass(frozen=True)
class HardwareSetup:
    """The draft's and the target's cost models on one kind of GPU, and what they imply."""

    target: Roofline
    draft: Roofline | float  # a model-free drafter's lookup time, seconds
    c: float  # T_target(1) / T_draft(1) (inf for a free lookup)
    arithmetic_ratio: float  # draft FLOPs / target FLOPs per position: Leviathan's c-hat
    drafter: str

    @property
    def draft_step(self) -> float:
        """Seconds of one draft pass over one position (or one lookup)."""
        return self.draft if isinstance(self.draft, float) else float(self.draft(1))


def device(gpu: str, bytes_per_parameter: float, bandwidth_gbs: float = 0.0, peak_tflops: float = 0.0) -> GPUSpec:
    """The GPU preset with overrides (0: the datasheet's); FP8 weights use its dense FP8 peak where known."""
    base = GPU_PRESETS[gpu]
    peak = base.peak_flops_fp8 if bytes_per_parameter == 1.0 and base.peak_flops_fp8 > 0 else base.peak_flops
    return replace(
        base,
        memory_bandwidth=bandwidth_gbs * 1e9 if bandwidth_gbs > 0 else base.memory_bandwidth,
        peak_flops=peak_tflops * 1e12 if peak_tflops > 0 else peak,
    )


class Deployment(NamedTuple):
    """What a deployment costs: the two models (preset names), the GPU, the weights' precision, the
    workload and any edits, and how they are served; a tuple a cache can hash. The batch is not in
    it: sweeps run over it."""

    target: str
    draft: str
    gpu: str
    bytes_per_parameter: float | None  # None: each checkpoint's own (its preset's)
    context: int = 0
    overhead_ms: float = 0.0  # a fixed time per forward pass
    bandwidth_gbs: float = 0.0  # 0: the datasheet's
    peak_tflops: float = 0.0  # 0: the datasheet's (its FP8 peak for FP8 weights)
    serving: Serving = ONE_GPU
    #: A time per layer of every forward pass, microseconds, beyond its roofline: kernel launches and
    #: the floor of small kernels (:data:`specmath.predict.MEASURED_OVERHEADS`), so a one-layer head pays
    #: little of what a deep target pays.
    overhead_per_layer_us: float = 0.0


def hardware_setup(deployment: Deployment, batch: int) -> HardwareSetup:
    """Cost models from the presets with the deployment's edits (precision, overrides, serving) applied at ``batch``."""
    d = deployment
    if d.bytes_per_parameter is None:  # the checkpoints as stored (gpt-oss: MXFP4 experts, the rest BF16)
        specs = [MODEL_PRESETS[name] for name in (d.target, d.draft)]
    else:  # one precision for every weight
        specs = [
            replace(MODEL_PRESETS[name], bytes_per_parameter=d.bytes_per_parameter, expert_bytes_per_parameter=None)
            for name in (d.target, d.draft)
        ]
    spec = device(d.gpu, specs[0].bytes_per_parameter, d.bandwidth_gbs, d.peak_tflops)
    serving, overhead_s = d.serving, d.overhead_ms / 1e3
    target_cost = Roofline(
        specs[0], spec, batch, d.context, _overhead(overhead_s, specs[0], d), serving.tp, serving.link
    )
    if serving.drafter == "model_free":
        draft_cost, ratio = serving.lookup_ms / 1e3, 0.0
    else:
        draft_overhead = _overhead(overhead_s, specs[1], d)
        draft_cost = Roofline(specs[1], spec, batch, d.context, draft_overhead, serving.draft_tp, serving.link)
        ratio = specs[1].flops_per_position(d.context) / specs[0].flops_per_position(d.context)
    step = draft_cost if isinstance(draft_cost, float) else float(draft_cost(1))
    with np.errstate(divide="ignore"):
        c = float(np.float64(target_cost(1)) / np.float64(step))
    return HardwareSetup(target_cost, draft_cost, c, ratio, serving.drafter)


def _overhead(per_pass_s: float, model: ModelSpec, deployment: Deployment) -> float:
    """A pass's fixed time, seconds: the deployment's per pass and, where set, per layer times ``model``'s layers."""
    if deployment.overhead_per_layer_us == 0:
        return per_pass_s  # bit for bit what it was before the per-layer time existed
    return per_pass_s + model.layers * deployment.overhead_per_layer_us / 1e6


def find_model(name) -> ModelSpec:
    """The model preset called ``name``, or whose Hugging Face id (:attr:`ModelSpec.hub_id`) is ``name``.

    Raises ``ValueError`` naming ``name`` where no preset is called so or has that id.

    >>> find_model("meta-llama/Llama-3.1-8B") is find_model("Llama-3.1-8B")
    True
    """
    if isinstance(name, str):
        if name in MODEL_PRESETS:
            return MODEL_PRESETS[name]
        for spec in MODEL_PRESETS.values():
            if spec.hub_id and spec.hub_id == name:
                return spec
    raise ValueError(
        f"unknown model {shown(name):.120}: neither a preset's name nor its Hugging Face id "
        f"(specmath.MODEL_PRESETS: {', '.join(MODEL_PRESETS)})"
    )


def find_gpu(name) -> GPUSpec:
    """The GPU preset called ``name``; ``ValueError`` naming it where there is none."""
    if isinstance(name, str) and name in GPU_PRESETS:
        return GPU_PRESETS[name]
    raise ValueError(f"unknown GPU {shown(name):.120}: specmath.GPU_PRESETS has {', '.join(GPU_PRESETS)}")
