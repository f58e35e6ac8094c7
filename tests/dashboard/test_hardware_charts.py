"""The Hardware page's builders (speedup curves, the batch sweep, the verification cost; experts,
tensor parallelism and long contexts) hold their numbers and their marks, read from the ECharts
options as plotly figures (``echart.as_figure``) where a trace says it, from the option where a mark does."""

import json

import numpy as np
import pytest

from dashboard import charts
from dashboard.charts import echart
from dashboard.charts.style import SLOWER_FILL

BATCHES = np.array([1, 2, 4, 8, 16])


def _marks(spec: dict, kind: str) -> list:
    """Every ``kind`` ("markLine" or "markArea") data item of the option's series."""
    return [item for series in spec["series"] for item in series.get(kind, {}).get("data", [])]


def _slower_region(spec: dict) -> None:
    """The region slower than plain decoding, shaded up to 1, and the line at 1."""
    assert [[0.0, SLOWER_FILL], [1.0, None]] in [
        [[a.get("yAxis"), a.get("itemStyle", {}).get("color")] for a in area] for area in _marks(spec, "markArea")
    ]
    assert any(line.get("yAxis") == 1.0 for line in _marks(spec, "markLine"))


def test_hardware_speedup_holds_both_curves_and_the_stars_given():
    k = np.arange(1, 6)
    spec = charts.hardware_speedup(k, k * 1.0, k * 0.5, {"roofline": (2, 1.0)}, 0.8, 3, "label")
    json.dumps(spec, allow_nan=False)  # what st.echarts_chart takes
    fig = echart.as_figure(spec)
    assert [t["name"] for t in fig["data"]] == ["free verification", "roofline", "best k"]
    np.testing.assert_array_equal(fig["data"][0]["y"], k * 1.0)
    np.testing.assert_array_equal(fig["data"][1]["y"], k * 0.5)
    # Lines, as plotly drew them: each point's marker unseen until hovered, where its tooltip opens.
    assert [t["mode"] for t in fig["data"][:2]] == ["lines", "lines"]
    assert all(s["showSymbol"] and s["itemStyle"]["opacity"] == 0 for s in spec["series"][:2])
    stars = fig["data"][2]
    assert (stars["x"], stars["y"], stars["customdata"]) == ([2], [1.0], [["roofline"]])
    assert spec["series"][2]["data"][0]["tooltip"]["formatter"] == "roofline: best k = 2, 1.000×"
    assert spec["series"][0]["data"][2]["tooltip"]["formatter"] == "free verification\nk = 3\nspeedup 3.000×"
    assert spec["series"][0]["lineStyle"]["type"] == "dotted" and spec["series"][1]["lineStyle"]["type"] == "solid"
    (chosen,) = [line for line in _marks(spec, "markLine") if "xAxis" in line]
    assert (chosen["xAxis"], chosen["label"]["formatter"]) == (3.0, "k = 3")
    _slower_region(spec)
    assert fig["layout"]["title"] == {"text": "Speedup vs draft length · α = 0.8", "subtitle": {"text": "label"}}


def test_verification_cost_marks_one_draft_step_and_the_ridge_when_it_is_on_the_axis():
    widths = np.arange(2, 10)
    spec = charts.verification_cost(widths, widths * 0.5, 1.25, 6.5)
    (curve,) = echart.as_figure(spec)["data"]
    assert curve["name"] == "target pass over w positions" and curve["mode"] == "lines+markers"
    np.testing.assert_array_equal(curve["y"], widths * 0.5)
    step, ridge = _marks(spec, "markLine")
    assert (step["yAxis"], step["label"]["formatter"]) == (1.25, "one draft step: 1.250 ms")
    assert (ridge["xAxis"], ridge["label"]["formatter"]) == (6.5, "compute-bound →")
    # Past the last width the ridge is not drawn.
    assert len(_marks(charts.verification_cost(widths, widths * 0.5, 1.25, 12.0), "markLine")) == 1


def test_verification_by_batch_draws_one_line_per_model_over_a_log_batch_axis():
    ratios = {"moe": np.array([2.6, 2.6, 2.2, 1.5, 1.1]), "dense moe": np.ones(5)}
    spec = charts.verification_by_batch(BATCHES, ratios, 4, "moe on H100 SXM")
    fig = echart.as_figure(spec)
    assert [t["name"] for t in fig["data"]] == ["moe", "dense moe"]
    for trace, expected in zip(fig["data"], ratios.values(), strict=True):
        np.testing.assert_array_equal(trace["x"], BATCHES)
        np.testing.assert_array_equal(trace["y"], expected)
    assert [s["lineStyle"]["type"] for s in spec["series"]] == ["solid", "dotted"]
    # A tick at each power of two: the batches offered.
    assert fig["layout"]["xaxis"]["type"] == "log" and spec["xAxis"]["logBase"] == 2
    assert fig["layout"]["title"]["text"] == "Verification cost against the batch · k = 4"
    assert "k + 1 = 5" in spec["yAxis"]["name"]
    # Free verification, T(k + 1) = T(1); its label under the rule, where no ratio (>= 1) runs.
    (rule,) = _marks(spec, "markLine")
    assert (rule["yAxis"], rule["label"]["formatter"], rule["label"]["position"]) == (
        1.0,
        "free verification",
        "insideEndBottom",
    )
    # The page's batch, where given, marked across the plot.
    marked = charts.verification_by_batch(BATCHES, ratios, 4, "moe on H100 SXM", chosen_batch=8)
    (_, batch_rule) = _marks(marked, "markLine")
    assert (batch_rule["xAxis"], batch_rule["label"]["formatter"]) == (8.0, "batch 8")


