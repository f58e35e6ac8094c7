"""The optimal-k map under AppTest: one broadcast call, the user's point, the chapter's table."""

import io
import itertools

import numpy as np
import pandas as pd
import plotly.colors
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
from tests.helpers import picture_cells


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
    # Each map is one picture of the grid: a cell's colour follows its value alone, and the
    # lowest and highest values take the scale's two ends.
    for figure, z, scale in ((k_map, k_star, "Viridis"), (speedup_map, best, "Cividis")):
        cells = picture_cells(figure["data"][0]["source"], z.shape)
        assert_same_classes(cells, z)
        ends = plotly.colors.get_colorscale(scale)
        assert tuple(cells[np.unravel_index(z.argmin(), z.shape)]) == _rgb(ends[0][1])
        assert tuple(cells[np.unravel_index(z.argmax(), z.shape)]) == _rgb(ends[-1][1])
    marker = next(t for t in k_map["data"] if t.get("name") == "your α, c")
    assert (values(marker["x"])[0], 10 ** values(marker["y"])[0]) == (0.8, pytest.approx(20))


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))


def assert_same_classes(cells: np.ndarray, z: np.ndarray) -> None:
    """A cell's colour follows its value alone, and each colour stands for one run of values
    (8-bit colours hold close speedups alike, but never a value between two others' colour)."""
    order = np.argsort(z, axis=None, kind="stable")
    colours = [tuple(c) for c in cells.reshape(-1, 3)[order]]
    values_sorted = z.ravel()[order]
    runs = 1 + sum(a != b for a, b in itertools.pairwise(colours))
    assert runs == len(set(colours))
    # Equal values, one colour.
    same = values_sorted[1:] == values_sorted[:-1]
    assert all(colours[i] == colours[i + 1] for i in np.flatnonzero(same))


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
