"""Figure builders as pure functions: their traces hold exactly the numbers they were given."""

import dataclasses
import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

import specmath
from dashboard import charts
from dashboard.charts.echart import as_figure
from dashboard.features import acceptance_vs_kl
from dashboard.features import speedup as published
from tests.helpers import picture_cells

K = np.arange(1, 65)


def _trace(fig: go.Figure, name: str):
    matches = [t for t in fig.data if t.name == name]
    assert len(matches) == 1, [t.name for t in fig.data]
    return matches[0]


def test_white_template_is_plotly_white_where_the_charts_use_it():
    white = pio.templates["plotly_white"].to_plotly_json()
    ours = pio.templates[pio.templates.default].to_plotly_json()
    assert pio.templates.default == "dashboard_white"
    assert set(white["layout"]) - set(ours["layout"]) == {"polar", "ternary", "scene", "geo", "coloraxis"}
    assert ours["layout"] == {key: white["layout"][key] for key in ours["layout"]}
    assert ours["data"] == {kind: white["data"][kind] for kind in charts.TRACE_TYPES}


@pytest.fixture
def speedup_figure():
    alphas = (0.5, 0.8, 0.9)
    curves = {a: specmath.speedup(a, K, 20) for a in alphas}
    best_k, best = specmath.optimal_k(np.array(alphas), 20, max_k=64)
    optima = {a: (int(k), float(s)) for a, k, s in zip(alphas, best_k, best, strict=True)}
    return charts.speedup_curves(K, curves, optima, 0.8, 8, 20), curves, optima


def test_speedup_curves_hold_the_given_numbers(speedup_figure):
    fig, curves, optima = speedup_figure
    np.testing.assert_array_equal(_trace(fig, "α = 0.8 (chosen)").y, curves[0.8])
    np.testing.assert_array_equal(_trace(fig, "α = 0.5").y, curves[0.5])
    np.testing.assert_array_equal(_trace(fig, "α = 0.9").x, K)
    stars = _trace(fig, "best k of each curve")
    assert list(stars.x) == [optima[a][0] for a in (0.5, 0.8, 0.9)]
    assert list(stars.y) == [optima[a][1] for a in (0.5, 0.8, 0.9)]
    chosen = _trace(fig, "chosen k = 8")
    assert (chosen.x[0], chosen.y[0]) == (8, curves[0.8][7])


def test_speedup_figure_explains_itself(speedup_figure):
    fig, curves, _ = speedup_figure
    title = fig.layout.title.subtitle.text  # the parameters, under the title
    assert "α = 0.8, k = 8, c = 20" in title
    assert "Leviathan c = 0.05" in title
    assert f"{curves[0.8][7]:.2f}×" in title
    # The region where speculation is slower than plain decoding is shaded up to speedup 1.
    slower = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(slower) == 1 and slower[0].y0 == 0 and slower[0].y1 == 1


@pytest.mark.parametrize("subtitle", [None, "α = 0.8, k = 8"])
def test_a_top_legend_hangs_under_the_title(subtitle):
    """Anchored by its top in figure pixels, the legend grows downwards as it wraps into rows on a
    narrow screen, away from the title; one row of it fits the top margin as given."""
    height = 500
    layout = charts.style.base_layout("Speedup", height, subtitle=subtitle)
    legend, title = layout["legend"], layout["title"]
    assert (legend["yref"], legend["yanchor"], title["yref"], title["yanchor"]) == ("container", "top") * 2
    title_bottom = (1 - title["y"]) * height + (1 if subtitle is None else 2) * charts.style.TITLE_LINE
    legend_top = (1 - legend["y"]) * height
    assert legend_top > title_bottom
    assert layout["margin"]["t"] >= legend_top + charts.style.LEGEND_ROW


def test_a_legend_is_placed_top_or_below_or_left_out():
    assert charts.style.base_layout("t", legend="below")["legend"]["yanchor"] == "top"
    assert charts.style.base_layout("t", legend="none")["legend"] == {"visible": False}
    with pytest.raises(ValueError, match="'aside'"):
        charts.style.base_layout("t", legend="aside")


def test_speedup_axis_shows_curves_below_one():
    curves = {0.1: specmath.speedup(0.1, K, 1.25)}
    fig = charts.speedup_curves(K, curves, {0.1: (1, float(curves[0.1][0]))}, 0.1, 4, 1.25)
    low, high = fig.layout.yaxis.range
    assert low <= curves[0.1].min() and high >= curves[0.1].max()


