"""The measured runs' loader, the Predictions page's pure computation and its chart builder."""

import json

import numpy as np
import pytest

from dashboard import charts
from dashboard.charts.predictions import SYMBOLS
from dashboard.features import predictions
from dashboard.measured import DATA_FILE, RUN_FIELDS, load_measured_runs
from tests.pages.test_predictions import DATA


def test_the_shipped_file_loads_with_every_field_and_a_fixture_per_source():
    runs, sources = load_measured_runs()
    assert runs and sources and DATA_FILE == DATA
    assert all(set(RUN_FIELDS) <= set(run) for run in runs)
    root = DATA_FILE.parents[2]
    for key, source in sources.items():
        fixture = (root / source["fixture"]).read_text(encoding="utf-8")
        assert fixture.startswith("# "), key  # its first line says where the text is from
    # Each run's quote is in its source's fixture, as printed there.
    for run in runs:
        assert run["quote"] in (root / sources[run["source"]]["fixture"]).read_text(encoding="utf-8"), run["id"]


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
