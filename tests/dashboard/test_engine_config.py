"""The k schedule's step chart and the engines' texts, read back: pure builders, no Streamlit."""

import json

import numpy as np
import pytest

import engines
import specmath
from dashboard import charts, engine_config
from dashboard.charts import echart
from dashboard.features import hardware
from dashboard.params import AUTO_DRAFT_TP
from engines.configs.vocabulary import vocabulary_problem
from tests.engines import engine_rules

BATCH = np.arange(1, 17)
BEST_K = np.array([4] * 5 + [3] * 5 + [2] * 3 + [1] * 3)
SPEEDUP = np.array([2.0] * 5 + [1.6] * 5 + [1.2] * 3 + [0.95] * 3)
SCHEDULE = specmath.batch_k_schedule(BATCH, BEST_K, SPEEDUP)


def _shaded(spec: dict) -> list:
    return spec["series"][0].get("markArea", {}).get("data", [])


def test_the_step_chart_holds_the_scheduled_k_and_shades_where_it_is_zero():
    assert SCHEDULE == [(1, 5, 4), (6, 10, 3), (11, 13, 2), (14, 16, 0)]
    spec = charts.k_schedule(BATCH, BEST_K, SPEEDUP, SCHEDULE, "α = 0.8", "label")
    fig = echart.as_figure(spec)
    scheduled, would_be = fig["data"]
    np.testing.assert_array_equal(scheduled["y"], [4] * 5 + [3] * 5 + [2] * 3 + [0] * 3)
    assert [s["step"] for s in spec["series"]] == ["end", "end"]  # plotly's "hv": across, then up or down
    # The best k where it does not pay, dotted, and nothing where it does.
    would_be_y = np.asarray(would_be["y"], dtype=float)
    np.testing.assert_array_equal(np.isnan(would_be_y), SPEEDUP > 1)
    np.testing.assert_array_equal(would_be_y[SPEEDUP <= 1], [1, 1, 1])
    assert spec["series"][1]["lineStyle"]["type"] == "dotted"
    ((start, end),) = _shaded(spec)
    assert (start["xAxis"], end["xAxis"]) == (13.5, 16.5) and "does not pay" in start["name"]
    assert fig["layout"]["xaxis"]["type"] == "log"
    assert "α = 0.8" in fig["layout"]["title"]["text"] and fig["layout"]["title"]["subtitle"]["text"] == "label"
    assert spec["legend"]["top"] > spec["grid"]["top"]  # below the plot, never over the title
    last = spec["series"][0]["data"][-1]["tooltip"]["formatter"]
    assert last == "batch 16\nk = 0\npredicted speedup 0.950×"


def test_the_step_chart_without_a_zero_range_shades_nothing():
    spec = charts.k_schedule(BATCH[:10], BEST_K[:10], SPEEDUP[:10], SCHEDULE[:2], "α = 0.8", "label")
    assert not _shaded(spec)
    assert all(y is None for y in echart.as_figure(spec)["data"][1]["y"])


def test_preset_names_on_the_hub():
    assert engine_config.hub_name(specmath.MODEL_PRESETS["Llama-2-7B"]) == "meta-llama/Llama-2-7b-hf"
    assert engine_config.hub_name(specmath.MODEL_PRESETS["Qwen2.5-0.5B"]) == "Qwen/Qwen2.5-0.5B"


def test_table_rows_and_the_document_round_trip():
    rows = engine_config.schedule_rows(SCHEDULE, BATCH, SPEEDUP)
    assert [r["batch sizes"] for r in rows] == ["1 to 5", "6 to 10", "11 to 13", "14 to 16"]
    assert rows[0]["predicted speedup"] == "2.00×"
    assert rows[-1] == {
        "batch sizes": "14 to 16",
        "k": "0 (do not speculate)",
        "predicted speedup": "1× (speculating: 0.95×)",
    }
    configs = engines.engine_configs(SCHEDULE, "mtp", None, 4, 1)
    text = engine_config.schedule_document(SCHEDULE, configs, {"alpha": 0.8, "gpu": "H100 SXM"})
    document = json.loads(text)
    assert [tuple(e) for e in document["num_speculative_tokens_per_batch_size"]] == SCHEDULE
    assert document["vllm_speculative_config"] == configs[0].settings and document["inputs"]["gpu"] == "H100 SXM"
    assert list(document["engines"]) == ["vLLM", "SGLang", "TensorRT-LLM", "llama.cpp"]
    trt = document["engines"]["TensorRT-LLM"]
    assert trt["files"]["trtllm_speculative.yaml"] == configs[2].blocks[0].text
    assert trt["settings"]["draft_len_schedule"] == {"5": 4, "10": 3, "13": 2}  # JSON keys are text
    assert document["sglang_flags_at_chosen_batch"][0] == "--speculative-algorithm NEXTN"


