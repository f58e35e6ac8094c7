"""Every page under AppTest: runs clean at defaults, moves with its widgets as the formulas say,
reads its parameters from the link, and warns (never crashes) on a bad link."""

import json

import numpy as np
import pytest

import specmath
from dashboard import charts, workarounds
from dashboard.params import PARAMS
from dashboard.registry import PAGES
from tests.app_helpers import (
    HOME,
    KL,
    OPTIMAL_K,
    SAMPLING,
    SPEEDUP,
    metrics,
    open_page,
    page_charts,
    switch,
    trace,
    values,
    warnings,
)
from tests.links import CATEGORIES, bad_link

K_AXIS = np.arange(1, 65)


@pytest.mark.parametrize("page_id", PAGES)
def test_page_runs_clean_at_defaults(page_id):
    at = open_page(page_id)
    assert not at.exception
    assert not warnings(at)
    assert not at.error
    if page_id != HOME:
        shown = page_charts(at)
        assert shown, "every page but the home page shows a chart"
        assert all(figure["data"] for figure in shown)
        # The slim white template has defaults for every trace type a chart draws.
        assert {t.get("type", "scatter") for figure in shown for t in figure["data"]} <= set(charts.TRACE_TYPES)


@pytest.mark.parametrize("page_id", PAGES)
@pytest.mark.parametrize("category", CATEGORIES)
def test_bad_links_warn_and_never_crash(page_id, category):
    """Every page, every parameter it reads, every kind of bad value, and a parameter it lacks:
    the page runs, and a warning names each parameter it could not use."""
    link, bad = bad_link(PAGES[page_id].params, category)
    at = open_page(page_id, **link, nonsense="1")
    assert not at.exception
    shown = warnings(at)
    assert any("`nonsense`" in w for w in shown), shown
    for key in bad:
        assert any(f"`{key}" in w for w in shown), (key, shown)


@pytest.mark.parametrize("page_id", PAGES)
def test_every_page_carries_the_navigation(page_id):
    """The sidebar links every page of the registry, in its order, with its title."""
    at = open_page(page_id)
    links = [element.proto for element in at.sidebar.get("page_link")]
    assert [link.label for link in links] == [page.title for page in PAGES.values()]
    assert [link.page for link in links] == [page.url_path for page in PAGES.values()]


@pytest.mark.parametrize("page_id", PAGES)
def test_every_chart_exports_a_named_png(page_id):
    """Each chart's camera button saves a PNG at twice the scale, named after the page's settings."""
    at = open_page(page_id)
    configs = [json.loads(element.proto.config) for element in at.get("plotly_chart")]
    assert bool(configs) == (page_id != HOME)
    names = [config["toImageButtonOptions"]["filename"] for config in configs]
    assert all(
        config["toImageButtonOptions"] | {"filename": ""} == {"format": "png", "scale": 2, "filename": ""}
        for config in configs
    )
    assert all(name and name.isprintable() and "/" not in name for name in names), names
    assert len(set(names)) == len(names), "two charts of one page would save under one name"


#: Every figure builder, as the pages call them.
EVERY_BUILDER = [
    (SPEEDUP, {}),
    (OPTIMAL_K, {}),
    (OPTIMAL_K, {"view": "speedup"}),
    (SAMPLING, {}),
    (KL, {}),
    (KL, {"logx": "true"}),
    ("simulator", {}),
    ("calibrate", {}),
    ("hardware", {}),
]


@pytest.mark.parametrize(("page_id", "query"), EVERY_BUILDER)
def test_figures_built_unvalidated_are_what_validation_gives(page_id, query, monkeypatch):
    """The pages build figures without plotly.py's validation (it was most of a chart's build
    time); validated, every figure must build without error and be sent byte for byte the same."""
    fast = page_charts(open_page(page_id, **query))
    monkeypatch.setattr(charts.style, "VALIDATE", True)
    validated = page_charts(open_page(page_id, **query))
    assert fast, f"{page_id} shows no chart"
    assert [json.dumps(f, sort_keys=True) for f in fast] == [json.dumps(f, sort_keys=True) for f in validated]


def test_home_links_every_page():
    at = open_page(HOME)
    linked = {element.proto.page for element in at.get("page_link")}
    assert {"Speedup", "Optimal_k", "Rejection_sampling", "Acceptance_vs_KL"} <= linked


def test_home_states_the_best_k_at_the_shared_values():
    at = open_page(HOME)
    assert "the best draft length is **k = 8**: **3.09×**" in at.info[0].value
    switch(at, SPEEDUP).run()
    at.slider(key="alpha").set_value(0.9).run()
    switch(at, HOME).run()
    assert "At α = 0.9 and c = 20" in at.info[0].value
    assert "**k = 13**: **4.67×**" in at.info[0].value


