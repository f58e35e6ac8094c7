"""The Hardware page under AppTest: the roofline numbers it shows are specmath's."""

import dataclasses
import json
import types

import numpy as np
import pytest
import yaml
from streamlit.testing.v1 import AppTest

import engines
import specmath
from dashboard.address import literal
from dashboard.params import BATCHES, CONTEXTS, HARDWARE_TABS, PARAMS
from engines.configs import drafter_mismatch, llamacpp, vllm
from tests.app_helpers import (
    codes,
    metrics,
    open_page,
    page_charts,
    page_options,
    sglang_flags,
    shown,
    trace,
    values,
    vllm_config,
    warnings,
)
from tests.engines.engine_rules import COMMANDS
from tests.links import HOSTILE
from tests.pages.test_every_page import assert_literal
from tests.pages.test_predictions import priced_runs

HARDWARE = "hardware"

#: Each tab's charts by the start of their titles, in page order.
TAB_CHARTS = {
    "speedup": ("Speedup vs draft length", "Verification cost: T_target(w)", "Best k and speedup as the batch grows"),
    "experts": ("Verification cost against the batch", "Best k and speedup over batch and context"),
    "schedule": ("Draft length schedule",),
    "engines": (),
}
CHARTS = tuple(title for titles in TAB_CHARTS.values() for title in titles)


NVLINK = specmath.INTERCONNECT_PRESETS["NVLink (H100 SXM)"]
H100 = specmath.GPU_PRESETS["H100 SXM"]


def open_tab(tab: str, **query) -> AppTest:
    """The page with its tab ``tab`` open (``dashboard.params.HARDWARE_TABS``): only that tab is drawn."""
    return open_page(HARDWARE, hw_view=HARDWARE_TABS[tab], **query)


def chart(at, title: str) -> dict:
    """The page's one chart whose title starts with ``title``."""
    (found,) = [f for f in page_charts(at) if f["layout"]["title"]["text"].startswith(title)]
    return found


def option(at, title: str) -> dict:
    """The page's one ECharts option whose title starts with ``title``: its marks as drawn."""
    (found,) = [o for o in page_options(at) if o["title"]["text"].startswith(title)]
    return found


def marks(spec: dict, kind: str) -> list:
    """Every ``kind`` ("markLine" or "markArea") data item of the option's series."""
    return [item for series in spec["series"] for item in series.get(kind, {}).get("data", [])]


def titles(at) -> list[str]:
    return [next(t for t in CHARTS if f["layout"]["title"]["text"].startswith(t)) for f in page_charts(at)]


def _setup(batch=1, context=1024, precision=2.0, overhead_ms=0.0, bandwidth=0.0, peak=0.0, target="Llama-3.1-8B"):
    """The deployment's costs built from specmath and the presets, as a notebook would: the GPU's
    datasheet (its FP8 peak for FP8 weights, where it has one; a typed bandwidth in GB/s or peak in
    TFLOP/s instead, where above 0), both models' weights at ``precision`` bytes, one roofline each."""
    gpu = specmath.GPU_PRESETS["H100 SXM"]
    fp8 = precision == 1.0 and gpu.peak_flops_fp8 > 0
    gpu = dataclasses.replace(
        gpu,
        memory_bandwidth=bandwidth * 1e9 if bandwidth > 0 else gpu.memory_bandwidth,
        peak_flops=peak * 1e12 if peak > 0 else gpu.peak_flops_fp8 if fp8 else gpu.peak_flops,
    )
    target_spec, draft_spec = (
        dataclasses.replace(specmath.MODEL_PRESETS[name], bytes_per_parameter=precision)
        for name in (target, "Llama-3.2-1B")
    )
    target_cost = specmath.Roofline(target_spec, gpu, batch, context, overhead_ms / 1e3)
    draft_cost = specmath.Roofline(draft_spec, gpu, batch, context, overhead_ms / 1e3)
    return types.SimpleNamespace(target=target_cost, draft=draft_cost, c=float(target_cost(1)) / float(draft_cost(1)))


def test_defaults_show_the_roofline_of_the_presets():
    at = open_page(HARDWARE)
    assert not at.exception and not warnings(at) and not at.warning
    setup = _setup()
    target = specmath.Roofline(specmath.MODEL_PRESETS["Llama-3.1-8B"], specmath.GPU_PRESETS["H100 SXM"], 1, 1024)
    assert setup.target(1) == target(1)
    m = metrics(at)
    assert m["Target step T_target(1)"] == f"{target(1) * 1e3:.3f} ms"
    assert m["Implied c = T_target(1) / T_draft(1)"] == f"{setup.c:.2f}"
    k, s = specmath.general_optimal_k(0.8, setup.draft, setup.target, max_k=32)
    assert m["Best k, roofline"] == f"{k} → {s:.2f}×"
    assert titles(at) == list(TAB_CHARTS["speedup"])  # the first tab, open by default
    speedup_figure, cost_figure, sweep_figure = (chart(at, title) for title in TAB_CHARTS["speedup"])
    ks = np.arange(1, 33)
    step = float(setup.target(1))  # free verification: a pass over k + 1 positions costs one step
    np.testing.assert_array_equal(values(trace(speedup_figure, "roofline")["x"]), ks)
    np.testing.assert_array_equal(
        values(trace(speedup_figure, "roofline")["y"]), specmath.general_speedup(0.8, ks, setup.draft, setup.target)
    )
    np.testing.assert_array_equal(
        values(trace(speedup_figure, "free verification")["y"]), specmath.general_speedup(0.8, ks, setup.draft, step)
    )
    stars = trace(speedup_figure, "best k")
    best = {
        "free verification": specmath.general_optimal_k(0.8, setup.draft, step, max_k=32),
        "roofline": specmath.general_optimal_k(0.8, setup.draft, setup.target, max_k=32),
    }
    names = [name for (name,) in stars["customdata"]]  # each star's point holds its curve's name
    assert sorted(names) == sorted(best)
    np.testing.assert_array_equal(values(stars["x"]), [best[name][0] for name in names])
    np.testing.assert_array_equal(values(stars["y"]), [best[name][1] for name in names])
    np.testing.assert_allclose(
        values(trace(cost_figure, "target pass over w positions")["y"]), setup.target(np.arange(2, 34)) * 1e3
    )
    sweep = specmath.roofline_batch_sweep(
        0.8, setup.draft.model, setup.target.model, setup.target.gpu, BATCHES, 1024, 0.0, max_k=32
    )
    np.testing.assert_array_equal(values(trace(sweep_figure, "best speedup")["y"]), sweep.speedup)
    np.testing.assert_array_equal(values(trace(sweep_figure, "best k")["y"]), sweep.k)
    # At a context of 1,024 the 8B target's KV cache outgrows 80 GB from batch 512 on: greyed out.
    assert list(sweep.batch[~sweep.target_fits]) == [512, 1024]
    ((grey, _),) = [area for area in marks(option(at, CHARTS[2]), "markArea") if "xAxis" in area[0]]
    assert grey["xAxis"] == pytest.approx(np.sqrt(256 * 512))


