"""Sweeps: SGLang's bench_speculative.py lines read, and handed to specmath's curve and measured schedule."""

import json
from pathlib import Path

import numpy as np
import pytest

import engines
import specmath as sm

FIXTURE = Path(__file__).parents[1] / "fixtures" / "engine_metrics" / "sglang_bench_speculative.jsonl"


def sweep_text() -> str:
    return FIXTURE.read_text(encoding="utf-8")


def runs() -> list[dict]:
    return [json.loads(line) for line in sweep_text().splitlines() if line.startswith("{")]


def test_the_fixture_is_read_run_by_run():
    sweep = engines.parse_engine_sweep(sweep_text())
    assert (sweep.engine, sweep.format, sweep.notes) == ("SGLang", "SGLang bench_speculative", ())
    assert len(sweep.batch) == 28  # 4 batch sizes × (a baseline, chains of 1 to 5, one tree)
    by_setting = {(r["batch_size"], r["steps"], r["topk"]): r for r in runs()}
    for b, k, topk, verified, length, time, tokens in zip(
        sweep.batch,
        sweep.draft_length,
        sweep.topk,
        sweep.draft_tokens,
        sweep.mean_acceptance_length,
        sweep.step_time_s,
        sweep.output_tokens,
        strict=True,
    ):
        run = by_setting[(b, k, topk)]  # chains here verify steps + 1 tokens: k = steps
        assert (verified, length, time, tokens) == (
            run["num_draft_tokens"],
            run["acc_length"],
            run["step_time"],
            run["completion_tokens"],
        )


def test_the_curve_pools_the_runs_of_a_length_by_their_steps():
    sweep = engines.parse_engine_sweep(sweep_text())
    curve = engines.acceptance_curve(sweep)
    np.testing.assert_array_equal(curve.k, [1, 2, 3, 4, 5])
    for i, k in enumerate(curve.k):
        chain = [r for r in runs() if r["steps"] == k and r["topk"] == 1]
        # b requests of t tokens at L tokens a step: b t / L steps; pooled, Σ b t / Σ (b t / L).
        steps = sum(r["batch_size"] * r["completion_tokens"] / r["acc_length"] for r in chain)
        tokens = sum(r["batch_size"] * r["completion_tokens"] for r in chain)
        assert curve.steps[i] == pytest.approx(steps)
        assert curve.mean_length[i] == pytest.approx(tokens / steps)
        assert curve.low[i] < curve.mean_length[i] < curve.high[i]


def test_the_schedule_is_the_best_measured_k_at_each_batch():
    sweep = engines.parse_engine_sweep(sweep_text())
    curve = engines.acceptance_curve(sweep)
    schedule = engines.measured_schedule(sweep, curve)
    np.testing.assert_array_equal(schedule.batch, [1, 8, 32, 128])
    time = {(r["batch_size"], r["steps"], r["topk"]): r["step_time"] for r in runs()}
    for i, b in enumerate(schedule.batch):
        for j, k in enumerate(curve.k):  # S_b(k) = L(k) T_b(0) / T_b(k)
            expected = curve.mean_length[j] * time[(b, 0, 0)] / time[(b, k, 1)]
            assert schedule.speedup[i, j] == pytest.approx(expected)
    np.testing.assert_array_equal(schedule.best_k, np.argmax(schedule.speedup, axis=1) + 1)
    assert schedule.best_speedup[-1] < 1  # at batch 128 nothing beats plain decoding
    assert schedule.schedule == sm.batch_k_schedule(schedule.batch, schedule.best_k, schedule.best_speedup)
    assert schedule.schedule[-1] == (128, 128, 0) and schedule.without_baseline == ()


def test_a_schedule_needs_a_baseline():
    lines = [line for line in sweep_text().splitlines() if '"steps": 0' not in line]
    sweep = engines.parse_engine_sweep("\n".join(lines))
    with pytest.raises(ValueError, match="no batch size with both a run without speculation and a chain run"):
        engines.measured_schedule(sweep, engines.acceptance_curve(sweep))
    with pytest.raises(ValueError, match=r"^measured must be an EngineSweep or an EngineMetrics, got str"):
        engines.acceptance_curve("a sweep")


