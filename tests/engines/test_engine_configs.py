"""Each engine's config against that engine's own rules (tests/engines/engine_rules.py), the
rule messages, and the round trips of what the configs write."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess

import numpy as np
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

import engines
import specmath
from engines.configs import llamacpp, sglang, trtllm, vllm
from engines.configs.vocabulary import same_vocabulary_drafters, vocabulary_problem
from tests.engines import engine_rules


@st.composite
def schedules(draw, max_k: int = 12):
    """Contiguous ``(lo, hi, k)`` ranges from batch 1, adjacent ks different, as batch_k_schedule makes."""
    lengths = draw(st.lists(st.integers(1, 60), min_size=1, max_size=6))
    ks = [draw(st.integers(0, max_k))]
    for _ in lengths[1:]:
        ks.append(draw(st.integers(0, max_k).filter(lambda k, last=ks[-1]: k != last)))
    ranges, lo = [], 1
    for length, k in zip(lengths, ks, strict=True):
        ranges.append((lo, lo + length - 1, k))
        lo += length
    return ranges


def scheduled_k(schedule, batch):
    return next(k for lo, hi, k in schedule if lo <= batch <= hi)


def roofline_schedule(alpha=0.8, context=1024, max_batch=256):
    presets, gpu = specmath.MODEL_PRESETS, specmath.GPU_PRESETS["H100 SXM"]
    sweep = specmath.roofline_batch_sweep(
        alpha, presets["Llama-3.2-1B"], presets["Llama-3.1-8B"], gpu, np.arange(1, max_batch + 1), context, max_k=32
    )
    return specmath.batch_k_schedule(sweep.batch, sweep.k, sweep.speedup)


# vLLM ---------------------------------------------------------------------------------------


@given(schedules(), st.sampled_from(["draft_model", "eagle3", "ngram", "suffix"]))
def test_vllm_drafts_the_scheduled_k_at_every_batch_by_its_own_checker(schedule, method):
    config = vllm.vllm_config(schedule, method, "org/draft" if method == "draft_model" else None).settings
    largest = max(k for _, _, k in schedule)
    if largest == 0:
        assert config is None  # vLLM wants num_speculative_tokens > 0: no config at all
        return
    engine_rules.vllm_check_config(config)
    last = schedule[-1][1]
    max_num_seqs = last + 7  # a server taking more requests than the schedule covers keeps its last k
    dense = engine_rules.vllm_dense_schedule(
        config["num_speculative_tokens_per_batch_size"], max_num_seqs, config["num_speculative_tokens"]
    )
    assert dense[1:] == [scheduled_k(schedule, min(b, last)) for b in range(1, max_num_seqs + 1)]


def test_the_pages_default_schedule_passes_vllms_checker_and_its_flag_reads_back():
    schedule = roofline_schedule()
    assert schedule == [(1, 120, 4), (121, 247, 3), (248, 256, 2)]
    config = vllm.vllm_config(schedule, "draft_model", "meta-llama/Llama-3.2-1B")
    (block,) = config.blocks
    assert vllm.read_flag(block.text) == config.settings
    engine_rules.vllm_check_config(config.settings)
    assert config.warnings == ()


def test_under_data_parallelism_vllm_gets_the_chosen_batchs_k_without_a_schedule():
    config = vllm.vllm_config([(1, 8, 5), (9, 64, 3)], "eagle3", "org/head", fixed_k=3, batch=16, data_parallel_size=2)
    assert config.settings == {"method": "eagle3", "model": "org/head", "num_speculative_tokens": 3}
    engine_rules.vllm_check_config(config.settings)
    (warning,) = config.warnings
    assert "--data-parallel-size 2" in warning and "best k at batch 16, 3" in warning


def test_methods_vllm_v1_does_not_schedule_are_warned_about_and_the_tested_ones_are_not():
    schedule = [(1, 8, 5), (9, 64, 3)]
    for method in vllm.V1_SCHEDULE_METHODS[:5]:
        assert not vllm.vllm_config(schedule, method).warnings
    (warning,) = vllm.vllm_config(schedule, "suffix").warnings
    assert "Model Runner V1" in warning and "`suffix`" in warning and "drafts 5 tokens" in warning


@pytest.mark.parametrize(("largest", "n_predict", "expected"), [(4, 3, 6), (7, 2, 8), (3, 3, 3), (2, 3, 2), (5, 1, 5)])
def test_mtp_above_n_predict_is_raised_to_a_multiple_that_vllm_accepts(largest, n_predict, expected):
    schedule = [(1, 4, largest), (5, 64, 1)]
    config = vllm.vllm_config(schedule, "mtp", n_predict=n_predict)
    assert config.settings["num_speculative_tokens"] == expected
    engine_rules.vllm_check_config(config.settings, n_predict=n_predict)
    assert bool(config.warnings) == (expected != largest)
    unchanged = config.settings | {"num_speculative_tokens": largest}
    if expected != largest:
        with pytest.raises(ValueError, match="divisible"):
            engine_rules.vllm_check_config(unchanged, n_predict=n_predict)


@given(schedules(), st.integers(1, 1024))
def test_vllm_runs_as_many_sequences_at_once_as_the_schedule_reaches_on_every_gpu(schedule, batch):
    """``vllm serve``'s default --max-num-seqs is 256 on the smaller GPUs: where the schedule or the
    fixed k's batch passes it, the flag is written, and nowhere else."""
    config = vllm.vllm_config(schedule, "eagle3", "org/head", fixed_k=2, batch=batch)
    if config.settings is None:  # no k pays anywhere: serve without speculation, as vLLM's defaults
        return
    (block,) = config.blocks
    flags = _max_num_seqs(block.text)
    reach = max(schedule[-1][1], batch)
    for gpu in specmath.GPU_PRESETS.values():
        assert engine_rules.vllm_max_num_seqs(flags, gpu.memory_bytes, gpu.name) >= reach, gpu.name
    assert ("--max-num-seqs" in flags) == (reach > 256)
    (run,) = [r for r in engines.synthetic_runs(0.8, schedule, "eagle3", "org/head", 2, batch, target="t",
                                                 context=64, predicted_speedup=1.5) if r.engine == "vLLM"]  # fmt: skip
    served = _max_num_seqs(run.blocks[0].text)
    for gpu in specmath.GPU_PRESETS.values():  # the benchmark's concurrency
        assert engine_rules.vllm_max_num_seqs(served, gpu.memory_bytes, gpu.name) >= batch