def test_batch_one_is_memory_bound_so_verification_is_free():
    at = open_page(HARDWARE, batch="1", context="0")
    m = metrics(at)
    assert m["Best k, free verification"] == m["Best k, roofline"]
    assert m["Target step T_target(1)"] == m["Target over k + 1 = 9 positions"]


def test_large_batches_make_verification_expensive():
    at = open_page(HARDWARE, batch="512", context="0")
    m = metrics(at)
    setup = _setup(batch=512, context=0)
    assert setup.target(9) > 2 * setup.target(1)
    free_k = int(m["Best k, free verification"].split()[0])
    roof_k = int(m["Best k, roofline"].split()[0])
    assert roof_k < free_k
    rules = marks(option(at, "Best k and speedup as the batch grows"), "markLine")
    assert [r for r in rules if "stops paying" in r["label"].get("formatter", "")], "the crossover batch is marked"


def test_page_edits_change_the_model():
    at = open_page(HARDWARE)
    base = metrics(at)["Target step T_target(1)"]
    at.radio(key="precision").set_value("int4").run()
    assert metrics(at)["Target step T_target(1)"] == f"{_setup(precision=0.5).target(1) * 1e3:.3f} ms"
    assert metrics(at)["Target step T_target(1)"] != base
    at.number_input(key="bandwidth").set_value(1000.0).run()
    assert metrics(at)["Target step T_target(1)"] == f"{_setup(precision=0.5, bandwidth=1000.0).target(1) * 1e3:.3f} ms"
    at.number_input(key="overhead_ms").set_value(0.5).run()
    setup = _setup(precision=0.5, bandwidth=1000.0, overhead_ms=0.5)
    assert metrics(at)["Implied c = T_target(1) / T_draft(1)"] == f"{setup.c:.2f}"


@pytest.mark.parametrize("tab", list(TAB_CHARTS))
def test_each_tab_draws_its_own_charts_and_no_other(tab):
    """The tabs are lazy: a link to one draws its charts alone."""
    at = open_tab(tab)
    assert not at.exception and not at.warning
    assert titles(at) == list(TAB_CHARTS[tab])


def test_a_model_that_does_not_fit_is_flagged():
    at = open_page(HARDWARE, target_model="Llama-3.1-70B")
    assert any("more than one H100 SXM holds" in w.value for w in at.warning)
    assert titles(at) == list(TAB_CHARTS["speedup"])


@pytest.mark.parametrize(("key", "raw"), [("gpu", "TPU"), ("batch", "3"), ("context", "-1"), ("peak", "abc")])
def test_bad_links_warn(key, raw):
    at = open_page(HARDWARE, **{key: raw})
    assert not at.exception
    assert any(f"`{key}" in w for w in warnings(at))
    assert titles(at) == list(TAB_CHARTS["speedup"])


# The batch-size k schedule (issue 22) -------------------------------------------------------


def _schedule_sweep(max_batch=256, context=1024, alpha=0.8):
    setup = _setup(context=context)
    return specmath.roofline_batch_sweep(
        alpha, setup.draft.model, setup.target.model, setup.target.gpu, np.arange(1, max_batch + 1), context, max_k=32
    )


def _expected(method="draft_model", model="meta-llama/Llama-3.2-1B", batch=1, alpha=0.8, **engine):
    """specmath's engine configs and synthetic runs for the page's inputs at its default models, GPU
    and context, computed here from the roofline as the page should."""
    sweep = _schedule_sweep(alpha=alpha)
    schedule = specmath.batch_k_schedule(sweep.batch, sweep.k, sweep.speedup)
    setup = _setup(batch=batch)
    k, s = specmath.general_optimal_k(alpha, setup.draft, setup.target, max_k=32)
    chosen = (int(k), float(s)) if s > 1 else (0, 1.0)
    target = "meta-llama/Llama-3.1-8B"
    configs = engines.engine_configs(schedule, method, model, chosen[0], batch, target=target, **engine)
    runs = engines.synthetic_runs(
        alpha, schedule, method, model, chosen[0], batch, target="meta-llama/Llama-3.1-8B", context=1024,
        predicted_speedup=chosen[1], **engine,
    )  # fmt: skip
    return configs, runs


def _rule_warnings(kind="sequential", **inputs) -> list[str]:
    """The page's rule messages for its inputs: that the drafter ``kind`` is not the method's, if it
    is not; then the engines' rules, the configs', then the synthetic block's."""
    configs, runs = _expected(**inputs)
    mismatch = drafter_mismatch(kind, inputs.get("method", "draft_model"))
    rules = [w for config in configs for w in config.warnings] + [w for run in runs for w in run.warnings]
    return [mismatch, *rules] if mismatch else rules


def test_the_vllm_config_shown_is_specmaths_schedule_for_the_pages_inputs():
    at = open_tab("engines")
    assert not at.exception
    sweep = _schedule_sweep()
    schedule = specmath.batch_k_schedule(sweep.batch, sweep.k, sweep.speedup)
    assert schedule == [(1, 120, 4), (121, 247, 3), (248, 256, 2)]  # the page's defaults, as its picture shows
    assert vllm_config(at) == {
        "method": "draft_model",
        "model": "meta-llama/Llama-3.2-1B",
        "num_speculative_tokens": 4,
        "num_speculative_tokens_per_batch_size": [[1, 120, 4], [121, 247, 3], [248, 256, 2]],
    }
    (table,) = open_tab("schedule").table
    assert list(table.value["batch sizes"]) == ["1 to 120", "121 to 247", "248 to 256"]
    assert list(table.value["k"]) == ["4", "3", "2"]
    low, high = sweep.speedup[:120].min(), sweep.speedup[:120].max()
    assert table.value["predicted speedup"][0] == f"{low:.2f}× to {high:.2f}×"
    assert "vllm bench serve" in " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize("batch", ["1", "64", "256"])
