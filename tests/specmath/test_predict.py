"""specmath.predict_speedup: a run's measured acceptance length over the roofline's price of an iteration."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import specmath as sm
from specmath.deployment import GPU_INTERCONNECTS, find_model
from specmath.predict import DEFAULT_CONTEXT, MEASURED_OVERHEADS, NO_OVERHEADS, predict

#: The overheads a prediction adds by default: per layer of every pass, and per iteration.
TAU, PER_ITERATION, _ = MEASURED_OVERHEADS

H100 = sm.GPU_PRESETS["H100 SXM"]

#: A dense run on one H100: Llama-3.1-8B and its 1B sibling, 4 drafts, 3 tokens a pass.
DENSE = {
    "target": "Llama-3.1-8B", "draft": "Llama-3.2-1B", "method": "draft_model", "gpu": "H100 SXM", "gpu_count": 1,
    "precision": "bf16", "batch": 1, "k": 4, "tree": None, "temperature": 0.0, "mean_acceptance_length": 3.0,
}  # fmt: skip


def roofline(name, gpu=H100, batch=1, context=DEFAULT_CONTEXT, tp=1, bytes_per_parameter=2.0, tau=TAU):
    """The roofline of a preset as specmath.Roofline builds it, not through specmath.deployment, each
    pass paying ``tau`` seconds a layer."""
    model = replace(sm.MODEL_PRESETS[name], bytes_per_parameter=bytes_per_parameter)
    link = sm.INTERCONNECT_PRESETS[GPU_INTERCONNECTS[gpu.name]] if tp > 1 else None
    return sm.Roofline(model, gpu, batch, context, model.layers * tau, tp, link)


@pytest.mark.parametrize("batch", [1, 64])
def test_a_sequential_run_is_the_closed_form(batch):
    # S = L T_t(1) / (k T_d(1) + T_t(k + 1) + o), with the roofline's own times plus tau a layer of each pass.
    target, draft = roofline("Llama-3.1-8B", batch=batch), roofline("Llama-3.2-1B", batch=batch)
    k, length = 4, 3.0
    expected = length * target(1) / (k * draft(1) + target(k + 1) + PER_ITERATION)
    assert sm.predict_speedup(DENSE | {"batch": batch}) == pytest.approx(expected, rel=1e-12)


def test_a_mixture_of_experts_under_tensor_parallelism_is_the_closed_form():
    # Qwen3-30B-A3B and its EAGLE-3 head on 2 H100s over NVLink: the verify pass wakes more experts.
    run = DENSE | {"target": "Qwen/Qwen3-30B-A3B", "draft": "Qwen3-30B-A3B-EAGLE-3", "method": "eagle3"}
    run |= {"gpu_count": 2, "batch": 16, "k": 3, "mean_acceptance_length": 2.5}
    target, draft = roofline("Qwen3-30B-A3B", batch=16, tp=2), roofline("Qwen3-30B-A3B-EAGLE-3", batch=16, tp=2)
    expected = 2.5 * target(1) / (3 * draft(1) + target(4) + PER_ITERATION)
    assert target(4) > target(1)  # the experts' share: not the plateau
    assert sm.predict_speedup(run) == pytest.approx(expected, rel=1e-12)


def test_a_parallel_drafter_pays_one_pass_over_k_positions():
    run = DENSE | {"method": "dflash", "k": 8, "mean_acceptance_length": 4.0, "batch": 32}
    target, draft = roofline("Llama-3.1-8B", batch=32), roofline("Llama-3.2-1B", batch=32)
    expected = 4.0 * target(1) / (draft(8) + target(9) + PER_ITERATION)
    assert sm.predict_speedup(run) == pytest.approx(expected, rel=1e-12)


def test_a_model_free_drafter_pays_only_the_verify_pass():
    # No draft model: the draft key is not read; the lookup is priced at 0.
    run = DENSE | {"method": "ngram", "draft": None, "k": 5, "mean_acceptance_length": 2.0, "batch": 8}
    target = roofline("Llama-3.1-8B", batch=8)
    assert sm.predict_speedup(run) == pytest.approx(2.0 * target(1) / (target(6) + PER_ITERATION), rel=1e-12)


def test_a_tree_verifies_its_tokens_after_its_steps():
    run = DENSE | {"method": "eagle3", "k": 6, "tree": {"tokens": 60, "steps": 6}, "mean_acceptance_length": 5.0}
    target, draft = roofline("Llama-3.1-8B"), roofline("Llama-3.2-1B")
    expected = 5.0 * target(1) / (6 * draft(1) + target(60) + PER_ITERATION)
    parts = predict(run)
    assert parts.speedup == pytest.approx(expected, rel=1e-12)
    assert parts.width == 60 and parts.verify_s == float(target(60)) and parts.draft_s == 6 * float(draft(1))
    # The steps default to k, under the SGLang flag's name too.
    assert sm.predict_speedup(run | {"tree": {"num_draft_tokens": 60}}) == parts.speedup


def test_fp8_weights_take_a_byte_and_the_fp8_peak():
    run = DENSE | {"precision": "fp8", "batch": 256}
    fp8 = replace(H100, peak_flops=H100.peak_flops_fp8)
    target = roofline("Llama-3.1-8B", fp8, batch=256, bytes_per_parameter=1.0)
    draft = roofline("Llama-3.2-1B", fp8, batch=256, bytes_per_parameter=1.0)
    expected = 3.0 * target(1) / (4 * draft(1) + target(5) + PER_ITERATION)
    assert sm.predict_speedup(run) == pytest.approx(expected, rel=1e-12)
    assert sm.predict_speedup(DENSE | {"precision": "fp16"}) == sm.predict_speedup(DENSE)


def test_a_hugging_face_id_is_its_preset():
    by_id = DENSE | {"target": "meta-llama/Llama-3.1-8B", "draft": "meta-llama/Llama-3.2-1B"}
    assert sm.predict_speedup(by_id) == sm.predict_speedup(DENSE)
    for spec in sm.MODEL_PRESETS.values():
        assert find_model(spec.name) is spec
        if spec.hub_id:
            assert find_model(spec.hub_id) is spec


@pytest.mark.parametrize("batch", [1, 16, 256])
def test_a_dense_run_is_the_hardware_sweep_at_its_best_k(batch):
    # The Hardware page's sweep (roofline_batch_sweep) at an α: its best k and speedup are what
    # predict_speedup gives, the roofline alone, for a run of that k whose acceptance length is E[N](α, k).
    alpha = 0.8
    target, draft = sm.MODEL_PRESETS["Llama-3.1-8B"], sm.MODEL_PRESETS["Llama-3.2-1B"]
    sweep = sm.roofline_batch_sweep(alpha, draft, target, H100, [batch], DEFAULT_CONTEXT, max_k=32)
    k = int(sweep.k[0])
    run = DENSE | {"batch": batch, "k": k, "mean_acceptance_length": float(sm.expected_tokens(alpha, k))}
    assert sm.predict_speedup(run, NO_OVERHEADS) == float(sweep.speedup[0])  # the same arithmetic, bit for bit


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"target": "Llama-9B"}, "unknown model 'Llama-9B'"),
        ({"draft": "org/no-such-draft"}, "unknown model 'org/no-such-draft'"),
        ({"gpu": "H300"}, "unknown GPU 'H300'"),
        ({"method": "medusa"}, "unknown method 'medusa'"),
        ({"precision": "fp4"}, "unknown precision 'fp4'"),
        ({"gpu": "L4", "gpu_count": 4}, "no interconnect is known for L4"),
        ({"mean_acceptance_length": 5.5}, "mean_acceptance_length must be within [1, 5]"),
        ({"k": 0}, "k must be >= 1"),
        ({"batch": 0}, "batch must be >= 1"),
        ({"temperature": -1.0}, "temperature must be >= 0"),
        ({"tree": {"steps": 3}}, "tree must give its tokens"),
        ({"method": "ngram", "tree": {"tokens": 8}}, "a tree is priced for a sequential drafter only"),
        ({"per_position": [0.9, 1.2]}, "per_position must be a list of acceptance rates"),
    ],
)
def test_what_it_does_not_know_is_named(change, named):
    with pytest.raises(ValueError) as raised:
        sm.predict_speedup(DENSE | change)
    assert named in str(raised.value)


def test_a_missing_key_is_named():
    run = {key: value for key, value in DENSE.items() if key not in ("gpu", "k")}
    with pytest.raises(ValueError, match="run is missing gpu, k"):
        sm.predict_speedup(run)
    with pytest.raises(ValueError, match="run must be a mapping"):
        sm.predict_speedup([("target", "Llama-3.1-8B")])


def test_context_is_read_where_given():
    # A long context makes every pass read more KV cache: the same run is priced differently.
    assert sm.predict_speedup(DENSE | {"context": 32768, "batch": 64}) != sm.predict_speedup(DENSE | {"batch": 64})
    assert sm.predict_speedup(DENSE | {"context": DEFAULT_CONTEXT}) == sm.predict_speedup(DENSE)
    assert np.isfinite(sm.predict_speedup(DENSE | {"context": 0}))


def test_the_default_per_layer_time_is_a_measured_step_less_its_roofline():
    # The step measured in a CUDA graph, as its source prints it, less the roofline's price of it, a layer.
    text = (Path(__file__).parents[1] / "fixtures" / "overheads" / "cloudai_cuda_graphs.txt").read_text("utf-8")
    assert "Llama 3.1 8B on an H100 SXM5" in text and "drops to 5.1 milliseconds" in text
    spec = sm.MODEL_PRESETS["Llama-3.1-8B"]
    step = float(sm.Roofline(spec, H100, 1, 0)(1))
    assert MEASURED_OVERHEADS[:2] == (pytest.approx((5.1e-3 - step) / spec.layers, rel=1e-15), 0.0)
    assert "8.4 milliseconds in eager mode" in text  # kernel by kernel: a floor six times as high
    assert 0 < MEASURED_OVERHEADS.per_layer_s < (8.4e-3 - step) / spec.layers / 6


def test_sglangs_exposed_host_time_is_its_iteration_with_and_without_overlap():
    """The same request at the same acceptance length, as its source prints it, with and without the
    overlap scheduler: the iteration's difference, AL / v1 speed − AL / v2 speed."""
    text = (Path(__file__).parents[1] / "fixtures" / "overheads" / "sglang_pr18906.txt").read_text("utf-8")
    v2, v1 = (line for line in text.splitlines() if line.startswith("|") and "512" in line)
    assert v2.split("|")[3:5] == ["   3.368    ", "     323.72      "]
    assert v1.split("|")[3:5] == ["   3.368    ", "     298.19      "]
    assert MEASURED_OVERHEADS.sglang_no_overlap_s == pytest.approx(3.368 / 298.19 - 3.368 / 323.72, rel=1e-15)
    assert 0.89e-3 < MEASURED_OVERHEADS.sglang_no_overlap_s < 0.90e-3


