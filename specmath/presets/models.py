"""The models: each entry a :class:`~specmath.ModelSpec` with its numbers, its Hugging Face id
(``hub_id``, "" for a head that has none) and its source (document, commit, and where in it).

Adding a model is one entry here and its source text kept verbatim under
``tests/fixtures/presets/models/<name>.txt`` (first line ``# `` and the entry's ``source``), which
tests/specmath/test_presets.py reads: the config's values against the entry's, the parameter
count recomputed from the config. Numbers are read off each model's config (copies kept in
public GitHub repositories at a commit, as the Hub itself is not reachable from where these were
written), with the parameter count computed from that config (embeddings + layers x (attention +
MLP + norms) + final norm + LM head unless tied). Weights and KV cache in BF16 (2 bytes) except
DeepSeek-V3, whose checkpoint is FP8 (``"dtype": "fp8"``), and gpt-oss's routed experts, stored in
MXFP4 (``expert_bytes_per_parameter``); the page's precision setting replaces each.

Tokenizer families (``ModelSpec.tokenizer``), by the special-token ids of config.json: "Llama 3"
(bos_token_id 128000, eos_token_id 128001), "Llama 2" (the LLaMA SentencePiece vocabulary of
32000: bos_token_id 1, eos_token_id 2), "Qwen2.5" (bos_token_id = eos_token_id = 151643), "Qwen3"
(bos_token_id 151643, eos_token_id 151645). One family can pad its embedding table to different
sizes: Qwen2.5-7B's vocab_size is 152064, Qwen2.5-0.5B's 151936.

Left out, each an upper side of the estimate: gpt-oss attends over a 128-token window in every
other layer (its ``layer_types``), counted here as full attention, and so does Llama 4 Scout in three
layers of four (chunks of 8192 tokens); FP8 and MXFP4 block scales;
DeepSeek-V3's routing bias and Qwen3's q/k norms are in the counts but are too small to matter.
"""

from __future__ import annotations

from dataclasses import replace

from ..specs import ModelSpec

# Sources read for more than one entry, each a public GitHub file at a commit.
_DEEPSEEK = "deepseek-ai/DeepSeek-V3 (GitHub) at 9b4e9788e4a3a731f7567338ed15d3ec549ce03b"
_SPECFORGE = "sgl-project/SpecForge at a6b6b0230009d15ec2a97a57384e6f53f0f96946"
_LLM_PROF = "citsjtu2020/LLM-Prof at 8434c8d19c396b2f95d92a67845a7c0a0e0dd512, sglang/Model_Config.md"


def _mtp_module(target: ModelSpec, parameters: int, source: str) -> ModelSpec:
    """``target``'s multi-token-prediction module: one decoder layer shaped as the target's own
    (the same attention, cache and experts, read from ``target``), with its own norms and
    projection; ``parameters`` counts what a pass reads. Its embedding and output head are the
    target's (vocab_size 0)."""
    return ModelSpec(
        f"{target.name}-MTP",
        parameters=parameters,
        layers=1,
        hidden=target.hidden,
        kv_heads=target.kv_heads,
        head_dim=target.head_dim,
        bytes_per_parameter=target.bytes_per_parameter,
        tokenizer=target.tokenizer,
        routed_experts=target.routed_experts,
        experts_per_token=target.experts_per_token,
        shared_experts=target.shared_experts,
        expert_parameters=target.expert_parameters,
        attention_dim=target.attention_dim,
        head="MTP",
        head_of=target.name,
        source=source,
    )


