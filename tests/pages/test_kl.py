"""The α-vs-KL page under AppTest: the chapter's experiment and its widgets."""

import json

import numpy as np

import specmath
from dashboard import limits
from tests.app_helpers import (
    KL,
    metrics,
    open_page,
    page_charts,
    trace,
    values,
)


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
    # The x axis is read from the ECharts option itself (page_charts reads its series back).
    assert json.loads(at.get("echarts_chart")[0].proto.spec)["xAxis"]["type"] == "log"
    P, Q = specmath.random_distribution_pairs(50, 5, rng=42)
    np.testing.assert_array_equal(values(trace(figure, "random (p, q) pair")["y"]), specmath.divergences(P, Q).alpha)


def test_a_link_past_the_work_cap_draws_the_capped_pairs_and_says_so():
    at = open_page(KL, pairs="5000", kl_vocab="1000")
    assert not at.exception
    (note,) = [i.value for i in at.info]
    used = limits.kl_pairs(5000, 1000, 10).value
    assert f"Drew {used:,} of the 5,000 pairs" in note
    assert metrics(at)["Pairs"] == f"{used:,}"
    P, Q = specmath.random_distribution_pairs(used, 1000, rng=42)
    points = trace(page_charts(at)[0], "random (p, q) pair")
    np.testing.assert_array_equal(values(points["x"]), specmath.divergences(P, Q).kl)