def _max_num_seqs(command: str) -> dict:
    """The ``--max-num-seqs`` of a ``vllm serve`` command as vLLM parses it, as a flag dictionary."""
    seqs = engine_rules.vllm_serve(command)["max_num_seqs"]
    return {} if seqs is None else {"--max-num-seqs": seqs}


# SGLang --------------------------------------------------------------------------------------


@given(schedules(max_k=8))
def test_sglangs_adaptive_file_routes_every_batch_to_its_scheduled_k(schedule):
    config = sglang.sglang_config(schedule, "eagle3", "org/head", fixed_k=schedule[0][2], batch=1)
    files = [b for b in config.blocks if b.filename == sglang.ADAPTIVE_FILE]
    if max(k for _, _, k in schedule) == 0 or len(schedule) == 1:
        assert not files
        return
    (file,) = files
    slots = engine_rules.sglang_check_adaptive(json.loads(file.text))
    for b in range(1, schedule[-1][1] + 1):
        assert engine_rules.sglang_steps(slots, b) == [scheduled_k(schedule, b)]
    (launch,) = [b.text for b in config.blocks if "--speculative-adaptive " in b.text]
    flags = engine_rules.sglang_launch(launch)
    assert flags["speculative_adaptive"] and flags["speculative_adaptive_config"] == file.filename
    assert flags["speculative_num_steps"] in {s for steps in slots.values() for s in steps}
    assert flags["speculative_eagle_topk"] == 1  # adaptive runs with top-k 1 only


@pytest.mark.parametrize("k", [1, 3, 7])
def test_sglangs_chain_counts_the_root_in_its_draft_tokens(k):
    config = sglang.sglang_config([(1, 64, k)], "eagle3", "org/head", fixed_k=k, batch=4)
    assert config.settings == {
        "--speculative-algorithm": "EAGLE3",
        "--speculative-draft-model-path": "org/head",
        "--speculative-num-steps": k,
        "--speculative-eagle-topk": 1,
        "--speculative-num-draft-tokens": k + 1,
    }
    assert _speculative(config.blocks[0].text) == {key: str(v) for key, v in config.settings.items()}
    assert engine_rules.sglang_launch(config.blocks[0].text)["speculative_num_draft_tokens"] == k + 1


def _speculative(command: str) -> dict[str, str]:
    """The ``--speculative-*`` flags of a command, read back as a shell reads them."""
    return {flag: value for flag, value in sglang.read_flags(command).items() if flag.startswith("--speculative")}


def test_sglang_says_where_adaptive_does_not_run_and_has_no_suffix():
    schedule = [(1, 8, 4), (9, 64, 2)]
    mtp = sglang.sglang_config(schedule, "mtp", None, 4, 1)
    (launch,) = mtp.blocks  # no adaptive file; the cap on running requests is in the one command
    assert engine_rules.sglang_launch(launch.text)["max_running_requests"] == 64
    assert any("EAGLE and EAGLE3 only" in note for note in mtp.notes)
    dp = sglang.sglang_config(schedule, "eagle", "org/head", 4, 1, data_parallel_size=4)
    assert any("--enable-dp-attention" in w for w in dp.warnings)
    suffix = sglang.sglang_config(schedule, "suffix", None, 4, 1)
    assert suffix.blocks == () and "no `suffix`" in suffix.warnings[0]


@given(schedules(), st.sampled_from(["eagle3", "ngram", "dflash", "draft_model"]), st.integers(1, 128))
def test_sglang_runs_as_many_requests_at_once_as_the_schedule_reaches(schedule, method, batch):
    """Under speculation SGLang runs 48 requests at most unless told otherwise: the flags written
    let it run the schedule's largest batch and the fixed chain's, and add nothing where 48 do."""
    config = sglang.sglang_config(schedule, method, None if method == "ngram" else "org/m", 2, batch)
    reach = max(schedule[-1][1], batch)
    for block in config.blocks:
        if block.language == "bash":  # each command, the fixed chain and the adaptive one
            flags = sglang.read_flags(block.text)
            assert engine_rules.sglang_max_running_requests(flags) >= reach
            assert ("--max-running-requests" in flags) == (reach > 48)
    run = next(r for r in engines.synthetic_runs(0.8, schedule, method, "org/m", 2, batch, target="t", context=64,
                                                  predicted_speedup=1.5) if r.engine == "SGLang")  # fmt: skip
    serve = sglang.read_flags(run.blocks[0].text.split("\\\n", 1)[1])
    assert engine_rules.sglang_max_running_requests(serve) >= batch  # the benchmark's concurrency


# TensorRT-LLM --------------------------------------------------------------------------------


@given(schedules(), st.sampled_from(["draft_model", "eagle3", "mtp"]))
def test_trtllm_passes_its_validator_and_drafts_the_scheduled_k_capped_at_the_first(schedule, method):
    config = trtllm.trtllm_config(schedule, method, "org/model", fixed_k=1, batch=1)
    first = schedule[0][2]
    if first == 0:
        assert config.settings is None
        speculates = max(k for _, _, k in schedule) > 0  # else there is nothing to say but "serve without"
        assert bool(config.warnings) == speculates and all("No speculation at batch 1" in w for w in config.warnings)
        return
    settings = config.settings
    table = engine_rules.trtllm_check_schedule(settings["draft_len_schedule"], settings["max_draft_len"])
    for b in range(1, schedule[-1][1] + 1):
        assert engine_rules.trtllm_draft_len(table, b) == min(scheduled_k(schedule, b), first)
    assert engine_rules.trtllm_draft_len(table, schedule[-1][1] + 1) == 0  # none above the largest key
    capped = [(lo, hi, k) for lo, hi, k in schedule if k > first]
    assert len(config.warnings) == bool(capped)  # one message, whatever the number of ranges capped
    for lo, hi, k in capped:
        assert (f"batch {lo} (k {k})" if lo == hi else f"batches {lo} to {hi} (k {k})") in config.warnings[0]


def test_trtllms_yaml_and_json_read_back_to_the_same_config():
    config = trtllm.trtllm_config(roofline_schedule(), "eagle3", "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", 4, 1)
    yaml_block, serve, json_block = config.blocks
    assert yaml.safe_load(yaml_block.text) == {"speculative_config": config.settings}
    assert engine_rules.trtllm_serve(serve.text)["config"] == yaml_block.filename
    assert config.settings["draft_len_schedule"] == {120: 4, 247: 3, 256: 2}
    read = json.loads(json_block.text)
    assert read | {"draft_len_schedule": None} == config.settings | {"draft_len_schedule": None}
    assert {int(b): k for b, k in read["draft_len_schedule"].items()} == config.settings["draft_len_schedule"]


