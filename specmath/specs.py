"""A model, a GPU and the link between GPUs, as the roofline model sees them.

:class:`ModelSpec` describes a decoder-only transformer, dense or a mixture of experts;
:class:`GPUSpec` an accelerator; :class:`Interconnect` the link tensor parallelism's all-reduces
cross. :mod:`specmath.presets` gives public numbers for each, with their sources.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._validate import as_count, as_positive, shown
from .moe import MAX_EXPERTS, expected_active_experts

#: The heads a :class:`ModelSpec` may be: drafters that run on their target's hidden states. "EAGLE" is
#: EAGLE-1's head (EAGLE-2 drafts a tree with the same weights), which also reads its target's output head.
HEADS = ("EAGLE", "EAGLE-3", "MTP")


@dataclass(frozen=True)
class ModelSpec:
    """A decoder-only transformer, dense or a mixture of experts, as the roofline model sees it.

    Attributes
    ----------
    name : str
        A label.
    parameters : float
        Total parameter count, embeddings and every expert included, > 0.
    layers : int
        Transformer blocks (``num_hidden_layers``).
    hidden : int
        Model width (``hidden_size``).
    kv_heads : int
        Key/value heads (``num_key_value_heads``; fewer than query heads under GQA).
    head_dim : int
        Dimension of one head. The KV cache holds ``2 * kv_heads * head_dim`` elements per token
        and layer (a latent cache such as DeepSeek's MLA is written as one head of half its width).
    bytes_per_parameter : float, default 2.0
        2 for BF16/FP16 weights, 1 for FP8/INT8, 0.5 for 4-bit.
    kv_bytes_per_element : float, default 2.0
        Bytes of one cached key or value element (2 for a BF16 cache, 1 for FP8).
    expert_bytes_per_parameter : float or None, default None
        Bytes per parameter of the routed experts where the checkpoint stores them apart from the
        rest (gpt-oss: MXFP4, 32 four-bit values in 16 bytes plus one byte of scale, 17/32 bytes);
        None: ``bytes_per_parameter``.
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
    routed_experts : int, default 0
        Routed experts per mixture-of-experts layer, ``E`` (``num_experts``, ``n_routed_experts``,
        ``num_local_experts``); 0 for a dense model, which needs none of the fields below.
    experts_per_token : int, default 0
        Routed experts each token uses, ``k`` (``num_experts_per_tok``), 1 to ``routed_experts``.
    shared_experts : int, default 0
        Experts every token uses besides its routed ones (``n_shared_experts``). Their
        parameters are part of the dense part, read by every pass; the count is descriptive.
    expert_parameters : float, default 0
        Parameters of one routed expert in one layer (for a SwiGLU expert,
        ``3 * hidden * moe_intermediate_size``, plus biases where the model has them).
    moe_layers : int, default 0
        Layers with routed experts; 0 means all ``layers`` (DeepSeek-V3 keeps its first 3 dense).
    attention_dim : int, default 0
        Half the multiply-adds of attention per cached token, per layer and position:
        ``num_attention_heads * (qk_head_dim + v_head_dim) / 2``; 0 means ``hidden`` (query heads
        times head dimension equal to the width, as in Llama and Qwen2.5).
    head : str, default ""
        What the model is if it is not a model on its own but a head that drafts from its
        target's hidden states: ``"EAGLE"``, ``"EAGLE-3"`` or ``"MTP"`` (:data:`HEADS`); "" for a
        standalone model. A head has no vocabulary of its own: it reads its target's embedding (and
        an EAGLE head or MTP module its output head, counted in ``parameters``), so its ``vocab_size``
        is 0 and its tokens are its target's.
    head_of : str, default ""
        The target a head was trained for (its name); "" for a standalone model.
    hub_id : str, default ""
        The model's Hugging Face repository id (``meta-llama/Llama-3.2-1B``), the name engines load
        it by; "" if it has none or it is not known.
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
    routed_experts: int = 0
    experts_per_token: int = 0
    shared_experts: int = 0
    expert_parameters: float = 0.0
    moe_layers: int = 0
    attention_dim: int = 0
    head: str = ""
    head_of: str = ""
    hub_id: str = field(default="", compare=False)
    expert_bytes_per_parameter: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "parameters", as_positive(self.parameters, "parameters"))
        for name in ("layers", "hidden", "kv_heads", "head_dim"):
            object.__setattr__(self, name, as_count(getattr(self, name), name, cap=10**7))
        for name in ("bytes_per_parameter", "kv_bytes_per_element"):
            object.__setattr__(self, name, as_positive(getattr(self, name), name))
        if self.expert_bytes_per_parameter is not None:
            value = as_positive(self.expert_bytes_per_parameter, "expert_bytes_per_parameter")
            object.__setattr__(self, "expert_bytes_per_parameter", value)
        object.__setattr__(self, "vocab_size", as_count(self.vocab_size, "vocab_size", cap=10**7, minimum=0))
        if not isinstance(self.tie_word_embeddings, (bool, np.bool_)):
            raise ValueError(f"tie_word_embeddings must be True or False, got {shown(self.tie_word_embeddings)}")
        object.__setattr__(self, "tie_word_embeddings", bool(self.tie_word_embeddings))
        if not isinstance(self.hub_id, str):
            raise ValueError(f"hub_id must be a string, got {shown(self.hub_id)}")
        if not isinstance(self.tokenizer, str):
            raise ValueError(f"tokenizer must be a string, got {shown(self.tokenizer)}")
        tables = (1 if self.tie_word_embeddings else 2) * self.vocab_size * self.hidden
        if tables > self.parameters:
            raise ValueError(
                f"parameters ({shown(self.parameters)}) must include the embedding tables, "
                f"{'' if self.tie_word_embeddings else '2 * '}vocab_size * hidden = {tables:,}"
            )
        object.__setattr__(self, "attention_dim", as_count(self.attention_dim, "attention_dim", cap=10**8, minimum=0))
        self._check_head()
        self._check_experts()

    def _check_head(self) -> None:
        """A head names its kind and its target, and has no vocabulary of its own; a model neither."""
        if self.head not in ("", *HEADS):
            raise ValueError(f"head must be one of {', '.join(HEADS)} or empty, got {shown(self.head)}")
        if not isinstance(self.head_of, str) or bool(self.head_of) != bool(self.head):
            raise ValueError(f"head_of must name the target of a head, and only of a head, got {shown(self.head_of)}")
        if self.head and self.vocab_size:
            raise ValueError(f"vocab_size must be 0 for a head (it reads its target's), got {shown(self.vocab_size)}")

    @property
    def is_head(self) -> bool:
        """Whether the model is a head that drafts from its target's hidden states (``head`` set)."""
        return bool(self.head)

    def _check_experts(self) -> None:
        """The mixture-of-experts fields: all zero (dense), or a consistent set."""
        for name in ("routed_experts", "experts_per_token", "shared_experts"):
            object.__setattr__(self, name, as_count(getattr(self, name), name, cap=MAX_EXPERTS, minimum=0))
        object.__setattr__(self, "moe_layers", as_count(self.moe_layers, "moe_layers", cap=self.layers, minimum=0))
        object.__setattr__(
            self, "expert_parameters", as_positive(self.expert_parameters, "expert_parameters", allow_zero=True)
        )
        if self.routed_experts == 0:
            for name in ("experts_per_token", "shared_experts", "expert_parameters", "moe_layers"):
                if getattr(self, name):
                    raise ValueError(
                        f"{name} must be 0 for a dense model (routed_experts = 0), got {shown(getattr(self, name))}"
                    )
            return
        if not 1 <= self.experts_per_token <= self.routed_experts:
            raise ValueError(
                f"experts_per_token must be within 1 to routed_experts = {self.routed_experts}, "
                f"got {shown(self.experts_per_token)}"
            )
        if self.expert_parameters == 0:
            raise ValueError("expert_parameters must be > 0 for a mixture of experts, got 0")
        if self.routed_parameters > self.matmul_parameters:
            raise ValueError(
                f"parameters ({shown(self.parameters)}) must include the routed experts' "
                f"{self.routed_parameters:,.0f} (and the embeddings)"
            )

    @property
    def is_moe(self) -> bool:
        """Whether the model routes tokens to experts (``routed_experts > 0``)."""
        return self.routed_experts > 0

    @property
    def expert_layers(self) -> int:
        """Layers with routed experts: ``moe_layers``, or every layer when that is 0; 0 if dense."""
        return (self.moe_layers or self.layers) if self.is_moe else 0

    @property
    def routed_parameters(self) -> float:
        """Parameters of every routed expert: ``expert_layers * routed_experts * expert_parameters``."""
        return self.expert_layers * self.routed_experts * self.expert_parameters

    @property
    def skipped_parameters(self) -> float:
        """Parameters of the ``routed_experts - experts_per_token`` experts a token skips per layer; 0 if dense."""
        return self.expert_layers * (self.routed_experts - self.experts_per_token) * self.expert_parameters

    @property
    def active_parameters(self) -> float:
        """Parameters one token reads in full and multiplies: :attr:`matmul_parameters` less
        :attr:`skipped_parameters`, what the roofline reads and multiplies for one position.

        The untied input embedding is left out, as in :attr:`matmul_parameters`: a token gathers
        one row of it. Published "active" counts differ on it: OpenAI's 5.1B for gpt-oss-120b (5.13B
        in its model card) leaves it out, which here is 5.13B (5.71B with it); Mixtral-8x7B's
        published 12.9B counts it (12.88B here with it, 12.75B without).
        """
        return self.matmul_parameters - self.skipped_parameters

    @property
    def expert_bytes(self) -> float:
        """Bytes per parameter of the routed experts: :attr:`expert_bytes_per_parameter`, else the rest's."""
        return self.bytes_per_parameter if self.expert_bytes_per_parameter is None else self.expert_bytes_per_parameter

    def bytes_of(self, dense, experts):
        """Bytes of ``dense`` parameters and ``experts`` routed-expert parameters (one product when they agree)."""
        if self.expert_bytes_per_parameter is None:
            return (dense + experts) * self.bytes_per_parameter  # as before experts could differ, bit for bit
        return dense * self.bytes_per_parameter + experts * self.expert_bytes

    @property
    def weight_bytes(self) -> float:
        """Bytes of the weights held in memory: ``parameters * bytes_per_parameter`` (the routed experts
        at :attr:`expert_bytes`)."""
        if self.expert_bytes_per_parameter is None:
            return self.parameters * self.bytes_per_parameter
        return self.bytes_of(self.parameters - self.routed_parameters, self.routed_parameters)

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
        """Parameters a decoding pass may read in full and multiply: all but an untied input embedding's."""
        return self.parameters - self.input_embedding_parameters

    @property
    def weight_bytes_read(self) -> float:
        """Bytes of weights a pass reads with every expert woken: ``matmul_parameters * bytes_per_parameter``.

        For a dense model, what every pass reads. The gathered embedding rows,
        ``batch * w * hidden * bytes_per_parameter`` for ``w`` positions of ``batch`` sequences,
        are left out, as small as the activations.
        """
        if self.expert_bytes_per_parameter is None:
            return self.matmul_parameters * self.bytes_per_parameter
        return self.bytes_of(self.matmul_parameters - self.routed_parameters, self.routed_parameters)

    def weight_bytes_read_at(self, tokens):
        r"""Expected bytes of weights a pass over ``tokens`` tokens reads (batch times positions).

        .. math:: \bigl(P_{\text{dense}} + L_e\, \mathbb{E}[A(T)]\, P_e\bigr)\, b

        with :math:`P_{\text{dense}}` = :attr:`matmul_parameters` less the routed experts,
        :math:`L_e` = :attr:`expert_layers`, :math:`P_e` = ``expert_parameters`` and
        :math:`\mathbb{E}[A(T)]` = :func:`~specmath.expected_active_experts` (uniform routing,
        each layer alike). A dense model reads :attr:`weight_bytes_read` whatever ``tokens``.
        """
        tokens = np.asarray(tokens)
        if not self.is_moe:
            return np.full(tokens.shape, self.weight_bytes_read)
        active = expected_active_experts(self.routed_experts, self.experts_per_token, tokens)
        dense = self.matmul_parameters - self.routed_parameters
        return self.bytes_of(dense, self.expert_layers * active * self.expert_parameters)

    @property
    def kv_bytes_per_token(self) -> float:
        """KV-cache bytes per token of context: ``2 * layers * kv_heads * head_dim * kv_bytes``."""
        return 2.0 * self.layers * self.kv_heads * self.head_dim * self.kv_bytes_per_element

    def flops_per_position(self, context) -> float:
        """FLOPs to process one position against ``context`` cached tokens.

        ``2 * active_parameters`` (one multiply-add per weight a token uses; the untied input
        embedding is a lookup, no arithmetic, and the routed experts it skips do none), plus
        ``4 * layers * attention_dim * context`` (the scores ``q k^T`` and the weighted sum of
        values; ``attention_dim`` is ``hidden`` unless given).
        """
        width = self.attention_dim or self.hidden
        return 2.0 * self.active_parameters + 4.0 * self.layers * width * float(context)


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
        Peak dense (no sparsity) BF16 tensor throughput, FLOP per second, > 0: the peak the
        roofline uses.
    memory_bytes : float
        Memory capacity, bytes, > 0 (used only by :attr:`~specmath.Roofline.fits`).
    source : str
        Where the numbers come from.
    peak_flops_fp8 : float, default 0.0
        Peak dense FP8 tensor throughput, FLOP per second; 0 where the GPU has no FP8 tensor
        cores (A100) or the figure is not known. A page serving FP8 weights and activations
        uses it as ``peak_flops`` (:func:`dataclasses.replace`).
    """

    name: str
    memory_bandwidth: float
    peak_flops: float
    memory_bytes: float
    source: str = field(default="", compare=False)
    peak_flops_fp8: float = 0.0

    def __post_init__(self):
        for name in ("memory_bandwidth", "peak_flops", "memory_bytes"):
            object.__setattr__(self, name, as_positive(getattr(self, name), name))
        object.__setattr__(self, "peak_flops_fp8", as_positive(self.peak_flops_fp8, "peak_flops_fp8", allow_zero=True))

    @property
    def ridge_intensity(self) -> float:
        """FLOPs per byte at which compute time equals memory time: ``peak_flops / memory_bandwidth``."""
        return self.peak_flops / self.memory_bandwidth


#: Bytes of one activation element an all-reduce carries (BF16).
ACTIVATION_BYTES = 2.0


@dataclass(frozen=True)
class Interconnect:
    r"""The link tensor parallelism's all-reduces cross, as the roofline model sees it.

    One all-reduce of ``S`` bytes over ``n`` GPUs costs

    .. math:: t_{\text{AR}} = \lambda + \frac{2(n - 1)}{n} \cdot \frac{S}{B}

    a per-call latency :math:`\lambda` plus the ring algorithm's traffic at the link's
    bandwidth :math:`B`: each GPU sends and receives :math:`2(n-1)/n` times the buffer
    (NVIDIA/nccl-tests ``doc/PERFORMANCE.md`` lines 59 and 63 at commit
    a0b82b2260cf5152b9f8c061bbf7eaf0ba096432: ``t = (S/B) * (2*(n-1)/n)``, the "bus bandwidth"
    that ``all_reduce_perf`` prints). One GPU needs no all-reduce: 0.

    Attributes
    ----------
    name : str
        A label.
    bandwidth : float
        Bytes per second each GPU sends (one direction), > 0.
    latency_s : float
        Seconds one all-reduce call costs however small, >= 0.
    source : str
        Where the numbers come from.
    """

    name: str
    bandwidth: float
    latency_s: float
    source: str = field(default="", compare=False)

    def __post_init__(self):
        object.__setattr__(self, "bandwidth", as_positive(self.bandwidth, "bandwidth"))
        object.__setattr__(self, "latency_s", as_positive(self.latency_s, "latency_s", allow_zero=True))

    def all_reduce_time(self, message_bytes, gpus: int):
        """Seconds of one all-reduce of ``message_bytes`` (array) over ``gpus`` GPUs; 0 for one GPU."""
        message = np.asarray(message_bytes, dtype=float)
        if gpus == 1:
            return np.zeros(message.shape)
        return self.latency_s + (2.0 * (gpus - 1) / gpus) * message / self.bandwidth
