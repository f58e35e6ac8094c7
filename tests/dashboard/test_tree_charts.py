"""The Draft trees page's pure parts: the tree layout, the chart builders, the typed vector, the flags."""

import itertools
import json

import numpy as np
import pytest

import engines
import specmath
from dashboard import charts
from dashboard.charts import draft_trees as trees_chart
from dashboard.charts import echart
from dashboard.features import draft_trees as tree_view


def random_tree(n: int, rng) -> np.ndarray:
    """A random parent array, breadth-first or not: each node's parent any earlier node."""
    return np.array([-1, *(int(rng.integers(0, i)) for i in range(1, n))])


TREES = [
    np.array([-1]),
    np.array([-1, 0]),
    np.array([-1, 0, 0, 1]),
    np.array([-1, 0, 1, 2, 3]),  # a chain
    np.array([-1, 0, 0, 0, 1, 1, 2, 4, 4, 4]),
    specmath.optimal_tree(specmath.SEQUOIA_ACCEPTANCE, 64, 6)[1],
    specmath.eagle_tree(specmath.SEQUOIA_ACCEPTANCE, 5, 4, 40)[1],
    *(random_tree(n, np.random.default_rng(n)) for n in (7, 30, 100)),
]


@pytest.mark.parametrize("parents", TREES, ids=lambda p: f"{len(p)} nodes")
def test_layout_layers_edges_and_places_every_node_apart(parents):
    x, depth = charts.tree_layout(parents)
    assert depth[0] == 0
    for child in range(1, len(parents)):
        assert depth[child] == depth[parents[child]] + 1  # every edge goes down one layer
    places = set(zip(x.tolist(), depth.tolist(), strict=True))
    assert len(places) == len(parents), "two nodes at the same place"
    for node in range(len(parents)):
        kids = np.flatnonzero(parents == node)
        # Children in rank (index) order, left to right, and the parent over them.
        assert (np.diff(x[kids]) > 0).all()
        if kids.size:
            assert x[kids[0]] <= x[node] <= x[kids[-1]]


def test_layout_of_a_small_tree_by_hand():
    x, depth = charts.tree_layout([-1, 0, 0, 1, 1, 2])
    # Leaves 3, 4, 5 at 0, 1, 2; node 1 over 3 and 4; node 2 over 5; the root over 1 and 2.
    np.testing.assert_array_equal(depth, [0, 1, 1, 2, 2, 2])
    np.testing.assert_array_equal(x, [1.25, 0.5, 2.0, 0.0, 1.0, 2.0])


def test_layout_keeps_subtrees_apart_in_every_layer():
    parents = specmath.optimal_tree(specmath.SEQUOIA_ACCEPTANCE, 100, 8)[1]
    x, depth = charts.tree_layout(parents)
    for a, b in itertools.combinations(range(1, 20), 2):
        if depth[a] == depth[b] == 1:
            span = [x[i] for i in range(len(parents)) if _under(parents, i, a)]
            other = [x[i] for i in range(len(parents)) if _under(parents, i, b)]
            assert max(span) < min(other) or max(other) < min(span)


def _under(parents, node, ancestor) -> bool:
    while node > 0:
        if node == ancestor:
            return True
        node = parents[node]
    return False


def test_node_scores_sum_to_the_trees_expected_tokens():
    a = specmath.SEQUOIA_ACCEPTANCE
    value, parents = specmath.optimal_tree(a, 48, 7)
    ranks, scores = tree_view.node_scores(parents, a)
    assert scores.sum() == pytest.approx(float(value), rel=1e-12)
    assert scores.sum() == pytest.approx(float(specmath.tree_expected_tokens(parents, a)), rel=1e-12)
    assert ranks[0] == 0 and (ranks[1:] >= 1).all()


def test_tree_picture_holds_edges_nodes_and_scores():
    parents = np.array([-1, 0, 0, 1])
    ranks, scores = tree_view.node_scores(parents, np.array([0.6, 0.3]))
    spec = charts.tree_picture(parents, ranks, scores, "title", "subtitle")
    edges, nodes = echart.as_figure(spec)["data"]
    assert edges["x"].count(None) == 3  # three edges, each its own segment
    np.testing.assert_allclose(np.array(nodes["customdata"])[:, 1], [1, 0.6, 0.3, 0.36])
    np.testing.assert_array_equal(nodes["y"], [0, 1, 1, 2])
    assert spec["yAxis"]["inverse"] and spec["yAxis"]["data"] == ["root", "1", "2"]  # the root on top
    assert (
        charts.tree_picture_height(parents) == 360 and charts.tree_picture_height(np.arange(-1, 9)) == 150 + 70 * 9
    )  # a chain of depth 9


