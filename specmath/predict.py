r"""The speedup the roofline predicts for a measured run, its acceptance taken as measured.

A published run gives the acceptance side, its mean acceptance length (tokens per target pass,
the bonus token included); :func:`predict_speedup` prices the cost side from the presets, the way
the Hardware page does (:func:`specmath.deployment.hardware_setup`), so that comparing the two
isolates the costs: the draft passes, the verify pass, mixtures of experts, tensor parallelism.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from ._validate import as_count, as_draft_length, as_float_array, as_positive, shown
from .costs import MAX_BATCH, MAX_CONTEXT, MAX_TP, Roofline
from .deployment import (
    GPU_INTERCONNECTS,
    METHOD_DRAFTERS,
    PRECISIONS,
    Deployment,
    Serving,
    find_gpu,
    find_model,
    hardware_setup,
)
from .general import iteration_ratio
from .presets import GPU_PRESETS, MODEL_PRESETS
from .speedup import MAX_DRAFT_LENGTH

#: The keys a run must have (:func:`predict_speedup`); ``per_position``, ``context``, ``engine`` and
#: ``overlap`` may be left out.
RUN_KEYS = (
    "target", "draft", "method", "gpu", "gpu_count", "precision", "batch", "k", "tree", "temperature",
    "mean_acceptance_length",
)  # fmt: skip

#: Cached tokens per sequence where a run does not say: the Hardware page's default context.
DEFAULT_CONTEXT = 1024

#: Other names of the precisions of :data:`~specmath.deployment.PRECISIONS`: 16-bit floats take 2 bytes either way.
PRECISION_ALIASES = {"fp16": "bf16", "float16": "bf16", "bfloat16": "bf16"}

#: What a run says of weights priced as each checkpoint stores them: left unstated, or said so.
UNSTATED = (None, "not stated", "as stored")

#: A tree's settings: the nodes the target verifies in one pass (root included) and the draft passes
#: per iteration, each under the names accepted for it, the first the one to write.
TREE_KEYS = {
    "tokens": (
        "tokens",
        "num_draft_tokens",
        "num_draft",
        "speculative_num_draft_tokens",
        "speculative-num-draft-tokens",
    ),
    "steps": ("steps", "num_steps", "speculative_num_steps", "speculative-num-steps", "depth"),
}


class Overheads(NamedTuple):
    """Times the roofline leaves out, seconds: per layer of every forward pass, per speculative iteration,
    and per iteration of SGLang without its overlap scheduler (:func:`sglang_without_overlap`)."""

    per_layer_s: float = 0.0  # kernel launches and the floor of small kernels, each layer of each pass
    per_iteration_s: float = 0.0  # what an iteration costs beyond its passes: sampling, acceptance, bookkeeping
    sglang_no_overlap_s: float = 0.0  # the host's time per iteration SGLang leaves exposed without overlap


#: The roofline alone.
NO_OVERHEADS = Overheads()

#: The overheads :func:`fit_overheads` finds on the measured runs of ``dashboard/data/measured_runs.json``
#: (54 runs priced): the least median absolute error of the predicted speedups over its grid. They do
#: not carry from one publisher's runs to another's (docs/predictions.md: fitted without a publisher,
#: that publisher's runs are priced worse than by the roofline alone), so they are reported, not used
#: by default; a test refits them.
FITTED_OVERHEADS = Overheads(per_layer_s=151e-6, per_iteration_s=11.55e-3)

#: A decoding step of Llama-3.1-8B on one H100 SXM captured in a CUDA graph, as measured at
#: https://cloudai.pt/tag/cuda-graphs/ ("drops to 5.1 milliseconds"; 8.4 ms launched kernel by kernel).
CUDA_GRAPH_STEP_S = 5.1e-3


def _per_layer_floor() -> float:
    """What that step took beyond the roofline's price of it (no context, batch 1), a layer."""
    spec = MODEL_PRESETS["Llama-3.1-8B"]
    roofline = Roofline(spec, GPU_PRESETS["H100 SXM"], 1, 0)
    return (CUDA_GRAPH_STEP_S - float(roofline(1))) / spec.layers


