"""The Verification rules page's chart builders (ECharts options), read back from their series."""

import json

import numpy as np

from dashboard import charts
from dashboard.charts.echart import as_figure
from dashboard.features import verification_rules as vr
from dashboard.params import PARAMS


def _traces(spec):
    return {t["name"]: t for t in as_figure(spec)["data"]}


def test_first_token_laws_draws_p_and_each_rule_and_lossless_bars_equal_p():
    p, q = vr.pair(vr.LOGIT_PRESETS["close"], 1.0)
    defaults = {key: PARAMS[key].default for keys in vr.LOSSY_KEYS.values() for key in keys.values()}
    laws = vr.first_token_laws(p, q, vr.lossy_settings(defaults, p.size))
    spec = charts.first_token_laws(["a", "b", "c", "d", "e"], p, laws, "x")
    traces = _traces(spec)
    assert set(traces) == {"target p", *laws}
    assert traces["target p"]["x"] == ["a", "b", "c", "d", "e"]
    np.testing.assert_array_equal(traces["target p"]["y"], p)
    for name in vr.LOSSLESS.values():
        np.testing.assert_allclose(traces[name]["y"], p, atol=1e-15)
    assert {s["type"] for s in spec["series"]} == {"bar"}  # grouped: ECharts puts bars of one category side by side


def test_alpha_against_temperature_has_one_line_per_rule_and_marks_t():
    curves = vr.alphas_over_temperature(vr.LOGIT_PRESETS["binary"])
    spec = charts.alpha_against_temperature(vr.TEMPERATURE_GRID, curves, 0.5, "x")
    assert [t["name"] for t in as_figure(spec)["data"]] == list(vr.LOSSLESS.values())
    assert [(d["xAxis"], d["label"]["formatter"]) for d in spec["series"][0]["markLine"]["data"]] == [(0.5, "T = 0.5")]
    # Binary pair at T = 1: rejection keeps Σ min = 2/3, greedy p(a) = 1/3, exact match 4/9.
    at_one = int(np.flatnonzero(vr.TEMPERATURE_GRID == 1.0)[0])
    got = [t["y"][at_one] for t in as_figure(spec)["data"]]
    np.testing.assert_allclose(got, [2 / 3, 1 / 3, 4 / 9])
    # Each point's hover says what it is, rounded as the page prints it.
    assert spec["series"][0]["data"][at_one]["tooltip"]["formatter"] == "rejection sampling\nT = 1.00\nα = 0.6667"


def test_rule_alphas_and_block_chart_hold_their_values():
    bars = as_figure(charts.rule_alphas({"a": 0.25, "b": 0.5}, "x"))["data"][0]
    assert bars["x"] == ["a", "b"] and bars["y"] == [0.25, 0.5]
    block = as_figure(charts.block_against_token(np.array([1, 2]), np.array([0.5, 0.7]), np.array([0.5, 0.8]), "x"))
    assert [t["name"] for t in block["data"]] == ["token verification", "block verification"]
    assert block["data"][1]["x"] == [1, 2] and block["data"][1]["y"] == [0.5, 0.8]


def test_options_are_json_whose_text_is_plain():
    """What st.echarts_chart takes: JSON without functions; a label from a link stays text (the
    tooltip is drawn as rich text, not HTML)."""
    spec = charts.rule_alphas({"<b>x</b>": 0.5}, "<i>y</i>")
    assert json.loads(json.dumps(spec)) == spec
    assert spec["tooltip"]["renderMode"] == "richText"
    assert spec["title"]["subtext"] == "<i>y</i>" and spec["xAxis"]["data"] == ["<b>x</b>"]