def _published():
    rows, _ = published.split_by_draft_length(published.load_published_results())
    return rows, [published.iid_speedup(r) for r in rows]


def test_published_points_hold_every_row_with_a_draft_length_by_source():
    rows, formula = _published()
    traces = charts.published_points(rows, formula)
    assert [t["name"] for t in traces] == [
        "Leviathan et al. 2023<br>at c = 9.1–50",
        "Chen et al. 2023<br>c not given",
    ]
    for trace, source in zip(traces, ("leviathan2023", "chen2023"), strict=True):
        group = [r for r in rows if r.source == source]
        assert trace["x"] == [r.k for r in group] and trace["y"] == [r.speedup for r in group]
        assert trace["mode"] == "markers"
    assert len({(t["marker"]["symbol"], t["marker"]["color"]) for t in traces}) == 2  # told apart by marker
    assert charts.published_points((), ()) == []


def test_published_hover_cites_the_source_and_its_own_c():
    rows, formula = _published()
    traces = charts.published_points(rows, formula)
    levi = rows[0]  # EnDe, T5-small, argmax: α = 0.75, γ = 7, 3.4×, c = 0.02
    hover = traces[0]["customdata"][0]
    for part in (
        "<b>Leviathan et al. 2023</b>, Table 2",
        "T5-small (77M) → T5-XXL (11B)",
        "1 TPU-v4",
        "EnDe translation, argmax (temp=0)",
        "α = 0.75 · k = 7 · measured speedup <b>3.4×</b>",
        "measured at c = 50 (the paper's c = 0.02), not your c",
        f"i.i.d. formula at this α, k, c: {specmath.speedup(0.75, 7, 50):.2f}×",
        f"(measured / formula = {3.4 / specmath.speedup(0.75, 7, 50):.2f})",
    ):
        assert part in hover, (part, hover)
    assert levi.alpha == 0.75 and formula[0] == specmath.speedup(0.75, 7, 50)
    chen = traces[1]["customdata"][0]
    assert "α not given · k = 4 · measured speedup <b>1.92×</b>" in chen
    assert "c not given by the source" in chen and "the source gives no α and no c" in chen
    assert traces[0]["hovertemplate"] == "%{customdata}<extra></extra>"


def test_published_hover_shows_the_files_text_as_text():
    rows, formula = _published()
    odd = dataclasses.replace(rows[0], task="<b>bold</b> & co")
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; co" in charts.published_hover(odd, formula[0])


def test_published_points_refuse_rows_they_cannot_place():
    rows, formula = _published()
    with pytest.raises(ValueError, match="formula values"):
        charts.published_points(rows, formula[:-1])
    without_k = published.split_by_draft_length(published.load_published_results())[1]
    with pytest.raises(ValueError, match="without a draft length"):
        charts.published_points(without_k[:1], [None])


def test_speedup_curves_with_published_points_keep_the_curves_and_fit_the_points():
    rows, formula = _published()
    points = charts.published_points(rows, formula)
    curves = {0.3: specmath.speedup(0.3, K, 20)}  # its best is below the fastest measured point
    optima = {0.3: (1, float(curves[0.3].max()))}
    plain = charts.speedup_curves(K, curves, optima, 0.3, 4, 20)
    overlaid = charts.speedup_curves(K, curves, optima, 0.3, 4, 20, published=points)
    assert [t.name for t in overlaid.data] == [
        "α = 0.3 (chosen)",
        *(t["name"] for t in points),
        "best k of each curve",
        "chosen k = 4",
    ]
    assert overlaid.layout.yaxis.range[1] >= max(r.speedup for r in rows) > plain.layout.yaxis.range[1]

    # The legend under the plot, which then starts right under the title (on a projector's first
    # screen, tests/browser/test_first_screen.py); the chart taller for the points' entries, so
    # that its plot is no shorter, the title pinned the same distance from its top.
    def plot_height(layout):
        return layout.height - layout.margin.t - layout.margin.b

    assert plot_height(overlaid.layout) >= plot_height(plain.layout)
    for layout in (plain.layout, overlaid.layout):
        assert (layout.legend.yref, layout.legend.yanchor) in {(None, "top"), ("paper", "top")}
        assert layout.legend.y < 0
        assert (1 - layout.title.y) * layout.height == pytest.approx((1 - plain.layout.title.y) * plain.layout.height)
    # Without points the figure is the one the page drew before (the browser's reference).
    assert charts.speedup_curves(K, curves, optima, 0.3, 4, 20, published=[]).to_plotly_json() == plain.to_plotly_json()