#: One speculative iteration of SGLang with and without its overlap scheduler, at the same acceptance
#: length (sgl-project/sglang PR #18906, vincentzed, 2026-02-16: Qwen3.5-397B-A17B on 8 GPUs, NEXTN
#: with 3 steps, ``sglang.test.send_one``): 3.368 tokens at 298.19 tokens/s without it (spec v1),
#: at 323.72 with ``SGLANG_ENABLE_SPEC_V2=1``. Kept verbatim in tests/fixtures/overheads/sglang_pr18906.txt.
SGLANG_SPEC_V1_V2 = {"acceptance_length": 3.368, "tokens_per_s_v1": 298.19, "tokens_per_s_v2": 323.72}


def _sglang_exposed_host() -> float:
    """Seconds an iteration took longer without the overlap scheduler: the host time it leaves exposed."""
    run = SGLANG_SPEC_V1_V2
    return run["acceptance_length"] / run["tokens_per_s_v1"] - run["acceptance_length"] / run["tokens_per_s_v2"]


#: The default: a time per layer of every pass measured apart from the runs priced here (19.4
#: microseconds: :data:`CUDA_GRAPH_STEP_S` less the roofline's 4.48 ms, which gathers the untied input
#: embedding rather than reading it, over 32 layers); no time per iteration in general, which the runs
#: show differs from engine to engine; and for SGLang without its overlap scheduler the host time an
#: iteration leaves exposed, also measured apart (0.89 ms, :data:`SGLANG_SPEC_V1_V2`): a lower bound
#: of that engine's time per iteration, since the overlap scheduler hides the host's work, not the GPU's.
MEASURED_OVERHEADS = Overheads(per_layer_s=_per_layer_floor(), sglang_no_overlap_s=_sglang_exposed_host())

#: The grid :func:`fit_overheads` searches: 0 to 200 microseconds a layer by 1, 0 to 20 ms an iteration by 0.05.
PER_LAYER_GRID = np.arange(201) / 1e6  # divided, so that each point is the nearest double to its decimal
PER_ITERATION_GRID = np.arange(401) / 2e4


class Prediction(NamedTuple):
    """What :func:`predict_speedup` priced: one iteration's parts, in seconds, and the speedup."""

    speedup: float
    draft_s: float  # drafting, one iteration: k T_d(1), T_d(k), a lookup, or steps x T_d(1) for a tree
    target_step_s: float  # T_target(1), a plain decoding step
    verify_s: float  # T_target(w), the verify pass
    width: int  # w: k + 1, or the tree's tokens
    drafter: str  # specmath.general.DRAFTERS
    iteration_s: float = 0.0  # the overhead per iteration beyond the passes
    target_layers: int = 0  # layers of a target pass, each paying Overheads.per_layer_s
    draft_layers: int = 0  # layers of all of an iteration's draft passes together


def _required(run: Mapping, keys) -> None:
    """Every key of ``keys`` is in ``run``, else a ValueError naming the missing ones."""
    if not isinstance(run, Mapping):
        raise ValueError(f"run must be a mapping with the keys {', '.join(RUN_KEYS)}, got {type(run).__name__}")
    missing = [key for key in keys if key not in run]
    if missing:
        raise ValueError(f"run is missing {', '.join(missing)} (a run needs {', '.join(RUN_KEYS)})")


def _choice(value, name: str, table: Mapping, aliases: Mapping | None = None) -> str:
    """``value`` as a key of ``table`` (through ``aliases``), else a ValueError listing them."""
    key = (aliases or {}).get(value, value) if isinstance(value, str) else value
    if not isinstance(key, str) or key not in table:
        raise ValueError(f"unknown {name} {shown(value):.80}: known are {', '.join(table)}")
    return key


def _tree(tree, k: int) -> tuple[int, int] | None:
    """A tree's (tokens, steps); steps default to ``k``, a tree ``k`` draft tokens deep."""
    if tree is None:
        return None
    if not isinstance(tree, Mapping):
        raise ValueError(f"tree must be None or a mapping with {' and '.join(TREE_KEYS)}, got {shown(tree):.80}")
    found = {}
    for key, names in TREE_KEYS.items():
        given = [name for name in names if name in tree]
        if given:
            found[key] = tree[given[0]]
    if "tokens" not in found:
        raise ValueError(f"tree must give its tokens (one of {', '.join(TREE_KEYS['tokens'])}), got {shown(tree):.80}")
    tokens = as_count(found["tokens"], "tree tokens", cap=MAX_CONTEXT, minimum=2)
    steps = as_count(found.get("steps", k), "tree steps", cap=MAX_DRAFT_LENGTH)
    return tokens, steps