# Dense models first, then today's mixture-of-experts targets and their drafters: the page's
# model lists open in this order.
MODELS = [
    ModelSpec(
        "Llama-3.1-70B",
        parameters=70_553_706_496,  # computed from the config below; the Hub shows 70.6B
        layers=80,  # config.json num_hidden_layers
        hidden=8192,  # hidden_size (intermediate_size 28672)
        kv_heads=8,  # num_key_value_heads (64 query heads)
        head_dim=128,  # hidden_size / num_attention_heads = 8192 / 64
        vocab_size=128256,  # config.json vocab_size
        tie_word_embeddings=False,  # config.json tie_word_embeddings
        tokenizer="Llama 3",  # bos_token_id / eos_token_id, above
        hub_id="meta-llama/Llama-3.1-70B",
        source="meta-llama/Llama-3.1-70B's config.json on the Hugging Face Hub",
    ),
    ModelSpec(
        "Llama-3.3-70B",
        # Meta's arch_args: dim 8192, n_layers 80, n_heads 64, n_kv_heads 8, vocab_size 128256,
        # ffn_dim_multiplier 1.3, multiple_of 4096: FeedForward's hidden size int(1.3 * int(2 * 4 * 8192 / 3))
        # = 28398, rounded up to a multiple of 4096, 28672; tok_embeddings and output apart. Llama-3.1-70B's
        # shape, for the instruction-tuned model of December 2024.
        parameters=70_553_706_496,  # computed from the arch_args, as Llama-3.1-70B's
        layers=80,
        hidden=8192,
        kv_heads=8,
        head_dim=128,  # dim / n_heads = 8192 / 64
        vocab_size=128256,
        tie_word_embeddings=False,
        tokenizer="Llama 3",  # LLAMA3_VOCAB_SIZE, the Llama 3 tokenizer's
        hub_id="meta-llama/Llama-3.3-70B-Instruct",  # the entry's huggingface_repo
        source=(
            "meta-llama/llama-models at 364ed4ec2bdcc13ab3acb08e364e843b6322b9ae, models/sku_list.py lines "
            "751-772 (llama3_3_instruct_models, arch_args) and line 21 (LLAMA3_VOCAB_SIZE); "
            "models/llama3/reference_impl/model.py lines 205-222 (FeedForward) and 264-271 (untied embedding "
            "and output)"
        ),
    ),
    ModelSpec(
        "Llama-3.1-8B",
        parameters=8_030_261_248,  # computed from the config below; the Hub shows 8.03B
        layers=32,  # config.json num_hidden_layers
        hidden=4096,  # hidden_size (intermediate_size 14336)
        kv_heads=8,  # num_key_value_heads (32 query heads)
        head_dim=128,  # hidden_size / num_attention_heads = 4096 / 32
        vocab_size=128256,  # config.json vocab_size
        tie_word_embeddings=False,  # config.json tie_word_embeddings
        tokenizer="Llama 3",  # bos_token_id / eos_token_id, above
        hub_id="meta-llama/Llama-3.1-8B",
        source=f'{_LLM_PROF}, the block headed "Llama-3.1-8B" (meta-llama/Llama-3.1-8B\'s config.json)',
    ),
    ModelSpec(
        "Llama-3.2-1B",
        parameters=1_235_814_400,  # computed from the config below; the Hub shows 1.24B
        layers=16,  # config.json num_hidden_layers
        hidden=2048,  # hidden_size (intermediate_size 8192)
        kv_heads=8,  # num_key_value_heads (32 query heads)
        head_dim=64,  # config.json head_dim
        vocab_size=128256,  # config.json vocab_size
        tie_word_embeddings=True,  # config.json tie_word_embeddings
        tokenizer="Llama 3",  # bos_token_id / eos_token_id, above
        hub_id="meta-llama/Llama-3.2-1B",
        source="meta-llama/Llama-3.2-1B's config.json on the Hugging Face Hub",
    ),
    ModelSpec(
        "Llama-2-7B",
        parameters=6_738_415_616,  # computed from the config below; the Hub shows 6.74B
        layers=32,  # config.json num_hidden_layers
        hidden=4096,  # hidden_size (intermediate_size 11008)
        kv_heads=32,  # no GQA: num_key_value_heads = num_attention_heads = 32
        head_dim=128,  # 4096 / 32
        vocab_size=32000,  # config.json vocab_size
        tie_word_embeddings=False,  # config.json tie_word_embeddings
        tokenizer="Llama 2",  # bos_token_id / eos_token_id, above
        hub_id="meta-llama/Llama-2-7b-hf",
        source="meta-llama/Llama-2-7b-hf's config.json on the Hugging Face Hub",
    ),
    ModelSpec(
        "LLaMA-68M",
        parameters=68_030_208,  # computed from the config below: the "68M" of its name
        layers=2,  # config.json num_hidden_layers
        hidden=768,  # hidden_size (intermediate_size 3072)
        kv_heads=12,  # num_key_value_heads = num_attention_heads = 12
        head_dim=64,  # 768 / 12
        vocab_size=32000,  # config.json vocab_size
        tie_word_embeddings=False,  # config.json tie_word_embeddings
        tokenizer="Llama 2",  # Llama-2-7B's vocab_size; Sequoia drafts for it (p_1 = 0.63)
        hub_id="JackFram/llama-68m",
        source="JackFram/llama-68m's config.json on the Hugging Face Hub (the SpecInfer draft model, Miao et al. 2024)",
    ),
    ModelSpec(
        "Qwen2.5-7B",
        parameters=7_615_616_512,  # computed from the config below (q/k/v biases); the Hub shows 7.62B
        layers=28,  # config.json num_hidden_layers
        hidden=3584,  # hidden_size (intermediate_size 18944)
        kv_heads=4,  # num_key_value_heads (28 query heads)
        head_dim=128,  # 3584 / 28
        vocab_size=152064,  # config.json vocab_size
        tie_word_embeddings=False,  # config.json tie_word_embeddings
        tokenizer="Qwen2.5",  # bos_token_id / eos_token_id, above
        hub_id="Qwen/Qwen2.5-7B",
        source=f'{_LLM_PROF}, the block headed "Qwen2.5-7B" (Qwen/Qwen2.5-7B\'s config.json)',
    ),
    ModelSpec(
        "Qwen2.5-0.5B",
        parameters=494_032_768,  # computed from the config below (q/k/v biases); the Hub shows 494M
        layers=24,  # config.json num_hidden_layers
        hidden=896,  # hidden_size (intermediate_size 4864)
        kv_heads=2,  # num_key_value_heads (14 query heads)
        head_dim=64,  # 896 / 14
        vocab_size=151936,  # config.json vocab_size
        tie_word_embeddings=True,  # config.json tie_word_embeddings
        tokenizer="Qwen2.5",  # bos_token_id / eos_token_id, above
        hub_id="Qwen/Qwen2.5-0.5B",
        source="Qwen/Qwen2.5-0.5B's config.json on the Hugging Face Hub",
    ),
]

