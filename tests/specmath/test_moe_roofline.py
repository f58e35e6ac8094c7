"""The roofline of mixture-of-experts targets and of tensor parallelism, against closed forms."""

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import specmath as sm
from specmath.costs import MAX_TP

H100 = sm.GPU_PRESETS["H100 SXM"]

# A mixture of experts shaped like Qwen3-30B-A3B (48 layers, width 2048, 128 experts of
# 3 x 2048 x 768 parameters, 8 per token), its parameter count made up of round parts.
EXPERT = 3 * 2048 * 768
MOE = sm.ModelSpec(
    "moe",
    parameters=2_000_000_000 + 48 * 128 * EXPERT,
    layers=48,
    hidden=2048,
    kv_heads=4,
    head_dim=128,
    routed_experts=128,
    experts_per_token=8,
    expert_parameters=EXPERT,
)


def dense_like(model: sm.ModelSpec, parameters: float) -> sm.ModelSpec:
    """``model`` without experts, holding ``parameters`` parameters."""
    fields = {"routed_experts": 0, "experts_per_token": 0, "shared_experts": 0, "expert_parameters": 0, "moe_layers": 0}
    return dataclasses.replace(model, parameters=parameters, **fields)


def old_roofline_times(model, gpu, batch, context, overhead_s, w):
    """The roofline as main computed it before mixtures of experts and tensor parallelism."""
    flops = 2.0 * model.matmul_parameters + 4.0 * model.layers * model.hidden * float(context)
    memory = (model.weight_bytes_read + batch * context * model.kv_bytes_per_token) / gpu.memory_bandwidth
    return np.maximum(memory, batch * w * flops / gpu.peak_flops) + overhead_s


#: The dense presets main had before mixtures of experts.
MAIN_DENSE = ["Llama-3.1-70B", "Llama-3.1-8B", "Llama-3.2-1B", "Llama-2-7B", "LLaMA-68M", "Qwen2.5-7B", "Qwen2.5-0.5B"]


@pytest.mark.parametrize("name", MAIN_DENSE)
def test_dense_presets_unchanged_bit_for_bit(name):
    model, w = sm.MODEL_PRESETS[name], np.arange(1, 34)
    for gpu in (sm.GPU_PRESETS[g] for g in ("A100 80GB SXM", "H100 SXM", "L4", "RTX 4090")):
        for batch in (1, 7, 64, 1024):
            for context in (0, 1000, 32768):
                for overhead in (0.0, 2e-4):
                    t = sm.Roofline(model, gpu, batch, context, overhead)
                    np.testing.assert_array_equal(t(w), old_roofline_times(model, gpu, batch, context, overhead, w))
                    assert t.ridge_width == t.memory_time / float(t.compute_time(1))


def test_moe_bytes_and_flops_by_hand():
    t = sm.Roofline(MOE, H100, batch=1, context=0)
    dense_part = 2_000_000_000
    # One position wakes its 8 experts; five positions wake 128 (1 - (15/16)^5) on average.
    assert t.bytes_read == (dense_part + 48 * 8 * EXPERT) * 2
    woken = 128 * (1 - (1 - 8 / 128) ** 5)
    assert t.bytes_read_at(5) == pytest.approx((dense_part + 48 * woken * EXPERT) * 2, rel=1e-14)
    assert MOE.active_parameters == dense_part + 48 * 8 * EXPERT
    assert MOE.flops_per_position(0) == 2 * MOE.active_parameters
    assert t(5) == pytest.approx(t.bytes_read_at(5) / H100.memory_bandwidth, rel=1e-14)


def test_moe_verification_dearer_than_dense_of_same_active_size():
    # Batch 1, short context: the dense model's 5-position pass costs what one does (its
    # plateau); the mixture's reads the experts five tokens wake, 3.8 times its one token's 8.
    dense = dense_like(MOE, MOE.active_parameters)
    ratios = {}
    for name, model in (("moe", MOE), ("dense", dense)):
        t = sm.Roofline(model, H100, batch=1, context=1024)
        ratios[name] = float(t(5) / t(1))
    assert ratios["dense"] == 1.0
    assert ratios["moe"] > 1.5