# A drafter name typed by the user (issue 22) ----------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "./heads/my-head", "/models/draft_v2", "Qwen2.5-0.5B", "x" * 200],
)
def test_hub_names_and_paths_are_drafter_names(name):
    assert engine_config.valid_drafter_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "",  # none typed
        "a b",
        "x'y",
        'x"y',
        "`rm`",
        "$(rm)",
        "a\\b",
        "a;b",
        "-rf",  # read as a flag
        "x" * 201,
        "[x](//e.vil)",
        "Llаma",  # a Cyrillic a: another repository that looks the same
        "a\nb",
    ],
)
def test_what_would_change_the_shell_command_is_no_drafter_name(name):
    assert not engine_config.valid_drafter_name(name)


LLAMA_1B, LLAMA_8B = specmath.MODEL_PRESETS["Llama-3.2-1B"], specmath.MODEL_PRESETS["Llama-3.1-8B"]
HEAD = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"


@pytest.mark.parametrize(
    ("method", "typed", "model"),
    [
        ("draft_model", "", "meta-llama/Llama-3.2-1B"),
        ("draft_model", "./my-draft", "./my-draft"),
        ("draft_model", "a b", "meta-llama/Llama-3.2-1B"),
        ("eagle", "", "YOUR-EAGLE-HEAD-FOR-Llama-3.1-8B"),
        ("eagle3", "", "YOUR-EAGLE3-HEAD-FOR-Llama-3.1-8B"),
        ("eagle3", HEAD, HEAD),
        ("eagle3", "x'y", "YOUR-EAGLE3-HEAD-FOR-Llama-3.1-8B"),
        ("mtp", HEAD, None),  # the target's own layers
        ("ngram", HEAD, None),  # the prompt
        ("dflash", "", "YOUR-DFLASH-DRAFT-FOR-Llama-3.1-8B"),
        ("dflash", "z-lab/LLaMA3.1-8B-Instruct-DFlash-UltraChat", "z-lab/LLaMA3.1-8B-Instruct-DFlash-UltraChat"),
    ],
)
def test_a_valid_typed_name_is_the_drafter_where_the_method_loads_one(method, typed, model):
    assert engine_config.draft_name(method, LLAMA_1B, LLAMA_8B, typed) == model


def test_a_typed_head_reaches_every_engine_that_loads_one():
    model = engine_config.draft_name("eagle3", LLAMA_1B, LLAMA_8B, HEAD)
    vllm, sglang, trtllm, llamacpp = engines.engine_configs(SCHEDULE, "eagle3", model, 3, 8)
    assert vllm.settings["model"] == sglang.settings["--speculative-draft-model-path"] == HEAD
    assert trtllm.settings["speculative_model"] == HEAD
    assert f"`{HEAD}`" in " ".join(llamacpp.notes)  # llama.cpp needs it as GGUF: named, not loaded


# What the Hardware and Calibrate pages say of the drafter: one function for both (issue 33) ---


def _messages(found) -> dict[str, list[str]]:
    said = {"warning": [], "caption": []}
    for kind, text in found.messages:
        said[kind].append(text)
    return said


