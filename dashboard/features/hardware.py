"""The Hardware page's cost models and batch sweeps (cached), and the batch-size schedule of k
as the Hardware and Calibrate pages show it.

From a per-batch sweep (:func:`specmath.roofline_batch_sweep`), :func:`show_schedule` draws the
step chart and the table of :func:`specmath.batch_k_schedule`; :func:`show_engines` writes that
schedule in each engine's terms: every engine's config (:func:`engines.engine_configs`, shown by
:mod:`dashboard.features.engine_views`), the synthetic-acceptance block and the JSON download.
:func:`show_caveat` follows either: the schedule is a prediction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

import engines
import specmath
from dashboard import charts, engine_config, texts, ui
from dashboard.acceptance import NO_FALLOFF, at_context
from dashboard.features import engine_views
from dashboard.params import AUTO_DRAFT_TP, BATCHES, CONTEXTS, HARDWARE_SECTIONS, Section

# The deployment's cost models are built in specmath, one way for every page and for specmath.predict_speedup.
from specmath.deployment import Deployment, Serving, hardware_setup

#: What the sweeps take as acceptance: one α, a per-position profile (a tuple), or a specmath.acceptance value.
Accepted = float | tuple[float, ...] | specmath.Acceptance

#: How acceptance falls with context (``dashboard.acceptance.at_context``): the Hardware page's own.
FALLOFF = Section("Acceptance against context", ("acc_falloff",))
#: The page's tabs: the speedup, experts and context, the schedule, the engines' configs
#: (``dashboard.params.HARDWARE_TABS``).
TABS = Section(None, ("hw_view",))
#: The page's parameters: the shared α, the acceptance family and k, then its sidebar
#: (``dashboard.params.HARDWARE_SECTIONS``), the fall-off with context and the tabs.
SECTIONS = (Section(None, ("alpha", "acc", "acc_profile", "k")), *HARDWARE_SECTIONS, FALLOFF, TABS)


@dataclass(frozen=True)
class Setting:
    """What a schedule was computed for, as its captions and its JSON name it."""

    acceptance: str  # the chart title's "α = 0.8" or "measured profile"
    target_model: str  # preset names
    draft_model: str
    gpu: str
    context: int
    max_batch: int
    method: str
    sglang_batch: int  # the batch SGLang's flags are for
    chart_file: str  # the chart's export (SVG), without the extension
    json_file: str  # the download's name
    drafter: str = ""  # the user's draft model or head, for the engines' configs only
    data_parallel: int = 1  # vLLM's --data-parallel-size
    n_predict: int = 1  # the target's MTP layers, for method mtp
    tp: int = 1  # the target's GPUs (tensor parallel)
    draft_tp: int = 1  # the draft's


def best_at(sweep: specmath.schedule.BatchSweep, batch: int) -> tuple[int, float]:
    """The scheduled k at ``batch`` and its speedup: (0, 1.0) where speculation does not pay or
    ``batch`` is not in the sweep."""
    where = sweep.batch == batch
    if not where.any() or float(sweep.speedup[where][0]) <= 1.0:
        return 0, 1.0
    return int(sweep.k[where][0]), float(sweep.speedup[where][0])


def show_schedule(sweep: specmath.schedule.BatchSweep, setting: Setting) -> None:
    """The schedule's step chart and its table of batch ranges."""
    schedule = specmath.batch_k_schedule(sweep.batch, sweep.k, sweep.speedup)
    on = gpus(setting.gpu, setting.tp)
    label = f"{setting.draft_model} → {setting.target_model} on {on}, context {setting.context:,}"
    left, right = ui.side_by_side()
    with left:
        ui.chart(
            charts.k_schedule(sweep.batch, sweep.k, sweep.speedup, schedule, setting.acceptance, label),
            setting.chart_file,
            key="k_schedule",
        )
    with right:
        st.table(pd.DataFrame(engine_config.schedule_rows(schedule, sweep.batch, sweep.speedup)), hide_index=True)
        if not sweep.target_fits.all():
            first = int(sweep.batch[~sweep.target_fits][0])
            st.caption(
                f"From batch {first} on, {setting.target_model}'s weights and KV cache do not fit in "
                f"{f'{setting.tp} {setting.gpu} GPUs' if setting.tp > 1 else f'one {setting.gpu}'}: the schedule "
                "there assumes it is sharded with perfect scaling."
            )