MODELS += [
    ModelSpec(
        "Qwen3-4B",
        # config.json: vocab_size 151936, hidden_size 2560, intermediate_size 9728,
        # num_hidden_layers 36, num_attention_heads 32, num_key_value_heads 8, head_dim 128,
        # tie_word_embeddings true, bos 151643, eos 151645.
        parameters=4_022_468_096,  # Qwen: 4.0B
        layers=36,
        hidden=2560,
        kv_heads=8,
        head_dim=128,
        vocab_size=151936,
        tie_word_embeddings=True,
        tokenizer="Qwen3",
        attention_dim=32 * 128,
        hub_id="Qwen/Qwen3-4B",
        source=f'{_LLM_PROF}, the block headed "Qwen3-4B" (Qwen/Qwen3-4B\'s config.json)',
    ),
    ModelSpec(
        "Qwen3-32B",
        # A dense Qwen3: 64 layers of 5120, 64 query heads of 128 (8192 wide, attention_dim), 8 KV heads.
        parameters=32_762_123_264,  # computed from the config; Qwen: 32.8B
        layers=64,
        hidden=5120,
        kv_heads=8,
        head_dim=128,
        vocab_size=151936,
        tie_word_embeddings=False,
        tokenizer="Qwen3",
        attention_dim=64 * 128,
        hub_id="Qwen/Qwen3-32B",
        source=f'{_LLM_PROF}, the block headed "Qwen3-32B" (Qwen/Qwen3-32B\'s config.json)',
    ),
    ModelSpec(
        "Mistral-7B",
        # The Mixtral paper's abstract (arXiv 2401.04088): "Mixtral has the same architecture as
        # Mistral 7B, with the difference that each layer is composed of 8 feedforward blocks":
        # Mixtral's Table 1 below with one MLP a layer. A separate draft model for Mixtral with
        # its vocab_size (that the two share one tokenizer is Mistral AI's release, not read
        # here); its 4,096-token sliding window is counted as full attention.
        parameters=7_241_732_096,
        layers=32,
        hidden=4096,
        kv_heads=8,
        head_dim=128,
        vocab_size=32000,
        tie_word_embeddings=False,
        tokenizer="Mistral",
        hub_id="mistralai/Mistral-7B-v0.1",
        source="the Mixtral paper, arXiv 2401.04088 (Mistral 7B's architecture with one MLP a layer)",
    ),
]

