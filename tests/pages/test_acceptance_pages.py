"""The acceptance family on the pages (issue 45): a preset, a typed profile or a fall-off with context,
each page's numbers checked against specmath called directly; the α slider's path unchanged."""

from urllib.parse import parse_qs

import numpy as np
import pytest

import engines
import specmath
from dashboard.features import calibrate_examples
from dashboard.params import HARDWARE_TABS
from specmath.deployment import Deployment, hardware_setup
from tests.app_helpers import metrics, open_page, page_charts, trace, values, warnings

MINIMAX = "MiniMax-M3 EAGLE-3 (thinking off)"
#: The issue's numbers for it: InferenceX's golden curve, k = 1 … 8.
MINIMAX_CURVE = {1: 1.84, 2: 2.52, 3: 2.93, 4: 3.41, 5: 3.59, 6: 3.57, 7: 3.85, 8: 4.06}
QWEN_FALLOFF = "Qwen3-8B EAGLE-3, LongBench-v2"
HARDWARE_K = np.arange(1, 33)


def _chart(at, title: str) -> dict:
    (found,) = [f for f in page_charts(at) if f["layout"]["title"]["text"].startswith(title)]
    return found


def _setup(context=1024, batch=1):
    """The Hardware page's default deployment: Llama-3.2-1B drafting for Llama-3.1-8B on one H100 SXM, bf16."""
    return hardware_setup(Deployment("Llama-3.1-8B", "Llama-3.2-1B", "H100 SXM", 2.0, context), batch)


def _roofline_checks(at, acceptance) -> None:
    """The Hardware page's roofline curve and best k are specmath's for ``acceptance`` at the defaults."""
    setup = _setup()
    np.testing.assert_array_equal(
        values(trace(_chart(at, "Speedup vs draft length"), "roofline")["y"]),
        specmath.general_speedup(acceptance, HARDWARE_K, setup.draft, setup.target),
    )
    k, s = specmath.general_optimal_k(acceptance, setup.draft, setup.target, max_k=32)
    assert metrics(at)["Best k, roofline"] == f"{k} → {s:.2f}×"


def test_the_minimax_preset_is_the_issues_curve():
    assert dict(specmath.ACCEPTANCE_PRESETS[MINIMAX].lengths) == MINIMAX_CURVE


def test_hardware_with_a_preset_uses_its_measured_curve():
    at = open_page("hardware", acc=MINIMAX)
    assert not at.exception and not warnings(at)
    measured = specmath.acceptance(lengths=MINIMAX_CURVE)
    _roofline_checks(at, measured)
    assert _chart(at, "Speedup vs draft length")["layout"]["title"]["text"].endswith(MINIMAX)
    schedule = open_page("hardware", acc=MINIMAX, hw_view=HARDWARE_TABS["schedule"])
    assert _chart(schedule, "Draft length schedule")["layout"]["title"]["text"].endswith(MINIMAX)
    assert any(c.value.startswith("The α slider is set aside") for c in at.sidebar.caption)


def test_hardware_applies_a_fall_off_at_its_context_and_on_its_map():
    context = 8192
    on_map = {"hw_view": HARDWARE_TABS["experts"]}  # the tab with the batch and context map
    at = open_page("hardware", acc=MINIMAX, acc_falloff=QWEN_FALLOFF, context=str(context), **on_map)
    assert not at.exception and not warnings(at)
    m = specmath.presets.CONTEXT_MEASUREMENTS[QWEN_FALLOFF]
    g = specmath.fit_context_falloff(m.contexts, m.values, baseline=m.baseline, ceiling=m.ceiling).falloff
    there = specmath.acceptance(lengths=g.lengths_at(MINIMAX_CURVE, context))
    setup = _setup(context)
    k, s = specmath.general_optimal_k(there, setup.draft, setup.target, max_k=32)
    assert metrics(at)["Best k, roofline"] == f"{k} → {s:.2f}×"
    # The map: the context-0 row is the curve itself, the longest context's acceptance has nearly gone.
    plain = open_page("hardware", acc=MINIMAX, **on_map)
    with_falloff = values(_chart(at, "Best k and speedup over batch")["data"][0]["z"])
    without = values(_chart(plain, "Best k and speedup over batch")["data"][0]["z"])
    np.testing.assert_array_equal(with_falloff[0], without[0])
    assert (with_falloff[-1] < without[-1]).all()
    # Where the data are thin is said, in one line, beside the map.
    assert any("from 10 points" in c.value and "one head and one setup" in c.value for c in at.caption)