def show_engines(
    sweep: specmath.schedule.BatchSweep,
    setting: Setting,
    chosen: tuple[int, float],
    acceptance: Accepted,
    inputs: Mapping[str, Any],
) -> None:
    """The schedule in each engine's terms: the engines' configs, the synthetic block and the JSON download.

    ``chosen`` is the best k and its speedup at ``setting.sglang_batch`` (k 0: no speculation
    there), for the engines that take one k and for the synthetic benchmark; ``acceptance`` the
    α or the per-position profile the sweep used; ``inputs`` go into the JSON beside the
    schedule, so a reviewer sees what it came from.
    """
    sglang_k, chosen_speedup = chosen
    schedule = specmath.batch_k_schedule(sweep.batch, sweep.k, sweep.speedup)
    presets = specmath.MODEL_PRESETS
    method = setting.method
    found = engine_config.drafter(method, setting.draft_model, setting.target_model, setting.drafter)
    model, typed, refused = found.model, found.typed, found.vocabulary_problem
    target = presets[setting.target_model]
    for kind, message in found.messages:
        getattr(st, kind)(message)
    st.markdown(texts.SCHEDULE_ENGINES)
    if method in ("eagle", "eagle3") and not typed:
        kind = "EAGLE-3" if method == "eagle3" else "EAGLE"
        st.caption(texts.SCHEDULE_EAGLE_HEAD.format(placeholder=model, kind=kind))
    elif method == "dflash" and not typed:
        st.caption(texts.SCHEDULE_DFLASH_DRAFT.format(placeholder=model))
    configs = engines.engine_configs(
        schedule, method, model, sglang_k, setting.sglang_batch, target=engine_config.hub_name(target),
        data_parallel_size=setting.data_parallel, n_predict=setting.n_predict,
        tensor_parallel_size=setting.tp, draft_tensor_parallel_size=setting.draft_tp,
    )  # fmt: skip
    engine_views.show_configs(configs)
    runs = engines.synthetic_runs(
        acceptance, schedule, method, model, sglang_k, setting.sglang_batch,
        target=engine_config.hub_name(target), context=setting.context, predicted_speedup=chosen_speedup,
        data_parallel_size=setting.data_parallel, n_predict=setting.n_predict,
        tensor_parallel_size=setting.tp, draft_tensor_parallel_size=setting.draft_tp,
    )  # fmt: skip
    engine_views.show_synthetic(runs, setting.sglang_batch, sglang_k, chosen_speedup)

    document = {
        "target_model": engine_config.hub_name(presets[setting.target_model]),
        "draft_model": engine_config.hub_name(presets[setting.draft_model]),
        "method": method,
        "drafter_in_configs": model,
        "vocabulary_problem": refused,
        "gpu": setting.gpu,
        "context_tokens": setting.context,
        "batches_swept": [1, setting.max_batch],
        "sglang_batch": setting.sglang_batch,
        "data_parallel_size": setting.data_parallel,
        "mtp_n_predict": setting.n_predict,
        **inputs,
    }
    st.download_button(
        "Download the schedule as JSON",
        engine_config.schedule_document(schedule, configs, document),
        file_name=setting.json_file,
        mime="application/json",
    )


def show_caveat() -> None:
    """That the schedule is the model's prediction, and how to check it on a server."""
    st.markdown(texts.SCHEDULE_CAVEAT)


#: Draft lengths the hardware page searches and draws.
HARDWARE_K = np.arange(1, 33)


def gpus(gpu: str, tp: int) -> str:
    """The target's GPUs as the pages name them: "H100 SXM", or "4×H100 SXM" under tensor parallelism."""
    return f"{tp}×{gpu}" if tp > 1 else gpu


def draft_gpus(draft_tp: int | str, tp: int) -> int:
    """The draft's tensor-parallel degree: ``draft_tp`` where the user set one, else (``"auto"``,
    :data:`~dashboard.params.AUTO_DRAFT_TP`) the target's ``tp``, where every engine runs a draft by default.

    A head (EAGLE, EAGLE-3, MTP) and DFlash run on the target's GPUs in every engine: vLLM loads them
    so whatever ``draft_tensor_parallel_size`` says, SGLang has no draft TP and builds the draft worker
    from the server's arguments, TensorRT-LLM drafts inside the target's model (cited in
    :mod:`engines.configs`). vLLM's ``draft_model`` takes ``draft_tensor_parallel_size``, 1
    or the target's, and leaves it unset at the target's (``tests/engines/engine_rules.vllm_draft_tp``):
    one GPU for a small draft is a choice to make, not what an engine does unasked.
    """
    return tp if draft_tp == AUTO_DRAFT_TP else int(draft_tp)


def draft_gpus_said(serving: Serving) -> str:
    """What ``"auto"`` made of the draft's GPUs (:func:`draft_gpus`), for a caption under the choice."""
    return f"auto: the draft on the target's {serving.tp} GPUs, where every engine runs it unless told otherwise."


