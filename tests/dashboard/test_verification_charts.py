"""The Verification rules page's figure builders, read back from their traces."""

import numpy as np

from dashboard import charts
from dashboard.features import verification_rules as vr
from dashboard.params import PARAMS


def _by_name(figure):
    return {t.name: t for t in figure.data}


def test_first_token_laws_draws_p_and_each_rule_and_lossless_bars_equal_p():
    p, q = vr.pair(vr.LOGIT_PRESETS["close"], 1.0)
    defaults = {key: PARAMS[key].default for keys in vr.LOSSY_KEYS.values() for key in keys.values()}
    laws = vr.first_token_laws(p, q, vr.lossy_settings(defaults, p.size))
    figure = charts.first_token_laws(["a", "b", "c", "d", "e"], p, laws, "x")
    traces = _by_name(figure)
    assert set(traces) == {"target p", *laws}
    np.testing.assert_array_equal(traces["target p"].y, p)
    for name in vr.LOSSLESS.values():
        np.testing.assert_allclose(traces[name].y, p, atol=1e-15)
    assert figure.layout.barmode == "group"


def test_alpha_against_temperature_has_one_line_per_rule_and_marks_t():
    curves = vr.alphas_over_temperature(vr.LOGIT_PRESETS["binary"])
    figure = charts.alpha_against_temperature(vr.TEMPERATURE_GRID, curves, 0.5, "x")
    assert [t.name for t in figure.data] == list(vr.LOSSLESS.values())
    assert figure.layout.shapes[0].x0 == 0.5
    # Binary pair at T = 1: rejection keeps Σ min = 2/3, greedy p(a) = 1/3, exact match 4/9.
    at_one = int(np.flatnonzero(vr.TEMPERATURE_GRID == 1.0)[0])
    got = [t.y[at_one] for t in figure.data]
    np.testing.assert_allclose(got, [2 / 3, 1 / 3, 4 / 9])


def test_rule_alphas_and_block_chart_hold_their_values():
    bars = charts.rule_alphas({"a": 0.25, "b": 0.5}, "x").data[0]
    assert list(bars.x) == ["a", "b"] and list(bars.y) == [0.25, 0.5]
    block = charts.block_against_token(np.array([1, 2]), np.array([0.5, 0.7]), np.array([0.5, 0.8]), "x")
    assert [t.name for t in block.data] == ["token verification", "block verification"]
    np.testing.assert_array_equal(block.data[1].y, [0.5, 0.8])