def test_navigation_links_carry_the_shared_parameters():
    at = open_page(SPEEDUP, alpha="0.55", k="3", c="50")
    links = {element.proto.page: element.proto.query_string for element in at.sidebar.get("page_link")}
    assert links["Speedup"] == "alpha=0.55&k=3&c=50"
    assert links["Optimal_k"] == "alpha=0.55&c=50"  # that page has no k
    assert links["Rejection_sampling"] == ""  # and this one none of them
    # The values stay with the session: a page without them still links them on.
    switch(at, SAMPLING).run()
    links = {element.proto.page: element.proto.query_string for element in at.sidebar.get("page_link")}
    assert links["Optimal_k"] == "alpha=0.55&c=50"


@pytest.mark.parametrize("page_id", PAGES)
def test_every_page_carries_the_workaround_scripts(page_id):
    """Every page carries the script that turns a link click into one history step (without it
    Streamlit's own click loses the link's values) and the one that draws each chart once."""
    script = workarounds.sidebar_html()
    sidebar_html = [element.proto for element in open_page(page_id).sidebar.get("html")]
    scripts = [proto for proto in sidebar_html if proto.body == script]
    assert len(scripts) == (1 if workarounds.ACTIVE else 0)
    assert all(proto.unsafe_allow_javascript for proto in scripts)


# --- Speedup vs draft length ---------------------------------------------------------------


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
    assert f"α = {alpha:g}, k = {k}, c = {c:g}" in figure["layout"]["title"]["text"]


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


# --- Optimal draft length map ----------------------------------------------------------------


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
    np.testing.assert_array_equal(values(heat["customdata"])[..., 0], charts.as_shown(best, decimals=3))
    np.testing.assert_array_equal(values(heat["y"]), np.log10(c_grid))  # a linear axis in log10(c)
    np.testing.assert_array_equal(values(speedup_map["data"][0]["z"]), charts.as_shown(best, decimals=3))
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


# --- Rejection sampling ----------------------------------------------------------------------


def test_sampling_defaults_match_theory():
    at = open_page(SAMPLING)
    m = metrics(at)
    assert m["α = Σ min(p, q)"] == "0.8500"
    assert m["1 − TV(p, q)"] == "0.8500"
    assert abs(float(m["Observed acceptance rate"]) - 0.85) < 0.005
    assert float(m["χ² p-value (output ~ p)"]) > 1e-3
    figure = page_charts(at)[0]
    np.testing.assert_allclose(
        values(trace(figure, "target p")["y"]), [0.3, 0.25, 0.15, 0.1, 0.08, 0.05, 0.03, 0.02, 0.01, 0.01]
    )
    accepted = values(trace(figure, "accepted draft")["y"])
    resampled = values(trace(figure, "resampled from residual")["y"])
    assert accepted.sum() + resampled.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(values(trace(figure, "residual r")["y"]), [2 / 3, 1 / 3, 0, 0, 0, 0, 0, 0, 0, 0])


@pytest.mark.parametrize(
    ("preset", "alpha", "observed"),
    [("identical", "1.0000", "1.0000"), ("disjoint", "0.0000", "0.0000"), ("greedy", "0.2500", None)],
)
def test_sampling_presets_at_the_edges(preset, alpha, observed):
    at = open_page(SAMPLING)
    at.selectbox(key="preset").set_value(preset).run()
    m = metrics(at)
    assert m["α = Σ min(p, q)"] == alpha
    if observed is not None:
        assert m["Observed acceptance rate"] == observed
    assert float(m["χ² p-value (output ~ p)"]) > 1e-3


def test_sampling_random_preset_follows_vocabulary_and_seed():
    at = open_page(SAMPLING, preset="random", vocab="17", seed="7")
    assert not at.exception
    assert len(at.data_editor[0].value) == 17
    p, q = (row[0] for row in specmath.random_distribution_pairs(1, 17, rng=7))
    assert metrics(at)["α = Σ min(p, q)"] == f"{specmath.acceptance_probability(p, q):.4f}"


def test_sampling_count_slider():
    at = open_page(SAMPLING)
    at.select_slider(key="n").set_value(1_000_000).run()
    assert "1M rounds" in page_charts(at)[0]["layout"]["title"]["text"]