def test_trtllm_ngram_gets_one_draft_length_and_eagle_none():
    ngram = trtllm.trtllm_config([(1, 8, 4), (9, 64, 2)], "ngram", None, fixed_k=2, batch=16)
    assert ngram.settings == {"decoding_type": "NGram", "max_draft_len": 2}
    assert "not NGram" in ngram.warnings[0]
    eagle = trtllm.trtllm_config([(1, 8, 4)], "eagle", "org/head", 4, 1)
    assert eagle.blocks == () and "EAGLE-3" in eagle.warnings[0]


# llama.cpp ---------------------------------------------------------------------------------


def test_llamacpp_writes_the_chain_of_the_chosen_batch_and_says_it_has_no_schedule():
    config = llamacpp.llamacpp_config("draft_model", "meta-llama/Llama-3.2-1B", fixed_k=5, batch=4)
    assert config.settings == {
        "--spec-type": "draft-simple",
        "--spec-draft-model": "YOUR-DRAFT.gguf",
        "--spec-draft-n-max": "5",
        "--spec-draft-n-min": "0",
        "--spec-draft-p-min": "0.0",
    }
    (block,) = config.blocks
    assert sglang.read_flags(block.text) == {"llama-server -m": "YOUR-TARGET-MODEL.gguf", **config.settings}
    assert engine_rules.llama_server(block.text)["--spec-draft-n-max"] == 5
    assert llamacpp.NO_SCHEDULE in config.notes
    assert "--draft-max" not in config.blocks[0].text  # removed at the cited commit
    for method in ("eagle", "ngram", "suffix"):
        assert llamacpp.llamacpp_config(method, None, 5, 4).blocks == ()


@pytest.mark.parametrize("batch", [1, 4, 5, 64, 1024])
def test_llama_server_gets_a_slot_for_every_request_of_the_batch(batch):
    """llama-server's auto default is 4 slots: the chain best at a larger batch comes with --parallel,
    and so does its synthetic run, whose requests in flight are that batch."""
    config = llamacpp.llamacpp_config("eagle3", "org/head", fixed_k=3, batch=batch)
    assert engine_rules.llamacpp_slots(config.settings) >= batch
    assert ("--parallel" in config.settings) == (batch > 4) == ("--kv-unified" in config.settings)
    runs = engines.synthetic_runs(
        0.8, [(1, 1024, 3)], "eagle3", "org/head", 3, batch, target="t", context=64, predicted_speedup=1.5
    )
    (run,) = [r for r in runs if r.engine == "llama.cpp"]
    served = sglang.read_flags(run.blocks[0].text.split("\\\n", 1)[1])
    assert engine_rules.llamacpp_slots(served) >= batch


# the synthetic-acceptance runs -------------------------------------------------------------


@pytest.mark.parametrize("acceptance", [0.8, (0.81, 0.64, 0.4)])
def test_every_engine_forces_the_predicted_mean_length_at_the_benchmarked_batch(acceptance):
    schedule = [(1, 8, 5), (9, 32, 3), (33, 64, 2)]
    runs = {
        run.engine: run
        for run in engines.synthetic_runs(
            acceptance, schedule, "eagle3", "org/head", 3, 16, target="org/target", context=512, predicted_speedup=1.5
        )
    }
    assert list(runs) == ["vLLM", "SGLang", "TensorRT-LLM", "llama.cpp"]
    u = specmath.calibration.extend_profile(acceptance, 5) if np.ndim(acceptance) else acceptance ** np.arange(1, 6)
    length = 1 + u[:3].sum()  # k = 3 at batch 16
    serve = runs["vLLM"].blocks[0].text
    config = vllm.read_flag(serve.removeprefix("vllm serve org/target "))
    engine_rules.vllm_check_config(config)
    rates = config["synthetic_acceptance_rates"]
    assert rates == pytest.approx(u, abs=5e-7) and 1 + sum(rates[:3]) == pytest.approx(length, abs=2e-6)
    assert "--max-concurrency 16" in runs["vLLM"].blocks[1].text
    assert f"SGLANG_SIMULATE_ACC_LEN={length:.4f} " in runs["SGLang"].blocks[0].text
    assert f"TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS={length - 1:.4f} " in runs["TensorRT-LLM"].blocks[0].text
    synth = runs["llama.cpp"].blocks[0].text.rsplit("--spec-synth-rates ", 1)[1].split(",")
    assert len(synth) == 3 and [float(r) for r in synth] == pytest.approx(u[:3], abs=5e-7)
    for run in runs.values():
        assert run.mean_length == pytest.approx(length, abs=1e-9)
        assert "1.50×" in run.compare


def test_trtllms_two_model_path_gets_a_whole_number_and_says_what_it_forces():
    (vllm_run, _sglang, trt_run) = engines.synthetic_runs(
        0.7, [(1, 64, 3)], "ngram", None, 3, 8, target="org/target", context=0, predicted_speedup=1.2
    )
    length = float(specmath.expected_tokens(0.7, 3))
    assert trt_run.blocks[0].text.startswith(f"TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS={round(length - 1)} ")
    assert trt_run.mean_length == round(length - 1) + 1 and "whole number" in trt_run.warnings[0]
    assert "--random-input-len 1" in vllm_run.blocks[1].text  # context 0: a one-token prompt


