"""The optimal-k map under AppTest: one broadcast call, the user's point, the chapter's table."""

import io

import numpy as np
import pandas as pd
import pytest
import streamlit as st

import specmath
from tests.app_helpers import (
    OPTIMAL_K,
    metrics,
    open_page,
    page_charts,
    values,
)


def test_optimal_k_map_is_one_broadcast_call_and_marks_the_user():
    at = open_page(OPTIMAL_K)
    m = metrics(at)
    assert m["Optimal k at α = 0.8, c = 20"] == "8"
    assert m["Its speedup"] == "3.09×"
    (k_map,) = page_charts(at)
    at.radio(key="view").set_value("speedup").run()
    (speedup_map,) = page_charts(at)
    alpha_grid, c_grid = np.linspace(0, 1, 101), np.geomspace(1, 200, 101)
    k_star, best = specmath.optimal_k(alpha_grid, c_grid[:, None], max_k=20)
    heat = k_map["data"][0]
    np.testing.assert_array_equal(values(heat["z"]), k_star)
    np.testing.assert_array_equal(values(heat["customdata"])[..., 0], best)
    np.testing.assert_array_equal(values(heat["y"]), np.log10(c_grid))  # a linear axis in log10(c)
    np.testing.assert_array_equal(values(speedup_map["data"][0]["z"]), best)
    marker = next(t for t in k_map["data"] if t.get("name") == "your α, c")
    assert (values(marker["x"])[0], 10 ** values(marker["y"])[0]) == (0.8, pytest.approx(20))


def test_optimal_k_sliders():
    at = open_page(OPTIMAL_K)
    at.slider(key="max_k").set_value(5).run()
    assert metrics(at)["Optimal k at α = 0.8, c = 20"] == "5"
    at.slider(key="alpha").set_value(0.9).run()
    at.select_slider(key="c").set_value(50).run()
    k, s = specmath.optimal_k(0.9, 50, max_k=5)
    assert metrics(at)["Optimal k at α = 0.9, c = 50"] == str(k)
    assert metrics(at)["Its speedup"] == f"{s:.2f}×"


def test_optimal_k_reports_when_speculation_does_not_pay():
    at = open_page(OPTIMAL_K, alpha="0.05", c="1.25")
    assert metrics(at)["Speculation pays here?"].startswith("no")


def test_chapter_table_on_the_page():
    at = open_page(OPTIMAL_K)
    table = at.table[0].value
    assert table["α"].tolist() == ["0.6"] * 3 + ["0.7"] * 3 + ["0.8"] * 3 + ["0.9"] * 3
    assert table["c"].tolist() == ["10", "20", "50"] * 4
    assert table["optimal k"].tolist() == [3, 4, 6, 4, 6, 8, 6, 8, 11, 10, 13, 19]
    printed = ["1.67", "1.92", "2.17", "1.98", "2.35", "2.76", "2.47", "3.09", "3.82", "3.43", "4.67", "6.37"]
    assert table["speedup"].tolist() == [f"{s}×" for s in printed]
    download = at.get("download_button")[0]
    assert download.proto.label == "Download as CSV"


def test_csv_download_is_utf8_with_a_byte_order_mark(monkeypatch):
    """Spreadsheet programs show "α" only when the file starts with UTF-8's byte order mark."""
    sent = []
    real = st.download_button

    def recording(label, data, *args, **kwargs):
        sent.append((data, kwargs))
        return real(label, data, *args, **kwargs)

    monkeypatch.setattr(st, "download_button", recording)
    at = open_page(OPTIMAL_K, max_k="30")
    assert not at.exception
    ((data, kwargs),) = sent
    assert (kwargs["file_name"], kwargs["mime"]) == ("optimal_k_table_maxk30.csv", "text/csv")
    assert data.startswith(b"\xef\xbb\xbf")
    table = pd.read_csv(io.StringIO(data.decode("utf-8-sig")))
    assert list(table.columns) == ["α", "c", "optimal k", "speedup"]
    k, s = specmath.optimal_k(table["α"].to_numpy(), table["c"].to_numpy(), max_k=30)
    np.testing.assert_array_equal(table["optimal k"], k)
    np.testing.assert_allclose(table["speedup"], s, rtol=1e-12)
