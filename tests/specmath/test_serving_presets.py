"""Today's serving presets against their cited sources: config values, recomputed parameter
counts, and the totals their authors publish."""

import dataclasses

import pytest

import specmath as sm

# --- models -------------------------------------------------------------------------------------

# Each preset's config values as its source prints them (specmath/serving_presets.py names the
# file and commit): vocab_size, hidden_size, num_hidden_layers, num_attention_heads,
# num_key_value_heads, head_dim, routed experts, experts per token, shared experts, the expert
# intermediate size, the layers with routed experts, tie_word_embeddings.
MOE_CONFIGS = {
    # deepseek-ai/DeepSeek-V3 inference/configs/config_671B.json (MLA: kv_lora_rank 512,
    # qk_rope_head_dim 64, q_lora_rank 1536, qk_nope_head_dim 128, v_head_dim 128, inter_dim 18432).
    "DeepSeek-V3": (129280, 7168, 61, 128, None, None, 256, 8, 1, 2048, 58, False),
    # citsjtu2020/LLM-Prof sglang/Model_Config.md, the Qwen3-30B-A3B config.json.
    "Qwen3-30B-A3B": (151936, 2048, 48, 32, 4, 128, 128, 8, 0, 768, 48, False),
    # zyzshishui/slime scripts/models/qwen3-235B-A22B.sh.
    "Qwen3-235B-A22B": (151936, 4096, 94, 64, 4, 128, 128, 8, 0, 1536, 94, False),
    # Mixtral paper (arXiv 2401.04088), Table 1.
    "Mixtral-8x7B": (32000, 4096, 32, 32, 8, 128, 8, 2, 0, 14336, 32, False),
    # openai/gpt-oss gpt_oss/torch/model.py, ModelConfig.
    "gpt-oss-120b": (201088, 2880, 36, 64, 8, 64, 128, 4, 0, 2880, 36, False),
}

