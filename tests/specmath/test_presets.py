"""Every preset against its cited source text, kept verbatim under tests/fixtures/presets/.

A fixture's first line is ``# `` and its entry's ``source``; what follows is the source's own
text (a config.json, a Megatron argument list, a dataclass's defaults, datasheet lines). The
tests read the numbers off that text: the config's values and the parameter count recomputed
from them, layer by layer as each model's code builds it, for a model; the dense BF16 and FP8
peaks, bandwidth and memory for a GPU; bandwidth and all-reduce latency for an interconnect, and
the ring time nccl-tests documents. No number of a preset is typed again here.
"""

import json
import re
from pathlib import Path

import numpy as np
import pytest

import specmath as sm
from specmath.presets import gpus, interconnects, models

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "presets"

#: Entries whose source text is not kept yet (tests/specmath/test_hardware.py and
#: test_serving_presets.py still check them against their configs as typed there). New entries
#: come with a fixture.
WITHOUT_FIXTURE = {
    "Llama-3.1-70B",
    "Llama-3.2-1B",
    "Llama-2-7B",
    "LLaMA-68M",
    "Qwen2.5-0.5B",
    "Mistral-7B",
    "Mixtral-8x7B",
    "DeepSeek-V3-MTP",
    "B200 (HGX)",
}


def fixture_path(kind: str, name: str) -> Path:
    stem = re.sub(r"[^\w.-]+", "-", name).strip("-")
    return FIXTURES / kind / f"{stem}.txt"


def read_fixture(kind: str, entry) -> str:
    """The source text of ``entry``, after checking that its first line cites the entry's source."""
    lines = fixture_path(kind, entry.name).read_text(encoding="utf-8").splitlines()
    assert lines[0] == f"# {entry.source}"
    return "\n".join(line for line in lines if not line.startswith("#"))


#: Heads whose source text describes their module in code rather than giving a config: each is read by a
#: test of its own below, against its target's config.
OWN_TEST = {"GLM-4.7-Flash-MTP", "GLM-4.7-Flash-EAGLE-3"}


def with_fixtures(kind, entries):
    skip = WITHOUT_FIXTURE | OWN_TEST
    return [e.name for e in entries if e.name not in skip and fixture_path(kind, e.name).exists()]


def test_every_entry_has_its_source_text_but_the_known_few():
    for kind, entries in (("models", models.MODELS), ("gpus", gpus.GPUS)):
        missing = {e.name for e in entries if not fixture_path(kind, e.name).exists()}
        assert missing <= WITHOUT_FIXTURE
    assert all(fixture_path("interconnects", name).exists() for name in sm.INTERCONNECT_PRESETS)
    registries = {"models": sm.MODEL_PRESETS, "gpus": sm.GPU_PRESETS, "interconnects": sm.INTERCONNECT_PRESETS}
    for kind, registry in registries.items():  # no fixture for an entry that is gone
        assert {p.stem for p in (FIXTURES / kind).glob("*.txt")} <= {fixture_path(kind, n).stem for n in registry}


# --- models ---------------------------------------------------------------------------------------

# Other configs' names for config.json's: DeepSeek's inference config, Megatron's arguments
# (as slime passes them), gpt-oss's ModelConfig.
ALIASES = {
    "dim": "hidden_size",
    "inter_dim": "intermediate_size",
    "moe_inter_dim": "moe_intermediate_size",
    "n_layers": "num_hidden_layers",
    "n_dense_layers": "first_k_dense_replace",
    "n_heads": "num_attention_heads",
    "n_kv_heads": "num_key_value_heads",
    "n_routed_experts": "num_experts",
    "n_activated_experts": "num_experts_per_tok",
    "num_layers": "num_hidden_layers",
    "num_query_groups": "num_key_value_heads",
    "kv_channels": "head_dim",
    "ffn_hidden_size": "intermediate_size",
    "moe_ffn_hidden_size": "moe_intermediate_size",
    "moe_router_topk": "num_experts_per_tok",
    "experts_per_token": "num_experts_per_tok",
}