def _curves(n: int, eagle: np.ndarray | None = None) -> dict:
    budgets = np.arange(1, n + 1)
    eagle = budgets * 0.55 if eagle is None else eagle
    return {"chain": ("chain", budgets * 0.5), "best": ("best", budgets * 0.6), "eagle": ("eagle", eagle)}


def _star(spec: dict) -> dict:
    (star,) = [series for series in spec["series"] if series["name"] == "best (m, depth)"]
    return star


def test_curve_builders_hold_their_numbers():
    budgets = np.arange(1, 11)
    fig = echart.as_figure(charts.tree_tokens(budgets, _curves(10), 4, "sub"))
    assert [t["name"] for t in fig["data"]] == ["chain", "best", "eagle"]
    np.testing.assert_array_equal(fig["data"][1]["y"], budgets * 0.6)
    single = np.full(10, np.nan)
    single[5] = 2.0
    spec = charts.tree_speedups(budgets, _curves(10, single), (7, 2, 4.2), 4, "sub")
    json.dumps(spec, allow_nan=False)  # an option is JSON: the budgets without an EAGLE tree are gaps
    fig = echart.as_figure(spec)
    assert fig["data"][2]["mode"] == "markers", "one EAGLE point is a marker, not an invisible line"
    assert [y is None for y in fig["data"][2]["y"]] == [m != 6 for m in budgets]
    star = fig["data"][-1]
    assert (star["x"], star["y"]) == ([7], [4.2])
    star = _star(spec)
    label = star["label"] if "label" in star else star["markPoint"]["label"]  # beside the star or the rule
    assert "m = 7, depth 2" in label["formatter"]


def test_the_speedup_chart_puts_the_label_clear_of_the_rule():
    budgets = np.arange(1, 129)
    curves = {"best": ("best", np.linspace(1, 2, 128))}
    star = _star(charts.tree_speedups(budgets, curves, (20, 4, 2.59), 32, "sub"))
    assert 32.0 in [d.get("xAxis") for d in star["markLine"]["data"]]
    # No room between 20 and 32: past the rule, reading rightwards from it at the star's height.
    (mark,) = star["markPoint"]["data"]
    assert mark["coord"] == [32, 2.59] and star["markPoint"]["label"]["position"] == "right"
    assert star["markPoint"]["label"]["formatter"].startswith("best: m = 20") and "label" not in star


def test_the_speedup_charts_slower_label_keeps_clear_of_the_rule():
    budgets = np.arange(1, 129)
    curves = {"best": ("best", np.linspace(1, 2, 128))}
    for chosen, slower_side in ((32, "insideBottomRight"), (128, "insideBottomLeft")):
        star = _star(charts.tree_speedups(budgets, curves, (20, 4, 2.59), chosen, "sub"))
        (region,) = star["markArea"]["data"]
        assert region[0]["name"] == "slower than plain decoding" and [r["yAxis"] for r in region] == [0, 1]
        # The rule's label at its top; the region's at the foot's end away from the rule.
        assert star["markLine"]["data"][0]["label"]["position"] == "end"
        assert region[0]["label"]["position"] == slower_side


def test_eagle_settings_follow_sglang():
    assert tree_view.eagle_settings(32, 5, 8, 32) == tree_view.EagleSettings(5, 8, 32)
    one = tree_view.eagle_settings(32, 5, 1, 32)
    assert one.num_draft_tokens == 6 and "steps + 1 = 6" in one.note
    full = tree_view.eagle_settings(100, 3, 2, 32)
    assert full.num_draft_tokens == 1 + 2 + 2 * 4 and "at most 10 tokens" in full.note
    narrow = tree_view.eagle_settings(32, 5, 8, 3)
    assert narrow.topk == 3 and "3 ranks" in narrow.note
    head = tree_view.draft_head_placeholder("meta-llama/Llama-3.1-8B")
    assert head == "YOUR-EAGLE-HEAD-FOR-Llama-3.1-8B"
    assert tree_view.draft_head_placeholder(None) == "YOUR-EAGLE-HEAD-FOR-YOUR-TARGET"
    sglang = engines.tree_configs(full.steps, full.topk, full.num_draft_tokens, head)[1]
    assert sglang.blocks[0].text.split() == [
        "python", "-m", "sglang.launch_server", "--model-path", "YOUR-TARGET-MODEL", "\\",
        "--speculative-algorithm", "EAGLE", "\\", "--speculative-draft-model-path", head, "\\",
        "--speculative-num-steps", "3", "\\", "--speculative-eagle-topk", "2", "\\",
        "--speculative-num-draft-tokens", "11",
    ]  # fmt: skip
    # Every budget offered is one eagle_tree accepts; one more is refused.
    for steps, topk in ((1, 1), (4, 1), (3, 2), (2, 5)):
        offered = tree_view.eagle_budgets(steps, topk, 128)
        for n in offered:
            specmath.eagle_tree(specmath.SEQUOIA_ACCEPTANCE, steps, topk, int(n))
        with pytest.raises(ValueError, match="num_draft_tokens"):
            specmath.eagle_tree(specmath.SEQUOIA_ACCEPTANCE, steps, topk, int(offered[-1]) + 1)