def _deployment(run: Mapping, drafter: str) -> tuple[Deployment, int]:
    """The run's deployment (presets found by name or Hugging Face id) and its batch."""
    target = find_model(run["target"]).name
    # A model-free drafter has no draft model: its cost is the lookup, priced at 0 as on the Hardware page.
    draft = target if drafter == "model_free" else find_model(run["draft"]).name
    gpu = find_gpu(run["gpu"]).name
    if run["precision"] in UNSTATED:  # the checkpoints' own: what an engine loads unless told otherwise
        bytes_per_parameter = None
    else:
        bytes_per_parameter = PRECISIONS[_choice(run["precision"], "precision", PRECISIONS, PRECISION_ALIASES)]
    tp = as_count(run["gpu_count"], "gpu_count", cap=MAX_TP)
    link = Serving().interconnect
    if tp > 1:
        if gpu not in GPU_INTERCONNECTS:
            raise ValueError(
                f"no interconnect is known for {gpu} (gpu_count {tp} splits the target over a link): "
                f"known for {', '.join(GPU_INTERCONNECTS)}"
            )
        link = GPU_INTERCONNECTS[gpu]
    context = run.get("context")  # None or left out: not stated
    context = DEFAULT_CONTEXT if context is None else as_count(context, "context", cap=MAX_CONTEXT, minimum=0)
    # Every engine runs a head, a DFlash draft and by default a draft model on the target's GPUs.
    serving = Serving(drafter, 0.0, tp, tp, link)
    batch = as_count(run["batch"], "batch", cap=MAX_BATCH)
    return Deployment(target, draft, gpu, bytes_per_parameter, context, serving=serving), batch


def predict(run: Mapping, overheads: Overheads = MEASURED_OVERHEADS) -> Prediction:
    """:func:`predict_speedup` with the iteration's parts it priced (:class:`Prediction`)."""
    if not isinstance(overheads, Overheads) or min(overheads) < 0 or not np.isfinite(overheads).all():
        raise ValueError(f"overheads must be an Overheads of finite times >= 0, got {shown(overheads):.80}")
    _required(run, RUN_KEYS)
    drafter = METHOD_DRAFTERS[_choice(run["method"], "method", METHOD_DRAFTERS)]
    k = int(as_draft_length(run["k"], "k"))
    if k < 1:
        raise ValueError(f"k must be >= 1 (draft tokens per iteration), got {shown(run['k'])}")
    tree = _tree(run["tree"], k)
    if tree is not None and drafter != "sequential":
        raise ValueError(f"a tree is priced for a sequential drafter only, not method {run['method']!r} ({drafter})")
    if run["temperature"] is not None:  # None: not stated, as many sources leave it
        as_positive(run["temperature"], "temperature", allow_zero=True)
    if run.get("per_position") is not None:
        _per_position(run["per_position"])
    length = as_positive(run["mean_acceptance_length"], "mean_acceptance_length")
    width = tree[0] if tree else k + 1
    if not 1 <= length <= width:
        raise ValueError(
            f"mean_acceptance_length must be within [1, {width}] (tokens per target pass over {width} positions, "
            f"the bonus token included), got {shown(run['mean_acceptance_length'])}"
        )
    deployment, batch = _deployment(run, drafter)
    deployment = deployment._replace(overhead_per_layer_us=overheads.per_layer_s * 1e6)
    setup = hardware_setup(deployment, batch)
    step, verify = float(setup.target(1)), float(setup.target(width))
    per_iteration = overheads.per_iteration_s + (overheads.sglang_no_overlap_s if sglang_without_overlap(run) else 0.0)
    extra = per_iteration / step  # + 0.0 leaves the roofline's figure as it was
    if tree:
        speedup = float(length / (tree[1] * setup.draft_step / step + verify / step + extra))
        drafting, passes = tree[1] * setup.draft_step, tree[1]
    else:
        speedup = float(length / (iteration_ratio(np.int64(k), setup.draft, setup.target, drafter) + extra))
        drafting, passes = _drafting(setup.draft, k, drafter), {"sequential": k, "parallel": 1}.get(drafter, 0)
    # The deployment holds the presets' names, found once in _deployment.
    draft_layers = passes * MODEL_PRESETS[deployment.draft].layers
    target_layers = MODEL_PRESETS[deployment.target].layers
    return Prediction(speedup, drafting, step, verify, width, drafter, per_iteration, target_layers, draft_layers)