def serving(chosen: Mapping[str, Any]) -> Serving:
    """The sidebar's serving settings as the cost models take them, from the parameters' values by
    their keys (the Hardware page's names): ``drafter_kind``, ``lookup_ms`` (0 but for a
    model-free drafter), ``tp``, ``draft_tp`` (resolved by :func:`draft_gpus`), ``interconnect``,
    ``link_bandwidth`` and ``link_latency_us``."""
    tp = chosen["tp"]
    return Serving(
        chosen["drafter_kind"], chosen["lookup_ms"], tp,
        draft_gpus(chosen["draft_tp"], tp),
        chosen["interconnect"], chosen["link_bandwidth"], chosen["link_latency_us"],
    )  # fmt: skip


def dense_twin(spec: specmath.ModelSpec) -> specmath.ModelSpec:
    """A dense model of ``spec``'s active size: its layers, width and embedding table, every expert but a
    token's gone, so that it reads and multiplies ``spec.active_parameters`` at every position."""
    if not spec.is_moe:
        return spec
    experts = {
        "routed_experts": 0,
        "experts_per_token": 0,
        "shared_experts": 0,
        "expert_parameters": 0,
        "moe_layers": 0,
    }
    parameters = spec.parameters - spec.skipped_parameters  # the untied input embedding still held, gathered
    return replace(spec, name=f"dense {spec.name}", parameters=parameters, **experts)


@st.cache_data(max_entries=32, show_spinner=False)
def verification_by_batch(k: int, deployment: Deployment) -> dict[str, np.ndarray]:
    """``T(k + 1) / T(1)`` at every offered batch, for the target and a dense model of its active size."""
    ratios = {}
    for b in BATCHES:
        target = hardware_setup(deployment, b).target
        for model in dict.fromkeys((target.model, dense_twin(target.model))):
            cost = replace(target, model=model)
            ratios.setdefault(model.name, []).append(float(cost(k + 1)) / float(cost(1)))
    return {name: np.array(values) for name, values in ratios.items()}


@st.cache_data(max_entries=32, show_spinner=False)
def batch_sweep(acceptance: Accepted, deployment: Deployment) -> specmath.schedule.BatchSweep:
    """Best k and speedup at every offered batch size, for the page's other settings (α, a profile or an Acceptance)."""
    return _roofline_sweep(acceptance, deployment, BATCHES)


@st.cache_data(max_entries=32, show_spinner=False)
def context_map(
    alpha: Accepted, deployment: Deployment, falloff: str = NO_FALLOFF
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best k, its speedup and whether the target fits, over (context, batch): rows are
    :data:`CONTEXTS` (``deployment``'s own context is not used), columns :data:`BATCHES`; at each
    context the acceptance that ``falloff`` leaves of ``alpha`` there (:func:`dashboard.acceptance.at_context`)."""
    sweeps = [
        _roofline_sweep(at_context(alpha, falloff, context), deployment._replace(context=context), BATCHES)
        for context in CONTEXTS
    ]
    return tuple(np.array([getattr(s, name) for s in sweeps]) for name in ("k", "speedup", "target_fits"))


def _roofline_sweep(acceptance: Accepted, deployment: Deployment, batches) -> specmath.schedule.BatchSweep:
    """The roofline sweep of ``deployment`` over ``batches`` (:func:`specmath.roofline_batch_sweep`), at one α,
    an Acceptance, or a profile (a tuple, taken as ``specmath.acceptance(per_position=...)``)."""
    setup = hardware_setup(deployment, 1)
    serving = deployment.serving
    if isinstance(acceptance, tuple):
        acceptance = specmath.acceptance(per_position=acceptance)
    drafting = setup.draft if isinstance(setup.draft, float) else setup.draft.model
    return specmath.roofline_batch_sweep(
        acceptance,
        drafting,
        setup.target.model,
        setup.target.gpu,
        batches,
        deployment.context,
        deployment.overhead_ms / 1e3,
        max_k=int(HARDWARE_K[-1]),
        drafter=serving.drafter,
        tp=serving.tp,
        draft_tp=serving.draft_tp,
        interconnect=serving.link,
    )


@st.cache_data(max_entries=32, show_spinner=False)
def schedule_sweep(acceptance: Accepted, deployment: Deployment, max_batch: int) -> specmath.schedule.BatchSweep:
    """Best k and speedup at every batch size 1 … ``max_batch``: the sweep the k schedule is made from,
    at one α or (a tuple) a measured per-position profile.

    Every whole batch, not the powers of two of :func:`batch_sweep`, so that each range of the
    schedule starts where the best k really changes; one array computation makes that cheap.
    """
    return _roofline_sweep(acceptance, deployment, np.arange(1, max_batch + 1))