def test_the_sglang_flags_are_the_best_chain_at_the_chosen_batch(batch):
    at = open_tab("engines", batch=batch)
    setup = _setup(batch=int(batch))
    k, s = specmath.general_optimal_k(0.8, setup.draft, setup.target, max_k=32)
    assert s > 1
    assert sglang_flags(at) == {
        "--speculative-algorithm": "STANDALONE",
        "--speculative-draft-model-path": "meta-llama/Llama-3.2-1B",
        "--speculative-num-steps": str(k),
        "--speculative-eagle-topk": "1",
        "--speculative-num-draft-tokens": str(k + 1),
    }


def test_the_download_round_trips_to_the_schedule_and_its_inputs(downloads):
    at = open_tab("engines", context="0", max_batch="1024", method="eagle3")
    document = json.loads(downloads(at).decode("utf-8"))
    sweep = _schedule_sweep(max_batch=1024, context=0)
    schedule = specmath.batch_k_schedule(sweep.batch, sweep.k, sweep.speedup)
    assert [tuple(entry) for entry in document["num_speculative_tokens_per_batch_size"]] == schedule
    assert schedule[-1] == (242, 1024, 0)
    assert document["vllm_speculative_config"] == vllm_config(at)
    assert document["sglang_flags_at_chosen_batch"] == [f"{flag} {value}" for flag, value in sglang_flags(at).items()]
    inputs = document["inputs"]
    assert inputs["alpha"] == 0.8 and inputs["context_tokens"] == 0 and inputs["method"] == "eagle3"
    assert inputs["target_model"] == "meta-llama/Llama-3.1-8B" and inputs["gpu"] == "H100 SXM"
    assert inputs["memory_bandwidth_gb_s"] == specmath.GPU_PRESETS["H100 SXM"].memory_bandwidth / 1e9


def test_where_speculation_does_not_pay_the_schedule_says_zero_and_shades_it():
    at = open_tab("engines", context="0", max_batch="1024")
    config = vllm_config(at)
    assert config["num_speculative_tokens_per_batch_size"][-1] == [242, 1024, 0]
    assert config["num_speculative_tokens"] == 4
    at = open_tab("schedule", context="0", max_batch="1024")
    (table,) = at.table
    assert table.value["k"].iloc[-1] == "0 (do not speculate)"
    schedule_figure = chart(at, "Draft length schedule")
    ((start, end),) = marks(option(at, "Draft length schedule"), "markArea")
    assert (start["xAxis"], end["xAxis"]) == (241.5, 1024.5)
    np.testing.assert_array_equal(
        values(trace(schedule_figure, "k in the schedule")["y"])[-783:], np.zeros(783, dtype=np.int64)
    )


def test_a_draft_no_k_pays_for_shows_no_config():
    at = open_tab("engines", alpha="0.05")
    assert not at.exception
    assert not any(text.startswith("--speculative") for text in codes(at))
    assert any("serve without `--speculative-config`" in i.value for i in at.info)
    assert any("serve without the speculative flags" in i.value for i in at.info)


@pytest.mark.parametrize(
    ("method", "model", "algorithm"),
    [
        ("draft_model", "meta-llama/Llama-3.2-1B", "STANDALONE"),
        ("eagle", "YOUR-EAGLE-HEAD-FOR-Llama-3.1-8B", "EAGLE"),
        ("eagle3", "YOUR-EAGLE3-HEAD-FOR-Llama-3.1-8B", "EAGLE3"),
        ("mtp", None, "NEXTN"),
        ("ngram", None, "NGRAM"),
    ],
)
def test_a_link_with_each_method_gives_its_configs(method, model, algorithm):
    at = open_tab("engines", method=method)
    assert not at.exception
    assert warnings(at) == _rule_warnings(method=method, model=model)  # the page's rules, and nothing else
    config = vllm_config(at)
    assert config["method"] == method
    assert config.get("model") == model
    keys = ["method", *(["model"] if model else []), "num_speculative_tokens", "num_speculative_tokens_per_batch_size"]
    assert list(config) == keys
    flags = sglang_flags(at)
    assert flags["--speculative-algorithm"] == algorithm
    assert flags.get("--speculative-draft-model-path") == model
    if method == "ngram":
        assert flags["--speculative-num-draft-tokens"] == "5"
        assert flags["--speculative-ngram-max-bfs-breadth"] == "1"
        assert "--speculative-num-steps" not in flags


@pytest.mark.parametrize(("key", "raw"), [("method", "medusa"), ("max_batch", "3"), ("max_batch", "4")])
def test_bad_schedule_links_warn(key, raw):
    at = open_tab("engines", **{key: raw})
    assert not at.exception
    assert any(f"`{key}" in w for w in warnings(at))
    assert vllm_config(at)["num_speculative_tokens_per_batch_size"][-1][1] == 256


HEAD = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"


def _captions(at) -> list[str]:
    return [caption.value for caption in at.caption]


def test_a_linked_head_name_goes_into_both_engines_and_the_download(downloads):
    at = open_tab("engines", method="eagle3", drafter=HEAD)
    assert not at.exception and not warnings(at)
    assert at.text_input(key="drafter").value == HEAD
    assert vllm_config(at)["model"] == HEAD
    assert sglang_flags(at)["--speculative-draft-model-path"] == HEAD
    assert not [text for text in _captions(at) if "YOUR-" in text or "Replace" in text]
    document = json.loads(downloads(at).decode("utf-8"))
    assert document["inputs"]["drafter_in_configs"] == HEAD
    assert document["inputs"]["draft_model"] == "meta-llama/Llama-3.2-1B"  # the cost model's, still