def _grid():
    alpha_grid, c_grid = np.linspace(0, 1, 11), np.geomspace(1, 200, 7)
    k_star, best = specmath.optimal_k(alpha_grid, c_grid[:, None], max_k=20)
    return alpha_grid, c_grid, k_star, best


def _map(spec: dict) -> go.Figure:
    """An ECharts map read back as a plotly figure (``as_figure``)."""
    return go.Figure(as_figure(spec))


@pytest.mark.parametrize("builder", [charts.optimal_k_map, charts.best_speedup_map])
def test_maps_hold_the_grid_and_mark_the_user(builder):
    # The page's grid: fine enough that each tick has a grid point of its own.
    alpha_grid, c_grid = np.linspace(0, 1, 101), np.geomspace(1, 200, 101)
    k_star, best = specmath.optimal_k(alpha_grid, c_grid[:, None], max_k=20)
    current = tuple(v.item() for v in specmath.optimal_k(0.8, 20))
    spec = builder(alpha_grid, c_grid, k_star, best, 0.8, 20, current, 20)
    # One category a grid point, the c axis labelled in c at the grid point nearest each tick
    # (the cells are evenly spaced in log10(c)); the picture of the cells is tested on the page.
    x_axis, y_axis = spec["xAxis"][0], spec["yAxis"][0]
    assert len(x_axis["data"]) == alpha_grid.size and len(y_axis["data"]) == c_grid.size
    labelled = [i for i, label in enumerate(y_axis["data"]) if label]
    assert [y_axis["data"][i] for i in labelled] == [str(v) for v in charts.C_TICKS]
    np.testing.assert_allclose(c_grid[labelled], charts.C_TICKS, rtol=0.03)
    assert _map(spec).data[0].type == "image"
    marker = _trace(_map(spec), "your α, c")
    assert (marker.x[0], 10 ** marker.y[0]) == (0.8, pytest.approx(20))
    (you,) = (series for series in spec["series"] if series["name"] == "your α, c")
    assert "k* = 8, 3.09×" in you["label"]["formatter"]


def _lines(xs, ys):
    """The NaN-separated polyline as a list of (x, y) segments."""
    breaks = np.flatnonzero(np.isnan(xs))
    return list(zip(np.split(xs, breaks), np.split(ys, breaks), strict=True))


@pytest.mark.parametrize("max_k", [20, 64])
def test_the_colour_bar_shows_each_k_in_its_cells_colour(max_k):
    """The map's cells have no hover: a cell's k* is read off the colour bar, one band a k, in the
    cells' own colour, labelled (every k at the default max k, every 5th and the ends at 64)."""
    alpha_grid, c_grid = np.linspace(0, 1, 101), np.geomspace(1, 200, 101)
    k_star, best = specmath.optimal_k(alpha_grid, c_grid[:, None], max_k=max_k)
    spec = charts.optimal_k_map(alpha_grid, c_grid, k_star, best, 0.8, 20, (8, 3.09), max_k)
    picture, bar = (trace.source for trace in _map(spec).data if trace.type == "image")
    bands = np.arange(1, max_k + 1)
    cells, colours = picture_cells(picture, k_star.shape), picture_cells(bar, (max_k, max_k))[:, 0]
    for k, colour in zip(bands, colours, strict=True):
        assert (cells[k_star == k] == colour).all(), k
    assert len({tuple(colour) for colour in colours}) == max_k
    (axis,) = (axis for axis in spec["yAxis"] if axis.get("name") == "optimal k")
    labelled = {int(label): i for i, label in enumerate(axis["data"]) if label}
    expected = range(1, 21) if max_k == 20 else [1, *range(5, 61, 5), 64]
    assert list(labelled) == list(expected)
    assert all(bands[i] == k for k, i in labelled.items())  # each label on its own band