_DEEPSEEK_V3 = ModelSpec(
    "DeepSeek-V3",
    # inference/configs/config_671B.json: vocab_size 129280, dim 7168, inter_dim 18432,
    # moe_inter_dim 2048, n_layers 61, n_dense_layers 3, n_heads 128, n_routed_experts 256,
    # n_shared_experts 1, n_activated_experts 8, q_lora_rank 1536, kv_lora_rank 512,
    # qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, dtype fp8; the layers as
    # inference/model.py builds them (MLA, a gate with a bias, untied embed and head).
    parameters=671_026_419_200,  # README_WEIGHTS.md: "Total parameters: 671B"
    layers=61,
    hidden=7168,
    # MLA caches one latent per token and layer: kv_lora_rank + qk_rope_head_dim = 576
    # elements, written as one head of 288 (the cache counts K and V, 2 x 288).
    kv_heads=1,
    head_dim=288,
    bytes_per_parameter=1.0,  # "dtype": "fp8"
    vocab_size=129280,
    tie_word_embeddings=False,
    tokenizer="DeepSeek-V3",
    routed_experts=256,
    experts_per_token=8,
    shared_experts=1,
    expert_parameters=3 * 7168 * 2048,  # w1, w2, w3 of moe_inter_dim 2048
    moe_layers=58,  # n_layers - n_dense_layers
    # Decoding with MLA's absorbed weights: 128 heads score 576-wide keys and sum 512-wide
    # values, 128 x (576 + 512) / 2 multiply-adds per cached token and layer, halved.
    attention_dim=128 * (576 + 512) // 2,
    hub_id="deepseek-ai/DeepSeek-V3",
    source=f"{_DEEPSEEK}, inference/configs/config_671B.json (whole file)",
)