def test_a_refused_typed_name_is_warned_as_literal_text_with_what_the_configs_use():
    found = engine_config.drafter("eagle3", "Llama-3.2-1B", "Llama-3.1-8B", "[x](//e.vil)")
    assert found.model == "YOUR-EAGLE3-HEAD-FOR-Llama-3.1-8B" and not found.typed
    (warning,) = _messages(found)["warning"]
    assert "` [x](//e.vil) `" in warning and "they use `YOUR-EAGLE3-HEAD-FOR-Llama-3.1-8B` instead" in warning
    found = engine_config.drafter("mtp", "Llama-3.2-1B", "Llama-3.1-8B", "a b")
    assert found.model is None and "they use no model (mtp needs none) instead" in _messages(found)["warning"][0]


def test_a_valid_name_the_method_does_not_load_gets_a_caption_not_a_warning():
    found = engine_config.drafter("ngram", "Llama-3.2-1B", "Llama-3.1-8B", HEAD)
    said = _messages(found)
    assert found.model is None and found.typed and not said["warning"]
    (caption,) = said["caption"]
    assert caption.startswith("With `ngram` the engine drafts with") and "is not used" in caption


def test_the_vocabulary_rule_warns_for_a_refused_preset_pair_and_tells_a_typed_drafter_what_it_needs():
    qwen = "Qwen2.5-7B", "Qwen2.5-0.5B"
    found = engine_config.drafter("draft_model", qwen[1], qwen[0])
    assert found.vocabulary_problem == vocabulary_problem(
        specmath.MODEL_PRESETS[qwen[0]], specmath.MODEL_PRESETS[qwen[1]]
    )
    (warning,) = _messages(found)["warning"]
    assert warning.startswith("**These configs would not work as they stand.**") and "none among the presets" in warning
    typed = engine_config.drafter("draft_model", qwen[1], qwen[0], "./my-qwen-draft")
    assert typed.model == "./my-qwen-draft" and typed.vocabulary_problem is None
    assert _messages(typed) == {
        "warning": [],
        "caption": [
            "The page does not know the typed model's vocabulary: vLLM and SGLang take it as the draft only "
            "with Qwen2.5-7B's vocab_size, 152,064, and SGLang only with its tokenizer (Qwen2.5)."
        ],
    }
    # A head chosen as the draft model is told the method that runs it.
    (head,) = _messages(engine_config.drafter("draft_model", "Qwen3-30B-A3B-EAGLE-3", "Qwen3-30B-A3B"))["warning"]
    assert "is an EAGLE-3 head for Qwen3-30B-A3B" in head and "method `eagle3` with this drafter" in head
    # A head loads no vocabulary of its own, and a matching pair needs no word.
    assert not engine_config.drafter("eagle3", qwen[1], qwen[0]).messages
    assert not engine_config.drafter("draft_model", "Llama-3.2-1B", "Llama-3.1-8B").messages


#: A name each method loads (None: the method loads no draft checkpoint of its own).
_LOADS = {"draft_model": "org/draft", "eagle": "org/head", "eagle3": "org/head", "dflash": "org/dflash"}


@pytest.mark.parametrize("method", engines.SPECULATIVE_METHODS)
@pytest.mark.parametrize("draft", ["Llama-3.2-1B", "DeepSeek-V3-MTP", "Qwen3-30B-A3B-EAGLE-3"])
def test_auto_draft_gpus_are_where_the_engines_run_the_draft(method, draft):
    """The draft_tp choice "auto" puts the draft where vLLM runs it unasked (engine_rules.vllm_draft_tp,
    no draft_tensor_parallel_size written): on the target's GPUs, a head or a separate draft model, as
    SGLang and TensorRT-LLM always do. A number is taken as set."""
    tp = 4
    placed = hardware.draft_gpus(AUTO_DRAFT_TP, tp)
    vllm_cfg = engines.engine_configs(
        [(1, 8, 2)], method, _LOADS.get(method), 2, 1, tensor_parallel_size=tp, draft_tensor_parallel_size=placed
    )[0]
    assert "draft_tensor_parallel_size" not in vllm_cfg.settings  # the engine's default: nothing to write
    runs = engine_rules.vllm_draft_tp(vllm_cfg.settings, tp)
    assert placed == tp and runs in (None, tp)
    assert hardware.draft_gpus(2, tp) == 2