def test_moe_converges_to_dense_of_all_experts_as_all_experts_wake():
    everything = dense_like(MOE, MOE.parameters)
    # Past a quarter of the experts per token, more of them leave fewer to wake: the ratio falls
    # to the dense model's of every parameter (1 here), which k = E is bit for bit...
    ratios = []
    for k in (32, 64, 96, 120, 127, 128):
        t = sm.Roofline(dataclasses.replace(MOE, experts_per_token=k), H100, batch=1, context=0)
        ratios.append(float(t(5) / t(1)))
    assert all(a > b for a, b in itertools.pairwise(ratios))
    all_awake = sm.Roofline(dataclasses.replace(MOE, experts_per_token=128), H100)
    np.testing.assert_array_equal(all_awake(np.arange(1, 30)), sm.Roofline(everything, H100)(np.arange(1, 30)))
    # ... and so does it as the batch grows, where one position of every sequence wakes them all,
    # until compute binds (there the dense model's is below, its FLOPs those of all experts).
    ratio = [float(t(5) / t(1)) for t in (sm.Roofline(MOE, H100, b) for b in (4, 16, 64, 256))]
    assert all(a > b for a, b in itertools.pairwise(ratio))
    assert ratio[-1] == pytest.approx(1.0, abs=1e-6)


def test_moe_ridge_is_where_memory_meets_compute():
    for batch in (1, 8, 64, 512):
        t = sm.Roofline(MOE, H100, batch=batch, context=2048)
        w = t.ridge_width
        memory = (MOE.matmul_parameters - MOE.routed_parameters) * 2 + batch * 2048 * MOE.kv_bytes_per_token
        memory += 48 * 128 * (1 - (1 - 8 / 128) ** (batch * w)) * EXPERT * 2
        assert memory / H100.memory_bandwidth == pytest.approx(w * float(t.compute_time(1)), rel=1e-9)


@pytest.mark.parametrize(
    ("change", "pattern"),
    [
        ({"experts_per_token": 0}, "^experts_per_token must be within 1 to routed_experts = 128, got 0"),
        ({"experts_per_token": 129}, "^experts_per_token must be within 1 to routed_experts = 128, got 129"),
        ({"expert_parameters": 0}, "^expert_parameters must be > 0 for a mixture of experts"),
        ({"expert_parameters": -1}, "^expert_parameters must be >= 0"),
        ({"moe_layers": 49}, "^moe_layers must be <= 48"),
        ({"parameters": 1e9}, r"^parameters \(1000000000.0\) must include the routed experts"),
        ({"routed_experts": 0}, "^experts_per_token must be 0 for a dense model"),
        ({"attention_dim": -1}, "^attention_dim must be >= 0"),
    ],
)
def test_bad_moe_fields_named(change, pattern):
    with pytest.raises(ValueError, match=pattern):
        dataclasses.replace(MOE, **change)


# --- tensor parallelism -----------------------------------------------------------------------

NVLINK = sm.INTERCONNECT_PRESETS["NVLink (H100 SXM)"]
LLAMA_70B = sm.MODEL_PRESETS["Llama-3.1-70B"]


@pytest.mark.parametrize("model", [LLAMA_70B, MOE])
def test_tp_1_is_one_gpu_bit_for_bit(model):
    w = np.arange(1, 34)
    for batch, context in ((1, 0), (32, 4096), (512, 1024)):
        one = sm.Roofline(model, H100, batch, context, 1e-4)
        np.testing.assert_array_equal(sm.Roofline(model, H100, batch, context, 1e-4, 1, NVLINK)(w), one(w))
        assert (np.asarray(one.all_reduce_time(w)) == 0).all()


@pytest.mark.parametrize("model", [LLAMA_70B, MOE])
def test_tp_halves_the_weights_time_and_adds_two_all_reduces_a_layer(model):
    one = sm.Roofline(model, H100, batch=1, context=0)
    two = sm.Roofline(model, H100, batch=1, context=0, tp=2, interconnect=NVLINK)
    assert two.memory_time == one.memory_time / 2  # bit for bit: halving is exact
    w = np.arange(1, 9)
    # Two all-reduces per layer of w positions' hidden states in BF16; a ring over 2 GPUs moves
    # 2 (2 - 1) / 2 = 1 buffer per GPU: 6 us + w * hidden * 2 bytes / 450 GB/s each.
    all_reduces = 2 * model.layers * (6e-6 + w * model.hidden * 2 / 450e9)
    np.testing.assert_allclose(two.all_reduce_time(w), all_reduces, rtol=1e-14)
    memory = np.asarray(one.memory_time_at(w)) / 2
    np.testing.assert_allclose(
        two(w), np.maximum(memory, np.asarray(one.compute_time(w)) / 2) + all_reduces, rtol=1e-14
    )
    # Memory held per GPU halves; the latency does not shrink with the batch.
    assert two.memory_needed == one.memory_needed / 2
    big = sm.Roofline(model, H100, batch=256, context=0, tp=2, interconnect=NVLINK)
    assert float(big.all_reduce_time(1)) > 2 * model.layers * 6e-6