def number(text: str):
    python = {"True": "true", "False": "false", "None": "null"}  # a Python default's literals
    text = python.get(text, text)
    return json.loads(text) if re.fullmatch(r"-?[\d.e+-]+|true|false|null", text) else text


def llama_models_config(text: str) -> dict:
    """Meta's llama-models ``arch_args`` with its named constants, and FeedForward's hidden size computed
    as its code computes it (from ``4 * dim``, ``ffn_dim_multiplier`` and ``multiple_of``)."""
    constants = {key: int(value) for key, value in re.findall(r"^([A-Z][A-Z0-9_]*) = (\d+)$", text, re.MULTILINE)}
    raw = {}
    for key, value in re.findall(r'^\s*"(\w+)": ([\w.+-]+),$', text, re.MULTILINE):
        raw[key] = constants[value] if value in constants else number(value)
    hidden = int(2 * (4 * raw["dim"]) / 3)
    hidden = int(raw["ffn_dim_multiplier"] * hidden)
    raw["intermediate_size"] = raw["multiple_of"] * ((hidden + raw["multiple_of"] - 1) // raw["multiple_of"])
    assert "self.output = ColumnParallelLinear(params.dim, params.vocab_size" in text  # a head apart from the embedding
    raw["tie_word_embeddings"] = False
    return raw


def llama4_config(text: str) -> dict:
    """Llama4TextConfig's field defaults, in the names the counts below use, as modeling_llama4.py builds them:
    in each layer of ``moe_layers`` the routed experts and one shared expert, all of ``intermediate_size``, and a
    router without bias; a dense MLP of ``intermediate_size_mlp`` in any other layer; a q/k norm without weights."""
    fields = text[: text.index("def __post_init__")]
    raw = {key: number(value) for key, value in re.findall(r"^    (\w+): [\w\[\]|. ]+ = (\S+)$", fields, re.MULTILINE)}
    assert "self.shared_expert = Llama4TextMLP(config)" in text
    assert "if intermediate_size is None:\n            intermediate_size = config.intermediate_size" in text
    assert "super().__init__(config.hidden_size, config.num_local_experts, bias=False)" in text
    assert "self.feed_forward = Llama4TextMLP(config, intermediate_size=config.intermediate_size_mlp)" in text
    l2_norm = text[text.index("class Llama4TextL2Norm") : text.index("class Llama4TextRMSNorm")]
    assert "nn.Parameter" not in l2_norm
    # __post_init__: moe_layers, when not given, is range(step - 1, num_hidden_layers, step).
    assert raw["moe_layers"] is None and "self.interleave_moe_layer_step - 1,\n" in text
    step = raw["interleave_moe_layer_step"]
    return {
        **raw,
        "num_experts": raw["num_local_experts"],
        "moe_intermediate_size": raw["intermediate_size"],
        "intermediate_size": raw["intermediate_size_mlp"],
        "n_shared_experts": 1,
        "moe_layer_count": len(range(step - 1, raw["num_hidden_layers"], step)),
    }


def read_config(text: str) -> dict:
    """A model's config from its source text: JSON, Meta's arch_args, Megatron arguments or a dataclass's defaults."""
    if "class Llama4TextConfig" in text:
        return llama4_config(text)
    if "arch_args={" in text:
        raw = llama_models_config(text)
    elif "{" in text:  # a config.json, maybe under a heading
        raw = json.loads(text[text.index("{") : text.rindex("}") + 1])
    elif "MODEL_ARGS" in text:
        raw = {}
        for key, value in re.findall(r"^\s*--([\w-]+)(?:[ \t]+(\S+))?", text, re.MULTILINE):
            raw[key.replace("-", "_")] = number(value) if value else True
        raw["tie_word_embeddings"] = not raw.pop("untie_embeddings_and_output_weights", False)
    else:
        # A dataclass's fields or an __init__'s keyword defaults (``name: int | None = 768,``).
        defaults = re.findall(r"^\s*(\w+): [\w\[\]|. ]+ = (\S+?),?$", text, re.MULTILINE)
        raw = {key: number(value) for key, value in defaults}
    return {ALIASES.get(key, key): value for key, value in raw.items()}


def attention_parameters(c: dict) -> int:
    """q, k, v, o of one layer (and what each model adds: biases, q/k norms, sinks, MLA's low ranks)."""
    d, heads = c["hidden_size"], c["num_attention_heads"]
    if "kv_lora_rank" in c:  # DeepSeek's MLA, inference/model.py
        qr, kvr, rope = c["q_lora_rank"], c["kv_lora_rank"], c["qk_rope_head_dim"]
        qk, v = c["qk_nope_head_dim"] + rope, c["v_head_dim"]
        return (
            d * qr
            + qr
            + qr * heads * qk
            + d * (kvr + rope)
            + kvr
            + kvr * heads * (c["qk_nope_head_dim"] + v)
            + heads * v * d
        )
    hd = c.get("head_dim") or d // heads
    q, kv = heads * hd, c["num_key_value_heads"] * hd
    count = d * q + 2 * d * kv + q * d
    if c.get("model_type") == "qwen2" or "swiglu_limit" in c:  # biases on q, k, v (gpt-oss: and o)
        count += q + 2 * kv + (d if "swiglu_limit" in c else 0)
    if c.get("model_type", "").startswith("qwen3") or c.get("qk_layernorm"):  # q_norm, k_norm
        count += 2 * hd
    if "swiglu_limit" in c:  # gpt-oss: a sink per head
        count += heads
    return count


def expert_parameters(c: dict) -> int:
    d = c["hidden_size"]
    if "swiglu_limit" in c:  # gpt-oss: mlp1 (2 x inter, with bias) and mlp2 (with bias)
        return 3 * d * c["intermediate_size"] + 2 * c["intermediate_size"] + d
    return 3 * d * c["moe_intermediate_size"]


def moe_layer_parameters(c: dict) -> int:
    """One mixture-of-experts layer: attention, two norms, the gate (with its bias), routed and shared experts."""
    d, experts = c["hidden_size"], c["num_experts"]
    gate = d * experts + (experts if "kv_lora_rank" in c or "swiglu_limit" in c else 0)  # gate biases
    routed = (experts + c.get("n_shared_experts", 0)) * expert_parameters(c)
    return attention_parameters(c) + 2 * d + gate + routed


def moe_layer_count(c: dict) -> int:
    """Layers with experts: all but the first ``first_k_dense_replace``, or as Llama 4 interleaves them."""
    return c.get("moe_layer_count", c["num_hidden_layers"] - c.get("first_k_dense_replace", 0))


def parameter_count(c: dict) -> int:
    """The parameters the config builds, as each model's code builds them."""
    d, layers, vocab = c["hidden_size"], c["num_hidden_layers"], c.get("vocab_size", 0)
    attention = attention_parameters(c)
    if "draft_vocab_size" in c:  # EAGLE-3: fc 3d x d, q/k/v from 2d, an MLP, four norms, lm_head
        hd = c.get("head_dim") or d // c["num_attention_heads"]
        q, kv = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
        head_attention = 2 * d * q + 2 * 2 * d * kv + q * d
        return head_attention + 3 * d * c["intermediate_size"] + 3 * d * d + 4 * d + d * c["draft_vocab_size"]
    if c.get("num_experts", 0):
        moe_layers = moe_layer_count(c)
        dense_layer = attention + 2 * d + 3 * d * c.get("intermediate_size", 0)
        body = (layers - moe_layers) * dense_layer + moe_layers * moe_layer_parameters(c)
    else:
        body = layers * (attention + 2 * d + 3 * d * c["intermediate_size"])
    tied = c.get("tie_word_embeddings", False)  # DeepSeek's and gpt-oss's code keep two tables
    return vocab * d * (1 if tied else 2) + body + d


#: Tokenizer families by config.json's (bos_token_id, eos_token_id) (specmath/presets/models.py).
FAMILIES = {(128000, 128001): "Llama 3", (151643, 151643): "Qwen2.5", (151643, 151645): "Qwen3"}


def eagle_parameters(c: dict, text: str) -> tuple[int, int]:
    """An EAGLE(-1) head as SafeAILab/EAGLE's cnets1.py builds it, and its count with its target's output head.

    fc from 2d, with a bias unless the config says ``"bias": false``; each decoder layer's attention and
    MLP, a post-attention norm, and an input norm in all but layer 0.
    """
    assert "self.fc = nn.Linear(2 * config.hidden_size, config.hidden_size, bias=bias)" in text
    assert "if self.index != 0:" in text  # layer 0 has no input_layernorm
    d, layers = c["hidden_size"], c["num_hidden_layers"]
    layer = attention_parameters(c) + 3 * d * c["intermediate_size"] + d
    own = layers * layer + (layers - 1) * d + 2 * d * d + (d if c.get("bias", True) else 0)
    return own, own + c["vocab_size"] * d


@pytest.mark.parametrize("name", with_fixtures("models", models.MODELS))
def test_model_presets_match_their_configs(name):
    spec = sm.MODEL_PRESETS[name]
    text = read_fixture("models", spec)
    c = read_config(text)
    d, heads = c["hidden_size"], c["num_attention_heads"]
    if spec.head == "EAGLE":
        own, counted = eagle_parameters(c, text)
        assert spec.parameters == counted
        # The README's count of the head's own weights, to its two decimals, for the head this preset stands for.
        printed = re.search(r"EAGLE-LLaMA3\.1-Instruct-8B\) \| ([\d.]+)B \|", text).group(1)
        assert round(own / 1e9, 2) == float(printed)
    else:
        assert spec.parameters == parameter_count(c)
    assert (spec.layers, spec.hidden) == (c["num_hidden_layers"], d)
    if spec.is_head:  # its embedding and tokens are its target's
        assert spec.vocab_size == 0
        assert ("draft_vocab_size" in c) == (spec.head == "EAGLE-3")
        assert spec.tokenizer == sm.MODEL_PRESETS[spec.head_of].tokenizer
        assert c["vocab_size"] == sm.MODEL_PRESETS[spec.head_of].vocab_size
    else:
        assert (spec.vocab_size, spec.tie_word_embeddings) == (c["vocab_size"], c.get("tie_word_embeddings", False))
        assert spec.input_embedding_parameters == (0 if spec.tie_word_embeddings else c["vocab_size"] * d)
        if (c.get("bos_token_id"), c.get("eos_token_id")) in FAMILIES:
            assert spec.tokenizer == FAMILIES[c["bos_token_id"], c["eos_token_id"]]
    if "kv_lora_rank" in c:  # MLA caches one latent a token and layer, written as one head of half its width
        latent = c["kv_lora_rank"] + c["qk_rope_head_dim"]
        assert (spec.kv_heads, 2 * spec.head_dim) == (1, latent)
        assert spec.attention_dim == heads * (latent + c["kv_lora_rank"]) / 2  # absorbed attention
        assert spec.bytes_per_parameter == (1.0 if c.get("dtype") == "fp8" else 2.0)  # BF16 unless said
    else:
        hd = c.get("head_dim") or d // heads
        assert (spec.kv_heads, spec.head_dim) == (c["num_key_value_heads"], hd)
        assert spec.attention_dim == (0 if heads * hd == d else heads * hd)
        assert spec.bytes_per_parameter == spec.kv_bytes_per_element == 2.0
    experts = c.get("num_experts", 0)
    assert (spec.routed_experts, spec.experts_per_token) == (experts, c.get("num_experts_per_tok", 0) if experts else 0)
    if experts:
        assert spec.shared_experts == c.get("n_shared_experts", 0)
        assert spec.expert_parameters == expert_parameters(c)
        assert spec.expert_layers == moe_layer_count(c)


def test_glm_mtp_module_is_one_layer_of_its_target_and_its_projections():
    # SGLang's NextN module: the target's decoder layer built as a mixture of experts (is_nextn), two norms,
    # eh_proj 2d -> d, a final norm and an output head over the target's vocabulary; the embedding is gathered.
    spec = sm.MODEL_PRESETS["GLM-4.7-Flash-MTP"]
    target = sm.MODEL_PRESETS[spec.head_of]
    text = read_fixture("models", spec)
    built = (
        "self.enorm = RMSNorm(config.hidden_size",
        "self.hnorm = RMSNorm(config.hidden_size",
        "nn.Linear(2 * config.hidden_size, config.hidden_size, bias=False)",
        "is_nextn=True",
        "self.shared_head.norm = RMSNorm(config.hidden_size",
        'prefix=add_prefix("model.shared_head.head", prefix)',
    )
    assert all(part in text for part in built)
    c = read_config(read_fixture("models", target))
    d = c["hidden_size"]
    assert spec.parameters == moe_layer_parameters(c) + 2 * d + 2 * d * d + d + c["vocab_size"] * d
    assert (spec.layers, spec.hidden, spec.vocab_size, spec.head) == (1, d, 0, "MTP")
    shared = ("kv_heads", "head_dim", "attention_dim", "routed_experts", "experts_per_token", "expert_parameters")
    assert all(getattr(spec, field) == getattr(target, field) for field in shared)


def test_glm_eagle3_head_has_the_described_shape_and_its_publishers_sizes():
    spec = sm.MODEL_PRESETS["GLM-4.7-Flash-EAGLE-3"]
    text = read_fixture("models", spec)
    heads, kv_heads, head_dim = map(int, re.search(r"(\d+) q-heads / (\d+) kv-heads /\s+head_dim (\d+)", text).groups())
    c = {
        "hidden_size": int(re.search(r"hidden=(\d+)", text).group(1)),
        "num_hidden_layers": 1,
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "head_dim": head_dim,
        "intermediate_size": int(re.search(r"SwiGLU MLP \((\d+)\)", text).group(1)),
        "draft_vocab_size": int(re.search(r"lm_head\((\d+)\)", text).group(1)),
    }
    assert spec.parameters == parameter_count(c)
    assert (spec.hidden, spec.kv_heads, spec.head_dim, spec.head) == (c["hidden_size"], kv_heads, head_dim, "EAGLE-3")
    # What its publishers print: "~145M parameters" (SafeAILab/EAGLE PR #330) and 291 MB in BF16 (the GLM
    # benchmark's README), the file holding the d2t and t2d vocabulary maps besides.
    runs = FIXTURES.parent / "measured_runs"
    pr = (runs / "eagle_pr330_glm47_flash.txt").read_text(encoding="utf-8")
    readme = (runs / "inesh_glm47_flash_sglang.txt").read_text(encoding="utf-8")
    assert round(spec.parameters / 1e6) == int(re.search(r"~(\d+)M parameters", pr).group(1))
    megabytes = int(re.search(r"GLM-4\.7-Flash-Eagle3\) \((\d+) MB\)", readme).group(1))
    assert 0 < megabytes - spec.parameters * 2 / 1e6 < 1


def test_hub_id_is_a_field_engines_load_by():
    # Every model on its own has a Hugging Face id; a head trained by the page's user has none.
    for spec in sm.MODEL_PRESETS.values():
        assert bool(spec.hub_id) != spec.is_head, spec.name
        assert spec.hub_id.count("/") == (1 if spec.hub_id else 0)
    with pytest.raises(ValueError, match=r"^hub_id must be a string, got 3$"):
        sm.ModelSpec("m", parameters=1e9, layers=1, hidden=8, kv_heads=1, head_dim=8, hub_id=3)


# --- GPUs -------------------------------------------------------------------------------------------

NUMBER = re.compile(r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?)\s*(?:teraFLOPS|TFLOPS|TFLOPs|PFLOPS|TB/s|GB/sec|GB/s|GB)?(\*?)")


def first_cell(line: str, column: int = 0) -> str:
    """A Markdown table row's first value (its GH200 column); a row ``label | a | b |`` of a sheet
    that names its columns, the value of ``column`` (0: the first); any other line whole."""
    cells = re.split(r"(?<!\\)\|", line)
    if line.startswith("|") and len(cells) > 3:
        return cells[2]
    return cells[1 + column] if column and len(cells) > 1 + column else line


#: A sheet's column heading, a line of its own: ``NVIDIA H100 SXM |``.
HEADING = re.compile(r"^NVIDIA ([^|]+?) \|$")


def gpu_column(text: str, name: str) -> int:
    """Which of a sheet's columns is the GPU ``name``'s: its place among the headings, 0 if none."""
    headings = [m.group(1) for m in map(HEADING.match, text.splitlines()) if m]
    return headings.index(name) if name in headings else 0


def read_datasheet(text: str, column: int = 0) -> dict:
    """Bandwidth (B/s), memory (B) and the dense BF16 and FP8 peaks (FLOP/s) the lines print.

    A figure marked ``*`` is with sparsity (each sheet's footnote): the dense one is the figure
    beside it without the mark, or half of it where the sheet prints only that one.
    """
    found = {"peak_flops_fp8": 0.0}
    for line in text.splitlines():
        label, value = line, first_cell(line, column)
        figures = [(float(n.replace(",", "")), star == "*") for n, star in NUMBER.findall(value)]
        if not figures or line.lstrip("*\\ ").lower().startswith("with sparsity"):
            continue
        if re.search(r"TB/s|GB/s", value):
            found["memory_bandwidth"] = figures[0][0] * (1e12 if "TB/s" in value else 1e9)
        elif re.search(r"FLOP|BF(LOAT)?16|FP8", line, re.IGNORECASE):
            dense = [f for f, sparse in figures if not sparse]
            flops = (dense[0] if dense else figures[0][0] / 2) * (1e15 if "PFLOPS" in line else 1e12)
            found["peak_flops_fp8" if "FP8" in label else "peak_flops"] = flops
        elif "GB" in value:
            found["memory_bytes"] = figures[0][0] * 1e9
    return found


@pytest.mark.parametrize("name", with_fixtures("gpus", gpus.GPUS))
def test_gpu_presets_match_their_datasheets(name):
    gpu = sm.GPU_PRESETS[name]
    text = read_fixture("gpus", gpu)
    sheet = read_datasheet(text, gpu_column(text, name))
    # Decimal figures times a unit round once (3.35 x 1e12 may be an ulp off 3.35e12).
    assert sheet == pytest.approx(
        {
            "memory_bandwidth": gpu.memory_bandwidth,
            "memory_bytes": gpu.memory_bytes,
            "peak_flops": gpu.peak_flops,
            "peak_flops_fp8": gpu.peak_flops_fp8,
        },
        rel=1e-15,
    )


# --- interconnects ----------------------------------------------------------------------------------


def read_link_fixture(entry) -> str:
    """An interconnect's source text: its first line cites the entry's source, a line ``#>`` says
    where the block after it is from; nccl-tests' own ``#`` lines are part of the text."""
    lines = fixture_path("interconnects", entry.name).read_text(encoding="utf-8").splitlines()
    assert lines[0] == f"# {entry.source}"
    return "\n".join(line for line in lines[1:] if not line.startswith("#>"))


@pytest.mark.parametrize("name", [link.name for link in interconnects.INTERCONNECTS])
def test_interconnect_presets_match_their_sources(name):
    link = sm.INTERCONNECT_PRESETS[name]
    text = read_link_fixture(link)
    if "B200" in name:  # a page's figure per GPU, both directions; #1940: the author's best 8-byte time on 8 B200s
        both_ways = float(re.search(r"NVLink technology provides ([\d.]+)TB/s of bidirectional", text).group(1)) * 1e12
        assert "8× B200 GPUs" in text
        latency_us = float(re.search(r"the best latency I can achieve is around \*\*(\d+) µs", text).group(1))
    else:  # the H100 datasheet's interconnect row (相互接続), H100 SXM column: both directions together
        sxm = re.search(r"^相互接続 \| (.+?) \|", text, re.MULTILINE).group(1)
        label = "NVLink" if name.startswith("NVLink") else "PCIe Gen5"
        both_ways = float(re.search(rf"{label}: (\d+)GB/秒", sxm).group(1)) * 1e9
    if name == "NVLink (H100 SXM)":  # #1259: the author's reading of the 2-GPU NVLSTree run
        assert "NCCL_ALGO=NVLSTree" in text and text.count("NVIDIA H100 80GB HBM3") == 2
        latency_us = float(re.search(r"latency is approximately (\d+)us", text).group(1))
    elif name.startswith("PCIe"):  # #1530: the out-of-place time of the smallest message in the TREE run on 8 RTX 4090s
        assert "NCCL_ALGO=TREE" in text and text.count("NVIDIA GeForce RTX 4090") == 8
        latency_us = float(re.search(r"^ +8 +2 +float +sum +-1 +([\d.]+)", text, re.MULTILINE).group(1))
    assert link.bandwidth == pytest.approx(both_ways / 2, rel=1e-15)
    assert link.latency_s == pytest.approx(latency_us * 1e-6, rel=1e-15)


def test_all_reduce_time_is_nccl_tests_ring_time():
    # nccl-tests' doc/PERFORMANCE.md: the best time of an all-reduce of S bytes over n ranks of
    # bandwidth B, written twice; the link adds its latency; one GPU needs no all-reduce.
    text = (FIXTURES / "nccl-tests-PERFORMANCE.md.txt").read_text(encoding="utf-8")
    formulas = re.findall(r"`t = (.+)`", text)
    assert len(formulas) == 2
    message = np.array([0.0, 8.0, 128.0, 65536.0, 2.0**30])
    for link in interconnects.INTERCONNECTS:
        assert (link.all_reduce_time(message, 1) == 0).all()
        for n in (2, 4, 8):
            for formula in formulas:
                best = eval(formula, {"__builtins__": {}}, {"S": message, "B": link.bandwidth, "n": n})
                np.testing.assert_allclose(link.all_reduce_time(message, n), link.latency_s + best, rtol=1e-14)


def test_gpt_oss_experts_take_what_an_mxfp4_block_takes():
    # 32 four-bit values in 16 bytes and one byte of scale (a uint8 read less its bias 127), the rest BF16.
    spec = sm.MODEL_PRESETS["gpt-oss-120b"]
    text = fixture_path("models", spec.name).read_text(encoding="utf-8")
    assert "32 FP4 numbers packed in 16 bytes" in text and ".to(torch.int32) - 127" in text
    assert "All other tensors will be in BF16" in text and spec.bytes_per_parameter == 2.0
    assert spec.expert_bytes_per_parameter == 17 / 32
    dense = spec.parameters - spec.routed_parameters
    assert spec.weight_bytes == dense * 2.0 + spec.routed_parameters * 17 / 32
    assert spec.weight_bytes / 1e9 < 80  # the README: it runs on a single 80GB GPU