def test_without_a_name_the_head_placeholder_is_explained(downloads):
    at = open_tab("engines", method="eagle3")
    assert vllm_config(at)["model"] == "YOUR-EAGLE3-HEAD-FOR-Llama-3.1-8B"
    assert any("Replace `YOUR-EAGLE3-HEAD-FOR-Llama-3.1-8B`" in text for text in _captions(at))
    assert json.loads(downloads(at).decode("utf-8"))["inputs"]["drafter_in_configs"] == (
        "YOUR-EAGLE3-HEAD-FOR-Llama-3.1-8B"
    )


@pytest.mark.parametrize("raw", ["two words", "x'y", "[x](//e.vil)", "-rf"])
def test_a_bad_linked_name_warns_and_the_preset_is_used(raw):
    at = open_tab("engines", drafter=raw)
    assert not at.exception
    (warning,) = warnings(at)
    assert warning.startswith(f"`drafter` = {literal(raw)} is not allowed")
    assert warning.endswith("; using no value (the default).")
    assert vllm_config(at)["model"] == "meta-llama/Llama-3.2-1B"
    assert sglang_flags(at)["--speculative-draft-model-path"] == "meta-llama/Llama-3.2-1B"
    assert at.query_params.get("drafter") in (None, "")  # a copied link does not carry it on


def test_a_repeated_name_warns_and_the_last_is_used_shown_as_literal_text():
    at = open_tab("engines", method="eagle3", drafter=["a/b", "__bold__"])
    (warning,) = warnings(at)
    assert warning.endswith("; using ` __bold__ `.")  # Markdown would make it bold
    assert vllm_config(at)["model"] == "__bold__"


def test_a_bad_typed_name_warns_and_the_placeholder_is_used():
    at = open_tab("engines", method="eagle3")
    at.text_input(key="drafter").set_value("my head; rm -rf ~ " + "x" * 40).run()
    assert not at.exception
    (warning,) = warnings(at)
    assert shown(warning).startswith("The draft model name my head; rm -rf ~ xxxxx…")  # literal, cut short
    assert "they use `YOUR-EAGLE3-HEAD-FOR-Llama-3.1-8B` instead" in warning
    assert vllm_config(at)["model"] == "YOUR-EAGLE3-HEAD-FOR-Llama-3.1-8B"
    assert any("Replace `YOUR-EAGLE3-HEAD-FOR-Llama-3.1-8B`" in text for text in _captions(at))
    at.text_input(key="drafter").set_value("./heads/my-head").run()
    assert not warnings(at)
    assert vllm_config(at)["model"] == "./heads/my-head"


def test_a_bad_typed_name_in_the_address_is_not_taken_for_a_links():
    """In the browser the box's binding writes what was typed to the address, which the next run
    reads: a bad name typed there gets the page's warning alone, not the bad-link one as well."""
    at = open_tab("engines")
    at.text_input(key="drafter").set_value("a b")
    at.query_params["drafter"] = "a b"  # as the binding leaves the address (AppTest does not)
    at.run()
    assert not at.exception
    (warning,) = warnings(at)
    assert warning.startswith("The draft model name ` a b `")


@pytest.mark.parametrize(("method", "algorithm"), [("mtp", "NEXTN"), ("ngram", "NGRAM")])
def test_a_name_for_a_method_without_a_draft_model_is_said_to_be_unused(method, algorithm):
    at = open_tab("engines", method=method, drafter=HEAD)
    assert not at.exception and warnings(at) == _rule_warnings(method=method, model=None)
    assert any(f"With `{method}`" in text and "is not used" in text for text in _captions(at))
    assert "model" not in vllm_config(at)
    flags = sglang_flags(at)
    assert flags["--speculative-algorithm"] == algorithm and "--speculative-draft-model-path" not in flags
    at = open_tab("engines", method=method)
    assert not any("is not used" in text for text in _captions(at))


@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_hostile_name_linked_or_typed_reaches_messages_only_as_literal_text(hostile):
    at = open_tab("engines", method="eagle3", drafter=hostile)
    assert not at.exception
    assert_literal(warnings(at) + _captions(at))
    if not PARAMS["drafter"].accepts(hostile):  # an address such as e.vil/login is a model name's shape
        assert vllm_config(at)["model"] == "YOUR-EAGLE3-HEAD-FOR-Llama-3.1-8B"
    at = open_tab("engines", method="eagle3")
    at.text_input(key="drafter").set_value(hostile).run()
    assert not at.exception
    assert_literal(warnings(at) + _captions(at))


def test_a_linked_name_over_200_characters_is_refused_whole_not_cut_into_the_configs(downloads):
    long = "org/" + "m" * 197  # 201 characters, its first 200 a valid name
    at = open_tab("engines", drafter=long)
    assert not at.exception
    (warning,) = warnings(at)
    assert "at most 200 characters" in warning and warning.endswith("; using no value (the default).")
    for model in (vllm_config(at)["model"], sglang_flags(at)["--speculative-draft-model-path"]):
        assert model == "meta-llama/Llama-3.2-1B"
    assert json.loads(downloads(at).decode("utf-8"))["inputs"]["drafter_in_configs"] == "meta-llama/Llama-3.2-1B"
    assert at.query_params.get("drafter") in (None, "")  # a copied link does not carry it on
    # Typed into the box, the same name gets the page's own warning, and still stays out.
    at = open_tab("engines")
    at.text_input(key="drafter").set_value(long).run()
    (warning,) = warnings(at)
    assert warning.startswith("The draft model name") and "they use `meta-llama/Llama-3.2-1B` instead" in warning
    assert vllm_config(at)["model"] == "meta-llama/Llama-3.2-1B"


def test_a_model_name_with_spaces_and_quotes_goes_into_the_configs_quoted(monkeypatch):
    """A draft preset known only by its name (no hub_id), a name a shell would split: the
    engines' configs quote it (they used to raise, a traceback on the page)."""
    name = "Llama 3.2 1B (Bob's copy)"
    spec = dataclasses.replace(specmath.MODEL_PRESETS["Llama-3.2-1B"], name=name, hub_id="", source="a local copy")
    presets = types.MappingProxyType(specmath.MODEL_PRESETS | {"Llama-3.2-1B": spec})
    monkeypatch.setattr(specmath, "MODEL_PRESETS", presets)
    at = open_tab("engines")
    assert not at.exception
    assert vllm_config(at)["model"] == name and sglang_flags(at)["--speculative-draft-model-path"] == name
    (serve,) = [text for text in codes(at) if text.startswith("vllm serve ") and "rejection_sample" not in text]
    assert "'\"'\"'s copy" in serve  # the name's quote closes, is written, and the quote reopens
    assert_literal(warnings(at) + _captions(at))


