"""The Hardware page's builders (speedup curves; experts, tensor parallelism and long contexts) hold their numbers."""

import numpy as np

from dashboard import charts

BATCHES = np.array([1, 2, 4, 8, 16])


def test_hardware_speedup_holds_both_curves_and_the_stars_given():
    k = np.arange(1, 6)
    fig = charts.hardware_speedup(k, k * 1.0, k * 0.5, {"roofline": (2, 1.0)}, 0.8, 3, "label")
    assert [t.name for t in fig.data] == ["free verification", "roofline", "best k"]
    np.testing.assert_array_equal(fig.data[0].y, k * 1.0)
    np.testing.assert_array_equal(fig.data[1].y, k * 0.5)
    assert (list(fig.data[2].x), list(fig.data[2].y), list(fig.data[2].customdata)) == ([2], [1.0], ["roofline"])


def test_verification_by_batch_draws_one_line_per_model_over_a_log_batch_axis():
    ratios = {"moe": np.array([2.6, 2.6, 2.2, 1.5, 1.1]), "dense moe": np.ones(5)}
    fig = charts.verification_by_batch(BATCHES, ratios, 4, "moe on H100 SXM")
    assert [t.name for t in fig.data] == ["moe", "dense moe"]
    for trace, expected in zip(fig.data, ratios.values(), strict=True):
        np.testing.assert_array_equal(trace.x, BATCHES)
        np.testing.assert_array_equal(trace.y, expected)
    assert fig.data[1].line.dash == "dot" and fig.data[0].line.dash is None
    assert fig.layout.xaxis.type == "log" and list(fig.layout.xaxis.tickvals) == list(BATCHES)
    assert fig.layout.title.text == "Verification cost against the batch · k = 4"
    assert "k + 1 = 5" in fig.layout.yaxis.title.text
    (rule,) = fig.layout.shapes  # free verification, T(k + 1) = T(1)
    assert rule.y0 == rule.y1 == 1.0
    # Its label hangs under the rule, where no ratio (>= 1) runs: the dense line at 1 cannot cross it.
    (label,) = fig.layout.annotations
    assert (label.text, label.y, label.yanchor) == ("free verification", 1.0, "top")


def test_batch_context_map_colours_the_speedup_and_labels_each_cell_with_its_k():
    contexts = np.array([0, 1024, 131072])
    best_k = np.array([[5, 4, 3, 2, 1], [6, 5, 5, 4, 4], [7, 7, 7, 7, 7]])
    best = np.array([[2.0, 1.7, 1.3, 1.0, 0.8], [2.2, 2.0, 1.8, 1.6, 1.5], [2.5, 2.5, 2.5, 2.5, 2.5]])
    fits = np.ones(best.shape, dtype=bool)
    fits[2, 3:] = False
    (heat,) = charts.batch_context_map(BATCHES, contexts, best_k, best, fits, 0.8, "label").data
    np.testing.assert_array_equal(heat.z, best)
    np.testing.assert_array_equal(heat.customdata, best_k)
    assert list(heat.x) == ["1", "2", "4", "8", "16"] and list(heat.y) == ["0", "1024", "131072"]
    # No k pays at 1.0 and below: "–", the schedule's k = 0; a target that does not fit: "*".
    assert list(heat.text[0]) == ["5", "4", "3", "–", "–"]
    assert list(heat.text[2]) == ["7", "7", "7", "7*", "7*"]
    # The colours diverge at a speedup of 1: the white stop sits at 1 / zmax.
    assert heat.zmin == 0.0 and heat.zmax == 2.5
    _, (stop, colour), _ = heat.colorscale
    assert colour == "#F7F7F7" and stop == 1 / 2.5


def test_batch_context_map_keeps_break_even_inside_the_scale_when_nothing_pays():
    best = np.full((1, 5), 0.6)
    (heat,) = charts.batch_context_map(BATCHES, np.array([0]), np.ones((1, 5), int), best, best > 0, 0.8, "").data
    assert heat.zmax > 1.0 and all(label == "–" for label in heat.text[0])