def test_a_target_on_several_gpus_is_served_and_benchmarked_on_them():
    """The serve commands carry the configs' tensor-parallel flag and trtllm-bench, which loads the
    model itself, its --tp; the benchmark clients take none; one GPU writes none."""
    schedule = [(1, 8, 5), (9, 64, 3)]
    common = ("draft_model", "org/draft", 3, 16)
    kwargs = {"target": "org/target", "context": 512, "predicted_speedup": 1.5}
    runs = {
        run.engine: run
        for run in engines.synthetic_runs(
            0.8, schedule, *common, **kwargs, tensor_parallel_size=4, draft_tensor_parallel_size=1
        )
    }
    configs = engines.engine_configs(schedule, *common, tensor_parallel_size=4, draft_tensor_parallel_size=1)
    serve, bench = (block.text for block in runs["vLLM"].blocks)
    served = engine_rules.vllm_serve(serve)
    assert served["model_tag"] == "org/target" and served["tensor_parallel_size"] == 4
    config = served["speculative_config"]
    assert config == configs[0].settings | {
        "rejection_sample_method": "synthetic",
        "synthetic_acceptance_rates": config["synthetic_acceptance_rates"],
    }
    assert config["draft_tensor_parallel_size"] == 1
    launch, client = (block.text for block in runs["SGLang"].blocks)
    assert engine_rules.sglang_launch(launch)["tp_size"] == 4
    (trt,) = (block.text for block in runs["TensorRT-LLM"].blocks)
    assert sglang.read_flags(trt.split(" \\\n", 1)[1])["--tp"] == "4"
    assert not [text for text in (bench, client) if "--tp" in text or "tensor-parallel" in text]
    assert "--tp" not in runs["llama.cpp"].blocks[0].text  # llama.cpp has no degree; its config says so
    single = engines.synthetic_runs(0.8, schedule, *common, **kwargs)
    assert single == engines.synthetic_runs(0.8, schedule, *common, **kwargs, tensor_parallel_size=1)
    assert not [b.text for run in single for b in run.blocks if "--tp" in b.text or "tensor-parallel" in b.text]
    with pytest.raises(ValueError, match="tensor_parallel_size"):
        engines.synthetic_runs(0.8, schedule, *common, **kwargs, tensor_parallel_size=0)


# the entry points and their checks -------------------------------------------------------


def test_engine_configs_come_in_engine_order_and_trees_only_from_sglang():
    configs = engines.engine_configs(roofline_schedule(), "draft_model", "meta-llama/Llama-3.2-1B", 4, 1)
    assert [c.engine for c in configs] == ["vLLM", "SGLang", "TensorRT-LLM", "llama.cpp"]
    trees = engines.tree_configs(5, 8, 32, "YOUR-EAGLE-HEAD")
    assert [bool(c.blocks) for c in trees] == [False, True, False, False]
    assert trees[1].settings["--speculative-num-draft-tokens"] == "32"
    # One command that serves the target on its GPUs, as SGLang's argument rules read it.
    (command,) = (
        block.text for block in engines.tree_configs(5, 8, 32, "h", target="t/x", tensor_parallel_size=8)[1].blocks
    )
    flags = engine_rules.sglang_launch(command)
    assert (flags["model_path"], flags["tp_size"], flags["speculative_eagle_topk"]) == ("t/x", 8, 8)


def _synthetic(acceptance=0.8, target="org/target", predicted_speedup=1.5):
    return engines.synthetic_runs(
        acceptance,
        [(1, 8, 3)],
        "eagle3",
        "org/head",
        3,
        4,
        target=target,
        context=64,
        predicted_speedup=predicted_speedup,
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: vllm.vllm_config([(2, 8, 3)], "eagle"), "schedule ranges must run on from batch 1"),
        (lambda: vllm.vllm_config([(1, 8, 3), (10, 20, 1)], "eagle"), r"start at 9\), got \(10, 20, 1\)"),
        (lambda: vllm.vllm_config([(1, 8, -1)], "eagle"), "schedule entries must be an integer"),
        (lambda: vllm.vllm_config([], "eagle"), "schedule must be a non-empty list"),
        (lambda: vllm.vllm_config([(1, 8, True)], "eagle"), "schedule entries must be an integer .*, got True"),
        (lambda: vllm.vllm_config([(1, 8, 3)], "medusa"), "method must be one of .*, got 'medusa'"),
        (lambda: vllm.vllm_config([(1, 8, 3)], "eagle", "a\nb"), r"model must be a repo id .*, got 'a\\nb'"),
        (lambda: vllm.vllm_config([(1, 8, 3)], "eagle", "-rf"), "model must be .*not starting with -.*, got '-rf'"),
        (lambda: vllm.vllm_config([(1, 8, 3)], "eagle", "x" * 201), "model must be .* 1 to 200 characters"),
        (lambda: vllm.vllm_config([(1, 8, 3)], "eagle", ""), "model must be .* 1 to 200 characters"),
        (lambda: vllm.vllm_config([(1, 8, 3)], "eagle", data_parallel_size=0), "data_parallel_size must be"),
        (lambda: vllm.vllm_config([(1, 8, 3)], "dflash"), "model must name the draft checkpoint .*, got None"),
        (lambda: sglang.sglang_config([(1, 8, 3)], "dflash", None, 3, 1), "model must name the draft checkpoint"),
        (lambda: sglang.tree_flags("NGRAM", "x", 1, 1, 2), "algorithm must be EAGLE or EAGLE3"),
        (lambda: engines.tree_configs(0, 1, 2, "x"), "steps must be an integer from 1"),
        (lambda: _synthetic(target="a\x00b"), r"target must be a repo id .*, got 'a\\x00b'"),
        (lambda: _synthetic(predicted_speedup=float("nan")), "predicted_speedup must be a finite number > 0"),
        (lambda: _synthetic(acceptance=1.5), "acceptance must be within"),
    ],
)
def test_bad_arguments_are_refused_naming_the_argument_and_value(call, message):
    with pytest.raises(ValueError, match=message):
        call()


#: Names a path may have, each written where a shell, JSON or YAML would read it otherwise. The
#: command substitutions print a word of their own if a shell ever runs them.
HOSTILE_NAMES = (
    "./my models/draft v2",
    "it's",
    'say "hi"',
    "$(echo ran)",
    "`echo ran`",
    "a;b|c&d>e",
    "back\\slash ~ * ?",
    "naïve/модель-草稿",
    "x: [1, {y}] # not a comment",
    "yes",
    "x" * 200,
)