MODELS += [
    _DEEPSEEK_V3,
    _mtp_module(
        _DEEPSEEK_V3,
        # README_WEIGHTS.md: one MTP module, layer 61 "structure identical to the Main Model
        # hidden layers" (an MoE layer), enorm and hnorm, eh_proj (2 x 7168 to 7168), sharing the
        # embedding and output head with the main model. Counted: the layer, the norms, eh_proj,
        # its final norm and the shared head, read every pass; the shared embedding is gathered.
        11_610_068_224 + 129280 * 7168,
        f"{_DEEPSEEK}, README_WEIGHTS.md (num_nextn_predict_layers = 1) and inference/model.py",
    ),
    ModelSpec(
        "Qwen3-30B-A3B",
        # config.json: vocab_size 151936, hidden_size 2048, num_hidden_layers 48,
        # num_attention_heads 32, num_key_value_heads 4, head_dim 128, num_experts 128,
        # num_experts_per_tok 8, moe_intermediate_size 768, mlp_only_layers [],
        # decoder_sparse_step 1, tie_word_embeddings false, bos 151643, eos 151645.
        parameters=30_532_122_624,  # Qwen: 30.5B total, 3.3B activated
        layers=48,
        hidden=2048,
        kv_heads=4,
        head_dim=128,
        vocab_size=151936,
        tie_word_embeddings=False,
        tokenizer="Qwen3",
        routed_experts=128,
        experts_per_token=8,
        expert_parameters=3 * 2048 * 768,
        attention_dim=32 * 128,  # 32 heads of 128: twice the width
        hub_id="Qwen/Qwen3-30B-A3B",
        source=f'{_LLM_PROF}, the block headed "Qwen3-30B-A3B" (Qwen/Qwen3-30B-A3B\'s config.json)',
    ),
    ModelSpec(
        "Qwen3-235B-A22B",
        # Megatron arguments mirroring config.json: --num-layers 94, --hidden-size 4096,
        # --num-attention-heads 64, --num-query-groups 4, --kv-channels 128,
        # --moe-ffn-hidden-size 1536, --num-experts 128, --moe-router-topk 8, every layer MoE,
        # --vocab-size 151936, --untie-embeddings-and-output-weights, --qk-layernorm.
        parameters=235_093_634_560,  # Qwen: 235B total, 22B activated
        layers=94,
        hidden=4096,
        kv_heads=4,
        head_dim=128,
        vocab_size=151936,
        tie_word_embeddings=False,
        tokenizer="Qwen3",
        routed_experts=128,
        experts_per_token=8,
        expert_parameters=3 * 4096 * 1536,
        attention_dim=64 * 128,
        hub_id="Qwen/Qwen3-235B-A22B",
        source=(
            "zyzshishui/slime at a29386384f6fa74b4e926a675b40038a91289659, scripts/models/qwen3-235B-A22B.sh "
            "lines 16-49 (MODEL_ARGS, Megatron's names for Qwen/Qwen3-235B-A22B's config.json)"
        ),
    ),
    ModelSpec(
        "Mixtral-8x7B",
        # Jiang et al. 2024, "Mixtral of Experts" (arXiv 2401.04088), Table 1: dim 4096,
        # n_layers 32, head_dim 128, hidden_dim 14336, n_heads 32, n_kv_heads 8, vocab_size
        # 32000, num_experts 8, top_k_experts 2. Untied embedding and head: the count that
        # gives the published 46.7B (tied, it would be 46.57B).
        parameters=46_702_792_704,  # the paper: 47B total, 13B active (46.7B and 12.9B)
        layers=32,
        hidden=4096,
        kv_heads=8,
        head_dim=128,
        vocab_size=32000,
        tie_word_embeddings=False,
        tokenizer="Mistral",
        routed_experts=8,
        experts_per_token=2,
        expert_parameters=3 * 4096 * 14336,
        hub_id="mistralai/Mixtral-8x7B-v0.1",
        source="the Mixtral paper, arXiv 2401.04088, Table 1",
    ),
    ModelSpec(
        "gpt-oss-120b",
        # ModelConfig defaults (the 120b): num_hidden_layers 36, num_experts 128,
        # experts_per_token 4, vocab_size 201088, hidden_size 2880, intermediate_size 2880,
        # head_dim 64, num_attention_heads 64, num_key_value_heads 8, sliding_window 128 (even
        # layers); qkv and out with biases, per-head sinks, a gate with a bias, experts with
        # biases, untied embedding and unembedding.
        parameters=116_829_156_672,  # OpenAI: 116.8B total, 5.1B active (the input embedding aside)
        layers=36,
        hidden=2880,
        kv_heads=8,
        head_dim=64,
        vocab_size=201088,
        tie_word_embeddings=False,
        tokenizer="o200k_harmony",  # gpt_oss/tokenizer.py, line 6: name="o200k_harmony"
        routed_experts=128,
        experts_per_token=4,
        expert_parameters=3 * 2880 * 2880 + 2 * 2880 + 2880,  # mlp1 (2 x inter) and mlp2, with biases
        attention_dim=64 * 64,
        # The README: MXFP4 "for the linear projection weights in the MoE layer", "All other tensors will
        # be in BF16"; weights.py: "32 FP4 numbers packed in 16 bytes", and a uint8 scale a block (its
        # exponent, read less its bias 127: the OCP MX format's E8M0). 17 bytes a block of 32; the
        # experts' biases, stored in BF16, are 0.03 % of them and counted at the same rate.
        expert_bytes_per_parameter=(16 + 1) / 32,
        hub_id="openai/gpt-oss-120b",
        source=(
            "openai/gpt-oss at 7b583341fe16729127f6d5b94a7b09ccae97e1a1, gpt_oss/torch/model.py lines 12-28 "
            "(ModelConfig, the 120b's defaults); README.md lines 567-572 and gpt_oss/torch/weights.py lines 8-9 "
            "and 84 (the experts in MXFP4)"
        ),
    ),
]