def _edit(at, edits):
    at.session_state["pq_editor_0"] = {"edited_rows": edits, "added_rows": [], "deleted_rows": []}
    return at.run()


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        ({0: {"p": -0.1}}, "p(t0) = -0.1 is negative"),
        ({3: {"q": None}}, "q(t3) is empty"),
        ({i: {"q": 0.0} for i in range(10)}, "q is all zeros"),
        ({0: {"p": 0.6}}, "p sums to 1.3, not 1"),
    ],
)
def test_sampling_typed_mistakes_show_what_to_fix(edits, message):
    at = _edit(open_page(SAMPLING), edits)
    assert not at.exception
    assert any(message in e.value for e in at.error)
    assert not page_charts(at)


def test_sampling_offers_to_normalize_only_when_meaningful():
    at = _edit(open_page(SAMPLING), {0: {"p": -0.1}})
    assert not [b for b in at.button if "Normalize" in b.label]
    at = _edit(open_page(SAMPLING), {0: {"p": 0.6}})
    at.button[0].click().run()
    assert not at.error
    p = np.array([0.6, 0.25, 0.15, 0.1, 0.08, 0.05, 0.03, 0.02, 0.01, 0.01]) / 1.3
    q = np.array([0.2, 0.2, 0.2, 0.15, 0.1, 0.05, 0.04, 0.03, 0.02, 0.01])
    assert metrics(at)["α = Σ min(p, q)"] == f"{specmath.acceptance_probability(p, q):.4f}"


def test_sampling_edits_go_into_the_link():
    at = _edit(open_page(SAMPLING), {9: {"p": 0.0}, 8: {"p": 0.02}})
    assert at.query_params["p"] == "0.3,0.25,0.15,0.1,0.08,0.05,0.03,0.02,0.02,0"
    reopened = open_page(SAMPLING, p=at.query_params["p"], q=at.query_params["q"])
    assert metrics(reopened) == metrics(at)


def test_sampling_table_follows_an_address_it_did_not_write():
    """Back, Forward or a link in the same session change the address under the page: the table
    shown is the address's, never one typed earlier in the session."""
    at = open_page(SAMPLING, p="0.5,0.5", q="0.2,0.8")
    assert metrics(at)["α = Σ min(p, q)"] == "0.7000"
    at = _edit(at, {0: {"p": 0.4}, 1: {"p": 0.6}})  # typed: the address follows the table
    assert (at.query_params["p"], metrics(at)["α = Σ min(p, q)"]) == ("0.4,0.6", "0.8000")
    at.query_params["p"], at.query_params["q"] = "0.9,0.1", "0.5,0.5"  # e.g. Back to another link
    at.run()
    assert metrics(at)["α = Σ min(p, q)"] == "0.6000"
    assert (at.query_params["p"], at.query_params["q"]) == ("0.9,0.1", "0.5,0.5")
    del at.query_params["p"], at.query_params["q"]  # the sidebar link: no table in the address
    at.run()
    assert metrics(at)["α = Σ min(p, q)"] == "0.8500"  # the chapter's preset
    assert "p" not in at.query_params


def test_sampling_link_with_custom_pair():
    at = open_page(SAMPLING, p="0.5,0.5,0", q="0,0.5,0.5")
    assert metrics(at)["α = Σ min(p, q)"] == "0.5000"
    assert not warnings(at)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"p": "0.5,0.5", "q": "abc,1"}, "is not a number"),
        ({"p": "0.5,0.5"}, "only one of `p` and `q`"),
        ({"p": "0.5,0.5", "q": "0.2,0.3,0.5"}, "must match"),
        ({"p": ",".join(["0.01"] * 100), "q": ",".join(["0.01"] * 100)}, "more than 50 entries"),
        ({"p": "-1,2", "q": "0.5,0.5"}, "negative"),
        ({"p": "", "q": ""}, "is empty"),
    ],
)
def test_sampling_bad_links_fall_back_to_the_preset(query, message):
    at = open_page(SAMPLING, **query)
    assert not at.exception
    assert any(message in w for w in warnings(at)), warnings(at)
    assert metrics(at)["α = Σ min(p, q)"] == "0.8500"


def test_sampling_link_that_does_not_sum_to_one_is_normalized_with_a_warning():
    at = open_page(SAMPLING, p="1,3", q="1,1")
    assert any("p sums to 4, not 1: normalized" in w for w in warnings(at))
    assert metrics(at)["α = Σ min(p, q)"] == "0.7500"


# --- Acceptance vs divergence ----------------------------------------------------------------