# Dense models and EAGLE-3 heads: vocab_size (0: an EAGLE-3 head gathers the target's
# embedding, not counted), hidden_size, intermediate_size, num_hidden_layers,
# num_attention_heads, num_key_value_heads, head_dim, tied, draft_vocab_size (EAGLE-3 only).
DENSE_CONFIGS = {
    "Qwen3-4B": (151936, 2560, 9728, 36, 32, 8, 128, True, None),  # LLM-Prof copy
    "Mistral-7B": (32000, 4096, 14336, 32, 32, 8, 128, False, None),  # Mixtral's Table 1, one MLP a layer
    # sgl-project/SpecForge configs/*-eagle3.json
    "DeepSeek-V3-EAGLE-3": (0, 7168, 40960, 1, 56, 8, 128, True, 32000),
    "Qwen3-30B-A3B-EAGLE-3": (0, 2048, 12288, 1, 32, 4, 128, True, 32000),
    "Qwen3-235B-A22B-EAGLE-3": (0, 4096, 24576, 1, 64, 4, 128, True, 32000),
    "gpt-oss-120b-EAGLE-3": (0, 2880, 17280, 1, 64, 8, 64, True, 32000),
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
    """The count from the config, layer by layer, as each model's code builds it."""
    vocab, d, layers, heads, kv, hd, experts, _, shared, inter, moe_layers, _ = MOE_CONFIGS[name]
    if name == "DeepSeek-V3":  # inference/model.py: MLA, dense MLP in the first 3 layers, gate bias
        attention = d * 1536 + 1536 + 1536 * heads * 192 + d * 576 + 512 + 512 * heads * 256 + heads * 128 * d
        dense = 3 * (attention + 2 * d + 3 * d * 18432)
        moe = moe_layers * (attention + 2 * d + experts * d + experts + (experts + shared) * 3 * d * inter)
        return 2 * vocab * d + dense + moe + d
    if name == "gpt-oss-120b":  # qkv and out biases, sinks, a gate with a bias, experts with biases
        attention = heads + d + d * hd * (heads + 2 * kv) + hd * (heads + 2 * kv) + hd * heads * d + d
        expert = 3 * inter * d + 2 * inter + d
        return 2 * vocab * d + layers * (attention + d + d * experts + experts + experts * expert) + d
    qk_norm = name.startswith("Qwen3")
    per_layer = swiglu_attention(d, heads, kv, hd, qk_norm) + 2 * d + d * experts + experts * 3 * d * inter
    return 2 * vocab * d + layers * per_layer + d


@pytest.mark.parametrize("name", sorted(MOE_CONFIGS))
def test_moe_presets_match_their_configs(name):
    vocab, d, layers, heads, kv, hd, experts, per_token, shared, inter, moe_layers, tied = MOE_CONFIGS[name]
    spec = sm.MODEL_PRESETS[name]
    assert spec.parameters == moe_parameter_count(name)
    assert (spec.vocab_size, spec.hidden, spec.layers, spec.tie_word_embeddings) == (vocab, d, layers, tied)
    assert (spec.routed_experts, spec.experts_per_token, spec.shared_experts) == (experts, per_token, shared)
    assert spec.expert_layers == moe_layers
    if name == "gpt-oss-120b":
        assert spec.expert_parameters == 3 * d * inter + 2 * inter + d
    else:
        assert spec.expert_parameters == 3 * d * inter
    if name == "DeepSeek-V3":  # MLA: one 576-wide latent a token and layer; absorbed attention
        assert spec.kv_bytes_per_token == 61 * 576 * 2.0  # a BF16 cache
        assert spec.attention_dim == heads * (576 + 512) / 2
    else:
        assert (spec.kv_heads, spec.head_dim) == (kv, hd)
        assert spec.attention_dim == (0 if heads * hd == d else heads * hd)
    assert spec.source.startswith("huggingface.co/")


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
    # What the roofline reads and multiplies for one position.
    assert spec.weight_bytes_read_at(1) == spec.active_parameters * spec.bytes_per_parameter
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
def test_dense_and_eagle_presets_match_their_configs(name):
    vocab, d, inter, layers, heads, kv, hd, tied, draft_vocab = DENSE_CONFIGS[name]
    spec = sm.MODEL_PRESETS[name]
    if draft_vocab:  # fc 3d x d, q/k/v from 2d, four norms, lm_head d x draft_vocab
        attention = 2 * d * heads * hd + 2 * 2 * d * kv * hd + heads * hd * d
        expected = attention + 3 * d * inter + 3 * d * d + 4 * d + d * draft_vocab
    else:
        per_layer = swiglu_attention(d, heads, kv, hd, name.startswith("Qwen3")) + 2 * d + 3 * d * inter
        expected = vocab * d * (1 if tied else 2) + layers * per_layer + d
    assert spec.parameters == expected
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

# name: memory bandwidth (B/s), dense BF16 and dense FP8 peaks (FLOP/s), memory (B), as each
# datasheet prints them (sparse figures halved where the sheet prints only those).
GPU_DATASHEETS = {
    "H100 SXM": (3.35e12, 1979e12 / 2, 3958e12 / 2, 80e9),  # NVIDIA H100 datasheet
    "H200 SXM": (4.8e12, 1979e12 / 2, 3958e12 / 2, 141e9),  # NVIDIA H200 datasheet
    "B200 (HGX)": (7.7e12, 4.5e15 / 2, 9e15 / 2, 180e9),  # NVIDIA HGX B200 specifications
    "MI300X": (5.3e12, 1307.4e12, 2614.9e12, 192e9),  # AMD Instinct MI300X data sheet
    "L40S": (864e9, 362.05e12, 733e12, 48e9),  # NVIDIA L40S datasheet
}


@pytest.mark.parametrize("name", sorted(GPU_DATASHEETS))
def test_gpu_presets_match_their_datasheets(name):
    gpu = sm.GPU_PRESETS[name]
    assert (gpu.memory_bandwidth, gpu.peak_flops, gpu.peak_flops_fp8, gpu.memory_bytes) == GPU_DATASHEETS[name]
    # FP8 doubles the tensor rate on each (up to the sheets' rounding: 2,614.9 for 2 x 1,307.4).
    assert gpu.peak_flops_fp8 / gpu.peak_flops == pytest.approx(2, rel=0.02)
    assert gpu.source


def test_interconnect_presets_match_their_sources():
    nvlink, pcie = sm.INTERCONNECT_PRESETS["NVLink (H100 SXM)"], sm.INTERCONNECT_PRESETS["PCIe 5.0 x16"]
    assert (nvlink.bandwidth, nvlink.latency_s) == (900e9 / 2, 6e-6)  # H100 datasheet; nccl #1259
    assert (pcie.bandwidth, pcie.latency_s) == (128e9 / 2, 42.56e-6)  # H100 datasheet; nccl #1530
    with pytest.raises(TypeError):
        sm.INTERCONNECT_PRESETS["mine"] = nvlink
    assert dataclasses.replace(nvlink, latency_s=1e-6).latency_s == 1e-6