GOOD = {"batch_size": 4, "steps": 3, "topk": 1, "num_draft_tokens": 4, "acc_length": 2.5, "step_time": 0.012}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({k: v for k, v in GOOD.items() if k != "step_time"}, r"a run needs .*; line 1 lacks step_time"),
        (GOOD | {"batch_size": 0}, r"batch_size must be a whole number from 1 to 1,000,000, got 0 \(line 1\)"),
        (GOOD | {"batch_size": True}, r"batch_size must be a whole number"),
        (GOOD | {"steps": 2.5}, r"steps must be a whole number"),
        (GOOD | {"acc_length": 5.2}, r"acc_length must be within \[1, 4\]"),
        (GOOD | {"acc_length": float("nan")}, r"acc_length must be a finite number above 0, got nan"),
        (GOOD | {"step_time": 0}, r"step_time must be a finite number above 0, got 0"),
        (GOOD | {"step_time": "fast"}, r"step_time must be a finite number above 0, got 'fast'"),
        (GOOD | {"topk": 0}, r"is not a run bench_speculative makes"),
        (GOOD | {"num_draft_tokens": 9}, r"is not a run bench_speculative makes"),
        (GOOD | {"completion_tokens": -3}, r"completion_tokens must be a finite number above 0"),
        (GOOD | {"batch_size": 10**30}, r"batch_size must be a whole number from 1 to 1,000,000"),
        (GOOD | {"steps": 5000, "num_draft_tokens": 5001}, r"steps = 5000 is a draft longer than this library takes"),
    ],
)
def test_impossible_runs_name_the_field_and_line(line, message):
    with pytest.raises(ValueError, match=message):
        engines.parse_engine_sweep(json.dumps(line) + "\n")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello",
        '{"acc_length": ' + "[" * 100_000,
        '{"batch_size": 1, "acc_length": 2.0',
        json.dumps([GOOD]),  # a list, not a line per run
    ],
)
def test_text_without_a_run_says_what_a_run_is(text):
    with pytest.raises(ValueError, match=r"no bench_speculative.py runs found|a run needs"):
        engines.parse_engine_sweep(text)


def test_a_cut_line_is_skipped_and_a_repeat_replaces():
    text = json.dumps(GOOD) + "\n" + json.dumps(GOOD | {"acc_length": 2.6}) + "\n" + json.dumps(GOOD)[:-10]
    sweep = engines.parse_engine_sweep(text)
    assert sweep.mean_acceptance_length == (2.6,)
    assert any("not whole JSON (line 3)" in note for note in sweep.notes)
    assert any("repeat an earlier setting" in note for note in sweep.notes)


def test_a_record_that_says_each_steps_draft_length_gives_its_curve():
    # vLLM's detailed per-request metrics (the fixture of test_engine_metrics): 100 steps drafted 2
    # tokens and accepted 131, 105 drafted 4 and accepted 174.
    metrics = engines.parse_engine_metrics((FIXTURE.parent / "vllm_per_request.jsonl").read_text(encoding="utf-8"))
    curve = engines.acceptance_curve(metrics)
    np.testing.assert_array_equal(curve.k, [2, 4])
    np.testing.assert_allclose(curve.mean_length, [1 + 131 / 100, 1 + 174 / 105])
    for i, (k, n, a) in enumerate(((2, 100, 131), (4, 105, 174))):
        fit = sm.alpha_interval(a, n, k)
        assert (curve.low[i], curve.high[i]) == pytest.approx(tuple(sm.expected_tokens([fit.low, fit.high], k)))
    with pytest.raises(ValueError, match=r"^measured has no acceptance by draft length"):
        engines.acceptance_curve(engines.parse_engine_metrics((FIXTURE.parent / "vllm_v1_single.txt").read_text()))
