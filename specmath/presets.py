"""Public numbers for models, GPUs and interconnects, each with its source.

:class:`~specmath.ModelSpec`, :class:`~specmath.GPUSpec` and :class:`~specmath.Interconnect`
(:mod:`specmath.specs`) are what :class:`~specmath.Roofline` needs. The presets :data:`MODEL_PRESETS` and
:data:`GPU_PRESETS` give public numbers, each with its source; they are read-only, and edited
with :func:`dataclasses.replace`, e.g. ``replace(GPU_PRESETS["H100 SXM"], peak_flops=700e12)``.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from . import serving_presets
from .specs import GPUSpec, Interconnect, ModelSpec

# --------------------------------------------------------------------------------------------
# Presets. Numbers are public; GPU figures are the vendor's peak (memory bandwidth, dense BF16
# tensor FLOP/s, *not* the "with sparsity" figure datasheets print first), model figures are
# read off each model's config.json on the Hugging Face Hub, with the parameter count computed
# from that config (embeddings + layers x (attention + MLP + norms) + final norm + LM head unless
# tied); tests/specmath/test_hardware.py recomputes every count. A wrong tie_word_embeddings would
# show there: it moves the count by vocab_size x hidden, off the figure the Hub prints. Weights
# and KV cache in BF16 (2 bytes).
#
# Tokenizer families (ModelSpec.tokenizer), by the special-token ids of config.json: "Llama 3"
# (bos_token_id 128000, eos_token_id 128001), "Llama 2" (the LLaMA SentencePiece vocabulary of
# 32000: bos_token_id 1, eos_token_id 2), "Qwen2.5" (bos_token_id = eos_token_id = 151643). One
# family can pad its embedding table to different sizes: Qwen2.5-7B's vocab_size is 152064,
# Qwen2.5-0.5B's 151936. These were checked against copies of the config.json files kept in
# public GitHub repositories (the Hub itself is not reachable from here): Llama-3.1-8B and
# Qwen2.5-7B in citsjtu2020/LLM-Prof, sglang/Model_Config.md (commit 8434c8d); Llama-3.2-1B
# (Instruct) in kevinstephano/thunder_model_blocks, hf_llama/llama_config.py.

_MODELS = [
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
        source="huggingface.co/meta-llama/Llama-3.1-70B, config.json",
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
        source="huggingface.co/meta-llama/Llama-3.1-8B, config.json",
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
        source="huggingface.co/meta-llama/Llama-3.2-1B, config.json",
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
        source="huggingface.co/meta-llama/Llama-2-7b-hf, config.json",
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
        source="huggingface.co/JackFram/llama-68m, config.json (the SpecInfer draft model, Miao et al. 2024)",
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
        source="huggingface.co/Qwen/Qwen2.5-7B, config.json",
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
        source="huggingface.co/Qwen/Qwen2.5-0.5B, config.json",
    ),
]

_GPUS = [
    GPUSpec(
        "A100 80GB SXM",
        # NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf),
        # A100 80GB SXM column: "GPU Memory Bandwidth 2,039GB/s".
        memory_bandwidth=2_039e9,
        # Same datasheet: "BFLOAT16 Tensor Core 312 TFLOPS | 624 TFLOPS*", * = with sparsity.
        peak_flops=312e12,
        memory_bytes=80e9,  # same datasheet: "GPU Memory 80GB HBM2e"
        source="NVIDIA A100 datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)",
    ),
    GPUSpec(
        "H100 SXM",
        # NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column: "GPU memory bandwidth 3.35TB/s".
        memory_bandwidth=3.35e12,
        # Same datasheet: "BFLOAT16 Tensor Core 1,979 teraFLOPS*", * = with sparsity ("1/2 lower
        # without sparsity"): 989.5 dense (NVIDIA's Hopper whitepaper prints 989.4).
        peak_flops=989.5e12,
        memory_bytes=80e9,  # same datasheet: "GPU memory 80GB"
        # Same datasheet: "FP8 Tensor Core 3,958 teraFLOPS*", * = with sparsity: 1,979 dense.
        peak_flops_fp8=3958e12 / 2,
        source="NVIDIA H100 datasheet (H100 SXM column)",
    ),
    GPUSpec(
        "L4",
        # NVIDIA L4 Tensor Core GPU datasheet: "GPU memory bandwidth 300GB/s".
        memory_bandwidth=300e9,
        # Same datasheet: "BF16 Tensor Core 242 teraFLOPS*", * = with sparsity: 121 dense.
        peak_flops=121e12,
        memory_bytes=24e9,  # same datasheet: "GPU memory 24GB"
        source="NVIDIA L4 datasheet",
    ),
    GPUSpec(
        "RTX 4090",
        # NVIDIA Ada GPU Architecture whitepaper, Appendix A (GeForce RTX 4090):
        # "Memory Bandwidth 1008 GB/sec" (24 GB GDDR6X, 384-bit, 21 Gbps).
        memory_bandwidth=1_008e9,
        # Same table: "Peak BF16 Tensor TFLOPS with FP32 Accumulate 165.2/330.4" (dense/sparse).
        peak_flops=165.2e12,
        memory_bytes=24e9,  # same table: "Frame Buffer Memory Size and Type 24 GB GDDR6X"
        source="NVIDIA Ada GPU Architecture whitepaper, Appendix A",
    ),
]

_INTERCONNECTS = [
    Interconnect(
        "NVLink (H100 SXM)",
        # NVIDIA H100 datasheet, H100 SXM column: "Interconnect NVIDIA NVLink: 900GB/s", both
        # directions together: 450 GB/s each way.
        bandwidth=450e9,
        # NVIDIA/nccl issue #1259 (2024-04-22): all_reduce_perf on an HGX 8x H100 node, NCCL
        # 2.20.5, CUDA graphs, NVLSTree, 2 GPUs: "the latency is approximately 6us" (128 B-64 KiB).
        latency_s=6e-6,
        source="NVIDIA H100 datasheet (NVLink 900 GB/s bidirectional); NVIDIA/nccl issue #1259 (6 µs all-reduce)",
    ),
    Interconnect(
        "PCIe 5.0 x16",
        # NVIDIA H100 datasheet, H100 NVL/PCIe column: "PCIe Gen5: 128GB/s", both directions: 64 GB/s each way.
        bandwidth=64e9,
        # NVIDIA/nccl issue #1530: all_reduce_perf on 8 RTX 4090 over PCIe (NCCL_ALGO=TREE), 8 bytes: 42.56 us.
        latency_s=42.56e-6,
        source="NVIDIA H100 datasheet (PCIe Gen5 128 GB/s bidirectional); NVIDIA/nccl issue #1530 (42.56 µs)",
    ),
]

#: Model presets by name (read-only; edit a copy with :func:`dataclasses.replace`): the dense
#: models above, then today's mixture-of-experts targets and their drafters (:mod:`specmath.serving_presets`).
MODEL_PRESETS = MappingProxyType({m.name: m for m in (*_MODELS, *serving_presets.MODELS)})

#: GPU presets by name (read-only; edit a copy with :func:`dataclasses.replace`).
GPU_PRESETS = MappingProxyType({g.name: g for g in (*_GPUS, *serving_presets.GPUS)})

#: Interconnect presets by name, for tensor parallelism (read-only; type others as :class:`Interconnect`).
INTERCONNECT_PRESETS = MappingProxyType({i.name: i for i in _INTERCONNECTS})

# --------------------------------------------------------------------------------------------
# An acceptance vector for draft trees (specmath.trees): Sequoia's, the one its tree search
# reads by default. Infini-AI-Lab/Sequoia at commit 0ff3ff71475ca148f2dfb7545e0de5caf5c67b39,
# file acceptance-rate-vector.pt (a torch tensor of 34 little-endian float32, read here from the
# zip's raw storage, acceptance-rate-vector/data/0, without torch). Its layout is that of
# tests/test_accept.py, which writes it: entry 0 is unused (0), entries 1 to 32 are the ranks
# 1 to 32 (--W 32), entry 33 the share of target calls that accepted no child (49/667);
# tree_search.py drops the last entry and reads p[1] onward. Every entry is a count out of 667
# target calls: the stored float32 values are float32(count / 667) exactly, and the counts
# below are those values times 667. The README's command for producing such a vector uses
# JackFram/llama-68m (JF68M) as draft for meta-llama/Llama-2-7b-hf (stochastic decoding,
# temperature 0.6, CNN); the file itself records no settings.
_SEQUOIA_CALLS = 667
_SEQUOIA_COUNTS = (
    *(423, 72, 38, 15, 13, 10, 3, 2, 8, 3, 5, 3, 4, 2, 1, 2),  # ranks 1 to 16
    *(1, 2, 0, 2, 2, 2, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1),  # ranks 17 to 32
)

#: Sequoia's positional acceptance vector, ranks 1 to 32 (JF68M draft, Llama-2-7B target): read-only.
SEQUOIA_ACCEPTANCE = np.array(_SEQUOIA_COUNTS) / _SEQUOIA_CALLS
SEQUOIA_ACCEPTANCE.flags.writeable = False

#: Where :data:`SEQUOIA_ACCEPTANCE` comes from, for a page to show beside it.
SEQUOIA_ACCEPTANCE_SOURCE = (
    "Infini-AI-Lab/Sequoia, acceptance-rate-vector.pt (commit 0ff3ff7): JackFram/llama-68m draft "
    "for Llama-2-7B, counts out of 667 target calls (Chen et al. 2024, Sequoia)"
)
