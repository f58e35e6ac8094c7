"""The Hardware page under AppTest: the roofline numbers it shows are specmath's."""

import numpy as np
import pytest

import specmath
from dashboard import cached, charts
from tests.app_helpers import metrics, open_page, page_charts, trace, values, warnings

HARDWARE = "hardware"


def _setup(batch=1, context=1024, precision=2.0, overhead_ms=0.0, bandwidth=0.0, peak=0.0, target="Llama-3.1-8B"):
    return cached.hardware_setup(
        target, "Llama-3.2-1B", "H100 SXM", precision, batch, context, overhead_ms, bandwidth, peak
    )


def test_defaults_show_the_roofline_of_the_presets():
    at = open_page(HARDWARE)
    assert not at.exception and not warnings(at) and not at.warning
    setup = _setup()
    target = specmath.roofline(specmath.MODEL_PRESETS["Llama-3.1-8B"], specmath.GPU_PRESETS["H100 SXM"], 1, 1024)
    assert setup.target(1) == target(1)
    m = metrics(at)
    assert m["Target step T_target(1)"] == f"{target(1) * 1e3:.3f} ms"
    assert m["Implied c = T_target(1) / T_draft(1)"] == f"{setup.c:.2f}"
    k, s = specmath.optimal_k_general(0.8, setup.draft, setup.target, max_k=32)
    assert m["Best k, roofline"] == f"{k} → {s:.2f}×"
    speedup_figure, cost_figure, sweep_figure = page_charts(at)
    np.testing.assert_array_equal(
        values(trace(speedup_figure, "roofline")["y"]),
        specmath.general_speedup(0.8, np.arange(1, 33), setup.draft, setup.target),
    )
    np.testing.assert_allclose(
        values(trace(cost_figure, "target pass over w positions")["y"]), setup.target(np.arange(2, 34)) * 1e3
    )
    sweep = specmath.roofline_batch_sweep(
        0.8, setup.draft.model, setup.target.model, setup.target.gpu, cached.BATCHES, 1024, 0.0, max_k=32
    )
    np.testing.assert_array_equal(values(trace(sweep_figure, "best speedup")["y"]), sweep.speedup)
    np.testing.assert_array_equal(values(trace(sweep_figure, "best k")["y"]), sweep.k)
    # At a context of 1,024 the 8B target's KV cache outgrows 80 GB from batch 512 on: greyed out.
    assert list(sweep.batch[~sweep.target_fits]) == [512, 1024]
    (grey,) = [s for s in sweep_figure["layout"]["shapes"] if s["xref"] == "x" and s["type"] == "rect"]
    assert grey["x0"] == pytest.approx(np.sqrt(256 * 512))


def test_batch_one_is_memory_bound_so_verification_is_free():
    at = open_page(HARDWARE, batch="1", context="0")
    m = metrics(at)
    assert m["Best k, free verification"] == m["Best k, roofline"]
    assert m["Target step T_target(1)"] == m["Target over k + 1 = 9 positions"]


def test_large_batches_make_verification_expensive():
    at = open_page(HARDWARE, batch="512", context="0")
    m = metrics(at)
    setup = _setup(batch=512, context=0)
    assert setup.target(9) > 2 * setup.target(1)
    free_k = int(m["Best k, free verification"].split()[0])
    roof_k = int(m["Best k, roofline"].split()[0])
    assert roof_k < free_k
    sweep_figure = page_charts(at)[2]
    shapes = [a["text"] for a in sweep_figure["layout"]["annotations"] if "stops paying" in a.get("text", "")]
    assert shapes, "the crossover batch is marked"


def test_page_edits_change_the_model():
    at = open_page(HARDWARE)
    base = metrics(at)["Target step T_target(1)"]
    at.radio(key="precision").set_value("int4").run()
    assert metrics(at)["Target step T_target(1)"] == f"{_setup(precision=0.5).target(1) * 1e3:.3f} ms"
    assert metrics(at)["Target step T_target(1)"] != base
    at.number_input(key="bandwidth").set_value(1000.0).run()
    assert metrics(at)["Target step T_target(1)"] == f"{_setup(precision=0.5, bandwidth=1000.0).target(1) * 1e3:.3f} ms"
    at.number_input(key="overhead_ms").set_value(0.5).run()
    setup = _setup(precision=0.5, bandwidth=1000.0, overhead_ms=0.5)
    assert metrics(at)["Implied c = T_target(1) / T_draft(1)"] == f"{setup.c:.2f}"


def test_a_model_that_does_not_fit_is_flagged():
    at = open_page(HARDWARE, target_model="Llama-3.1-70B")
    assert any("more than one H100 SXM holds" in w.value for w in at.warning)
    assert len(page_charts(at)) == 3


@pytest.mark.parametrize(("key", "raw"), [("gpu", "TPU"), ("batch", "3"), ("context", "-1"), ("peak", "abc")])
def test_bad_links_warn(key, raw):
    at = open_page(HARDWARE, **{key: raw})
    assert not at.exception
    assert any(f"`{key}" in w for w in warnings(at))
    assert len(page_charts(at)) == 3


def test_hardware_figures_hold_their_numbers():
    k = np.arange(1, 6)
    fig = charts.hardware_speedup(k, k * 1.0, k * 0.5, {"roofline": (2, 1.0)}, 0.8, 3, "label")
    np.testing.assert_array_equal(fig.data[0].y, k * 1.0)
    np.testing.assert_array_equal(fig.data[1].y, k * 0.5)
    fig = charts.batch_sweep(np.array([1, 2, 4]), np.array([5, 3, 1]), np.array([2.0, 1.2, 0.9]), 4, 0.8, "label")
    np.testing.assert_array_equal(fig.data[0].y, [2.0, 1.2, 0.9])
    assert any("batch 4" in a.text for a in fig.layout.annotations)