def test_batch_sweep_marks_the_crossover_at_its_batch():
    batch = 2 ** np.arange(11)
    best_k = np.array([4, 4, 4, 4, 4, 4, 4, 2, 1, 1, 1])
    best = np.linspace(1.8, 0.7, 11)
    spec = charts.batch_sweep(batch, best_k, best, 512, 0.5, "label")
    fig = echart.as_figure(spec)
    np.testing.assert_array_equal(fig["data"][0]["y"], best)
    np.testing.assert_array_equal(fig["data"][1]["y"], best_k)
    assert fig["layout"]["xaxis"]["type"] == "log"
    (rule,) = [line for line in _marks(spec, "markLine") if "xAxis" in line]
    assert rule["xAxis"] == 512 and "batch 512" in rule["label"]["formatter"]
    _slower_region(spec)  # speedup < 1 on the speedup axis, the first
    assert "yAxisIndex" not in spec["series"][0] and spec["series"][1]["yAxisIndex"] == 1
    k_axis = spec["yAxis"][1]
    assert (k_axis["min"], k_axis["interval"]) == (0, 1)  # whole draft lengths
    assert not [
        line for line in _marks(charts.batch_sweep(batch, best_k, best, None, 0.5, ""), "markLine") if "xAxis" in line
    ]


def test_batch_sweep_greys_out_batches_that_do_not_fit():
    batch = 2 ** np.arange(11)
    best_k, best = np.full(11, 3), np.linspace(2.0, 1.5, 11)
    fits = batch <= 256
    spec = charts.batch_sweep(batch, best_k, best, None, 0.8, "label", fits=fits)
    ((start, end),) = [area for area in _marks(spec, "markArea") if "xAxis" in area[0]]
    # From between 256 and 512 to the end.
    assert start["xAxis"] == pytest.approx(np.sqrt(256 * 512)) and end["xAxis"] == 1024
    assert "does not" in start["name"]
    for all_fit in (None, np.ones(11, dtype=bool)):
        spec = charts.batch_sweep(batch, best_k, best, None, 0.8, "label", fits=all_fit)
        assert not [area for area in _marks(spec, "markArea") if "xAxis" in area[0]]


def _lightest(colours: list[str]) -> int:
    return int(np.argmax([sum(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in colours]))


def test_batch_context_map_colours_the_speedup_and_labels_each_cell_with_its_k():
    contexts = np.array([0, 1024, 131072])
    best_k = np.array([[5, 4, 3, 2, 1], [6, 5, 5, 4, 4], [7, 7, 7, 7, 7]])
    best = np.array([[2.0, 1.7, 1.3, 1.0, 0.8], [2.2, 2.0, 1.8, 1.6, 1.5], [2.5, 2.5, 2.5, 2.5, 2.5]])
    fits = np.ones(best.shape, dtype=bool)
    fits[2, 3:] = False
    spec = charts.batch_context_map(BATCHES, contexts, best_k, best, fits, 0.8, "label")
    json.dumps(spec, allow_nan=False)
    (heat,) = echart.as_figure(spec)["data"]
    np.testing.assert_array_equal(heat["z"], best)
    np.testing.assert_array_equal(heat["customdata"], best_k)
    assert heat["x"] == ["1", "2", "4", "8", "16"] and heat["y"] == ["0", "1024", "131072"]
    # No k pays at 1.0 and below: "–", the schedule's k = 0; a target that does not fit: "*".
    assert heat["text"][0] == ["5", "4", "3", "–", "–"]
    assert heat["text"][2] == ["7", "7", "7", "7*", "7*"]
    (cell,) = [item for item in spec["series"][0]["data"] if item["value"][:2] == [4, 0]]
    assert cell["tooltip"]["formatter"] == "batch 16, context 0\nbest k = 1: 0.800×"
    # The colours diverge at a speedup of 1: red at 0, blue at the largest, white (the lightest) at 1.
    scale = spec["visualMap"]
    assert (scale["min"], scale["max"], scale["dimension"]) == (0.0, 2.5, 2)
    colours = scale["inRange"]["color"]
    assert (colours[0], colours[-1]) == ("#B2182B", "#2166AC")
    assert _lightest(colours) / (len(colours) - 1) == pytest.approx(1 / 2.5, abs=0.5 / (len(colours) - 1))


def test_batch_context_map_keeps_break_even_inside_the_scale_when_nothing_pays():
    best = np.full((1, 5), 0.6)
    spec = charts.batch_context_map(BATCHES, np.array([0]), np.ones((1, 5), int), best, best > 0, 0.8, "")
    (heat,) = echart.as_figure(spec)["data"]
    assert spec["visualMap"]["max"] > 1.0 and all(label == "–" for label in heat["text"][0])


def test_colour_at_interpolates_between_the_stops_either_side():
    stops = ((0.0, "#000000"), (0.25, "#FF0000"), (1.0, "#FFFFFF"))
    assert [echart.colour_at(stops, t) for t in (0.0, 0.125, 0.25, 0.625, 1.0, 2.0)] == [
        "#000000", "#800000", "#FF0000", "#FF8080", "#FFFFFF", "#FFFFFF",
    ]  # fmt: skip
