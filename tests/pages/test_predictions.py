"""The Predictions vs measurements page under AppTest: its errors recomputed from the data file with
specmath.predict_speedup (not the page's helpers), its chart's points, and the runs it cannot price."""

import json
from pathlib import Path

import numpy as np
import pytest

import specmath
from tests.app_helpers import metrics, open_page, page_charts, shown, values

DATA = Path(__file__).resolve().parents[2] / "dashboard" / "data" / "measured_runs.json"
PAGE = "predictions"


def priced_runs():
    """(run, predicted) for each run of the file predict_speedup prices, and (run, message) for the others."""
    document = json.loads(DATA.read_text(encoding="utf-8"))
    priced, refused = [], []
    for run in document["runs"]:
        try:
            priced.append((run, specmath.predict_speedup(run)))
        except ValueError as error:
            refused.append((run, str(error)))
    return priced, refused


def absolute_errors(priced):
    return np.array([abs(predicted - run["speedup"]) / run["speedup"] * 100 for run, predicted in priced])


@pytest.fixture(scope="module")
def page():
    at = open_page(PAGE)
    assert not at.exception
    return at


def test_the_median_and_worst_error_are_the_files(page):
    priced, refused = priced_runs()
    assert priced, "the file has a run the model prices"
    errors = absolute_errors(priced)
    shown_metrics = metrics(page)
    assert shown_metrics["Runs priced"] == f"{len(priced)} of {len(priced) + len(refused)}"
    assert shown_metrics["Median |error|"] == f"{np.median(errors):.1f} %"
    assert shown_metrics["Worst |error|"] == f"{errors.max():.1f} %"


def test_each_sources_errors_are_its_runs(page):
    priced, _ = priced_runs()
    table = page.table[0].value.set_index("runs of")
    for source in {run["source"] for run, _ in priced}:
        errors = absolute_errors([(run, p) for run, p in priced if run["source"] == source])
        assert table.loc[source, "priced"] == errors.size
        assert table.loc[source, "median %"] == round(float(np.median(errors)), 1)
        assert table.loc[source, "worst %"] == round(float(errors.max()), 1)


def test_the_chart_puts_each_run_at_predicted_measured(page):
    priced, _ = priced_runs()
    (figure,) = page_charts(page)
    points = [t for t in figure["data"] if t.get("mode") == "markers" and t["x"] != [None]]
    xs = np.concatenate([values(t["x"]) for t in points])
    ys = np.concatenate([values(t["y"]) for t in points])
    assert sorted(zip(xs, ys, strict=True)) == sorted((p, run["speedup"]) for run, p in priced)
    assert {t["name"] for t in points} == {run["source"] for run, _ in priced}


def test_a_run_it_cannot_price_is_shown_with_the_reason(page):
    _, refused = priced_runs()
    said = [shown(m.value) for m in page.markdown]
    for run, message in refused:
        assert any(run["id"] in text and message[:60] in text for text in said), run["id"]


def test_the_batch_table_is_every_setting_run_at_four_batch_sizes_priced_and_measured(page):
    """An iteration in plain steps: measured AL / speedup; priced, the AL over predict_speedup's answer."""
    priced, _ = priced_runs()
    settings = {}
    for run, predicted in priced:
        key = (run["source"], run["target"], run["method"], run["k"], json.dumps(run["tree"], sort_keys=True))
        settings.setdefault(key, []).append((run, predicted))
    swept = [pair for runs in settings.values() if len({run["batch"] for run, _ in runs}) >= 4 for pair in runs]
    assert len(swept) >= 8  # two sources ran one setting at 4-5 batch sizes
    (table,) = [t.value for t in page.table if "verify width" in t.value.columns]
    rows = table.set_index("run")
    assert sorted(rows.index) == sorted(run["id"] for run, _ in swept)
    for run, predicted in swept:
        iteration = run["mean_acceptance_length"]
        assert rows.loc[run["id"], "iteration / step, measured"] == round(iteration / run["speedup"], 2)
        assert rows.loc[run["id"], "iteration / step, predicted"] == pytest.approx(iteration / predicted, abs=0.006)