def _vocabulary_warnings(at) -> list[str]:
    return [w for w in warnings(at) if w.startswith("**These configs would not work as they stand.**")]


@pytest.mark.parametrize(
    ("target", "draft", "why", "instead"),
    [
        ("Qwen2.5-7B", "Qwen2.5-0.5B", "(vocab_size 151,936 and 152,064)", "none among the presets"),
        ("Llama-2-7B", "Llama-3.2-1B", "different tokenizers (Llama 3 and Llama 2", "among the presets: LLaMA-68M"),
    ],
)
def test_a_draft_model_the_engines_refuse_gets_a_warning_that_says_why_and_what_would_do(
    target, draft, why, instead, downloads
):
    at = open_tab("engines", target_model=target, draft_model=draft)
    assert not at.exception
    (warning,) = _vocabulary_warnings(at)
    assert why in warning and instead in warning
    assert "Target and draft model should have the same vocabulary size" in warning
    assert "use_heterogeneous_vocab" in warning and "`eagle`" in warning
    assert vllm_config(at)["method"] == "draft_model"  # the schedule stays, beside its warning
    document = json.loads(downloads(at).decode("utf-8"))
    assert why in document["inputs"]["vocabulary_problem"]


def test_heads_and_matching_drafts_get_no_vocabulary_warning(downloads):
    at = open_tab("engines")  # Llama-3.2-1B drafting for Llama-3.1-8B
    assert not _vocabulary_warnings(at)
    assert json.loads(downloads(at).decode("utf-8"))["inputs"]["vocabulary_problem"] is None
    # An EAGLE head loads no vocabulary of its own: the draft preset only sets the cost.
    at = open_tab("engines", target_model="Qwen2.5-7B", draft_model="Qwen2.5-0.5B", method="eagle3")
    assert not at.exception and not warnings(at)


def test_a_head_as_the_draft_model_is_told_it_is_a_head_and_the_method_that_runs_it(downloads):
    at = open_tab("engines", target_model="Qwen3-30B-A3B", draft_model="Qwen3-30B-A3B-EAGLE-3")
    assert not at.exception
    (warning,) = _vocabulary_warnings(at)
    assert "Qwen3-30B-A3B-EAGLE-3 is an EAGLE-3 head for Qwen3-30B-A3B, not a model on its own" in warning
    assert "method `eagle3` with this drafter" in warning and "not known" not in warning
    assert "is an EAGLE-3 head" in json.loads(downloads(at).decode("utf-8"))["inputs"]["vocabulary_problem"]
    at = open_tab("engines", target_model="Qwen3-30B-A3B", draft_model="Qwen3-30B-A3B-EAGLE-3", method="eagle3")
    assert not at.exception and not _vocabulary_warnings(at)


def test_a_typed_draft_model_is_told_the_vocabulary_it_needs():
    at = open_tab("engines", target_model="Qwen2.5-7B", draft_model="Qwen2.5-0.5B", drafter="./my-qwen-draft")
    assert not at.exception and not warnings(at)  # the page cannot check a model it does not know
    assert vllm_config(at)["model"] == "./my-qwen-draft"
    assert any("Qwen2.5-7B's vocab_size, 152,064" in text and "(Qwen2.5)" in text for text in _captions(at))


# --- experts, tensor parallelism, drafter kinds, long contexts ------------------------------

QWEN_MOE = "Qwen3-30B-A3B"


def test_a_moe_target_with_tp_has_the_roofline_of_specmath():
    at = open_tab("experts", target_model=QWEN_MOE, draft_model=f"{QWEN_MOE}-EAGLE-3", tp="2", batch="8")
    assert not at.exception
    target = specmath.Roofline(specmath.MODEL_PRESETS[QWEN_MOE], H100, 8, 1024, 0.0, 2, NVLINK)
    m = metrics(at)
    assert m["Target step T_target(1)"] == f"{target(1) * 1e3:.3f} ms"
    assert m["Target over k + 1 = 9 positions"] == f"{target(9) * 1e3:.3f} ms"
    # The verify pass against the batch: the target's, and a dense model of its active size.
    figure = chart(at, "Verification cost against the batch")
    # Every expert but a token's gone, its embedding table kept: a dense model of the active size.
    moe = specmath.MODEL_PRESETS[QWEN_MOE]
    experts = ("routed_experts", "experts_per_token", "shared_experts", "expert_parameters", "moe_layers")
    kept = moe.parameters - moe.skipped_parameters
    dense = dataclasses.replace(moe, name=f"dense {moe.name}", parameters=kept, **dict.fromkeys(experts, 0))
    assert dense.matmul_parameters == moe.active_parameters and not dense.is_moe
    for name, model in ((QWEN_MOE, specmath.MODEL_PRESETS[QWEN_MOE]), (dense.name, dense)):
        costs = [specmath.Roofline(model, H100, b, 1024, 0.0, 2, NVLINK) for b in BATCHES]
        expected = [float(t(9)) / float(t(1)) for t in costs]
        np.testing.assert_array_equal(values(trace(figure, name)["y"]), expected)
    # At batch 1 verifying 9 positions wakes more experts: dearer than the dense model's pass.
    assert values(trace(figure, QWEN_MOE)["y"])[0] > values(trace(figure, dense.name)["y"])[0]


#: Issue 42's link: DeepSeek-V3 and its MTP module on 8 H200s, FP8 weights, batch 1.
DEEPSEEK_MTP = {
    "target_model": "DeepSeek-V3", "draft_model": "DeepSeek-V3-MTP", "gpu": "H200 SXM", "tp": "8",
    "method": "mtp", "precision": "fp8", "batch": "1",
}  # fmt: skip