def test_speedup_draws_a_preset_beside_its_fitted_alpha_and_marks_where_they_part():
    c = 10
    at = open_page("speedup", acc=MINIMAX, c=str(c))
    assert not at.exception and not warnings(at)
    figure = _chart(at, "Measured acceptance against the i.i.d. model")
    measured = specmath.acceptance(lengths=MINIMAX_CURVE)
    alpha = measured.fitted_alpha(k=1).alpha  # AL(1) = 1 + α
    assert alpha == pytest.approx(0.84, abs=1e-12)
    ks = np.arange(1, 9)
    np.testing.assert_array_equal(values(trace(figure, MINIMAX)["y"]), specmath.speedup(measured, ks, c))
    iid = trace(figure, f"i.i.d. α = {alpha:.3f}, fitted on AL(1)")
    np.testing.assert_array_equal(values(iid["y"]), specmath.speedup(alpha, values(iid["x"]), c))
    # Where they part: the first k whose acceptance lengths (so speedups) differ by more than 5 %.
    lengths = np.array(list(MINIMAX_CURVE.values()))
    first = int(ks[np.abs(lengths / specmath.expected_tokens(alpha, ks) - 1) > 0.05][0])
    assert first == 3
    assert any(f"They part at k = {first}" in caption.value for caption in at.caption)
    best_k, best = specmath.optimal_k(measured, c, max_k=8)
    assert metrics(at)[f"Best k, {MINIMAX}"] == f"{best_k} → {best:.2f}×"


def test_the_alpha_slider_path_draws_no_measured_chart():
    at = open_page("speedup")
    assert not at.exception and len(page_charts(at)) == 1
    grid = values(trace(page_charts(at)[0], "α = 0.8 (chosen)")["y"])
    np.testing.assert_array_equal(grid, specmath.speedup(0.8, np.arange(1, 65), 20))


def test_a_typed_profile_is_used_and_a_bad_one_is_named():
    at = open_page("hardware", acc="profile", acc_profile="0.73, 0.52, 0.35")
    assert not at.exception and not warnings(at)
    _roofline_checks(at, specmath.acceptance(per_position=[0.73, 0.52, 0.35]))
    at = open_page("hardware", acc="profile", acc_profile="0.5, 0.7")
    assert not at.exception
    assert any("not used" in w and "α = 0.8" in w for w in warnings(at))
    _roofline_checks(at, 0.8)


def test_draft_trees_chain_takes_the_presets_least_squares_alpha():
    at = open_page("trees", acc=MINIMAX, tree_source="chain")
    assert not at.exception and not warnings(at)
    fit = specmath.acceptance(lengths=MINIMAX_CURVE).fitted_alpha()
    assert fit.fitted_k == tuple(range(1, 9))
    assert metrics(at)["p₁, first choice accepted"] == f"{fit.alpha:.3f}"
    assert any("least squares" in c.value for c in at.sidebar.caption)


def _link_query(at, label: str) -> dict[str, str]:
    (link,) = [link.proto for link in at.get("page_link") if link.proto.label == label]
    return {key: value[-1] for key, value in parse_qs(link.query_string).items()}


@pytest.mark.parametrize("example", ["vLLM V1 log", "llama-server /metrics"])
def test_calibrates_profile_carried_by_link_is_hardwares_acceptance(example):
    text = calibrate_examples.EXAMPLES[example]
    at = open_page("calibrate")
    at.text_area(key="engine_paste").set_value(text).run()
    assert not at.exception
    query = _link_query(at, "Open Hardware with this profile")
    assert query["acc"] == "profile"
    assert _link_query(at, "Open Draft trees with this profile") == query
    hardware = open_page("hardware", **query)
    assert not hardware.exception and not warnings(hardware)
    # The rates as the engine's parser reads them, straight into specmath: bit for bit the page's.
    rates = engines.parse_engine_metrics(text).per_position
    _roofline_checks(hardware, specmath.acceptance(per_position=rates))


def test_a_sweeps_curve_carried_by_link_is_hardwares_acceptance():
    text = calibrate_examples.EXAMPLES[calibrate_examples.SWEEP_EXAMPLE]
    at = open_page("calibrate")
    at.text_area(key="engine_paste").set_value(text).run()
    assert not at.exception
    query = _link_query(at, "Open Hardware with this curve")
    hardware = open_page("hardware", **query)
    assert not hardware.exception and not warnings(hardware)
    pairs = dict(item.split(":") for item in query["acc_profile"].split(","))
    assert len(pairs) >= 2
    _roofline_checks(hardware, specmath.acceptance(lengths={int(k): float(v) for k, v in pairs.items()}))