def test_kl_scatter_holds_the_chapter_experiment():
    at = open_page(KL)
    figure = page_charts(at)[0]
    P, Q = specmath.random_distribution_pairs(200, 20, rng=42)
    expected = specmath.divergences(P, Q)
    points = trace(figure, "random (p, q) pair")
    np.testing.assert_array_equal(values(points["x"]), expected.kl)
    np.testing.assert_array_equal(values(points["y"]), expected.alpha)
    for name, bound in (
        ("Pinsker: α ≥ 1 − √(KL/2)", specmath.pinsker_bound),
        ("Bretagnolle–Huber: α ≥ 1 − √(1 − e^(−KL))", specmath.bretagnolle_huber_bound),
    ):
        curve = trace(figure, name)
        np.testing.assert_array_equal(values(curve["y"]), bound(values(curve["x"])))
        assert values(curve["x"]).max() >= expected.kl.max()
        assert (expected.alpha >= bound(expected.kl)).all()


def test_kl_widgets():
    at = open_page(KL)
    at.slider(key="pairs").set_value(50).run()
    at.slider(key="kl_vocab").set_value(5).run()
    at.toggle(key="logx").set_value(True).run()
    assert metrics(at)["Pairs"] == "50"
    figure = page_charts(at)[0]
    assert figure["layout"]["xaxis"]["type"] == "log"
    P, Q = specmath.random_distribution_pairs(50, 5, rng=42)
    np.testing.assert_array_equal(values(trace(figure, "random (p, q) pair")["y"]), specmath.divergences(P, Q).alpha)


# --- Links: query parameters set the widgets; bad values warn ------------------------------


def test_query_parameters_set_every_widget():
    at = open_page(SPEEDUP, alpha="0.63", k="12", c="45", compare=["0.2", "0.4"])
    assert not warnings(at)
    assert at.slider(key="alpha").value == 0.63
    assert at.slider(key="k").value == 12
    assert at.select_slider(key="c").value == 45
    assert at.multiselect(key="compare").value == [0.2, 0.4]
    at = open_page(OPTIMAL_K, alpha="0.9", c="50", max_k="30")
    assert not warnings(at)
    assert at.slider(key="max_k").value == 30
    at = open_page(SAMPLING, preset="random", vocab="12", n="1M", seed="99")
    assert not warnings(at)
    assert (at.selectbox(key="preset").value, at.slider(key="vocab").value) == ("random", 12)
    assert (at.select_slider(key="n").value, at.number_input(key="seed").value) == (1_000_000, 99)
    at = open_page(KL, pairs="300", kl_vocab="50", seed="1", logx="true")
    assert not warnings(at)
    assert at.toggle(key="logx").value is True


BAD_VALUES = [
    (SPEEDUP, "alpha", "abc", "is not a number"),
    (SPEEDUP, "alpha", "1.5", "is outside 0 to 1"),
    (SPEEDUP, "alpha", "", "is empty"),
    (SPEEDUP, "alpha", "1e999", "is outside 0 to 1"),
    (SPEEDUP, "alpha", "nan", "is outside 0 to 1"),
    (SPEEDUP, "k", "0", "is outside 1 to 64"),
    (SPEEDUP, "k", "9" * 400, "is outside 1 to 64"),
    (SPEEDUP, "c", "37", "is not one of the offered values"),
    (SPEEDUP, "compare", ["0.5", "banana"], "has values not offered"),
    (SPEEDUP, "compare", "0.5,0.6", "has values not offered"),
    (OPTIMAL_K, "max_k", "-3", "is outside 1 to 64"),
    (SAMPLING, "preset", "nonsense", "is not one of the offered values"),
    (SAMPLING, "n", "100000000", "is not one of the offered values"),
    (SAMPLING, "seed", "12.5", "is not a whole number"),
    (KL, "pairs", "1000000", "is outside 10 to 5000"),
    (KL, "logx", "maybe", "is not true or false"),
]


@pytest.mark.parametrize(("script", "key", "raw", "message"), BAD_VALUES)
def test_bad_link_values_warn_and_the_page_still_works(script, key, raw, message):
    at = open_page(script, **{key: raw})
    assert not at.exception
    shown = warnings(at)
    assert any(f"`{key}" in w and message in w for w in shown), shown
    assert page_charts(at), "the page still draws its chart"
    # The warning names the value actually in use, and that is the widget's value.
    param = PARAMS[key]
    widget = at.get(param.widget_type)
    value = next(w.value for w in widget if w.key == key)
    if param.kind == "int":
        value = round(value)  # whole-number boxes are float boxes shown without decimals
    shown_value = ", ".join(param.fmt(v) for v in value) if param.kind == "multi" else param.fmt(value)
    assert any(f"using {shown_value}." in w for w in shown), (shown, shown_value)


def test_unknown_link_parameters_are_named():
    at = open_page(SPEEDUP, alhpa="0.5")
    assert any("`alhpa`" in w for w in warnings(at))