def _bash_words(command: str) -> list[str]:
    """The words bash reads in ``command`` (with its line continuations), printed without running it."""
    out = subprocess.run(
        ["bash", "-c", "printf '%s\\0' " + command], capture_output=True, check=True, text=True, env={}
    )
    return out.stdout.split("\0")[:-1]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_any_name_a_path_may_have_reads_back_exactly_in_every_config(name):
    """What each engine reads is the name itself: one shell word in every command (read by bash),
    the JSON's and the YAML's string, never a message's Markdown."""
    schedule = [(1, 8, 4), (9, 64, 2)]
    configs = {c.engine: c for c in engines.engine_configs(schedule, "eagle3", name, 4, 1, target=name)}
    (vllm_command,) = (block.text for block in configs["vLLM"].blocks)
    assert vllm.read_flag(vllm_command)["model"] == name
    vllm_words = _bash_words(vllm_command)
    assert vllm_words[2] == name  # the target, vllm serve's model_tag
    assert json.loads(vllm_words[vllm_words.index("--speculative-config") + 1])["model"] == name
    sglang_flags = [block.text for block in configs["SGLang"].blocks if "--speculative-algorithm" in block.text]
    sglang_flags.append(engines.tree_configs(3, 2, 6, name, target=name)[1].blocks[0].text)
    for text in sglang_flags:  # the chain, the adaptive command, the tree
        words = _bash_words(text)
        assert words[words.index("--speculative-draft-model-path") + 1] == name
        assert sglang.read_flags(text)["--speculative-draft-model-path"] == name
        assert "--model-path" not in words or words[words.index("--model-path") + 1] == name
    yaml_block, serve, json_block = configs["TensorRT-LLM"].blocks
    assert yaml.safe_load(yaml_block.text)["speculative_config"]["speculative_model"] == name
    assert json.loads(json_block.text)["speculative_model"] == name
    assert _bash_words(serve.text)[1] == name
    cpp_words = _bash_words(configs["llama.cpp"].blocks[0].text)
    assert cpp_words[cpp_words.index("-m") + 1] == llamacpp.target_file(name)
    messages = [m for c in configs.values() for m in c.warnings + c.notes]
    assert all(name not in m for m in messages) or engines.configs.safe_name(name)
    runs = engines.synthetic_runs(0.8, schedule, "eagle3", name, 4, 1, target=name, context=64, predicted_speedup=1.5)
    for run in runs:
        loads = []
        for block in run.blocks:
            words = _bash_words(block.text)
            assert "ran" not in words
            loads += [words[i + 1] for i, word in enumerate(words) if word in ("--model-path", "--model")]
            if words[:2] == ["vllm", "serve"]:
                loads.append(words[2])
        # llama-server loads GGUF files, written as placeholders.
        assert set(loads) == (set() if run.engine == "llama.cpp" else {name}), run.engine


def test_numpy_integers_are_integers():
    """A sweep's k are NumPy integers: taken as the ints they are."""
    config = vllm.vllm_config([(np.int64(1), np.int64(8), np.int64(3))], "eagle3", "org/head", fixed_k=np.int64(3))
    assert json.loads(json.dumps(config.settings))["num_speculative_tokens_per_batch_size"] == [[1, 8, 3]]


# A separate draft model's vocabulary (issue 30) ------------------------------------------

PRESETS = specmath.MODEL_PRESETS


@pytest.mark.parametrize(
    ("target", "draft", "says"),
    [
        # One tokenizer, padded to 152,064 and 151,936 rows: vLLM's vocab_size check refuses it.
        ("Qwen2.5-7B", "Qwen2.5-0.5B", ["share the Qwen2.5 tokenizer", "151,936 and 152,064", "refuses"]),
        ("Llama-2-7B", "Llama-3.2-1B", ["different tokenizers (Llama 3 and Llama 2", "128,256 and 32,000"]),
        ("Llama-3.1-8B", "LLaMA-68M", ["different tokenizers (Llama 2 and Llama 3", "32,000 and 128,256"]),
    ],
)
def test_a_draft_of_another_vocabulary_is_refused_and_says_why(target, draft, says):
    problem = vocabulary_problem(PRESETS[target], PRESETS[draft])
    assert problem is not None
    for words in says:
        assert words in problem
    if "refuses" in says:
        assert "Target and draft model should have the same vocabulary size" in problem  # vLLM's own words


@pytest.mark.parametrize(
    ("target", "draft"),
    [("Llama-3.1-8B", "Llama-3.2-1B"), ("Llama-2-7B", "LLaMA-68M"), ("Llama-3.1-70B", "Llama-3.1-8B")],
)
def test_a_draft_of_the_targets_tokenizer_and_vocab_size_passes(target, draft):
    assert vocabulary_problem(PRESETS[target], PRESETS[draft]) is None


def test_another_tokenizer_of_the_same_size_is_never_a_plain_pass():
    """vLLM compares only vocab_size: it starts, with the draft's ids read in the target's tokenizer."""
    lookalike = dataclasses.replace(PRESETS["LLaMA-68M"], tokenizer="Mistral")
    problem = vocabulary_problem(PRESETS["Llama-2-7B"], lookalike)
    assert "different tokenizers (Mistral and Llama 2" in problem and "vLLM starts" in problem
    assert "SGLang's STANDALONE refuses" in problem


def test_an_unknown_vocabulary_is_not_taken_for_a_match():
    bare = specmath.ModelSpec("mine", parameters=1e8, layers=2, hidden=512, kv_heads=8, head_dim=64)
    for target, draft in ((PRESETS["Llama-3.1-8B"], bare), (bare, PRESETS["Llama-3.2-1B"])):
        assert "is not known" in vocabulary_problem(target, draft)


HEADS = [name for name, spec in PRESETS.items() if spec.is_head]


@pytest.mark.parametrize("head", HEADS)
def test_a_head_as_the_draft_model_is_said_to_be_a_head_not_an_unknown_vocabulary(head):
    """A head reads its target's vocabulary (vocab_size 0): what keeps it from being a draft model
    is that it has no forward pass of its own, and the method that runs it is said."""
    spec = PRESETS[head]
    method = {"EAGLE": "eagle", "EAGLE-3": "eagle3", "MTP": "mtp"}[spec.head]
    why = vocabulary_problem(PRESETS[spec.head_of], spec)
    assert "not known" not in why and "vocab_size" not in why
    assert f"is an {spec.head} head for {spec.head_of}, not a model on its own" in why
    assert why.endswith(f"method {method} runs it") and "trained for" not in why
    other = next(name for name in HEADS if PRESETS[name].head_of != spec.head_of)
    assert f"trained for {spec.head_of}, not {PRESETS[other].head_of}" in vocabulary_problem(
        PRESETS[PRESETS[other].head_of], spec
    )


def test_every_head_preset_names_its_target_and_has_its_tokenizer():
    assert {PRESETS[head].head for head in HEADS} == {"EAGLE", "EAGLE-3", "MTP"}  # every kind, whatever their number
    for head in HEADS:
        spec, target = PRESETS[head], PRESETS[PRESETS[head].head_of]
        assert spec.tokenizer == target.tokenizer and not target.is_head and spec.vocab_size == 0


