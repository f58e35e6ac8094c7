"""Today's serving presets against their cited sources: config values, recomputed parameter
counts, and the totals their authors publish."""

import dataclasses

import pytest

import specmath as sm

# --- models -------------------------------------------------------------------------------------

# The presets whose source text is not kept as a fixture yet (tests/specmath/test_presets.py
# checks the others against theirs). Mixtral-8x7B, from the Mixtral paper (arXiv 2401.04088),
# Table 1: vocab_size, hidden_size, num_hidden_layers, num_attention_heads, num_key_value_heads,
# head_dim, routed experts, experts per token, shared experts, the expert intermediate size, the
# layers with routed experts, tie_word_embeddings.
MOE_CONFIGS = {
    "Mixtral-8x7B": (32000, 4096, 32, 32, 8, 128, 8, 2, 0, 14336, 32, False),
}

# Mistral-7B: vocab_size, hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
# num_key_value_heads, head_dim, tied (Mixtral's Table 1, one MLP a layer).
DENSE_CONFIGS = {
    "Mistral-7B": (32000, 4096, 14336, 32, 32, 8, 128, False),
}

# Totals and active counts as published, billions, with where: DeepSeek-V3's
# README_WEIGHTS.md ("Total parameters: 671B", "Activation parameters: 36.7B"); the Mixtral
# model description in Azure/azureml-assets (assets/models/system/mistralai-Mixtral-8x7B-Instruct-v01/
# description.md: "46.7B total parameters but only uses 12.9B"); the others' names (Qwen3-30B-A3B:
# 30B, 3B active; Qwen3-235B-A22B: 235B, 22B active; gpt-oss-120b: 120B class).
PUBLISHED = {
    "DeepSeek-V3": (671.0, 36.7),
    "Mixtral-8x7B": (46.7, 12.9),
    "Qwen3-30B-A3B": (30.0, 3.0),
    "Qwen3-235B-A22B": (235.0, 22.0),
}


def swiglu_attention(hidden, heads, kv_heads, head_dim, qk_norm=False):
    return hidden * heads * head_dim * 2 + 2 * hidden * kv_heads * head_dim + (2 * head_dim if qk_norm else 0)


def moe_parameter_count(name):
    """The count from the config, layer by layer: attention, two norms, the gate, the experts."""
    vocab, d, layers, heads, kv, hd, experts, _, _, inter, _, _ = MOE_CONFIGS[name]
    per_layer = swiglu_attention(d, heads, kv, hd) + 2 * d + d * experts + experts * 3 * d * inter
    return 2 * vocab * d + layers * per_layer + d


@pytest.mark.parametrize("name", sorted(MOE_CONFIGS))
def test_moe_presets_match_their_configs(name):
    vocab, d, layers, heads, kv, hd, experts, per_token, shared, inter, moe_layers, tied = MOE_CONFIGS[name]
    spec = sm.MODEL_PRESETS[name]
    assert spec.parameters == moe_parameter_count(name)
    assert (spec.vocab_size, spec.hidden, spec.layers, spec.tie_word_embeddings) == (vocab, d, layers, tied)
    assert (spec.routed_experts, spec.experts_per_token, spec.shared_experts) == (experts, per_token, shared)
    assert spec.expert_layers == moe_layers
    assert spec.expert_parameters == 3 * d * inter
    assert (spec.kv_heads, spec.head_dim) == (kv, hd)
    assert spec.attention_dim == (0 if heads * hd == d else heads * hd)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_moe_presets_against_published_totals(name):
    total, active = PUBLISHED[name]
    spec = sm.MODEL_PRESETS[name]
    assert spec.parameters / 1e9 == pytest.approx(total, rel=0.03)
    # DeepSeek's README prints 36.7B active where the config gives 36.63B without the input
    # embedding (37.55B with it; the V3 paper says 37B). The others' names round their counts
    # down (3.04B for "A3B", 3.35B with the embedding).
    assert spec.active_parameters / 1e9 == pytest.approx(active, rel=0.12)


def test_gpt_oss_counts_against_openai_figures():
    # openai/gpt-oss README.md line 15 at 0492bd3e037807f434a09583c9ac46d8757b5c4d: "117B parameters
    # with 5.1B active parameters"; OpenAI's gpt-oss model card: 116.83B total, 5.13B active.
    spec = sm.MODEL_PRESETS["gpt-oss-120b"]
    assert round(spec.parameters / 1e9, 2) == 116.83
    assert round(spec.parameters / 1e9) == 117
    # Active as the roofline reads a token: the untied input embedding, a lookup of one row, left
    # out, as OpenAI leaves it out; every weight but the skipped experts would be 5.71B.
    assert round(spec.active_parameters / 1e9, 1) == 5.1 and round(spec.active_parameters / 1e9, 2) == 5.13
    with_embedding = spec.parameters - spec.skipped_parameters
    assert with_embedding - spec.active_parameters == spec.vocab_size * spec.hidden == 201088 * 2880
    assert round(with_embedding / 1e9, 2) == 5.71
    # What the roofline reads and multiplies for one position: its experts in MXFP4, 17 bytes a block of 32.
    experts = spec.expert_layers * spec.experts_per_token * spec.expert_parameters
    assert spec.weight_bytes_read_at(1) == (spec.active_parameters - experts) * 2.0 + experts * 17 / 32
    assert spec.flops_per_position(0) == 2 * spec.active_parameters


