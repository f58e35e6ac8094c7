"""A model and a GPU as the roofline model sees them, and public numbers for a few of each.

:class:`ModelSpec` describes a decoder-only transformer and :class:`GPUSpec` an accelerator, as
:class:`~specmath.Roofline` needs them. The presets :data:`MODEL_PRESETS` and
:data:`GPU_PRESETS` give public numbers, each with its source; they are read-only, and edited
with :func:`dataclasses.replace`, e.g. ``replace(GPU_PRESETS["H100 SXM"], peak_flops=700e12)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from ._validate import as_count, as_positive, shown


@dataclass(frozen=True)
class ModelSpec:
    """A decoder-only transformer, as the roofline model sees it.

    Attributes
    ----------
    name : str
        A label.
    parameters : float
        Total parameter count, embeddings included, > 0.
    layers : int
        Transformer blocks (``num_hidden_layers``).
    hidden : int
        Model width (``hidden_size``); the attention FLOPs take ``heads * head_dim = hidden``.
    kv_heads : int
        Key/value heads (``num_key_value_heads``; fewer than query heads under GQA).
    head_dim : int
        Dimension of one head.
    bytes_per_parameter : float, default 2.0
        2 for BF16/FP16 weights, 1 for FP8/INT8, 0.5 for 4-bit.
    kv_bytes_per_element : float, default 2.0
        Bytes of one cached key or value element (2 for a BF16 cache, 1 for FP8).
    source : str
        Where the numbers come from.
    vocab_size : int, default 0
        Rows of the embedding table (``vocab_size``); 0 if unknown.
    tie_word_embeddings : bool, default True
        Whether the input embedding is the output head's matrix (config.json's
        ``tie_word_embeddings``). If not, and ``vocab_size`` is known, the input embedding's
        ``vocab_size * hidden`` parameters are gathered, not multiplied (:attr:`input_embedding_parameters`).
        The default counts every parameter as read and multiplied, an upper bound.
    tokenizer : str, default ""
        The tokenizer family: models of one family share their token-to-id map (a draft and a
        target must, for a separate draft model's tokens to mean the target's); "" if unknown.
    """

    name: str
    parameters: float
    layers: int
    hidden: int
    kv_heads: int
    head_dim: int
    bytes_per_parameter: float = 2.0
    kv_bytes_per_element: float = 2.0
    source: str = field(default="", compare=False)
    vocab_size: int = 0
    tie_word_embeddings: bool = True
    tokenizer: str = ""

    def __post_init__(self):
        object.__setattr__(self, "parameters", as_positive(self.parameters, "parameters"))
        for name in ("layers", "hidden", "kv_heads", "head_dim"):
            object.__setattr__(self, name, as_count(getattr(self, name), name, cap=10**7))
        for name in ("bytes_per_parameter", "kv_bytes_per_element"):
            object.__setattr__(self, name, as_positive(getattr(self, name), name))
        object.__setattr__(self, "vocab_size", as_count(self.vocab_size, "vocab_size", cap=10**7, minimum=0))
        if not isinstance(self.tie_word_embeddings, (bool, np.bool_)):
            raise ValueError(f"tie_word_embeddings must be True or False, got {shown(self.tie_word_embeddings)}")
        object.__setattr__(self, "tie_word_embeddings", bool(self.tie_word_embeddings))
        if not isinstance(self.tokenizer, str):
            raise ValueError(f"tokenizer must be a string, got {shown(self.tokenizer)}")
        tables = (1 if self.tie_word_embeddings else 2) * self.vocab_size * self.hidden
        if tables > self.parameters:
            raise ValueError(
                f"parameters ({shown(self.parameters)}) must include the embedding tables, "
                f"{'' if self.tie_word_embeddings else '2 * '}vocab_size * hidden = {tables:,}"
            )

    @property
    def weight_bytes(self) -> float:
        """Bytes of the weights held in memory: ``parameters * bytes_per_parameter``."""
        return self.parameters * self.bytes_per_parameter

    @property
    def input_embedding_parameters(self) -> int:
        """Parameters of an untied input embedding, ``vocab_size * hidden``; 0 if tied or unknown.

        A decoding pass gathers one row of this table per position, where it reads every other
        weight in full: :attr:`matmul_parameters` leaves it out. A tied table is the output
        head, read and multiplied in full, and counted once in ``parameters``.
        """
        return 0 if self.tie_word_embeddings else self.vocab_size * self.hidden

    @property
    def matmul_parameters(self) -> float:
        """Parameters a decoding pass reads in full and multiplies: all but an untied input embedding's."""
        return self.parameters - self.input_embedding_parameters

    @property
    def weight_bytes_read(self) -> float:
        """Bytes of weights one decoding pass reads: ``matmul_parameters * bytes_per_parameter``.

        The gathered embedding rows, ``batch * w * hidden * bytes_per_parameter`` for ``w``
        positions of ``batch`` sequences, are left out, as small as the activations.
        """
        return self.matmul_parameters * self.bytes_per_parameter

    @property
    def kv_bytes_per_token(self) -> float:
        """KV-cache bytes per token of context: ``2 * layers * kv_heads * head_dim * kv_bytes``."""
        return 2.0 * self.layers * self.kv_heads * self.head_dim * self.kv_bytes_per_element

    def flops_per_position(self, context) -> float:
        """FLOPs to process one position against ``context`` cached tokens.

        ``2 * matmul_parameters`` (one multiply-add per weight; the untied input embedding is a
        lookup, no arithmetic) plus ``4 * layers * hidden * context`` (the scores ``q k^T`` and
        the weighted sum of values, one multiply-add per cached element each).
        """
        return 2.0 * self.matmul_parameters + 4.0 * self.layers * self.hidden * float(context)


@dataclass(frozen=True)
class GPUSpec:
    """An accelerator, as the roofline model sees it.

    Attributes
    ----------
    name : str
        A label.
    memory_bandwidth : float
        Peak memory bandwidth, bytes per second, > 0.
    peak_flops : float
        Peak dense (no sparsity) BF16 tensor throughput, FLOP per second, > 0.
    memory_bytes : float
        Memory capacity, bytes, > 0 (used only by :attr:`~specmath.Roofline.fits`).
    source : str
        Where the numbers come from.
    """

    name: str
    memory_bandwidth: float
    peak_flops: float
    memory_bytes: float
    source: str = field(default="", compare=False)

    def __post_init__(self):
        for name in ("memory_bandwidth", "peak_flops", "memory_bytes"):
            object.__setattr__(self, name, as_positive(getattr(self, name), name))

    @property
    def ridge_intensity(self) -> float:
        """FLOPs per byte at which compute time equals memory time: ``peak_flops / memory_bandwidth``."""
        return self.peak_flops / self.memory_bandwidth


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

#: Model presets by name (read-only; edit a copy with :func:`dataclasses.replace`).
MODEL_PRESETS = MappingProxyType({m.name: m for m in _MODELS})

#: GPU presets by name (read-only; edit a copy with :func:`dataclasses.replace`).
GPU_PRESETS = MappingProxyType({g.name: g for g in _GPUS})

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