def test_the_drafters_offered_instead_are_smaller_and_share_the_vocabulary():
    drafters = same_vocabulary_drafters
    assert drafters(PRESETS["Llama-2-7B"], PRESETS.values()) == ["LLaMA-68M"]
    assert drafters(PRESETS["Llama-3.1-70B"], PRESETS.values()) == ["Llama-3.1-8B", "Llama-3.2-1B"]
    assert drafters(PRESETS["Qwen2.5-7B"], PRESETS.values()) == []  # 0.5B's table is padded otherwise


# Tensor parallelism and drafter kinds ---------------------------------------------------------

LOADS = {"draft_model": "org/draft", "eagle3": "org/head", "mtp": None, "ngram": None, "dflash": "org/dflash"}


def test_one_gpu_writes_what_it_wrote_before_tensor_parallelism():
    schedule = roofline_schedule()
    for method, model in LOADS.items():
        plain = engines.engine_configs(schedule, method, model, 4, 16)
        assert engines.engine_configs(schedule, method, model, 4, 16, tensor_parallel_size=1) == plain
        assert (
            engines.engine_configs(schedule, method, model, 4, 16, tensor_parallel_size=1, draft_tensor_parallel_size=1)
            == plain
        )
        assert not any("GPU" in text for config in plain for text in (*config.warnings, *config.notes))


@pytest.mark.parametrize("method", list(LOADS))
@pytest.mark.parametrize("tp", [1, 2, 4, 8])
@pytest.mark.parametrize("draft_tp", [None, 1, 2, 4, 8])
def test_each_engine_serves_the_target_on_its_gpus_and_says_where_the_draft_runs_elsewhere(method, tp, draft_tp):
    schedule = [(1, 8, 4), (9, 64, 2)]
    vllm_cfg, sglang_cfg, trt_cfg, cpp_cfg = engines.engine_configs(
        schedule, method, LOADS[method], 3, 16, tensor_parallel_size=tp, draft_tensor_parallel_size=draft_tp
    )
    wanted = tp if draft_tp is None else draft_tp
    # The target's GPUs, in each engine's flag, as each engine parses its command (none on one GPU).
    readers = ((vllm_cfg, engine_rules.vllm_serve, "tensor_parallel_size"), (sglang_cfg, engine_rules.sglang_launch,
               "tp_size"), (trt_cfg, engine_rules.trtllm_serve, "tensor_parallel_size"))  # fmt: skip
    for config, parse, key in readers:
        for block in config.blocks:
            if block.language == "bash":
                assert parse(block.text)[key] == (tp if tp > 1 else None), config.engine
    # vLLM: a config its checks take, whose draft runs where the page says, else a warning.
    engine_rules.vllm_check_config(vllm_cfg.settings)
    runs = engine_rules.vllm_draft_tp(vllm_cfg.settings, tp)
    draft_warned = [w for w in vllm_cfg.warnings if "GPU" in w and "Model Runner V1" not in w]
    assert bool(draft_warned) == (runs is not None and runs != wanted)
    if "draft_tensor_parallel_size" in vllm_cfg.settings:  # written only where it changes what runs
        assert vllm_cfg.settings["draft_tensor_parallel_size"] == 1 != tp and method == "draft_model"
        assert any("Model Runner V1" in w for w in vllm_cfg.warnings)
    # SGLang and TensorRT-LLM draft on the target's GPUs: said wherever the page assumed others.
    loads_draft = method != "ngram"
    for config in (sglang_cfg, trt_cfg):
        said = [w for w in config.warnings if "tensor parallelism" in w]
        assert bool(said) == (loads_draft and wanted != tp), config.engine
    # llama.cpp has no degree to set: a note says what it has, and no flag pretends otherwise.
    noted = any("--split-mode" in note for note in cpp_cfg.notes)
    assert noted == (cpp_cfg.blocks != () and max(tp, wanted) > 1)
    assert all("split-mode" not in block.text for block in cpp_cfg.blocks)


@pytest.mark.parametrize(
    ("argument", "value"),
    [("tensor_parallel_size", 0), ("draft_tensor_parallel_size", 0), ("tensor_parallel_size", 2.0)],
)
def test_a_bad_tensor_parallel_size_is_refused_by_name(argument, value):
    with pytest.raises(ValueError, match=argument):
        engines.engine_configs([(1, 8, 4)], "draft_model", "org/d", 4, 1, **{argument: value})


def test_every_method_has_one_drafter_kind_and_a_mismatch_names_the_methods_of_the_kind():
    from engines.configs import METHOD_DRAFTERS, drafter_mismatch, methods_for

    assert set(METHOD_DRAFTERS) == set(engines.SPECULATIVE_METHODS)
    assert set(METHOD_DRAFTERS.values()) <= set(specmath.general.DRAFTERS)
    assert methods_for("model_free") == ("ngram", "suffix") and methods_for("parallel") == ("dflash",)
    assert all(methods_for(kind) for kind in specmath.general.DRAFTERS)  # every kind the page costs has a config
    for kind in specmath.general.DRAFTERS:
        for method in engines.SPECULATIVE_METHODS:
            message = drafter_mismatch(kind, method)
            assert (message is None) == (METHOD_DRAFTERS[method] == kind)
            if message:
                assert f"`{method}`" in message
                assert all(f"`{other}`" in message for other in methods_for(kind))
    assert "`dflash`" in drafter_mismatch("parallel", "draft_model")
    with pytest.raises(ValueError, match="drafter"):
        drafter_mismatch("block", "ngram")
    assert drafter_mismatch("parallel", "dflash") is None
    with pytest.raises(ValueError, match="method"):
        drafter_mismatch("parallel", "dspark")  # a block method the configs do not write


# DFlash, the block drafter -------------------------------------------------------------------


@given(schedules(max_k=15))
def test_vllm_dflash_drafts_the_scheduled_k_with_a_pass_as_wide_as_the_largest(schedule):
    config = vllm.vllm_config(schedule, "dflash", "z-lab/Qwen3-8B-DFlash-b16", fixed_k=1, batch=1)
    largest = max(k for _, _, k in schedule)
    if largest == 0:
        assert config.settings is None
        return
    engine_rules.vllm_check_config(config.settings)
    assert config.settings["method"] == "dflash" and config.settings["num_speculative_tokens"] == largest
    with pytest.raises(ValueError, match="model is required"):
        engine_rules.vllm_check_config({key: v for key, v in config.settings.items() if key != "model"})
    assert not config.warnings  # dflash is among Model Runner V1's scheduled methods too
    dense = engine_rules.vllm_dense_schedule(config.settings["num_speculative_tokens_per_batch_size"], 64, largest)
    assert dense[1:] == [scheduled_k(schedule, min(b, schedule[-1][1])) for b in range(1, 65)]
    (note,) = [n for n in config.notes if "DFlash" in n]
    assert f"one pass of {largest + 1} positions" in note and "keeps its" in note


