"""The measured runs' loader, the Predictions page's pure computation and its chart builder."""

import json
import re

import numpy as np
import pytest

import specmath as sm
from dashboard import charts, texts
from dashboard.charts.predictions import SYMBOLS
from dashboard.features import predictions
from dashboard.measured import DATA_FILE, load_measured_runs
from specmath.predict import FITTED_OVERHEADS, fit_overheads


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda d: d["runs"][0].pop("speedup"), "lacks speedup"),
        (lambda d: d["runs"][0].update(source="nowhere"), "cites 'nowhere'"),
        (lambda d: d["runs"].append(dict(d["runs"][0])), "is given twice"),
        (lambda d: d["runs"][0].update(speedup=0), "speedup must be a number > 0"),
        (lambda d: d["sources"][d["runs"][0]["source"]].pop("url"), "lacks url"),
    ],
)
def test_a_bad_file_is_refused_naming_what_is_wrong(tmp_path, edit, said):
    document = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    edit(document)
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ValueError, match=said):
        load_measured_runs(path)


def test_errors_are_the_median_and_the_worst_of_the_absolute_errors():
    runs, sources = load_measured_runs()
    run = predictions.compare(runs, sources).priced[0].run  # the file's first run the model prices
    # The same run measured at three speedups: errors of predicted/measured − 1.
    copies = [run | {"id": f"copy {s}", "speedup": s} for s in (1.0, 1.5, 3.0)]
    comparison = predictions.compare(copies, sources)
    predicted = comparison.priced[0].prediction.speedup
    expected = sorted(abs(predicted / s - 1) * 100 for s in (1.0, 1.5, 3.0))
    summary = predictions.summarize(comparison)
    assert summary["all"] == (3, pytest.approx(expected[1]), pytest.approx(expected[2]))
    assert list(summary) == ["all", run["source"]]
    assert np.isnan(predictions.errors([]).median)


def test_the_chart_draws_each_run_by_source_and_group_with_the_diagonal():
    figure = charts.predicted_vs_measured(
        [1.2, 2.0, 0.9], [1.5, 1.8, 1.0], ["a", "b", "a"], ["dense, batch < 16", "MoE, batch ≥ 16", "MoE, batch < 16"],
        ["r1", "r2", "r3"],
    )  # fmt: skip
    by_name = {t.name: t for t in figure.data}
    assert list(by_name["a"].x) == [1.2, 0.9] and list(by_name["a"].y) == [1.5, 1.0]
    assert list(by_name["a"].marker.symbol) == [SYMBOLS["dense, batch < 16"], SYMBOLS["MoE, batch < 16"]]
    assert list(by_name["b"].marker.symbol) == [SYMBOLS["MoE, batch ≥ 16"]]
    diagonal = by_name["y = x: prediction right"]
    assert list(diagonal.x) == list(diagonal.y) and diagonal.x[-1] >= 2.0
    assert {"dense, batch < 16", "MoE, batch ≥ 16", "MoE, batch < 16"} <= set(by_name)


@pytest.mark.parametrize("count", [2, 8, 9, 10])
def test_each_source_has_a_colour_of_its_own(count):
    """Up to ten sources, no two share a colour (past eight, Okabe-Ito's set would repeat)."""
    sources = [f"source {i}" for i in range(count)]
    figure = charts.predicted_vs_measured([1.0] * count, [1.0] * count, sources, ["MoE, batch < 16"] * count, sources)
    colours = [t.marker.color for t in figure.data if t.name in sources]
    assert len(colours) == count == len(set(colours))


def test_the_fit_left_out_by_publisher_is_worse_than_the_roofline_alone_as_the_page_says():
    table = predictions.overhead_fits(predictions.compare(*load_measured_runs()))
    median = dict(zip(table["fit"], table["median %"].astype(float), strict=True))
    assert median["fitted, each publisher left out"] > median["roofline alone"] > median["fitted, in sample"]
    assert "worse than the roofline alone" in texts.PREDICTIONS_OVERHEADS


def test_the_default_overheads_are_the_fit_on_the_measured_runs():
    # FITTED_OVERHEADS is no typed guess: refit on the file's priced runs, the grid gives the same pair.
    comparison = predictions.compare(*load_measured_runs())
    runs = [p.run for p in comparison.priced]
    fit = fit_overheads(runs, [run["speedup"] for run in runs])
    assert fit.overheads == FITTED_OVERHEADS


def test_every_run_priced_far_off_gets_its_reason_with_the_measured_iteration():
    comparison = predictions.compare(*load_measured_runs())
    reasons = dict(predictions.far_off(comparison))
    off = [p for p in comparison.priced if abs(p.error_pct) > predictions.FAR_OFF_PCT]
    assert off and set(reasons) == {p.run["id"] for p in off}
    for p in off:  # the measured iteration in plain steps: accept length over measured speedup
        assert f"{p.run['mean_acceptance_length'] / p.run['speedup']:.2f}" in reasons[p.run["id"]]


def test_the_moe_kernel_the_page_clears_stays_near_its_weights_read_time():
    """vllm PR #24700's fused-MoE times (uniform routing) against the experts' read time the roofline
    gives at Qwen3-30B-A3B's shapes in FP8 on an H100: within 1.6x at 32 and at 512 tokens, as the
    page's words on the batch table say."""
    text = (DATA_FILE.parents[2] / "tests" / "fixtures" / "kernels" / "vllm_pr24700_fused_moe.txt").read_text("utf-8")
    times = {int(a): float(b) for a, b in re.findall(r"^Batch size: (\d+), Kernel time: ([\d.]+) us$", text, re.M)}
    model, gpu = sm.MODEL_PRESETS["Qwen3-30B-A3B"], sm.GPU_PRESETS["H100 SXM"]
    for tokens in (32, 512):
        woken = float(sm.expected_active_experts(model.routed_experts, model.experts_per_token, tokens))
        read_us = woken * model.expert_parameters * 1.0 / gpu.memory_bandwidth * 1e6  # FP8: a byte a weight
        assert 1.0 < times[tokens] / read_us < 1.6, tokens
    assert (times[32], times[512]) == (210.07, 286.24)
    assert "takes 210 µs for 32 tokens and 286 µs for 512, within 1.6×" in texts.PREDICTIONS_BATCHES