#: The first SGLang release whose speculative decoding overlaps an iteration's host work with the GPU
#: by default. 0.5.10: ``SGLANG_ENABLE_SPEC_V2 = EnvBool(False)`` (``sglang/srt/environ.py`` line 442,
#: the PyPI wheel), the overlap scheduler opt-in; 0.5.11: ``EnvBool(True)`` (line 459); 0.5.14 drops the
#: variable, "speculative decoding always runs the V2 worker. Use --disable-overlap-schedule to select the
#: non-overlap (synchronous) path" (``sglang/srt/arg_groups/speculative_hook.py`` lines 66-74).
SGLANG_OVERLAP_DEFAULT_SINCE = (0, 5, 11)


def sglang_without_overlap(run: Mapping) -> bool:
    """Whether a run is SGLang's speculative decoding without its overlap scheduler.

    Its ``engine`` names SGLang first, and its ``overlap`` is False; where ``overlap`` is None (not
    stated), the version its ``engine`` gives ("SGLang 0.5.10") decides:
    :data:`SGLANG_OVERLAP_DEFAULT_SINCE` and later overlap by default, earlier ones do not. A run that
    states neither is not assumed either way.
    """
    engine, overlap = run.get("engine"), run.get("overlap")
    if overlap is not None and not isinstance(overlap, bool):
        raise ValueError(f"overlap must be True, False or None (not stated), got {shown(overlap):.80}")
    if not isinstance(engine, str) or not engine.strip().lower().startswith("sglang"):
        return False
    if overlap is not None:
        return not overlap
    version = re.match(r"\s*sglang\D*?(\d+)\.(\d+)\.(\d+)", engine, re.IGNORECASE)
    return version is not None and tuple(int(part) for part in version.groups()) < SGLANG_OVERLAP_DEFAULT_SINCE


def _per_position(values) -> None:
    """A per-position acceptance profile: rates in [0, 1] (not used for the costs, checked all the same)."""
    arr = as_float_array(values, "per_position")
    if arr.ndim != 1 or not np.isfinite(arr).all() or ((arr < 0) | (arr > 1)).any():
        raise ValueError(f"per_position must be a list of acceptance rates within [0, 1], got {shown(values):.80}")


def _drafting(draft, k: int, drafter: str) -> float:
    """One iteration's drafting time, seconds: ``k T_d(1)``, ``T_d(k)`` or the lookup."""
    if isinstance(draft, float):
        return draft
    return float(k * draft(1) if drafter == "sequential" else draft(k if drafter == "parallel" else 1))