def test_an_sglang_run_without_overlap_pays_its_host_time_once_an_iteration():
    """S = L T(1) / (D + T(w) + o): the same run with o = the exposed host time where SGLang runs without
    its overlap scheduler (said off, or a release before 0.5.11 that had it off by default), and o = 0
    with it on, from 0.5.11 on, where nothing says, or on another engine."""
    plain = predict(DENSE, MEASURED_OVERHEADS)
    o = MEASURED_OVERHEADS.sglang_no_overlap_s
    closed = DENSE["mean_acceptance_length"] * plain.target_step_s / (plain.draft_s + plain.verify_s + o)
    for run in (DENSE | {"engine": "SGLang 0.5.10"}, DENSE | {"engine": "sglang", "overlap": False}):
        priced = predict(run, MEASURED_OVERHEADS)
        assert priced.iteration_s == o and priced.speedup == pytest.approx(closed, rel=1e-14)
    unpaid = (
        DENSE | {"engine": "SGLang", "overlap": True},
        DENSE | {"engine": "SGLang 0.5.11"},  # its default since (environ.py: SGLANG_ENABLE_SPEC_V2 True)
        DENSE | {"engine": "SGLang 0.5.23 (PyPI)"},
        DENSE | {"engine": "SGLang"},  # no version, nothing said: not assumed either way
        DENSE | {"engine": "vLLM 0.5.4", "overlap": False},
        DENSE,
    )
    for run in unpaid:
        assert predict(run, MEASURED_OVERHEADS) == plain, run
    assert predict(DENSE | {"engine": "SGLang 0.5.10"}, NO_OVERHEADS) == predict(DENSE, NO_OVERHEADS)
    with pytest.raises(ValueError, match=r"^overlap must be True, False or None \(not stated\), got 'yes'"):
        predict(DENSE | {"engine": "SGLang", "overlap": "yes"})