@pytest.mark.parametrize(
    ("draft_tp", "on", "figures"),
    # The figures with the module on one GPU; on the target's 8, as every engine runs it.
    [(None, 8, ("1.49", "2.55")), ("1", 1, ("1.22", "1.93"))],
)
def test_a_head_drafts_on_the_targets_gpus_unless_the_link_sets_its_own(downloads, draft_tp, on, figures):
    at = open_tab("engines", **DEEPSEEK_MTP, **({"draft_tp": draft_tp} if draft_tp else {}))
    assert not at.exception
    h200 = specmath.GPU_PRESETS["H200 SXM"]
    h200 = dataclasses.replace(h200, peak_flops=h200.peak_flops_fp8)  # FP8 weights at the FP8 peak
    target, draft = (
        dataclasses.replace(specmath.MODEL_PRESETS[name], bytes_per_parameter=1.0)
        for name in ("DeepSeek-V3", "DeepSeek-V3-MTP")
    )
    k, speedup = specmath.general_optimal_k(
        0.8, specmath.Roofline(draft, h200, 1, 1024, 0.0, on, NVLINK),
        specmath.Roofline(target, h200, 1, 1024, 0.0, 8, NVLINK), max_k=32,
    )  # fmt: skip
    assert metrics(at)["Best k, roofline"] == f"{k} → {speedup:.2f}×"
    assert sglang_flags(at)["--speculative-num-steps"] == str(k)  # SGLang's one k, at the link's batch
    sweep = specmath.roofline_batch_sweep(
        0.8, draft, target, h200, np.arange(1, 257), 1024, 0.0, max_k=32, tp=8, draft_tp=on, interconnect=NVLINK
    )
    on_schedule = open_tab("schedule", **DEEPSEEK_MTP, **({"draft_tp": draft_tp} if draft_tp else {}))
    steps = values(trace(chart(on_schedule, "Draft length schedule"), "k in the schedule")["y"])
    np.testing.assert_array_equal(steps, np.where(sweep.speedup > 1, sweep.k, 0))
    assert (f"{sweep.speedup[0]:.2f}", f"{sweep.speedup[-1]:.2f}") == figures
    assert json.loads(downloads(at).decode("utf-8"))["inputs"]["tensor_parallel"]["draft"] == on
    # Placed as the engines place it, the draft draws no engine's warning about its GPUs.
    placement = [w for w in warnings(at) if "tensor parallelism" in w or "tensor_parallel_size" in w]
    assert bool(placement) == (on == 1)
    said = [c.value for c in at.sidebar.caption if c.value.startswith("auto:")]
    assert said == (
        ["auto: the draft on the target's 8 GPUs, where every engine runs it unless told otherwise."] if on == 8 else []
    )


def test_the_map_is_one_batch_sweep_per_context_with_the_pages_settings():
    link = {"drafter_kind": "parallel", "tp": "4", "draft_tp": "1", "interconnect": "PCIe 5.0 x16"}
    (heat,) = chart(open_tab("experts", **link), "Best k and speedup over batch and context")["data"]
    pcie = specmath.INTERCONNECT_PRESETS["PCIe 5.0 x16"]
    for row, context in enumerate(CONTEXTS):
        sweep = specmath.roofline_batch_sweep(
            0.8, specmath.MODEL_PRESETS["Llama-3.2-1B"], specmath.MODEL_PRESETS["Llama-3.1-8B"], H100,
            BATCHES, context, 0.0, 32, drafter="parallel", tp=4, draft_tp=1, interconnect=pcie,
        )  # fmt: skip
        np.testing.assert_array_equal(values(heat["z"])[row], sweep.speedup)
        np.testing.assert_array_equal(values(heat["customdata"])[row], sweep.k)
    # MagicDec: at a long context the KV cache keeps large batches memory-bound, and speculation
    # pays at batch 1024 where at no context it does not.
    z = values(heat["z"])
    assert z[0, -1] < 1 < z[list(CONTEXTS).index(32768), -1]
    # The schedule takes the same settings.
    schedule = chart(open_tab("schedule", **link), "Draft length schedule")
    sweep = specmath.roofline_batch_sweep(
        0.8, specmath.MODEL_PRESETS["Llama-3.2-1B"], specmath.MODEL_PRESETS["Llama-3.1-8B"], H100,
        np.arange(1, 257), 1024, 0.0, 32, drafter="parallel", tp=4, draft_tp=1, interconnect=pcie,
    )  # fmt: skip
    np.testing.assert_array_equal(
        values(trace(schedule, "k in the schedule")["y"]), np.where(sweep.speedup > 1, sweep.k, 0)
    )


def test_a_model_free_drafter_pays_its_lookup_and_the_draft_model_is_not_used():
    at = open_page(HARDWARE, drafter_kind="model_free", lookup_ms="0.05", batch="64")
    m = metrics(at)
    assert m["Draft lookup"] == "0.050 ms" and "Draft step T_draft(1)" not in m
    target = specmath.Roofline(specmath.MODEL_PRESETS["Llama-3.1-8B"], H100, 64, 1024)
    k, s = specmath.general_optimal_k(0.8, 5e-5, target, max_k=32, drafter="model_free")
    assert m["Best k, roofline"] == f"{k} → {s:.2f}×"
    # The draft model picked makes no difference.
    other = metrics(
        open_page(HARDWARE, drafter_kind="model_free", lookup_ms="0.05", batch="64", draft_model="Qwen3-4B")
    )
    assert other == m


def test_the_link_overrides_reach_the_all_reduces():
    at = open_page(HARDWARE, tp="8", batch="16")
    base = metrics(at)["Target step T_target(1)"]
    at.number_input(key="link_latency_us").set_value(50.0).run()
    slow = dataclasses.replace(NVLINK, latency_s=50e-6)
    target = specmath.Roofline(specmath.MODEL_PRESETS["Llama-3.1-8B"], H100, 16, 1024, 0.0, 8, slow)
    assert metrics(at)["Target step T_target(1)"] == f"{target(1) * 1e3:.3f} ms" != base