def predict_speedup(run: Mapping, overheads: Overheads = MEASURED_OVERHEADS) -> float:
    r"""Predicted speedup of a speculative run over plain decoding on the same engine and hardware.

    The run's measured acceptance fixes the tokens an iteration yields,
    :math:`\mathbb{E}[N] = \bar L`, its ``mean_acceptance_length``; the roofline
    (:class:`~specmath.Roofline`, built as the Hardware page builds it,
    :func:`specmath.deployment.hardware_setup`) prices the iteration:

    .. math::

        S = \frac{\bar L\; T_t(1)}{D + T_t(w) + o},
        \qquad D = \begin{cases} k\,T_d(1) & \text{sequential} \\
                                  T_d(k) & \text{parallel} \\
                                  T_d(1) = 0 & \text{model-free} \\
                                  s\,T_d(1) & \text{a tree of } s \text{ steps} \end{cases}

    with ``w = k + 1``, or the tree's tokens, and :math:`o` the time an iteration takes beyond its
    passes; every pass also pays a time per layer, :math:`\tau` (``overheads``). With
    :data:`NO_OVERHEADS` this is :func:`~specmath.general_speedup` with
    :math:`\mathbb{E}[N]` measured rather than computed from an α (:func:`~specmath.tree_speedup`
    for a tree). Plain decoding pays :math:`T_t(1)` per token at the same batch. What the cost side
    knows, as the Hardware page does:

    * *Models and GPU*: presets (:data:`~specmath.MODEL_PRESETS`, :data:`~specmath.GPU_PRESETS`) by
      name or, for models, by Hugging Face id (:func:`specmath.deployment.find_model`); the weights'
      ``precision`` sets the bytes per parameter of both (:data:`~specmath.deployment.PRECISIONS`:
      bf16, fp8, int4; fp16 counts as bf16), fp8 the GPU's FP8 peak; a precision not stated
      (:data:`UNSTATED`) is each checkpoint's own, as its preset stores it.
    * *Mixtures of experts*: a pass over ``batch * w`` tokens reads the experts they wake
      (uniform routing, :meth:`ModelSpec.weight_bytes_read_at`).
    * *Tensor parallelism*: ``gpu_count`` GPUs split the target, and the draft, which every engine
      runs on the target's GPUs unless told otherwise, over the GPU's link
      (:data:`~specmath.deployment.GPU_INTERCONNECTS`); two all-reduces a layer.
    * *Drafter kind*: the ``method``'s (:data:`~specmath.deployment.METHOD_DRAFTERS`): a draft
      model, an EAGLE or EAGLE-3 head and MTP layers run once per drafted token (sequential; an EAGLE
      head's pass reads its target's whole output head, as its preset counts it: a draft vocabulary
      cut to its most frequent tokens, as FR-Spec cuts it, is not priced, so such a run's drafting is
      priced as if uncut, an upper bound), a
      DFlash draft one pass over k positions (parallel), n-gram and suffix lookups cost nothing here
      (model-free, :math:`c = \infty`).
    * *Context*: ``context`` cached tokens per sequence, :data:`DEFAULT_CONTEXT` where the run does
      not say.
    * *Overheads*, what the roofline leaves out (:class:`Overheads`): kernel launches and small
      kernels cost each layer of each pass, so a one-layer head pays a sixtieth of what a
      sixty-layer target pays; an iteration's sampling and acceptance cost once per iteration. By
      default :data:`MEASURED_OVERHEADS`, a time per layer measured apart from any run priced here,
      none per iteration in general, and for SGLang without its overlap scheduler
      (:func:`sglang_without_overlap`: said so, or a release before 0.5.11) the host time an
      iteration leaves exposed, 0.89 ms, measured apart too; :func:`fit_overheads` fits the first two
      to measured runs, and
      docs/predictions.md gives the fit's errors in sample and held out. The Hardware page's
      default is :data:`NO_OVERHEADS`.

    ``temperature`` and ``per_position`` are checked but do not enter the costs: the measured
    acceptance length already carries them.

    Parameters
    ----------
    run : mapping
        The keys ``target``, ``draft`` (ignored for a model-free method), ``method`` (a key of
        :data:`~specmath.deployment.METHOD_DRAFTERS`), ``gpu``, ``gpu_count``, ``precision``,
        ``batch``, ``k`` (draft tokens per iteration, >= 1), ``tree`` (None, or a mapping with the
        verified ``tokens``, root included, and the draft ``steps``, default k: :data:`TREE_KEYS`),
        ``temperature`` (>= 0, or None where not stated), ``mean_acceptance_length`` (in [1, w]); optionally
        ``per_position`` (rates in [0, 1]), ``context`` (None: not stated), ``engine`` (its name first,
        as "SGLang 0.5.10") and ``overlap`` (whether the engine overlapped the iteration's host work with
        the GPU; None: not stated). Other keys are ignored.
    overheads : Overheads, default MEASURED_OVERHEADS
        The times beyond the roofline; :data:`NO_OVERHEADS` for the roofline alone.

    Returns
    -------
    float
        The predicted speedup; below 1 means slower than plain decoding.

    Raises
    ------
    ValueError
        Naming what it does not know: a missing key, an unknown model, GPU, method or precision,
        a GPU without a known link under ``gpu_count > 1``, a value out of range.

    See Also
    --------
    predict : the same, with the iteration's priced parts.

    Notes
    -----
    Sources: the speedup of an iteration, Leviathan, Kalman and Matias (2023), "Fast Inference
    from Transformers via Speculative Decoding" (arXiv 2211.17192), Theorem 3.8, there with
    :math:`\mathbb{E}[N]` from α;
    the roofline, Williams, Waterman and Patterson (2009), "Roofline: an insightful visual
    performance model for multicore architectures"; each preset's numbers, their ``source``.

    Examples
    --------
    Llama-3.1-8B (named by its Hugging Face id) on one H100, its 1B sibling drafting 4 tokens an
    iteration, 3 tokens a target pass on average, the bonus token included.

    >>> run = {"target": "meta-llama/Llama-3.1-8B", "draft": "Llama-3.2-1B", "method": "draft_model",
    ...        "gpu": "H100 SXM", "gpu_count": 1, "precision": "bf16", "batch": 1, "k": 4, "tree": None,
    ...        "temperature": 0.0, "mean_acceptance_length": 3.0}
    >>> round(predict_speedup(run, NO_OVERHEADS), 3), round(predict_speedup(run), 3)
    (1.805, 1.646)
    """
    return predict(run, overheads).speedup


