"""The Speedup page under AppTest: its numbers move with α, k, c and the comparison set as the formulas say."""

import numpy as np
import pytest

import specmath
from tests.app_helpers import (
    SPEEDUP,
    metrics,
    open_page,
    page_charts,
    trace,
    values,
)

K_AXIS = np.arange(1, 65)


def _speedup_numbers(at, alpha, k, c):
    m = metrics(at)
    assert m[f"Speedup at k = {k}"] == f"{specmath.speedup(alpha, k, c):.2f}×"
    assert m["Expected tokens per target call"] == f"{specmath.expected_tokens(alpha, k):.2f}"
    best_k, best = specmath.optimal_k(alpha, c, max_k=64)
    assert m[f"Best k for α = {alpha:g}, c = {c:g}"] == f"{best_k} → {best:.2f}×"
    figure = page_charts(at)[0]
    chosen = trace(figure, f"α = {alpha:g} (chosen)")
    np.testing.assert_array_equal(values(chosen["x"]), K_AXIS)
    np.testing.assert_array_equal(values(chosen["y"]), specmath.speedup(alpha, K_AXIS, c))
    marker = trace(figure, f"chosen k = {k}")
    assert values(marker["y"])[0] == specmath.speedup(alpha, k, c)
    assert f"α = {alpha:g}, k = {k}, c = {c:g}" in figure["layout"]["title"]["subtitle"]["text"]


def test_speedup_defaults_are_the_chapter_example():
    at = open_page(SPEEDUP)
    assert metrics(at)["Speedup at k = 8"] == "3.09×"
    _speedup_numbers(at, 0.8, 8, 20)


@pytest.mark.parametrize(("widget", "value"), [("alpha", 0.55), ("alpha", 0.0), ("alpha", 1.0), ("k", 30)])
def test_speedup_sliders_move_the_numbers(widget, value):
    at = open_page(SPEEDUP)
    at.slider(key=widget).set_value(value).run()
    settings = {"alpha": 0.8, "k": 8, "c": 20} | {widget: value}
    _speedup_numbers(at, settings["alpha"], settings["k"], settings["c"])


def test_speedup_at_alpha_one_is_exact():
    at = open_page(SPEEDUP, alpha="1.0", k="8")
    assert metrics(at)["Expected tokens per target call"] == "9.00"
    assert metrics(at)["Speedup at k = 8"] == f"{9 / 1.4:.2f}×"


def test_speedup_cost_ratio_slider():
    at = open_page(SPEEDUP)
    at.select_slider(key="c").set_value(2.5).run()
    _speedup_numbers(at, 0.8, 8, 2.5)
    assert metrics(at)["Leviathan et al. c (draft / target)"] == "0.4"


def test_speedup_comparison_set_is_editable():
    at = open_page(SPEEDUP)
    names = {t["name"] for t in page_charts(at)[0]["data"]}
    assert {"α = 0.5", "α = 0.6", "α = 0.7", "α = 0.9"} <= names
    at.multiselect(key="compare").set_value([0.3, 0.95]).run()
    figure = page_charts(at)[0]
    names = {t["name"] for t in figure["data"]}
    assert {"α = 0.3", "α = 0.95", "α = 0.8 (chosen)"} <= names
    assert "α = 0.5" not in names
    np.testing.assert_array_equal(values(trace(figure, "α = 0.3")["y"]), specmath.speedup(0.3, K_AXIS, 20))
    stars = trace(figure, "best k of each curve")
    expected_k, expected_s = specmath.optimal_k(np.array([0.3, 0.8, 0.95]), 20, max_k=64)
    np.testing.assert_array_equal(values(stars["x"]), expected_k)
    np.testing.assert_array_equal(values(stars["y"]), expected_s)
