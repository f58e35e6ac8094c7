"""The Speedup page under AppTest: its numbers move with α, k, c and the comparison set as the formulas say."""

import csv
import json

import numpy as np
import pytest

import specmath
from dashboard.features.speedup import DATA_FILE
from dashboard.texts import PUBLISHED_EXPLAINER
from tests.app_helpers import (
    SPEEDUP,
    metrics,
    open_page,
    page_charts,
    trace,
    values,
    warnings,
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


# --- Published results beside the curves ---------------------------------------------------

CURVE_MARKERS = {"best k of each curve"}


def _published_traces(figure: dict) -> list[dict]:
    """The chart's marker traces other than the best-k stars and the chosen-k marker."""
    return [
        t
        for t in figure["data"]
        if t.get("mode") == "markers" and t["name"] not in CURVE_MARKERS and not t["name"].startswith("chosen k")
    ]


def _csv_rows() -> list[dict]:
    """The data file's rows, read with the csv module alone."""
    with DATA_FILE.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_published_results_are_off_by_default():
    at = open_page(SPEEDUP)
    assert at.toggle(key="published").value is False
    assert _published_traces(page_charts(at)[0]) == []
    assert not at.table
    assert PUBLISHED_EXPLAINER not in [m.value for m in at.markdown]


def test_published_results_toggle_on_draws_exactly_the_csv_rows_with_a_k():
    at = open_page(SPEEDUP)
    at.toggle(key="published").set_value(True).run()
    assert not at.exception and not warnings(at)
    figure = page_charts(at)[0]
    points = _published_traces(figure)
    drawn = sorted(
        (t["name"].split("<br>")[0], int(x), float(y)) for t in points for x, y in zip(t["x"], t["y"], strict=True)
    )
    rows = [r for r in _csv_rows() if r["k"]]
    expected = sorted((r["paper"].split(",")[0], int(r["k"]), float(r["speedup"])) for r in rows)
    assert drawn == expected and len(drawn) == 15
    # Each hover cites its row: table, models, task, decoding, α, k and the printed speedup.
    hovers = [h for t in points for h in t["customdata"]]
    for row, hover in zip(sorted(rows, key=lambda r: r["source"] != "leviathan2023"), hovers, strict=True):
        for part in (row["table"], row["model_draft"], row["model_target"], row["task"], row["decoding"]):
            assert part in hover, (part, hover)
        assert f"k = {row['k']} · measured speedup <b>{float(row['speedup']):g}×</b>" in hover
        assert (f"α = {float(row['alpha']):g}" if row["alpha"] else "α not given") in hover
        assert "not your c" in hover
    # The curves and the user's numbers are as without the points.
    _speedup_numbers(at, 0.8, 8, 20)
    assert figure["layout"]["yaxis"]["range"][1] >= max(float(r["speedup"]) for r in rows)
    assert PUBLISHED_EXPLAINER in [m.value for m in at.markdown]
    assert any("not at yours" in m.value for m in at.markdown)
    assert json.loads(at.get("plotly_chart")[0].proto.config)["toImageButtonOptions"]["filename"].endswith("_published")


def test_published_results_without_a_k_are_in_a_table():
    at = open_page(SPEEDUP, published="true")
    assert not warnings(at)
    (table,) = at.table
    frame = table.value
    rows = [r for r in _csv_rows() if not r["k"]]
    assert list(frame["method"]) == [r["method"] for r in rows]
    assert list(frame["draft"]) == [r["model_draft"] for r in rows]
    # As the leaderboard prints them (two decimals).
    assert list(frame["tokens per target call"]) == [r["mean_accepted_tokens"] for r in rows]
    assert list(frame["measured speedup"]) == [f"{r['speedup']}×" for r in rows]
    assert any("Spec-Bench" in c.value and "Vicuna-7B-v1.3" in c.value for c in at.caption)
    assert any("no fixed draft length k" in m.value for m in at.markdown)


def test_published_results_off_again_leave_the_default_chart():
    default = page_charts(open_page(SPEEDUP))[0]
    at = open_page(SPEEDUP, published="true")
    at.toggle(key="published").set_value(False).run()
    assert page_charts(at)[0] == default