def test_speedup_table_and_best_setting_against_a_loop():
    a = [0.5, 0.25, 0.1]
    table = specmath.optimal_tree_table(a, 20, 6)
    target = specmath.LinearOverhead(1.0, 0.2)
    s = tree_view.speedup_table(table, 0.1, target)
    loop = max(
        (specmath.tree_speedup(table[m, d], m, d, 0.1, target), -m, -d)
        for m in range(1, 21)
        for d in range(7)
        if np.isfinite(table[m, d])
    )
    assert tree_view.best_setting(s) == (-loop[1], -loop[2], pytest.approx(loop[0]))
    values, depths = tree_view.best_over_depth(s, 3)
    assert np.isnan(values[0]) and depths[0] == -1
    assert values[10] == np.nanmax(s[10, :4]) and s[10, depths[10]] == values[10]


@pytest.mark.parametrize(
    ("text", "values", "problem"),
    [
        ("0.6, 0.2, 0.1", [0.6, 0.2, 0.1], None),
        (" 0.6 0.2\t0.1;0 ", [0.6, 0.2, 0.1, 0.0], None),
        ("1e-3", [0.001], None),
        ("1", [1.0], None),
        ("0.5, 0.5000000001", [0.5, 0.5000000001], None),  # rounding past 1 is fine
        ("", None, "has no numbers"),
        ("0.6, 0.5", None, "sums to 1.1"),
        ("-0.1", None, "entry 1 is -0.1"),
        ("0.2, 2", None, "entry 2 is 2"),
        ("0.2, x", None, "entry 2 ` x ` is not a number"),
        ("1e999", None, "too large"),
        ("0.1 " * 33, None, "has 33 entries"),
        ("9" * 2000, None, "longer than 1,000 characters"),
    ],
)
def test_parse_acceptance(text, values, problem):
    got, said = tree_view.parse_acceptance(text)
    if problem is None:
        assert said is None
        np.testing.assert_array_equal(got, values)
    else:
        assert got is None and problem in said


def test_the_fastest_eagle_tree_is_the_first_maximum_over_what_sglang_takes():
    speedups = np.array([np.nan, 1.5, 2.5, 2.5, np.nan, 3.0, 3.0, 0.4])
    assert tree_view.fastest_eagle(speedups) == (6, 3.0)  # 6 tokens: the first of the two 3.0s
    assert tree_view.fastest_eagle(np.array([np.nan, 0.7, np.nan])) == (2, 0.7)
    by_steps = {4: np.array([1.0, 2.0]), 2: np.array([2.0, 1.5]), 3: np.array([0.5, 1.9])}
    assert tree_view.fastest_steps(by_steps) == (2, 1, 2.0)  # ties go to fewer steps


def _crosses(label: dict, rule: float, width: float) -> bool:
    """Whether the dashed rule runs through the label, ``width`` wide in data units."""
    x = label["x"]
    lo, hi = (x, x + width) if label["xanchor"] == "left" else (x - width, x)
    return lo < rule < hi


def test_the_best_trees_label_is_never_crossed_by_the_chosen_budgets_rule():
    x_max = 128.0
    width = trees_chart.LABEL_WIDTH * x_max
    for star in range(1, 129):
        for rule in range(2, 129):
            label = trees_chart.clear_of_rule(star, rule, x_max)
            assert label["x"] in (star, rule) and label["xshift"] == (14 if label["xanchor"] == "left" else -14)
            assert not _crosses(label, rule, width), (star, rule, label)
            if label["x"] == rule != star:  # beside the rule, on the side away from the star
                assert (label["xanchor"] == "left") == (rule > star)
            spans = (label["x"], label["x"] + width) if label["xanchor"] == "left" else (label["x"] - width, label["x"])
            room = max(rule - star if rule > star else x_max - star, star - rule if rule < star else star)
            if room >= width:  # where the label fits beside the star, it stays beside the star, inside the plot
                assert label["x"] == star and 0 <= spans[0] and spans[1] <= x_max, (star, rule, label)
