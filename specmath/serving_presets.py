"""Today's serving presets: mixture-of-experts targets, their drafters, and current GPUs.

Merged into :data:`~specmath.MODEL_PRESETS` and :data:`~specmath.GPU_PRESETS`
(:mod:`specmath.presets`). Every number comes from the source named beside it; the parameter
counts are computed from those configs (tests/specmath/test_serving_presets.py recomputes each,
and compares it with the total and active counts the model's authors publish).

The Hugging Face Hub, where each model's ``config.json`` lives, is not reachable from where
these were written: each value was read from a copy kept in a public GitHub repository at a
commit, named per model, or from the model's paper. Weights are counted in BF16 (2 bytes), as
the other presets, except DeepSeek-V3, whose checkpoint is FP8 (``"dtype": "fp8"``); the page's
precision setting replaces it in any case. Left out, each an upper side of the estimate: gpt-oss
attends over a 128-token window in every other layer (its ``layer_types``), counted here as full
attention; FP8 and MXFP4 block scales; DeepSeek-V3's routing bias and Qwen3's q/k norms are in
the counts but are too small to matter.
"""

from __future__ import annotations

from .specs import GPUSpec, ModelSpec

# Sources of the configs, each a public GitHub file at a commit.
_DEEPSEEK = "deepseek-ai/DeepSeek-V3 (GitHub) at 9b4e9788e4a3a731f7567338ed15d3ec549ce03b"
_LLM_PROF = "citsjtu2020/LLM-Prof, sglang/Model_Config.md at 8434c8d19c396b2f95d92a67845a7c0a0e0dd512"
_SLIME = "zyzshishui/slime, scripts/models/qwen3-235B-A22B.sh at a29386384f6fa74b4e926a675b40038a91289659"
_GPT_OSS = "openai/gpt-oss, gpt_oss/torch/model.py (ModelConfig) at 7b583341fe16729127f6d5b94a7b09ccae97e1a1"
_SPECFORGE = "sgl-project/SpecForge at a6b6b0230009d15ec2a97a57384e6f53f0f96946"

# Small dense drafters first: the page's model lists open on them after the dense presets.
MODELS = [
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
        source=f"huggingface.co/Qwen/Qwen3-4B, config.json (read from {_LLM_PROF})",
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
        source="huggingface.co/mistralai/Mistral-7B-v0.1 (numbers from the Mixtral paper, arXiv 2401.04088)",
    ),
    ModelSpec(
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
        source=(
            "huggingface.co/deepseek-ai/DeepSeek-V3, config.json "
            f"(read from {_DEEPSEEK}, inference/configs/config_671B.json)"
        ),
    ),
    ModelSpec(
        "DeepSeek-V3-MTP",
        # README_WEIGHTS.md: one MTP module, layer 61 "structure identical to the Main Model
        # hidden layers" (an MoE layer), enorm and hnorm, eh_proj (2 x 7168 to 7168), sharing the
        # embedding and output head with the main model. Counted: the layer, the norms, eh_proj,
        # its final norm and the shared head, read every pass; the shared embedding is gathered.
        parameters=11_610_068_224 + 129280 * 7168,
        layers=1,
        hidden=7168,
        kv_heads=1,
        head_dim=288,
        bytes_per_parameter=1.0,
        tokenizer="DeepSeek-V3",
        routed_experts=256,
        experts_per_token=8,
        shared_experts=1,
        expert_parameters=3 * 7168 * 2048,
        attention_dim=128 * (576 + 512) // 2,
        head="MTP",  # the embedding and output head are the target's: vocab_size 0
        head_of="DeepSeek-V3",
        source=f"{_DEEPSEEK}, README_WEIGHTS.md (num_nextn_predict_layers = 1) and inference/model.py",
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
        source=f"huggingface.co/Qwen/Qwen3-30B-A3B, config.json (read from {_LLM_PROF})",
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
        source=f"huggingface.co/Qwen/Qwen3-235B-A22B, config.json (read from {_SLIME})",
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
        source="huggingface.co/mistralai/Mixtral-8x7B-v0.1 (numbers from the Mixtral paper, arXiv 2401.04088, Table 1)",
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
        source=f"huggingface.co/openai/gpt-oss-120b, config.json (read from {_GPT_OSS})",
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

GPUS = [
    GPUSpec(
        "H200 SXM",
        # NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column: "GPU Memory 141GB", "GPU Memory
        # Bandwidth 4.8TB/s", "BFLOAT16 Tensor Core 1,979 TFLOPS*", "FP8 Tensor Core 3,958
        # TFLOPS*", * = with sparsity: half of each dense.
        memory_bandwidth=4.8e12,
        peak_flops=1979e12 / 2,
        peak_flops_fp8=3958e12 / 2,
        memory_bytes=141e9,
        source="NVIDIA H200 datasheet (H200 SXM column; sparse figures halved)",
    ),
    GPUSpec(
        "B200 (HGX)",
        # NVIDIA HGX B200 specifications, per GPU: "FP8/FP6 Tensor Core 9 PFLOPS", "FP16/BF16
        # Tensor Core 4.5 PFLOPS" (with sparsity), "GPU Memory | Bandwidth 180GB HBM3E | 7.7TB/s".
        memory_bandwidth=7.7e12,
        peak_flops=4.5e15 / 2,
        peak_flops_fp8=9e15 / 2,
        memory_bytes=180e9,
        source="NVIDIA HGX B200 specifications (per GPU; sparse figures halved)",
    ),
    GPUSpec(
        "MI300X",
        # AMD Instinct MI300X data sheet: "Peak BFloat16 1307.4 TFLOPs" and "Peak FP8 2614.9
        # TFLOPs" dense (twice that with structured sparsity), "Memory Bandwidth 5.3 TB/s",
        # "Memory Capacity 192 GB HBM3".
        memory_bandwidth=5.3e12,
        peak_flops=1307.4e12,
        peak_flops_fp8=2614.9e12,
        memory_bytes=192e9,
        source="AMD Instinct MI300X data sheet",
    ),
    GPUSpec(
        "L40S",
        # NVIDIA L40S datasheet: "GPU Memory 48GB GDDR6 with ECC", "Memory Bandwidth 864GB/s",
        # "BFLOAT16 Tensor Core 362.05 | 733*", "FP8 Tensor Core 733 | 1,466*" TFLOPS (* sparsity).
        memory_bandwidth=864e9,
        peak_flops=362.05e12,
        peak_flops_fp8=733e12,
        memory_bytes=48e9,
        source="NVIDIA L40S datasheet",
    ),
]