def test_optimal_k_map_draws_speedup_contours():
    """One white line per whole speedup from 1×, each point on it at its level."""
    alpha_grid, c_grid = np.linspace(0, 1, 101), np.geomspace(1, 200, 101)
    k_star, best = specmath.optimal_k(alpha_grid, c_grid[:, None], max_k=20)
    fig = _map(charts.optimal_k_map(alpha_grid, c_grid, k_star, best, 0.8, 20, (8, 3.09), 20))
    contour = _trace(fig, "best speedup")
    assert contour.mode == "lines"
    lines = _lines(np.asarray(contour.x, dtype=float), np.asarray(contour.y, dtype=float))
    levels = np.arange(1, np.ceil(best.max()) + 1)
    assert len(lines) == len(levels)  # 1× (where speculation starts to pay) up to the best on the map
    for level, (x, y) in zip(levels, lines, strict=True):
        x, y = x[~np.isnan(x)], y[~np.isnan(y)]
        if level >= best.max():
            assert x.size == 0  # the top level is reached nowhere inside the grid's cells
            continue
        assert x.size >= 2
        # Ordered along the line: α never falls, c never rises.
        assert np.all(np.diff(x) >= 0) and np.all(np.diff(y) <= 1e-12)
        # Between grid points the line is interpolated, so its points sit on the level to
        # within the map's grid step.
        _, on_line = specmath.optimal_k(x, 10**y, max_k=20)
        np.testing.assert_allclose(on_line, level, rtol=0.02)


def test_monotone_contours_match_a_closed_form():
    """On z = x + y the level-L line is x + y = L exactly, and linear interpolation finds it."""
    x, y = np.linspace(0, 1, 11), np.linspace(0, 2, 21)
    z = x[None, :] + y[:, None]
    xs, ys = charts.monotone_contours(x, y, z, np.array([0.55, 1.5, 5.0]))
    lines = _lines(xs, ys)
    assert len(lines) == 3
    for level, (lx, ly) in zip([0.55, 1.5], lines[:2], strict=False):
        lx, ly = lx[~np.isnan(lx)], ly[~np.isnan(ly)]
        np.testing.assert_allclose(lx + ly, level, atol=1e-12)
        assert np.all(np.diff(lx) >= 0) and np.all(np.diff(ly) <= 0)
    assert np.isnan(lines[2][0]).all()  # 5 is above the grid: no points, only the separator
    empty = charts.monotone_contours(x, y, z, np.array([]))
    assert empty[0].size == 0 and empty[1].size == 0


def test_contour_labels_sit_on_their_lines():
    """Each label's text is a level and the best speedup at its place is that level (to within
    the interpolation between grid points of the page's 101 x 101 grid)."""
    alpha_grid, c_grid = np.linspace(0, 1, 101), np.geomspace(1, 200, 101)
    k_star, best = specmath.optimal_k(alpha_grid, c_grid[:, None], max_k=20)
    fig = _map(charts.optimal_k_map(alpha_grid, c_grid, k_star, best, 0.8, 20, (8, 3.09), 20))
    labels = _trace(fig, "best speedup labels")
    levels = [float(text[:-1]) for text in labels.text]
    assert levels[:4] == [1, 2, 3, 4]
    assert levels == sorted(levels) and levels[-1] <= best.max()
    for x, y, level in zip(labels.x, labels.y, levels, strict=True):
        # optimal_k at the label's (α, c): the map's y is log10(c).
        _, at_label = specmath.optimal_k(x, 10**y, max_k=20)
        assert at_label == pytest.approx(level, rel=0.005), (level, x, 10**y)
    assert np.all(np.diff(labels.x) > 0)  # one per level, spread along the diagonal


def test_optimal_k_map_takes_its_contours_precomputed():
    """The page passes the contours it keeps per max_k: the same figure as computing them here."""
    alpha_grid, c_grid, k_star, best = _grid()
    args = (alpha_grid, c_grid, k_star, best, 0.8, 20, (8, 3.09), 20)
    contours = charts.speedup_contours(alpha_grid, c_grid, best)
    assert charts.optimal_k_map(*args, contours=contours) == charts.optimal_k_map(*args)


def test_sampling_histogram_stacks_the_two_ways_to_emit_a_token():
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    accepted, resampled = np.array([200, 300, 200]), np.array([300, 0, 0])
    residual = specmath.residual_distribution(p, q)
    fig = charts.sampling_histogram(["a", "b", "c"], p, q, residual, accepted, resampled, seed=7)
    np.testing.assert_array_equal(_trace(fig, "accepted draft").y, accepted / 1000)
    np.testing.assert_array_equal(_trace(fig, "resampled from residual").y, resampled / 1000)
    np.testing.assert_array_equal(_trace(fig, "target p").y, p)
    np.testing.assert_array_equal(_trace(fig, "draft q").y, q)
    np.testing.assert_array_equal(_trace(fig, "residual r").y, residual)
    assert fig.layout.barmode == "stack"
    assert "1k rounds, seed 7, 3 tokens" in fig.layout.title.text