def test_fp8_weights_use_the_gpus_fp8_peak():
    setup = _setup(precision=1.0, batch=256)
    assert setup.target.gpu.peak_flops == H100.peak_flops_fp8
    at = open_page(HARDWARE, precision="fp8", batch="256")
    assert metrics(at)["Target step T_target(1)"] == f"{setup.target(1) * 1e3:.3f} ms"
    # An A100 has no FP8 tensor cores: FP8 weights there run at its BF16 peak.
    a100 = specmath.GPU_PRESETS["A100 80GB SXM"]
    assert a100.peak_flops_fp8 == 0
    spec = dataclasses.replace(specmath.MODEL_PRESETS["Llama-3.1-8B"], bytes_per_parameter=1.0)
    target = specmath.Roofline(spec, a100, 256, 1024)
    at = open_page(HARDWARE, precision="fp8", batch="256", gpu="A100 80GB SXM")
    assert metrics(at)["Target step T_target(1)"] == f"{target(1) * 1e3:.3f} ms"


@pytest.mark.parametrize(
    ("key", "raw"), [("tp", "3"), ("drafter_kind", "tree"), ("interconnect", "InfiniBand"), ("link_latency_us", "-1")]
)
def test_bad_serving_links_warn(key, raw):
    at = open_page(HARDWARE, **{key: raw})
    assert not at.exception
    assert any(f"`{key}" in w for w in warnings(at))
    assert titles(at) == list(TAB_CHARTS["speedup"])


# The four engines and the synthetic-acceptance block (issue 33) ---------------------------

ENGINES = ["vLLM", "SGLang", "TensorRT-LLM", "llama.cpp"]


def test_every_engine_has_a_tab_with_specmaths_config_and_a_synthetic_run():
    at = open_tab("engines", batch="16")
    assert not at.exception and not warnings(at)
    # The page's tabs, then the configs', then the synthetic runs'.
    assert [tab.label for tab in at.tabs] == [*HARDWARE_TABS.values(), *ENGINES * 2]
    configs, runs = _expected(batch=16)
    shown_codes = codes(at)
    for item in (*configs, *runs):
        for block in item.blocks:
            assert block.text.rstrip("\n") in shown_codes, (item.engine, block.title)  # st.code drops the last newline
    (yaml_file,) = [text for text in shown_codes if text.startswith("speculative_config:")]
    trt = yaml.safe_load(yaml_file)["speculative_config"]
    assert trt["draft_len_schedule"] == {hi: k for _, hi, k in vllm_config(at)["num_speculative_tokens_per_batch_size"]}
    assert trt["max_draft_len"] == vllm_config(at)["num_speculative_tokens"] == 4
    llama = "llama-server -m YOUR-Llama-3.1-8B.gguf \\\n--spec-type draft-simple"
    assert any(text.startswith(llama) for text in shown_codes)
    assert any("no batch-size schedule" in caption for caption in _captions(at))


def test_the_synthetic_block_forces_the_predicted_acceptance_at_the_chosen_batch():
    at = open_tab("engines", batch="64", alpha="0.7")
    assert not at.exception
    setup = _setup(batch=64)
    k, speedup = specmath.general_optimal_k(0.7, setup.draft, setup.target, max_k=32)
    length = float(specmath.expected_tokens(0.7, k))
    serves = [text for text in codes(at) if text.startswith("vllm serve meta-llama/Llama-3.1-8B ")]
    (config,) = [c for c in map(vllm.read_flag, serves) if "rejection_sample_method" in c]  # the synthetic run's
    assert config["rejection_sample_method"] == "synthetic"
    rates = np.array(config["synthetic_acceptance_rates"])
    np.testing.assert_allclose(rates, 0.7 ** np.arange(1, rates.size + 1), atol=5e-7)
    assert any(text.startswith(f"SGLANG_SIMULATE_ACC_LEN={length:.4f} ") for text in codes(at))
    assert any(f"TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS={length - 1:.4f} " in text for text in codes(at))
    assert any("--max-concurrency 64" in text for text in codes(at))
    said = " ".join(m.value for m in at.markdown)
    assert f"predicted speedup of **{speedup:.2f}×**" in said and f"**{length:.3f}** tokens" in said


def test_with_data_parallelism_vllm_gets_no_schedule_and_the_page_says_why():
    at = open_tab("engines", data_parallel="2", batch="16")
    assert not at.exception
    config = vllm_config(at)
    assert "num_speculative_tokens_per_batch_size" not in config
    assert config["num_speculative_tokens"] == int(sglang_flags(at)["--speculative-num-steps"])
    assert warnings(at) == _rule_warnings(batch=16, data_parallel_size=2)
    assert any("--data-parallel-size 2" in w for w in warnings(at))


def test_a_method_vllm_v1_does_not_schedule_and_mtp_multiples_are_said():
    at = open_tab("engines", method="suffix")
    assert not at.exception
    assert warnings(at) == _rule_warnings(method="suffix", model=None)
    assert any("Model Runner V1" in w for w in warnings(at)) and any("no `suffix` method" in w for w in warnings(at))
    at = open_tab("engines", method="mtp", n_predict="3")
    assert vllm_config(at)["num_speculative_tokens"] == 6  # the schedule's largest k, 4, raised to a multiple of 3
    assert warnings(at) == _rule_warnings(method="mtp", model=None, n_predict=3)


def test_the_pages_gpus_reach_every_engines_config_and_the_download(downloads):
    at = open_tab("engines", tp="4", draft_tp="1", batch="16")
    assert not at.exception
    setup = _setup()
    sweep = specmath.roofline_batch_sweep(
        0.8, setup.draft.model, setup.target.model, H100, np.arange(1, 257), 1024, 0.0, max_k=32,
        tp=4, draft_tp=1, interconnect=NVLINK,
    )  # fmt: skip
    schedule = specmath.batch_k_schedule(sweep.batch, sweep.k, sweep.speedup)
    chosen = int(sweep.k[15]) if sweep.speedup[15] > 1 else 0  # the best k at batch 16, 0 where it does not pay
    configs = engines.engine_configs(
        schedule, "draft_model", "meta-llama/Llama-3.2-1B", chosen, 16, target="meta-llama/Llama-3.1-8B",
        tensor_parallel_size=4, draft_tensor_parallel_size=1,
    )  # fmt: skip
    assert vllm_config(at) == configs[0].settings and vllm_config(at)["draft_tensor_parallel_size"] == 1
    for config in configs[:3]:  # each command, as its engine parses it, serves the target on 4 GPUs
        (command,) = [block.text for block in config.blocks if block.language == "bash"]
        assert command in codes(at)
        parse, key = COMMANDS[config.engine]
        served = parse(command)
        assert served[key] == "meta-llama/Llama-3.1-8B"
        assert served.get("tensor_parallel_size", served.get("tp_size")) == 4
    shown_warnings = warnings(at)
    assert all(w in shown_warnings for config in configs for w in config.warnings)
    assert any("no flag for the draft's tensor parallelism" in w for w in shown_warnings)  # SGLang's
    document = json.loads(downloads(at).decode("utf-8"))
    assert document["engines"]["vLLM"]["settings"]["draft_tensor_parallel_size"] == 1
    assert document["commands"]["vLLM"] == [configs[0].blocks[0].text]  # the one command a reviewer can run
    assert document["inputs"]["tensor_parallel"] == {"target": 4, "draft": 1, "interconnect": "NVLink (H100 SXM)"}