# The all-reduce's ring time against nccl-tests' own formula: tests/specmath/test_presets.py.


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (lambda: sm.Roofline(LLAMA_70B, H100, tp=2), "^interconnect must be given when tp > 1"),
        (lambda: sm.Roofline(LLAMA_70B, H100, tp=0, interconnect=NVLINK), "^tp must be >= 1"),
        (lambda: sm.Roofline(LLAMA_70B, H100, tp=1.5, interconnect=NVLINK), "^tp must be an integer"),
        (lambda: sm.Roofline(LLAMA_70B, H100, tp=MAX_TP + 1, interconnect=NVLINK), "^tp must be <="),
        (lambda: sm.Roofline(LLAMA_70B, H100, tp=2, interconnect="NVLink"), "^interconnect must be an Interconnect"),
        (lambda: sm.Interconnect("x", bandwidth=0, latency_s=1e-6), "^bandwidth must be > 0"),
        (lambda: sm.Interconnect("x", bandwidth=1e9, latency_s=-1), "^latency_s must be >= 0"),
    ],
)
def test_bad_tp_arguments_named(make, pattern):
    with pytest.raises(ValueError, match=pattern):
        make()


def test_tp_splits_the_kv_cache_over_at_most_kv_heads_gpus():
    # Llama-3.1-70B has 8 KV heads: 8 GPUs hold an eighth of the cache each, 16 GPUs too (each
    # head on two). DeepSeek-V3's latent cache is one head: whole on every GPU.
    llama, deepseek = LLAMA_70B, sm.MODEL_PRESETS["DeepSeek-V3"]
    assert [sm.kv_shards(llama, tp) for tp in (1, 2, 8, 16)] == [1, 2, 8, 8]
    assert sm.kv_shards(deepseek, 8) == 1
    for model, tp in ((llama, 8), (llama, 16), (deepseek, 8)):
        t = sm.Roofline(model, H100, batch=64, context=8192, tp=tp, interconnect=NVLINK)
        kv = 64 * 8192 * model.kv_bytes_per_token
        weights = model.weight_bytes_read_at(64) if model.is_moe else model.weight_bytes_read
        expected = weights / tp + kv / sm.kv_shards(model, tp)
        assert t.memory_time == pytest.approx(float(expected) / H100.memory_bandwidth, rel=1e-14)
        assert t.memory_needed == pytest.approx(model.weight_bytes / tp + kv / sm.kv_shards(model, tp), rel=1e-14)


@st.composite
def moe_rooflines(draw):
    """A random mixture of experts (shared experts too), on one GPU or several, with overhead."""
    layers, hidden = draw(st.integers(1, 96)), draw(st.integers(256, 8192))
    experts = draw(st.integers(2, 256))
    expert = draw(st.floats(1e5, 1e8))
    model = sm.ModelSpec(
        "m",
        parameters=draw(st.floats(1e8, 1e10)) + layers * (experts + 1) * expert,
        layers=layers,
        hidden=hidden,
        kv_heads=draw(st.integers(1, 16)),
        head_dim=128,
        routed_experts=experts,
        experts_per_token=draw(st.integers(1, experts)),
        shared_experts=draw(st.integers(0, 1)),
        expert_parameters=expert,
    )
    tp = draw(st.sampled_from([1, 2, 4, 8]))
    return sm.Roofline(
        model, H100, batch=draw(st.integers(1, 1024)), context=draw(st.integers(0, 65536)),
        overhead_s=draw(st.floats(0.0, 1e-3)), tp=tp, interconnect=NVLINK,
    )  # fmt: skip


@given(moe_rooflines())
def test_moe_and_tp_passes_cost_at_least_one_step_and_at_most_w(t):
    # More positions wake more experts and move more all-reduce bytes, never fewer: T(w) is
    # non-decreasing, so T(k + 1) / T(1) >= 1 (the Hardware chart's label sits under that line);
    # a pass over w positions costs no more than w passes over one.
    w = np.arange(1, 66)
    tw = np.asarray(t(w))
    assert (np.diff(tw) >= 0).all()
    assert (tw <= w * tw[0] * (1 + 1e-12)).all()