def test_simulator_charts_hold_their_numbers():
    """The two ECharts options, read back as figures: each series' name, positions and values."""
    pmf = specmath.tokens_per_iteration_pmf(0.7, 3)
    spec = charts.tokens_per_call(np.array([30, 20, 10, 40]), pmf, 0.7, 3)
    measured, law = as_figure(spec)["data"]
    assert (measured["type"], measured["name"], law["name"]) == ("bar", "measured", "i.i.d. law at fitted α = 0.700")
    assert measured["x"] == law["x"] == [1, 2, 3, 4]
    assert measured["y"] == [0.3, 0.2, 0.1, 0.4]
    np.testing.assert_array_equal(law["y"], pmf)
    assert spec["series"][0]["data"][3]["tooltip"]["formatter"] == "4 tokens: 0.4000 of calls"
    assert as_figure(spec)["layout"]["title"]["text"] == "Tokens per target call · k = 3, 100 target calls"
    spec = charts.position_acceptance(np.array([0.7, 0.5]), np.array([0.7, 0.71]), 0.7)
    traces = as_figure(spec)["data"]
    assert [(t["type"], t["name"]) for t in traces] == [
        ("bar", "unconditional P(≥ i accepted)"),
        ("bar", "conditional P(i | i − 1)"),
        ("scatter", "i.i.d.: α^i"),
        ("scatter", "i.i.d.: α"),
    ]
    assert all(t["x"] == [1, 2] for t in traces)
    np.testing.assert_allclose(traces[2]["y"], [0.7, 0.49])
    np.testing.assert_array_equal(traces[3]["y"], [0.7, 0.7])
    assert spec["series"][1]["data"][1]["tooltip"]["formatter"] == "conditional P(i | i − 1)\ni = 2: 0.7100"
    # No draft reached position 1 again: no conditional rate at 2, which JSON (st.echarts_chart) carries as null.
    spec = charts.position_acceptance(np.array([0.7, 0.0]), np.array([0.7, np.nan]), 0.7)
    assert as_figure(json.loads(json.dumps(spec, allow_nan=False)))["data"][1]["y"] == [0.7, None]


@pytest.mark.parametrize("log_x", [False, True])
def test_alpha_vs_kl_scatter_and_bounds(log_x):
    d = specmath.divergences(*specmath.random_distribution_pairs(30, 8, rng=1))
    bounds = acceptance_vs_kl.bound_curves(d.kl, log_x)
    spec = charts.alpha_vs_kl(d.kl, d.alpha, bounds, log_x, vocab_size=8, seed=1)
    traces = {t["name"]: t for t in as_figure(spec)["data"]}
    points = traces["random (p, q) pair"]
    assert points["type"] == "scatter"
    np.testing.assert_array_equal(points["x"], d.kl)
    np.testing.assert_array_equal(points["y"], d.alpha)
    # Each point's hover names the pair and its TV distance, 1 − α, at four decimals.
    (scatter,) = [s for s in spec["series"] if s["name"] == "random (p, q) pair"]
    tv = [item["tooltip"]["formatter"].rsplit("\n", 1)[1] for item in scatter["data"]]
    assert tv == [f"TV = 1 − α = {t:.4f}" for t in 1 - d.alpha]
    assert scatter["data"][3]["tooltip"]["formatter"].startswith("pair #3\n")
    for name, (x, y) in bounds.items():
        np.testing.assert_array_equal(traces[name]["y"], y)
        np.testing.assert_array_equal(traces[name]["x"], x)
    assert spec["xAxis"]["type"] == ("log" if log_x else "value")
    assert "30 pairs, vocabulary 8, seed 1" in spec["title"]["subtext"]


def test_bound_curves_are_the_specmath_bounds():
    kl = np.array([0.01, 0.5, 2.0])
    for log_x in (False, True):
        (pinsker_x, pinsker_y), (bh_x, bh_y) = acceptance_vs_kl.bound_curves(kl, log_x).values()
        np.testing.assert_array_equal(pinsker_y, specmath.pinsker_bound(pinsker_x))
        np.testing.assert_array_equal(bh_y, specmath.bretagnolle_huber_bound(bh_x))
        assert pinsker_x.min() <= kl.min() and pinsker_x.max() >= kl.max()


def test_chart_config_exports_png_at_twice_the_scale():
    config = charts.chart_config("speedup_alpha0.80_k8_c20")
    assert config["toImageButtonOptions"] == {"format": "png", "scale": 2, "filename": "speedup_alpha0.80_k8_c20"}