def test_deepseek_mtp_module_against_readme():
    # README_WEIGHTS.md: the MTP module has "11.5B unique parameters, excluding the shared 0.9B
    # Embedding and 0.9B output Head". Here: the unique ones plus the shared head it reads.
    spec = sm.MODEL_PRESETS["DeepSeek-V3-MTP"]
    head = 129280 * 7168
    assert head / 1e9 == pytest.approx(0.9, abs=0.05)
    unique = spec.parameters - head
    d = 7168
    attention = d * 1536 + 1536 + 1536 * 128 * 192 + d * 576 + 512 + 512 * 128 * 256 + 128 * 128 * d
    layer = attention + 2 * d + 256 * d + 256 + 257 * 3 * d * 2048
    assert unique == layer + 2 * d + 2 * d * d + d  # enorm, hnorm, eh_proj, final norm
    assert unique / 1e9 == pytest.approx(11.5, rel=0.015)
    assert (spec.layers, spec.expert_layers, spec.routed_experts, spec.experts_per_token) == (1, 1, 256, 8)


@pytest.mark.parametrize("name", sorted(DENSE_CONFIGS))
def test_dense_presets_match_their_configs(name):
    vocab, d, inter, layers, heads, kv, hd, tied = DENSE_CONFIGS[name]
    spec = sm.MODEL_PRESETS[name]
    per_layer = swiglu_attention(d, heads, kv, hd) + 2 * d + 3 * d * inter
    assert spec.parameters == vocab * d * (1 if tied else 2) + layers * per_layer + d
    assert (spec.vocab_size, spec.hidden, spec.layers, spec.kv_heads, spec.head_dim) == (vocab, d, layers, kv, hd)
    assert spec.tie_word_embeddings == tied and not spec.is_moe
    assert spec.attention_dim == (0 if heads * hd == d else heads * hd)


def test_drafters_share_their_targets_tokenizer():
    pairs = {
        "DeepSeek-V3": ("DeepSeek-V3-MTP", "DeepSeek-V3-EAGLE-3"),
        "Qwen3-30B-A3B": ("Qwen3-30B-A3B-EAGLE-3", "Qwen3-4B"),
        "Qwen3-235B-A22B": ("Qwen3-235B-A22B-EAGLE-3", "Qwen3-4B"),
        "Mixtral-8x7B": ("Mistral-7B",),
        "gpt-oss-120b": ("gpt-oss-120b-EAGLE-3",),
    }
    for target, drafters in pairs.items():
        for drafter in drafters:
            assert sm.MODEL_PRESETS[drafter].tokenizer == sm.MODEL_PRESETS[target].tokenizer


# --- GPUs -----------------------------------------------------------------------------------------

# The GPU whose datasheet lines are not kept as a fixture yet (tests/specmath/test_presets.py
# checks the others against theirs): memory bandwidth (B/s), dense BF16 and dense FP8 peaks
# (FLOP/s), memory (B); NVIDIA HGX B200 specifications print the sparse figures, halved here.
GPU_DATASHEETS = {
    "B200 (HGX)": (7.7e12, 4.5e15 / 2, 9e15 / 2, 180e9),
}


@pytest.mark.parametrize("name", sorted(GPU_DATASHEETS))
def test_gpu_presets_match_their_datasheets(name):
    gpu = sm.GPU_PRESETS[name]
    assert (gpu.memory_bandwidth, gpu.peak_flops, gpu.peak_flops_fp8, gpu.memory_bytes) == GPU_DATASHEETS[name]


@pytest.mark.parametrize("name", [name for name, gpu in sm.GPU_PRESETS.items() if gpu.peak_flops_fp8])
def test_fp8_doubles_the_tensor_rate(name):
    # Up to the sheets' rounding: 2,614.9 for 2 x 1,307.4 (MI300X), 1,979 for 2 x 990 (GH200).
    gpu = sm.GPU_PRESETS[name]
    assert gpu.peak_flops_fp8 / gpu.peak_flops == pytest.approx(2, rel=0.02)


def test_interconnect_presets_are_read_only():
    # Their numbers against their sources: tests/specmath/test_presets.py.
    nvlink = sm.INTERCONNECT_PRESETS["NVLink (H100 SXM)"]
    with pytest.raises(TypeError):
        sm.INTERCONNECT_PRESETS["mine"] = nvlink
    assert dataclasses.replace(nvlink, latency_s=1e-6).latency_s == 1e-6