class OverheadFit(NamedTuple):
    """What :func:`fit_overheads` found: the overheads and each run's error under them."""

    overheads: Overheads
    errors: np.ndarray  # (predicted - measured) / measured, run by run
    median_error: float  # median of |errors|, the fit's objective
    worst_error: float  # max of |errors|


def fit_overheads(runs, speedups, per_layer=PER_LAYER_GRID, per_iteration=PER_ITERATION_GRID) -> OverheadFit:
    r"""The two :class:`Overheads` that best price measured runs: least median absolute error, over a grid.

    Each run's iteration, in seconds, is linear in the two times :math:`\tau` (per layer of every
    pass) and :math:`o` (per iteration),

    .. math::

        S(\tau, o) = \bar L\,\frac{T_t(1) + L_t \tau}{D + T_t(w) + (L_t + L_d)\,\tau + o},

    with :math:`T` and :math:`D` the roofline's (:func:`predict` with :data:`NO_OVERHEADS`),
    :math:`L_t` the target's layers and :math:`L_d` the layers of all the iteration's draft passes.
    The pair of the grid with the least median of :math:`|S / S_{\text{measured}} - 1|` wins (the
    first in grid order on a tie): one pair for all runs, nothing per run.

    Parameters
    ----------
    runs : sequence of mapping
        Runs as :func:`predict_speedup` takes them; each must be priceable.
    speedups : array_like of float
        The measured speedup of each, > 0.
    per_layer, per_iteration : array_like of float
        The grid, seconds (default :data:`PER_LAYER_GRID`, :data:`PER_ITERATION_GRID`).

    Returns
    -------
    OverheadFit

    Examples
    --------
    Two runs priced at the roofline are matched, within rounding, when nothing is added.

    >>> run = {"target": "Llama-3.1-8B", "draft": "Llama-3.2-1B", "method": "draft_model", "gpu": "H100 SXM",
    ...        "gpu_count": 1, "precision": "bf16", "batch": 1, "k": 4, "tree": None, "temperature": 0.0,
    ...        "mean_acceptance_length": 3.0}
    >>> measured = [predict_speedup(run, NO_OVERHEADS), predict_speedup(run | {"batch": 8}, NO_OVERHEADS)]
    >>> fit = fit_overheads([run, run | {"batch": 8}], measured)
    >>> fit.overheads == NO_OVERHEADS, float(fit.median_error) < 1e-12
    (True, True)
    """
    measured = as_float_array(speedups, "speedups")
    if measured.ndim != 1 or measured.size != len(runs) or measured.size == 0 or not (measured > 0).all():
        raise ValueError(f"speedups must be one measured speedup > 0 per run, got {shown(speedups):.80}")
    parts = [predict(run, NO_OVERHEADS) for run in runs]
    length = np.array([float(run["mean_acceptance_length"]) for run in runs])
    step, verify, draft = (
        np.array([getattr(p, name) for p in parts]) for name in ("target_step_s", "verify_s", "draft_s")
    )
    target_layers = np.array([p.target_layers for p in parts], dtype=float)
    draft_layers = np.array([p.draft_layers for p in parts], dtype=float)
    tau = np.asarray(per_layer, dtype=float)[:, None, None]
    o = np.asarray(per_iteration, dtype=float)[None, :, None]
    plain = step + target_layers * tau
    predicted = length * plain / (draft + verify + (target_layers + draft_layers) * tau + o)
    median = np.median(np.abs(predicted / measured - 1), axis=-1)
    i, j = np.unravel_index(np.argmin(median), median.shape)
    errors = predicted[i, j] / measured - 1
    best = Overheads(float(tau[i, 0, 0]), float(o[0, j, 0]))
    return OverheadFit(best, errors, float(np.median(np.abs(errors))), float(np.abs(errors).max()))