def test_sglang_dflash_block_counts_the_anchor_and_adaptive_is_off():
    config = sglang.sglang_config([(1, 8, 7), (9, 64, 3)], "dflash", "org/dflash", fixed_k=3, batch=16)
    assert config.settings == {
        "--speculative-algorithm": "DFLASH",
        "--speculative-draft-model-path": "org/dflash",
        "--speculative-dflash-block-size": 4,
    }
    assert engine_rules.sglang_dflash_drafted(config.settings) == 3
    (block,) = config.blocks  # no adaptive file: SGLang runs adaptive with EAGLE and EAGLE3 only
    assert _speculative(block.text) == {flag: str(value) for flag, value in config.settings.items()}
    assert engine_rules.sglang_launch(block.text)["max_running_requests"] == 64
    assert "--speculative-num-steps" not in block.text  # SGLang forces DFLASH's steps to 1
    assert any("turns it off for DFLASH" in note for note in config.notes)
    dp = sglang.sglang_config([(1, 64, 3)], "dflash", "org/dflash", 3, 16, data_parallel_size=2)
    assert any("--enable-dp-lm-head" in w for w in dp.warnings)


@given(schedules(max_k=15))
def test_trtllm_dflash_passes_its_validator_with_the_schedule(schedule):
    config = trtllm.trtllm_config(schedule, "dflash", "org/dflash", fixed_k=1, batch=1)
    first = schedule[0][2]
    if first == 0:
        assert config.settings is None
        return
    settings = config.settings
    assert settings["decoding_type"] == "DFlash" and settings["speculative_model"] == "org/dflash"
    table = engine_rules.trtllm_check_schedule(settings["draft_len_schedule"], settings["max_draft_len"])
    for b in range(1, schedule[-1][1] + 1):
        assert engine_rules.trtllm_draft_len(table, b) == min(scheduled_k(schedule, b), first)
    assert yaml.safe_load(config.blocks[0].text) == {"speculative_config": settings}


def test_llamacpp_dflash_writes_its_spec_type_and_the_chosen_k():
    config = llamacpp.llamacpp_config("dflash", "z-lab/Qwen3-8B-DFlash-b16", fixed_k=6, batch=4)
    assert config.settings == {
        "--spec-type": "draft-dflash",
        "--spec-draft-model": "YOUR-DFLASH-DRAFT.gguf",
        "--spec-draft-n-max": "6",
        "--spec-draft-n-min": "0",
        "--spec-draft-p-min": "0.0",
    }
    assert engine_rules.llama_server(config.blocks[0].text)["--spec-draft-n-max"] == 6
    assert engine_rules.llamacpp_dflash_drafted(int(config.settings["--spec-draft-n-max"])) == 6
    assert any("block size less one" in note for note in config.notes)


def test_every_engine_forces_the_predicted_length_for_dflash():
    runs = engines.synthetic_runs(
        0.8, [(1, 8, 7), (9, 64, 3)], "dflash", "org/dflash", 3, 16, target="org/t", context=64, predicted_speedup=1.5
    )
    assert [run.engine for run in runs] == ["vLLM", "SGLang", "TensorRT-LLM", "llama.cpp"]
    length = float(specmath.expected_tokens(0.8, 3))
    assert all(run.mean_length == pytest.approx(length) and not run.warnings for run in runs)
    config = vllm.read_flag(runs[0].blocks[0].text.removeprefix("vllm serve org/t "))
    engine_rules.vllm_check_config(config)
    assert "--speculative-dflash-block-size 4" in runs[1].blocks[0].text


# The whole commands, parsed by each engine's own argument rules (issue 42 part 5) -----------

COMMANDS = engine_rules.COMMANDS


@given(
    schedules(),
    st.sampled_from(list(LOADS)),
    st.sampled_from(["meta-llama/Llama-3.1-8B", "./my models/target", "it's"]),
    st.integers(1, 8),
    st.integers(1, 300),
)
def test_every_command_parses_under_its_engines_rules_and_serves_the_target(schedule, method, target, tp, batch):
    configs = engines.engine_configs(schedule, method, LOADS[method], 2, batch, target=target, tensor_parallel_size=tp)
    for config in configs:
        parse, key = COMMANDS[config.engine]
        commands = [block.text for block in config.blocks if block.language == "bash"]
        assert len(commands) == (bool(config.blocks) + any(b.filename == sglang.ADAPTIVE_FILE for b in config.blocks))
        for text in commands:
            served = parse(text)
            wanted = llamacpp.target_file(target) if config.engine == "llama.cpp" else target
            assert served[key] == wanted, config.engine
        if config.engine == "vLLM" and commands:
            assert engine_rules.vllm_serve(commands[0])["speculative_config"] == config.settings
        read = set()  # the files the commands read: exactly those written beside them
        for text in commands:
            words = _bash_words(text)
            read |= {words[i + 1] for i, w in enumerate(words) if w in ("--speculative-adaptive-config", "--config",
                                                                          "--extra_llm_api_options")}  # fmt: skip
        assert read == {block.filename for block in config.blocks if block.filename}, config.engine


@pytest.mark.parametrize(
    ("parse", "command", "says"),
    [
        (engine_rules.vllm_serve, "vllm serve --speculative-config '{}'", "Qwen/Qwen3-0.6B"),
        (engine_rules.vllm_serve, "vllm serve m \\\n--num-speculative-tokens 3", "unrecognized"),
        (engine_rules.vllm_serve, "vllm serve m --max-num-seqs many", "invalid int"),
        (engine_rules.sglang_launch, "python -m sglang.launch_server --tp-size 2", "--model-path"),
        (engine_rules.sglang_launch, "python -m sglang.launch_server --model-path m --draft-max 3", "unrecognized"),
        (engine_rules.trtllm_serve, "trtllm-serve --tp_size 2", "MODEL"),
        (engine_rules.trtllm_serve, "trtllm-serve m --tensor-parallel-size 2", "unrecognized"),
        (engine_rules.llama_server, "llama-server --spec-draft-n-max 3", "router"),
        (engine_rules.llama_server, "llama-server -m m.gguf --draft-max 3", "invalid argument: --draft-max"),
        (engine_rules.llama_server, "llama-server -m m.gguf --parallel", "expected value"),
    ],
)
def test_a_command_without_its_model_or_with_a_flag_the_engine_lacks_is_refused(parse, command, says):
    with pytest.raises(ValueError, match=re.escape(says)):
        parse(command)