# EAGLE-3 heads (Li et al. 2025, arXiv 2503.01840), as SpecForge trains them
# (specforge/modeling/draft/llama3_eagle.py, LlamaForCausalLMEagle3): fc (3 x hidden to hidden),
# one decoder layer whose q/k/v take 2 x hidden, an MLP, four norms, and an lm_head over
# draft_vocab_size 32000. Their embedding is the target's (gathered, not counted).


def _eagle3(name, target, config, hidden, intermediate, heads, kv_heads, head_dim, tokenizer):
    parameters = (
        2 * hidden * heads * head_dim  # q_proj from 2 x hidden
        + 2 * 2 * hidden * kv_heads * head_dim  # k_proj, v_proj
        + heads * head_dim * hidden  # o_proj
        + 3 * hidden * intermediate  # gate, up, down
        + 3 * hidden * hidden  # fc
        + 4 * hidden  # hidden_norm, input_layernorm, post_attention_layernorm, norm
        + hidden * 32000  # lm_head over draft_vocab_size
    )
    return ModelSpec(
        name,
        parameters=parameters,
        layers=1,
        hidden=hidden,
        kv_heads=kv_heads,
        head_dim=head_dim,
        tokenizer=tokenizer,
        attention_dim=0 if heads * head_dim == hidden else heads * head_dim,
        head="EAGLE-3",  # its embedding and tokens are its target's: vocab_size 0
        head_of=target,
        source=f"{_SPECFORGE}, configs/{config} (an EAGLE-3 head for {target})",
    )


MODELS += [
    # hidden 7168, intermediate 40960, 56 heads (of 128), 8 KV heads.
    _eagle3(
        "DeepSeek-V3-EAGLE-3", "DeepSeek-V3", "deepseek-v3-671b-eagle3.json", 7168, 40960, 56, 8, 128, "DeepSeek-V3"
    ),
    # hidden 2048, intermediate 12288, 32 heads, 4 KV heads, head_dim 128.
    _eagle3("Qwen3-30B-A3B-EAGLE-3", "Qwen3-30B-A3B", "qwen3-30B-A3B-eagle3.json", 2048, 12288, 32, 4, 128, "Qwen3"),
    # hidden 4096, intermediate 24576, 64 heads, 4 KV heads, head_dim 128.
    _eagle3(
        "Qwen3-235B-A22B-EAGLE-3", "Qwen3-235B-A22B", "qwen3-235B-A22B-eagle3.json", 4096, 24576, 64, 4, 128, "Qwen3"
    ),
    # hidden 2880, intermediate 17280, 64 heads, 8 KV heads, head_dim 64.
    _eagle3(
        "gpt-oss-120b-EAGLE-3", "gpt-oss-120b", "gpt-oss-120B-eagle3.json", 2880, 17280, 64, 8, 64, "o200k_harmony"
    ),
]