@pytest.mark.parametrize(
    ("kind", "method", "mismatch"),
    [
        ("model_free", "ngram", False),
        ("model_free", "draft_model", True),
        ("sequential", "suffix", True),
        ("parallel", "eagle3", True),
        ("sequential", "mtp", False),
    ],
)
def test_the_page_says_when_the_drafter_kind_is_not_the_methods(kind, method, mismatch):
    at = open_tab("engines", drafter_kind=kind, method=method)
    assert not at.exception
    message = drafter_mismatch(kind, method)
    assert (message in warnings(at)) == mismatch and (message is not None) == mismatch
    assert not any("is costed for" in w for w in warnings(at) if w != message)


def test_a_parallel_drafter_with_method_dflash_gets_no_mismatch_and_dflash_configs():
    at = open_tab("engines", drafter_kind="parallel", method="dflash")
    assert not at.exception
    assert not any("is costed for" in w for w in warnings(at))
    setup = _setup()
    sweep = specmath.roofline_batch_sweep(
        0.8, setup.draft.model, setup.target.model, setup.target.gpu, np.arange(1, 257), 1024, max_k=32,
        drafter="parallel",
    )  # fmt: skip
    schedule = specmath.batch_k_schedule(sweep.batch, sweep.k, sweep.speedup)
    config = vllm_config(at)
    assert config["method"] == "dflash" and config["model"] == "YOUR-DFLASH-DRAFT-FOR-Llama-3.1-8B"
    assert config["num_speculative_tokens_per_batch_size"] == [list(entry) for entry in schedule]
    assert config["num_speculative_tokens"] == max(k for _, _, k in schedule)
    assert sglang_flags(at)["--speculative-algorithm"] == "DFLASH"
    assert any("Replace `YOUR-DFLASH-DRAFT-FOR-Llama-3.1-8B`" in text for text in _captions(at))


@pytest.mark.parametrize(
    ("link", "at_cap"),
    [({}, False), ({"drafter_kind": "parallel", "alpha": "0.9"}, True), ({"drafter_kind": "model_free"}, True)],
)
def test_a_best_k_at_the_largest_k_searched_is_said_to_be_the_searchs_edge(link, at_cap):
    """A best k of 32 is where the search stops, not an optimum: the page says so, and for a block
    drafter what caps a real one."""
    at = open_page(HARDWARE, **link)
    assert not at.exception
    setup = _setup()
    kind, alpha = link.get("drafter_kind", "sequential"), float(link.get("alpha", 0.8))
    draft = 0.0 if kind == "model_free" else setup.draft  # a lookup of 0 ms, the page's default
    best = specmath.general_optimal_k(alpha, draft, setup.target, max_k=32, drafter=kind)[0]
    free = specmath.general_optimal_k(alpha, draft, float(setup.target(1)), max_k=32, drafter=kind)[0]
    assert (32 in (best, free)) == at_cap
    said = [text for text in _captions(at) if "is the largest k searched" in text]
    assert bool(said) == (32 in (best, free))
    assert all(("DFlash checkpoint" in text) == (kind == "parallel") for text in said)


def test_each_engine_tab_holds_one_whole_command_that_serves_the_target():
    """Issue 42 part 5: a command runs as pasted. Each engine's tab has one command block, starting with the
    engine's program and the target, which parses under that engine's own argument rules."""
    at = open_tab("engines", tp="2", batch="64")
    assert not at.exception
    tabs = at.tabs[len(HARDWARE_TABS) :][: len(ENGINES)]  # the configs' tabs, after the page's; the runs' after them
    assert [tab.label for tab in tabs] == ENGINES
    target = "meta-llama/Llama-3.1-8B"
    for tab in tabs:
        parse, key = COMMANDS[tab.label]
        (command,) = [code.value for code in tab.code if code.language == "bash"]
        served = parse(command)
        assert served[key] == (llamacpp.target_file(target) if tab.label == "llama.cpp" else target), tab.label


def _measured_moe_errors(min_batch: int = 16) -> np.ndarray:
    """The signed errors (%) of specmath.predict_speedup on the data file's MoE runs at batch >= min_batch
    (the runs it prices, as the Predictions page's test reads them)."""
    priced, _ = priced_runs()
    return np.array(
        [
            (predicted - run["speedup"]) / run["speedup"] * 100
            for run, predicted in priced
            if run["batch"] >= min_batch and specmath.deployment.find_model(run["target"]).is_moe
        ]
    )


def test_an_moe_target_is_told_how_the_model_fared_on_measured_moe_runs_at_large_batches():
    errors = _measured_moe_errors()
    low, median, high = np.percentile(errors, [10, 50, 90])
    assert median > 0  # the model promises these runs more than they measured
    at = open_page(HARDWARE, target_model=QWEN_MOE, draft_model=f"{QWEN_MOE}-EAGLE-3")
    note = [c.value for c in at.caption if c.value.startswith("Measured against:")]
    assert len(note) == 1, [c.value for c in at.caption]
    assert f"{len(errors)} published runs with an MoE target at batch 16 or more" in note[0]
    assert f"a median {median:.0f} % more speedup" in note[0]
    assert f"(10th to 90th percentile {low:+.0f} to {high:+.0f} %)" in note[0]
    dense = open_page(HARDWARE, target_model="Llama-3.1-70B")
    assert not [c.value for c in dense.caption if c.value.startswith("Measured against:")]