def test_without_a_target_the_commands_name_a_placeholder_not_nothing():
    for config in engines.engine_configs([(1, 8, 4)], "draft_model", "org/draft", 4, 1):
        parse, key = COMMANDS[config.engine]
        (text,) = [block.text for block in config.blocks if block.language == "bash"]
        assert "YOUR-TARGET-MODEL" in parse(text)[key]


# Which engine versions read the files as written ------------------------------------------


def test_sglang_before_0_5_13_ignores_the_slots_and_0_5_13_refuses_a_zero():
    schedule = [(1, 8, 4), (9, 32, 2), (33, 64, 0)]
    config = sglang.sglang_config(schedule, "eagle3", "org/head", 4, 1)
    (file,) = [b for b in config.blocks if b.filename == sglang.ADAPTIVE_FILE]
    document = json.loads(file.text)
    assert engine_rules.sglang_check_adaptive(document) == {1: [4], 9: [2], 33: [0]}  # 0.5.14 to 0.5.23
    assert engine_rules.sglang_0_5_12_candidates(document, initial_steps=4) == [1, 3, 4, 7]  # not the schedule
    with pytest.raises(ValueError, match="positive"):
        engine_rules.sglang_0_5_13_check_adaptive(document)
    (said,) = [note for note in config.notes if "0.5.12.post1" in note]
    assert "0.5.13 also refuses a slot of 0" in said
    positive = sglang.sglang_config(schedule[:2], "eagle3", "org/head", 4, 1)
    engine_rules.sglang_0_5_13_check_adaptive(json.loads(positive.blocks[1].text))
    assert not [note for note in positive.notes if "0.5.13 also refuses" in note]


@pytest.mark.parametrize("first_hi", [1, 8])
def test_trtllm_builds_before_pr_10860_refuse_the_schedule_or_read_it_a_range_late(first_hi):
    schedule = [(1, first_hi, 4), (first_hi + 1, 32, 2), (33, 64, 1)]
    config = trtllm.trtllm_config(schedule, "eagle3", "org/head", 4, 1)
    table, max_draft_len = config.settings["draft_len_schedule"], config.settings["max_draft_len"]
    engine_rules.trtllm_check_schedule(table, max_draft_len)  # 0004396: keys are upper bounds
    assert any("pull request 10860" in note for note in config.notes)
    if first_hi > 1:
        with pytest.raises(ValueError, match="must include batch_size=1"):
            engine_rules.trtllm_check_schedule_lower_bounds(table, max_draft_len)
        return
    old = engine_rules.trtllm_check_schedule_lower_bounds(table, max_draft_len)
    late = [b for b in range(1, 65) if engine_rules.trtllm_draft_len_lower_bounds(old, b) != scheduled_k(schedule, b)]
    assert late == [*range(2, 32), *range(33, 64)]  # each range's k from its last batch on


def test_trtllm_says_once_which_ranges_its_first_key_caps():
    """Five ranges above batch 1's k: one message naming each, with its k, and the k they get."""
    schedule = [(1, 8, 2), (9, 9, 3), (10, 11, 2), (12, 15, 4), (16, 16, 2), (17, 20, 3), (21, 22, 2),
                (23, 30, 5), (31, 31, 2), (32, 40, 3)]  # fmt: skip
    config = trtllm.trtllm_config(schedule, "eagle3", "org/head", 2, 1)
    (warning,) = config.warnings
    assert warning.endswith(
        "batch 9 (k 3), batches 12 to 15 (k 4), batches 17 to 20 (k 3), batches 23 to 30 (k 5) and "
        "batches 32 to 40 (k 3) get 2 instead."
    )
    table = engine_rules.trtllm_check_schedule(config.settings["draft_len_schedule"], 2)
    assert {engine_rules.trtllm_draft_len(table, b) for b in (9, 12, 15, 17, 23, 30, 32, 40)} == {2}  # as said


def test_a_measured_curve_forces_its_own_lengths_and_vllm_gets_its_differences():
    """A curve {k: AL} (issue 45): SGLang and TensorRT-LLM force its AL at the benchmarked k; vLLM and
    llama.cpp take u_i = AL(i) − AL(i − 1), unconditional as they read them, 0 past the curve's last k."""
    curve = {1: 1.8, 2: 2.4, 3: 2.85, 4: 3.15}  # rises 0.8, 0.6, 0.45, 0.3: no adjustment
    acc = specmath.acceptance(lengths=curve)
    schedule = [(1, 8, 6), (9, 64, 3)]
    runs = {
        run.engine: run
        for run in engines.synthetic_runs(
            acc, schedule, "eagle3", "org/head", 3, 16, target="org/target", context=512, predicted_speedup=1.5
        )
    }
    config = vllm.read_flag(runs["vLLM"].blocks[0].text.removeprefix("vllm serve org/target "))
    engine_rules.vllm_check_config(config)
    assert config["synthetic_acceptance_rates"] == [0.8, 0.6, 0.45, 0.3, 0.0, 0.0]
    assert "SGLANG_SIMULATE_ACC_LEN=2.8500 " in runs["SGLang"].blocks[0].text
    assert "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=1.8500 " in runs["TensorRT-LLM"].blocks[0].text
    assert runs["llama.cpp"].blocks[0].text.endswith("--spec-synth-rates 0.8,0.6,0.45")
    assert all(run.mean_length == pytest.approx(2.85, abs=1e-12) for run in runs.values())


def test_an_iid_acceptance_value_writes_what_its_float_writes():
    args = ([(1, 8, 5), (9, 64, 3)], "eagle3", "org/head", 3, 16)
    kwargs = {"target": "org/target", "context": 512, "predicted_speedup": 1.5}
    for alpha in (0.0, 0.37, 0.8, 1.0):
        assert engines.synthetic_runs(specmath.acceptance(alpha=alpha), *args, **kwargs) == engines.synthetic_runs(
            alpha, *args, **kwargs
        )