# An EAGLE(-1) head (Li et al. 2024, arXiv 2401.15077; EAGLE-2 drafts a tree with the same weights), as
# SafeAILab/EAGLE builds it (eagle/model/cnets1.py, Model): fc (2 x hidden to hidden, with a bias where
# the config's "bias" says so), one decoder layer whose first copy has no input norm, and no output head
# of its own: each draft pass multiplies by its target's (the target's embedding is gathered, not counted).
# The config is the LLaMA3-Instruct-8B head's: no copy of yuhuili/EAGLE-LLaMA3.1-Instruct-8B's own was
# found, and the README lists both heads for one shape of target at 0.25B. Drafting with a truncated
# vocabulary (FR-Spec) reads fewer rows of that head: not modelled here (specmath.predict_speedup).
_EAGLE_HIDDEN, _EAGLE_INTERMEDIATE, _LLAMA3_VOCAB = 4096, 14336, 128256
MODELS += [
    ModelSpec(
        "Llama-3.1-8B-EAGLE",
        parameters=(
            2 * _EAGLE_HIDDEN * _EAGLE_HIDDEN
            + 2 * _EAGLE_HIDDEN * 8 * 128  # q, o; k, v of 8 KV heads of 128
            + 3 * _EAGLE_HIDDEN * _EAGLE_INTERMEDIATE  # gate, up, down
            + _EAGLE_HIDDEN  # post_attention_layernorm (layer 0 has no input_layernorm)
            + 2 * _EAGLE_HIDDEN * _EAGLE_HIDDEN  # fc, "bias": false
            + _LLAMA3_VOCAB * _EAGLE_HIDDEN  # the target's lm_head, read by every draft pass
        ),
        layers=1,
        hidden=_EAGLE_HIDDEN,
        kv_heads=8,
        head_dim=128,  # 4096 / 32 heads
        tokenizer="Llama 3",
        head="EAGLE",
        head_of="Llama-3.1-8B",
        source=(
            "SafeAILab/EAGLE at f872b7fe099672e48a6d4fb7fdabe7cea2bda767, eagle/train/EAGLE-LLaMA3-Instruct-8B.json "
            "(whole file); at cb7e0841fe0c206c6ed74a197ad5e2a1f13f5a2b, README.md lines 190, 199 and 203 (the heads' "
            "parameter counts), eagle/model/cnets1.py lines 393-401 and 523-524 (the layer and fc) and "
            "eagle/model/ea_model.py lines 51-54 (fc's bias from the config)"
        ),
    ),
]

# GLM-4.7-Flash (zai-org), a mixture of experts with DeepSeek's MLA attention (SGLang's and vLLM's
# Glm4MoeLiteForCausalLM), its MTP module and a community EAGLE-3 head.
_GLM_MTP_SOURCE = (
    "sgl-project/sglang at cc481eba76c7e0fd4786c9bf61739d5b73b7b2e4, python/sglang/srt/models/glm4_moe_lite_nextn.py "
    "lines 61-82 (Glm4MoeLiteModelNextN) and its lm_head (prefix model.shared_head.head)"
)

_GLM_FLASH = ModelSpec(
    "GLM-4.7-Flash",
    # Glm4MoeLiteConfig's defaults, which its docstring gives as zai-org/GLM-4.7-Flash's
    # (huggingface/transformers' configuration_glm4_moe_lite.py at 008e5743 has the same):
    # vocab_size 154880, hidden_size 2048, intermediate_size 10240, num_hidden_layers 47,
    # num_attention_heads 20, q_lora_rank 768, kv_lora_rank 512, qk_nope_head_dim 192,
    # qk_rope_head_dim 64, v_head_dim 256, n_routed_experts 64, n_shared_experts 1,
    # num_experts_per_tok 4, moe_intermediate_size 1536, first_k_dense_replace 1,
    # tie_word_embeddings False; the layers as DeepSeek's (MLA, a gate with a bias).
    parameters=29_943_393_920,  # "30B total / 3B active" (3.9B with the untied head counted)
    layers=47,
    hidden=2048,
    # MLA's latent: kv_lora_rank + qk_rope_head_dim = 576 elements a token and layer, one head of 288.
    kv_heads=1,
    head_dim=288,
    vocab_size=154880,
    tie_word_embeddings=False,
    tokenizer="GLM-4.7",
    routed_experts=64,
    experts_per_token=4,
    shared_experts=1,
    expert_parameters=3 * 2048 * 1536,  # gate, up, down of moe_intermediate_size 1536
    moe_layers=46,  # num_hidden_layers - first_k_dense_replace
    # Absorbed MLA as DeepSeek-V3's: 20 heads score 576-wide keys and sum 512-wide values, halved.
    attention_dim=20 * (576 + 512) // 2,
    hub_id="zai-org/GLM-4.7-Flash",
    source=(
        "NVIDIA/TensorRT-LLM at 4874d5905a0cc473559ec9afb0cca5b6a5e4fb9e, "
        "tensorrt_llm/_torch/auto_deploy/models/custom/modeling_glm4_moe_lite.py lines 36-84 "
        "(Glm4MoeLiteConfig's defaults, zai-org/GLM-4.7-Flash's config.json)"
    ),
)