def _lightness(colour: str) -> float:
    """CIE L* of an sRGB colour given as plotly gives a scale's stops ("rgb(r, g, b)" or "#rrggbb")."""
    if colour.startswith("#"):
        rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    else:
        rgb = [float(v) for v in colour[colour.index("(") + 1 : -1].split(",")]
    linear = [(v / 255 / 12.92) if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in rgb]
    y = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return 116 * y ** (1 / 3) - 16 if y > (6 / 29) ** 3 else y * (29 / 3) ** 3


def test_the_speedup_map_is_lighter_where_faster_and_marks_break_even():
    """Issue 30: a scale whose lightness grows with the speedup, and the line at speedup 1."""
    alpha_grid, c_grid, k_star, best = _grid()
    spec = charts.best_speedup_map(alpha_grid, c_grid, k_star, best, 0.3, 2, (2, 1.1), 20)
    fig = _map(spec)
    (bar,) = (trace for trace in fig.data if trace.name == "colour bar")
    rows = picture_cells(bar.source, (101, 101))[:, 0]  # the bar's colours, lowest speedup first
    lightness = [_lightness(f"rgb({r}, {g}, {b})") for r, g, b in rows]
    assert all(np.diff(lightness) > 0), lightness
    # Its labels: both ends, and each at the row of its value (101 rows from the lowest to the highest).
    (axis,) = (axis for axis in spec["yAxis"] if axis.get("name") == "speedup ×")
    labelled = [(i, float(label)) for i, label in enumerate(axis["data"]) if label]
    assert (labelled[0][0], labelled[-1][0]) == (0, 100)
    values = np.linspace(best.min(), best.max(), 101)
    for i, value in labelled:
        assert abs(values[i] - value) <= max((best.max() - best.min()) / 200, 0.005 * value), (i, value)
    line = _trace(fig, "best speedup")
    xs, ys = np.array(line.x, dtype=float), np.array(line.y, dtype=float)
    # Every point of the line is where the best speedup crosses 1 on the grid (log10 c along y).
    at_line = [
        np.interp(y, np.log10(c_grid), best[:, np.searchsorted(alpha_grid, x)]) for x, y in zip(xs, ys, strict=True)
        if x in alpha_grid
    ]  # fmt: skip
    assert at_line and np.allclose(at_line, 1.0)
    assert list(_trace(fig, "best speedup labels").text) == ["1×"]


def test_acceptance_length_curve_draws_asymmetric_bars_and_none_where_unknown():
    k = np.array([1, 3])
    figure = charts.acceptance_length_curve(
        k, np.array([1.8, 2.9]), np.array([1.7, np.nan]), np.array([1.85, np.nan]), np.array([1.8, 2.4, 2.9])
    )
    profile, measured = figure.data
    np.testing.assert_allclose(measured.error_y.array, [0.05, 0.0])
    np.testing.assert_allclose(measured.error_y.arrayminus, [0.1, 0.0])
    np.testing.assert_array_equal(profile.x, [1, 2, 3])
    assert "2 draft lengths measured" in figure.layout.title.text


def _calibrated(measured):
    iid = specmath.speedup(0.7, K, 20)
    return charts.calibrated_speedup(K, iid, (iid, iid), None, measured, 0, 20.0, (0.7, 0.7, 0.7))


def test_the_calibrated_chart_marks_a_run_of_full_drafts_at_k_where_the_curves_give_its_speedup():
    fig = _calibrated((4, 4.0, 2.5))
    assert not [t for t in fig.data if t.name.startswith("this run")]
    (rule,) = [s for s in fig.layout.shapes if s.type == "line" and s.xref == "x"]
    assert rule.x0 == rule.x1 == 4
    assert [a.text for a in fig.layout.annotations if a.xref == "x"] == ["measured k = 4"]


def test_the_calibrated_chart_marks_a_run_of_shorter_drafts_at_their_mean_not_at_k():
    """Issue 33's line: drafts of 2.75 tokens on average under k = 4. The run is not a run at k = 4."""
    fig = _calibrated((4, 2.75, 2.14))
    (run,) = [t for t in fig.data if t.name.startswith("this run")]
    assert (tuple(run.x), tuple(run.y)) == ((2.75,), (2.14,))
    assert "mixed lengths" in run.name and "2.14×" in run.name and "up to k = 4" in run.hovertemplate
    (rule,) = [s for s in fig.layout.shapes if s.type == "line" and s.xref == "x"]
    assert rule.x0 == rule.x1 == 2.75
    (label,) = [a.text for a in fig.layout.annotations if a.xref == "x"]
    assert label == "measured: drafts of 2.75 on average (k = 4 at most)"