MODELS += [
    _GLM_FLASH,
    _mtp_module(
        _GLM_FLASH,
        # config.json's num_nextn_predict_layers 1: SGLang builds it as one decoder layer of the target's
        # with is_nextn=True (a mixture-of-experts layer, as DeepSeek-V3's), enorm and hnorm, eh_proj
        # (2 x 2048 to 2048), shared_head.norm and an output head; the embedding is gathered, not counted.
        643_706_176 + 154880 * 2048,
        _GLM_MTP_SOURCE,
    ),
    # thoughtworks/GLM-4.7-Flash-Eagle3 (SafeAILab/EAGLE PR #330): SpecForge's LlamaForCausalLMEagle3
    # at hidden 2048, with 16 query heads of 128, 4 KV heads and an MLP of 8192 (a narrower shape than
    # SpecForge's Qwen3-30B-A3B head); 145,235,968 parameters, the PR's "~145M".
    replace(
        _eagle3("GLM-4.7-Flash-EAGLE-3", "GLM-4.7-Flash", "", 2048, 8192, 16, 4, 128, "GLM-4.7"),
        source=(
            "patcarter883/minisglang-rdna4 at b08872a672d6125a6c0932856f8644de37db4a8b, "
            "python/minisgl/models/glm_eagle3.py lines 1-16 "
            "(thoughtworks/GLM-4.7-Flash-Eagle3's config.json, described)"
        ),
    ),
]

# Llama 4 Scout (Meta), a mixture of experts: every layer routes each token to one of 16 experts and
# runs one shared expert. Its text model only: the vision encoder (Llama4VisionConfig, 34 layers)
# encodes images and is not read when decoding text.
_LLAMA4 = "huggingface/transformers at {}, src/transformers/models/llama4/{}"
MODELS += [
    ModelSpec(
        "Llama-4-Scout",
        # Llama4TextConfig's defaults, a class documented with checkpoint="meta-llama/Llama-4-Scout-17B-16E":
        # vocab_size 202048, hidden_size 5120, intermediate_size 8192 (each expert's and the shared
        # expert's), intermediate_size_mlp 16384 (a dense layer's: none here), num_hidden_layers 48,
        # num_attention_heads 40, num_key_value_heads 8, head_dim 128, num_local_experts 16,
        # num_experts_per_tok 1, interleave_moe_layer_step 1 (moe_layers = range(0, 48, 1): every layer;
        # MaxText's llama4-17b-16e says 1 too, its 128-expert sibling 2), tie_word_embeddings False.
        # modeling_llama4.py: a router without bias, experts as gate_up (d x 2i) and down (i x d), one
        # shared expert of intermediate_size; the q/k norm is an L2 norm without weights.
        parameters=107_769_861_120,  # the text model from the config; 17.17B a token uses, both tables counted
        layers=48,
        hidden=5120,
        kv_heads=8,
        head_dim=128,  # 40 heads of 128: the hidden size
        vocab_size=202048,
        tie_word_embeddings=False,
        tokenizer="Llama 4",
        routed_experts=16,
        experts_per_token=1,
        shared_experts=1,
        expert_parameters=3 * 5120 * 8192,  # gate, up, down of intermediate_size 8192
        hub_id="meta-llama/Llama-4-Scout-17B-16E",
        source=(
            _LLAMA4.format("008e574391258935f3ecc3035c882e73bbcac419", "configuration_llama4.py")
            + " lines 77-195 (Llama4TextConfig's defaults and __post_init__'s moe_layers); "
            + _LLAMA4.format("000c33fdfde12e1ffafbfcdb3c926df5727a00b6", "modeling_llama4.py")
            + " lines 50-159 (experts, MLP, norms, router, Llama4TextMoe) and the decoder layer"
        ),
    ),
]
