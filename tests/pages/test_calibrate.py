"""The Calibrate page under AppTest, and its pure input layer."""

import json
import re
from urllib.parse import parse_qs

import numpy as np
import pytest
import yaml

import engines
import specmath
from dashboard import texts
from dashboard.features import calibrate, calibrate_examples
from engines import definitions
from engines.configs import drafter_mismatch
from specmath.speedup import MAX_DRAFT_LENGTH
from tests.app_helpers import (
    codes,
    metrics,
    open_page,
    page_charts,
    sglang_flags,
    shown,
    synthetic_vllm_config,
    trace,
    values,
    vllm_config,
    warnings,
)
from tests.engines.engine_rules import COMMANDS
from tests.helpers import LATEST_REPORT, long_engine_log

CALIBRATE = "calibrate"


def test_counts_from_the_link():
    at = open_page(CALIBRATE, k="3", drafts="1000", accepted="1850")
    assert not at.exception and not warnings(at) and not at.error
    fit = specmath.alpha_interval(1850, 1000, 3)
    m = metrics(at)
    assert m["Mean acceptance length"] == "2.850"
    assert m["Fitted i.i.d. α"] == f"{fit.alpha:.3f}"
    assert m["95% interval for α"] == f"{fit.low:.3f} – {fit.high:.3f}"
    best = int(np.argmax(specmath.speedup(fit.alpha, np.arange(1, 65), 20))) + 1
    assert m["Recommended k"].startswith(f"{best} → ")
    (figure,) = page_charts(at)
    ks = np.arange(1, 65)
    iid = trace(figure, f"i.i.d. at fitted α = {fit.alpha:.3f}")
    np.testing.assert_array_equal(values(iid["x"]), ks)
    np.testing.assert_array_equal(values(iid["y"]), specmath.speedup(fit.alpha, ks, 20))
    # The band: one closed outline, out along the speedup at the interval's top, back along its bottom.
    band = trace(figure, f"α interval {fit.low:.3f} … {fit.high:.3f}")
    np.testing.assert_array_equal(values(band["x"]), np.concatenate([ks, ks[::-1]]))
    upper, lower = (specmath.speedup(a, ks, 20) for a in (fit.high, fit.low))
    np.testing.assert_array_equal(values(band["y"]), np.concatenate([upper, lower[::-1]]))
    assert len(figure["data"]) == 2


def test_step_times_set_the_cost_ratio():
    at = open_page(CALIBRATE, k="3", drafts="1000", accepted="1850", target_ms="30", draft_ms="3")
    assert "Speedup now (k = 3, c = 10)" in metrics(at)
    assert metrics(at)["Speedup now (k = 3, c = 10)"] == f"{2.85 / 1.3:.2f}×"
    alpha = specmath.alpha_interval(1850, 1000, 3).alpha
    iid = trace(page_charts(at)[0], f"i.i.d. at fitted α = {alpha:.3f}")  # the curves at c = 30 / 3 too
    np.testing.assert_array_equal(values(iid["y"]), specmath.speedup(alpha, np.arange(1, 65), 10.0))
    assert any("turn on the schedule" in c.value for c in at.sidebar.caption)
    at = open_page(CALIBRATE, k="3", target_ms="30", draft_ms="3", cal_schedule="true")
    assert not any("turn on the schedule" in c.value for c in at.sidebar.caption)


def test_impossible_counts_are_explained():
    at = open_page(CALIBRATE, k="2", drafts="10", accepted="50")
    assert not at.exception
    assert any("is impossible" in e.value for e in at.error)
    assert page_charts(at) == []


@pytest.mark.parametrize(("key", "raw"), [("drafts", "0"), ("accepted", "-5"), ("target_ms", "abc")])
def test_bad_counts_in_the_link_warn(key, raw):
    at = open_page(CALIBRATE, **{key: raw})
    assert not at.exception
    assert any(f"`{key}" in w for w in warnings(at))


def test_from_counts_and_calibrate():
    measurement = calibrate.from_counts(4, 100, 250)
    assert measurement.mean_length == 3.5
    result = calibrate.calibrate(measurement, c=20.0)
    assert result.has_interval and result.fit.low < result.fit.alpha < result.fit.high
    assert result.measured_speedup == pytest.approx(3.5 / 1.2)
    assert result.recommended_speedup == result.iid.max()


def test_a_recommendation_from_one_drafting_step_says_its_range_and_that_it_extrapolates():
    """k = 3, one draft, all accepted: α's interval reaches 1, so the best k is the largest searched."""
    measurement = calibrate.from_counts(3, 1, 3)
    result = calibrate.calibrate(measurement, c=20.0)
    assert result.recommended_k == calibrate.MAX_K
    fit = specmath.alpha_interval(3, 1, 3)
    low, high = sorted(float(specmath.speedup(a, calibrate.MAX_K, 20.0)) for a in (fit.low, fit.high))
    said = calibrate.recommendation_caveat(measurement, result)
    assert "one drafting step" in said
    assert f"At the recommended k = 64 the speedup is anywhere from {low:.2f}× to {high:.2f}×" in said
    assert "k = 64 is beyond the measured draft length, 3: its prediction extrapolates" in said
    assert "largest k searched" in said
    # Many drafts, a best k within the measured one and the same at both ends: nothing to add.
    measurement = calibrate.from_counts(8, 1000, 2400)
    assert calibrate.recommendation_caveat(measurement, calibrate.calibrate(measurement, c=20.0)) is None


def test_profile_drives_the_recommendation():
    measurement = calibrate.Measurement("test", 3, 2.85, 1000, 1850, np.array([0.81, 0.64, 0.40]))
    result = calibrate.calibrate(measurement, c=20.0)
    expected = specmath.speedup(specmath.acceptance(per_position=[0.81, 0.64, 0.40]), np.arange(1, 65), 20.0)
    np.testing.assert_array_equal(result.profile, expected)
    assert result.recommended_k == int(np.argmax(expected)) + 1


def test_every_example_is_read():
    """The examples are one run of k = 3: each reads to its mean length; only SGLang's lacks k."""
    for name, text in calibrate_examples.EXAMPLES.items():
        if name == calibrate_examples.SWEEP_EXAMPLE:
            continue  # a sweep of runs, not one (test_the_sweep_example_…)
        measurement = calibrate.from_paste(text)
        if name == "SGLang log":
            assert isinstance(measurement, calibrate.KUnknown) and measurement.mean_length == 2.85
            measurement = calibrate.from_paste(text, 3)
            assert measurement.k_given
        assert isinstance(measurement, calibrate.Measurement), (name, measurement)
        assert measurement.k == 3 and measurement.mean_length == pytest.approx(2.85, abs=0.01), name
        assert calibrate.from_paste(text, 7).k == (7 if name == "SGLang log" else 3)  # a printed k wins


def test_a_draft_length_out_of_range_is_said_with_its_value():
    text = calibrate_examples.EXAMPLES["llama.cpp"].replace("n_draft   = 3", "n_draft   = 2000")
    assert calibrate.from_paste(text) == (
        f"The draft length k = 2,000 is out of range: the fits take k from 1 to {MAX_DRAFT_LENGTH:,}."
    )


def _click(at, name):
    next(b for b in at.button if b.label == name).click().run()
    return at


@pytest.mark.parametrize(
    "name",
    [name for name in calibrate_examples.EXAMPLES if name not in ("SGLang log", calibrate_examples.SWEEP_EXAMPLE)],
)
def test_example_buttons_fill_the_paste_and_calibrate(name):
    at = _click(open_page(CALIBRATE, k="3"), name)
    assert not at.exception and not at.error
    assert at.text_area(key="engine_paste").value == calibrate_examples.EXAMPLES[name]
    assert metrics(at)["Mean acceptance length"] == "2.850"
    assert any(name.split()[0] in s.value for s in at.success)
    with_profile = name in (
        "vLLM V1 log",
        "vLLM /metrics",
        "llama-server /metrics",
        "vLLM per-request",
        "vLLM bench serve",
    )
    assert len(page_charts(at)) == (2 if with_profile else 1)
    # A band only where there is an interval: a mean acceptance length alone has none.
    band = [t for t in page_charts(at)[0]["data"] if t.get("name", "").startswith("α interval")]
    assert len(band) == (0 if metrics(at)["95% interval for α"] == "—" else 1)
    if with_profile:
        positions = page_charts(at)[1]
        np.testing.assert_allclose(values(trace(positions, "unconditional P(≥ i accepted)")["y"]), [0.81, 0.64, 0.40])


def test_the_sweeps_configs_say_what_the_hardware_page_says_of_the_drafter():
    """The sweep view's drafter words are Hardware's (engine_config.drafter): a typed name the method
    does not load, a typed draft model's vocabulary, a preset pair the engines refuse."""
    cases = [
        ({"cal_method": "mtp", "cal_drafter": "./my-draft"}, "caption", "With `mtp` the engine drafts with"),
        ({"cal_method": "draft_model", "cal_drafter": "./my-draft"}, "caption", "does not know the typed model's"),
        (
            {"cal_method": "draft_model", "cal_target_model": "Qwen2.5-7B", "cal_draft_model": "Qwen2.5-0.5B"},
            "warning",
            "**These configs would not work as they stand.**",
        ),
    ]
    for query, kind, said in cases:
        at = _click(open_page(CALIBRATE, cal_schedule="true", **query), calibrate_examples.SWEEP_EXAMPLE)
        assert not at.exception and not at.error
        shown_there = [c.value for c in at.caption] if kind == "caption" else warnings(at)
        assert sum(text.startswith(said) or said in text for text in shown_there) == 1, (query, shown_there)


@pytest.mark.parametrize(
    ("paste", "message"),
    [
        ("hello world, nothing to see", "Could not read the paste"),
        ("SpecDecoding metrics: Mean acceptance len", "Could not read the paste"),
        ("\x00\x01\xff binary \x7f" * 1000, "Could not read the paste"),
        ("x" * 1_000_001, "Read the last 1,000,000 of 1,000,001 characters"),
    ],
)
def test_unreadable_pastes_are_explained(paste, message):
    at = open_page(CALIBRATE)
    at.text_area(key="engine_paste").set_value(paste).run()
    assert not at.exception
    assert any(message in shown(e.value) for e in at.error), [e.value for e in at.error]


def test_a_long_paste_is_read_from_its_end():
    text = long_engine_log()
    assert len(text) == 1_234_567
    tail, note = calibrate.paste_tail(text)
    # The end, cut at a line start: at most 1,000,000 characters, less than one line fewer.
    assert text.endswith(tail) and text[-len(tail) - 1] == "\n"
    assert calibrate.MAX_PASTE_CHARS - 100 < len(tail) <= calibrate.MAX_PASTE_CHARS
    assert note.startswith(f"Read the last {len(tail):,} of 1,234,567 characters")
    measurement = calibrate.from_paste(text)
    assert (measurement.k, measurement.mean_length, measurement.drafts) == (3, 2.56, 200)  # the latest alone
    assert measurement.notes[0] == note
    assert calibrate.paste_tail(LATEST_REPORT) == (LATEST_REPORT, None)


def test_a_long_paste_on_the_page_says_how_much_was_read():
    at = open_page(CALIBRATE)
    at.text_area(key="engine_paste").set_value(long_engine_log()).run()
    assert not at.exception and not at.error
    assert metrics(at)["Mean acceptance length"] == "2.560"
    captions = [shown(c.value) for c in at.caption]
    assert any(c.startswith("Read the last ") and "of 1,234,567 characters" in c for c in captions)
    assert at.text_area(key="engine_paste").value == long_engine_log()  # nothing cut from the box itself


def test_sglang_asks_for_k_and_then_fits_the_runs_alpha():
    """The SGLang example prints no k: no fit until it is given; at the run's k = 3 its α is V1's."""
    v1 = metrics(_click(open_page(CALIBRATE, k="8"), "vLLM V1 log"))["Fitted i.i.d. α"]
    at = _click(open_page(CALIBRATE, k="8"), "SGLang log")
    assert not at.exception and not at.error
    assert any("does not print the draft length k" in w.value for w in at.warning)
    assert "Fitted i.i.d. α" not in metrics(at) and not page_charts(at)
    assert any("No fit until the draft length is given" in i.value for i in at.info)
    at.number_input(key="paste_k").set_value(3).run()
    assert not at.exception and not at.error
    assert metrics(at)["Fitted i.i.d. α"] == v1
    assert metrics(at)["Mean acceptance length"] == "2.850"
    assert any("using the k you gave (k = 3)" in shown(c.value) for c in at.caption)


@pytest.mark.parametrize(
    "name",
    [
        "vLLM V1 log",
        "vLLM V0 log",
        "vLLM /metrics",
        "vLLM per-request",
        "llama.cpp",
        "llama-server /metrics",
        "TensorRT-LLM /metrics",
    ],
)
def test_a_pastes_counts_go_to_the_address_and_reopen_the_same_alpha(name):
    """The address after a paste carries the counts it reduced to; that link shows the same α, and
    the k slider stays at the paste's k (the one the view uses)."""
    at = _click(open_page(CALIBRATE, k="8", drafts="500"), name)
    assert not at.exception and not at.error
    assert "engine_paste" not in at.query_params  # the text itself is not carried
    assert "k" in at.query_params and "accepted" in at.query_params  # drafts = 1,000 is its default
    assert all(at.query_params[key].isdigit() for key in ("k", "drafts", "accepted") if key in at.query_params)
    shown_before = metrics(at)
    reopened = open_page(CALIBRATE, **dict(at.query_params))
    assert not reopened.exception and not reopened.error
    assert [reopened.session_state[key] for key in ("k", "drafts", "accepted")] == [3, 1000, 1850]
    for label in ("Fitted i.i.d. α", "95% interval for α", "Mean acceptance length"):
        assert metrics(reopened)[label] == shown_before[label], label
    # Moving k with the paste present does not leave a k the view ignores in the address.
    at.slider(key="k").set_value(5).run()
    assert not at.exception
    assert at.query_params["k"] == "3" and at.slider(key="k").value == 3
    assert metrics(at)["Fitted i.i.d. α"] == shown_before["Fitted i.i.d. α"]


FIXTURES = __import__("pathlib").Path(__file__).parents[1] / "fixtures" / "engine_metrics"


def test_why_is_my_acceptance_rate_so_low():
    # vLLM issue 26191's counts: 12,208 accepted of 33,712 drafted in 4,816 drafts of k = 7.
    at = open_page(CALIBRATE)
    at.text_area(key="engine_paste").set_value((FIXTURES / "vllm_openmetrics.txt").read_text()).run()
    assert not at.exception and not at.error
    assert any(h.value == "Why is my acceptance rate so low?" for h in at.subheader)
    m = metrics(at)
    assert m["Engine's draft acceptance rate"] == "36.2%"
    assert m["i.i.d. α per token"] == "0.744"
    assert m["Rate α predicts at k = 7"] == "36.2%"
    assert m["Mean length (sets the speedup)"] == "3.53"
    assert any("falls as k grows" in md.value for md in at.markdown)
    # The verification rule is named as another cause, with a link to the page that shows it.
    rule, query = calibrate.rule_cause()
    assert rule in [md.value for md in at.markdown]
    (link,) = [link.proto for link in at.get("page_link") if link.proto.label.startswith("Open Verification rules")]
    assert link.page == "Verification_rules" and parse_qs(link.query_string) == {k: [v] for k, v in query.items()}
    opened = open_page("verification", **query)
    assert not opened.exception and not warnings(opened)
    assert opened.selectbox(key="vr_preset").value == "close" and opened.slider(key="vr_temperature").value == 1.0


def test_conditional_rates_and_tree_warning():
    at = open_page(CALIBRATE, k="3")
    next(b for b in at.button if b.label == "vLLM V1 log").click().run()
    captions = [shown(c.value) for c in at.caption]
    # 0.810, 0.640 / 0.810, 0.400 / 0.640
    assert any(c.endswith("0.81, 0.79, 0.62") for c in captions), captions
    at = open_page(CALIBRATE)  # SGLang prints no k: the page asks for it (the run's num-steps, 5)
    at.text_area(key="engine_paste").set_value((FIXTURES / "sglang_tree.txt").read_text()).run()
    at.number_input(key="paste_k").set_value(5).run()
    assert not at.exception and not at.error
    assert any("--speculative-eagle-topk 8" in w.value and "Draft trees" in w.value for w in at.warning)
    (link,) = [link for link in at.get("page_link") if link.proto.label == "Open Draft trees"]
    assert link.proto.page == "Trees"


# The batch-size schedule from the measurement (issue 22) -------------------------------------

H100, PRESETS = specmath.GPU_PRESETS["H100 SXM"], specmath.MODEL_PRESETS
TARGET, DRAFT = PRESETS["Llama-3.1-8B"], PRESETS["Llama-3.2-1B"]


def _schedule(sweep) -> list[list[int]]:
    return [list(entry) for entry in specmath.batch_k_schedule(sweep.batch, sweep.k, sweep.speedup)]


def test_no_schedule_unless_asked_for():
    at = open_page(CALIBRATE, k="3")
    assert not any(h.value.startswith("A batch-size schedule") for h in at.subheader)
    assert codes(at) == [] and len(page_charts(at)) == 1


def test_the_schedule_from_counts_is_the_fitted_alphas_on_the_datasheet_roofline():
    at = open_page(CALIBRATE, k="3", drafts="1000", accepted="1850", cal_schedule="true")
    assert not at.exception and not warnings(at) and not at.error
    alpha = specmath.alpha_interval(1850, 1000, 3).alpha
    sweep = specmath.roofline_batch_sweep(alpha, DRAFT, TARGET, H100, np.arange(1, 257), 1024, max_k=32)
    config = vllm_config(at)
    assert config["num_speculative_tokens_per_batch_size"] == _schedule(sweep)
    assert config["num_speculative_tokens"] == max(k for _, _, k in _schedule(sweep))
    assert sglang_flags(at)["--speculative-num-steps"] == str(sweep.k[0])
    assert any("datasheet, with no fixed overhead" in c.value for c in at.caption)
    schedule = page_charts(at)[-1]
    assert schedule["layout"]["title"]["text"].endswith(f"α = {alpha:.3f}")
    steps = trace(schedule, "k in the schedule")
    np.testing.assert_array_equal(values(steps["x"]), np.arange(1, 257))
    np.testing.assert_array_equal(values(steps["y"]), np.where(sweep.speedup > 1, sweep.k, 0))
    # The serving settings' defaults are one GPU and a sequential draft model: no TP flag, no other kind.
    assert not [text for text in codes(at) if "--tensor-parallel-size" in text or "--tp" in text]


def test_a_profile_and_step_times_schedule_on_the_fitted_roofline(downloads):
    """The vLLM V1 example's profile, on the roofline scaled to 8 ms and 2 ms steps at batch 16."""
    at = open_page(
        CALIBRATE, k="3", cal_schedule="true", target_ms="8", draft_ms="2", cal_batch="16", cal_method="eagle3"
    )
    next(b for b in at.button if b.label == "vLLM V1 log").click().run()
    assert not at.exception and not warnings(at) and not at.error
    fit = specmath.fit_roofline(8e-3, 2e-3, TARGET, DRAFT, H100, 16, 1024)
    assert fit.exact
    profile = [0.81, 0.64, 0.40]
    sweep = specmath.roofline_batch_sweep(
        specmath.acceptance(per_position=profile),
        DRAFT,
        TARGET,
        fit.gpu,
        np.arange(1, 257),
        1024,
        fit.overhead_s,
        max_k=32,
    )
    # The page passes the fitted peaks through GB/s and TFLOP/s: equal to the last few ulps.
    config = vllm_config(at)
    assert config["method"] == "eagle3"
    assert config["num_speculative_tokens_per_batch_size"] == _schedule(sweep)
    (said,) = [m.value for m in at.markdown if m.value.startswith("Your step times at batch 16")]
    assert f"**{fit.efficiency:.0%}**" in said and f"**{fit.overhead_s * 1e3:.3f} ms**" in said
    document = json.loads(downloads(at).decode("utf-8"))
    assert document["num_speculative_tokens_per_batch_size"] == _schedule(sweep)
    inputs = document["inputs"]
    assert inputs["acceptance"] == {"per_position": profile}
    assert inputs["step_times_ms"] == {"target": 8.0, "draft": 2.0}
    assert inputs["roofline_fit"]["efficiency"] == pytest.approx(fit.efficiency, rel=1e-12)
    assert inputs["measured_from"].startswith("vLLM")
    assert page_charts(at)[-1]["layout"]["title"]["text"].endswith("measured profile, k = 3")
    # SGLang's flags are for the batch of the step times.
    at16 = sweep.batch == 16
    assert sglang_flags(at)["--speculative-num-steps"] == str(int(sweep.k[at16][0]))


@pytest.mark.parametrize(
    ("target_ms", "draft_ms", "message"),
    [
        ("16", "1", "No fixed overhead per pass fits both step times"),  # a draft short for its size
        ("8", "0.5", "faster than the H100 SXM's datasheet allows"),  # the draft below its roofline
        ("1", "0.2", "faster than the H100 SXM's datasheet allows"),  # both faster than the peaks
        ("6", "4", "a fixed time per pass dominates"),  # both slower than the roofline (4.52, 0.75 ms)
    ],
)
def test_step_times_the_roofline_cannot_take_are_said(target_ms, draft_ms, message):
    at = open_page(CALIBRATE, k="3", cal_schedule="true", target_ms=target_ms, draft_ms=draft_ms)
    assert not at.exception and not at.error
    said, *rules = [w.value for w in at.warning]  # the fit's message, then any engine rule the schedule meets
    assert message in said, said
    assert all(rule.startswith("TensorRT-LLM wants the smallest key") for rule in rules), rules
    # Never kernels beyond the datasheet's peaks, and "faster than the datasheet" only when a time is.
    assert all(int(share) <= 100 for share in re.findall(r"(\d+)%", said)), said
    assert ("faster than" in said) == ("faster than" in message)
    assert vllm_config(at)["num_speculative_tokens_per_batch_size"][0][0] == 1


def test_a_drafter_name_goes_into_calibrates_configs():
    head = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
    at = open_page(CALIBRATE, k="3", cal_schedule="true", cal_method="eagle3", cal_drafter=head)
    assert not at.exception and not warnings(at)
    assert vllm_config(at)["model"] == head
    assert sglang_flags(at)["--speculative-draft-model-path"] == head
    assert not any("YOUR-EAGLE3-HEAD" in c.value for c in at.caption)


# The serving the step times were measured at (issue 34) ------------------------------------

NVLINK = specmath.INTERCONNECT_PRESETS["NVLink (H100 SXM)"]


def test_the_step_times_are_fitted_at_the_chosen_tensor_parallelism_and_it_reaches_the_configs(downloads):
    """8 ms and 2 ms at batch 16 with both models on 2 GPUs: the fit takes the all-reduces out before
    scaling the kernels (36%, not the 70% of one GPU), the schedule costs 2 GPUs, and every engine's
    config and synthetic run serves the target on them (trtllm-bench loads the model itself)."""
    at = open_page(
        CALIBRATE, k="3", drafts="1000", accepted="1850", cal_schedule="true", target_ms="8", draft_ms="2",
        cal_batch="16", cal_tp="2", cal_draft_tp="2",
    )  # fmt: skip
    assert not at.exception and not at.error
    fit = specmath.fit_roofline(8e-3, 2e-3, TARGET, DRAFT, H100, 16, 1024, tp=2, draft_tp=2, interconnect=NVLINK)
    one_gpu = specmath.fit_roofline(8e-3, 2e-3, TARGET, DRAFT, H100, 16, 1024)
    assert fit.exact and f"{fit.efficiency:.0%}" != f"{one_gpu.efficiency:.0%}"  # the case this test is for
    (said,) = [m.value for m in at.markdown if m.value.startswith("Your step times at batch 16")]
    assert f"**{fit.efficiency:.0%}**" in said and f"**{fit.overhead_s * 1e3:.3f} ms**" in said
    assert "2×H100 SXM" in said
    alpha = specmath.alpha_interval(1850, 1000, 3).alpha
    sweep = specmath.roofline_batch_sweep(
        alpha, DRAFT, TARGET, fit.gpu, np.arange(1, 257), 1024, fit.overhead_s, max_k=32,
        tp=2, draft_tp=2, interconnect=NVLINK,
    )  # fmt: skip
    assert vllm_config(at)["num_speculative_tokens_per_batch_size"] == _schedule(sweep)
    _serve_on_two_gpus(at)
    (bench,) = [text for text in codes(at) if "trtllm-bench" in text]
    assert bench.endswith("\\\n--tp 2")
    inputs = json.loads(downloads(at).decode("utf-8"))["inputs"]
    assert inputs["tensor_parallel"] == {"target": 2, "draft": 2, "interconnect": "NVLink (H100 SXM)"}
    assert inputs["roofline_fit"]["efficiency"] == pytest.approx(fit.efficiency, rel=1e-12)


def test_the_drafter_kind_sets_the_schedule_and_a_method_of_another_kind_is_said():
    """A parallel drafter costs one draft pass of width k; the default method, draft_model, drafts
    sequentially, which the page says with the Hardware page's message."""
    at = open_page(CALIBRATE, k="3", drafts="1000", accepted="1850", cal_schedule="true", cal_drafter_kind="parallel")
    assert not at.exception and not at.error
    alpha = specmath.alpha_interval(1850, 1000, 3).alpha
    sweep = specmath.roofline_batch_sweep(
        alpha, DRAFT, TARGET, H100, np.arange(1, 257), 1024, max_k=32, drafter="parallel"
    )
    sequential = specmath.roofline_batch_sweep(alpha, DRAFT, TARGET, H100, np.arange(1, 257), 1024, max_k=32)
    assert _schedule(sweep) != _schedule(sequential)  # the case this test is for
    assert vllm_config(at)["num_speculative_tokens_per_batch_size"] == _schedule(sweep)
    assert drafter_mismatch("parallel", "draft_model") in warnings(at)
    assert "cal_lookup_ms" not in _keys(at)


def _keys(at) -> set[str]:
    return {w.key for w in at.number_input}


def test_a_model_free_drafter_costs_its_lookup_and_its_step_times_are_not_fitted():
    at = open_page(
        CALIBRATE, k="3", drafts="1000", accepted="1850", cal_schedule="true", cal_drafter_kind="model_free",
        cal_lookup_ms="0.5", cal_method="ngram", target_ms="8", draft_ms="2",
    )  # fmt: skip
    assert not at.exception and not at.error
    assert "cal_lookup_ms" in _keys(at)
    alpha = specmath.alpha_interval(1850, 1000, 3).alpha
    sweep = specmath.roofline_batch_sweep(
        alpha, 0.5e-3, TARGET, H100, np.arange(1, 257), 1024, max_k=32, drafter="model_free"
    )
    assert vllm_config(at)["num_speculative_tokens_per_batch_size"] == _schedule(sweep)
    assert not any(m.value.startswith("Your step times") for m in at.markdown)
    assert any("A model-free drafter has no draft forward pass" in c.value for c in at.caption)
    assert not any("is costed for" in w for w in warnings(at))  # ngram is a model-free method
    # A sequential drafter reads no lookup time, whatever the link says.
    at = open_page(CALIBRATE, k="3", cal_schedule="true", cal_lookup_ms="0.5")
    assert "cal_lookup_ms" not in _keys(at) and not warnings(at)
    # Nor does one with the schedule off: the lookup's condition needs its drafter kind's (Param.shown_when).
    at = open_page(CALIBRATE, k="3", cal_drafter_kind="model_free", cal_lookup_ms="0.5")
    assert "cal_lookup_ms" not in _keys(at) and not warnings(at)


# The engines' configs and the synthetic-acceptance block (issue 33) ------------------------


def _serve_on_two_gpus(at) -> None:
    """Every serve command on the page (the configs' and the synthetic runs'), as its engine parses it,
    serves the target on 2 GPUs."""
    served = [
        (parse(text), key)
        for text in codes(at)
        for program, (parse, key) in (("vllm serve ", COMMANDS["vLLM"]), ("trtllm-serve ", COMMANDS["TensorRT-LLM"]))
        if text.startswith(program)
    ] + [(COMMANDS["SGLang"][0](text), "model_path") for text in codes(at) if "sglang.launch_server" in text]
    assert len(served) >= 5  # vLLM's two, SGLang's one or two, TensorRT-LLM's
    for parsed, key in served:
        assert parsed[key] == "meta-llama/Llama-3.1-8B"
        assert parsed.get("tensor_parallel_size", parsed.get("tp_size")) == 2


def test_the_schedule_comes_in_every_engine_with_a_synthetic_run_of_the_measured_profile():
    """The vLLM V1 example's profile on the datasheet roofline at batch 16: the synthetic runs force
    the profile itself, extended past the measured k as the sweep extends it."""
    at = open_page(CALIBRATE, k="3", cal_schedule="true", cal_batch="16", cal_method="eagle3")
    next(b for b in at.button if b.label == "vLLM V1 log").click().run()
    assert not at.exception and not at.error
    assert [tab.label for tab in at.tabs] == ["vLLM", "SGLang", "TensorRT-LLM", "llama.cpp"] * 2
    profile = [0.81, 0.64, 0.40]
    sweep = specmath.roofline_batch_sweep(
        specmath.acceptance(per_position=profile), DRAFT, TARGET, H100, np.arange(1, 257), 1024, max_k=32
    )
    k16 = int(sweep.k[sweep.batch == 16][0])
    config = synthetic_vllm_config(at)
    rates = config["synthetic_acceptance_rates"]
    assert len(rates) == config["num_speculative_tokens"] == max(k for _, _, k in _schedule(sweep))
    np.testing.assert_allclose(rates, specmath.calibration.extend_profile(profile, len(rates)), atol=5e-7)
    length = float(specmath.expected_tokens(specmath.acceptance(per_position=profile), k16))
    assert any(text.startswith(f"SGLANG_SIMULATE_ACC_LEN={length:.4f} ") for text in codes(at))
    assert any(h.value.startswith("Measure the system side first") for h in at.subheader)


def test_a_schedule_whose_k_rises_is_capped_for_tensorrt_llm_and_the_page_says_so():
    """Step times slower than the roofline (a fixed overhead per pass) make longer drafts pay at
    larger batches: TensorRT-LLM takes no length above its first key's."""
    at = open_page(CALIBRATE, k="3", cal_schedule="true", target_ms="6", draft_ms="4")
    assert not at.exception
    schedule = [tuple(entry) for entry in vllm_config(at)["num_speculative_tokens_per_batch_size"]]
    first = schedule[0][2]
    risen = [(lo, hi, k) for lo, hi, k in schedule if k > first]
    assert risen  # the case this test is for
    (text,) = [code for code in codes(at) if code.startswith("speculative_config:")]
    trt = yaml.safe_load(text)["speculative_config"]
    assert trt["max_draft_len"] == first and max(trt["draft_len_schedule"].values()) == first
    (said,) = [w for w in warnings(at) if "`draft_len_schedule`" in w]  # one message for all the ranges capped
    assert said.endswith(f"get {first} instead.")
    for lo, hi, k in risen:
        assert (f"batch {lo} (k {k})" if lo == hi else f"batches {lo} to {hi} (k {k})") in said


# Issue 33: a vLLM V1 line from 300 drafts of 4 and 500 of 2 at α = 0.70, and the same run as a
# Prometheus scrape (expected counts: 800 drafts, 2,200 draft tokens, per position 560, 392, 103, 72).
MIXED_V1 = (
    "INFO 11-29 10:15:01 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: 2.43, "
    "Accepted throughput: 11.44 tokens/s, Drafted throughput: 22.00 tokens/s, Accepted: 1144 tokens, "
    "Drafted: 2200 tokens, Per-position acceptance rate: 0.696, 0.512, 0.133, 0.089, "
    "Avg Draft acceptance rate: 52.0%\n"
)
MIXED_SCRAPE = (
    'vllm:spec_decode_num_drafts_total{engine="0"} 800.0\n'
    'vllm:spec_decode_num_draft_tokens_total{engine="0"} 2200.0\n'
    'vllm:spec_decode_num_accepted_tokens_total{engine="0"} 1127.0\n'
    + "".join(
        f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine="0",position="{i}"}} {n}.0\n'
        for i, n in enumerate((560, 392, 103, 72))
    )
)


def test_drafts_shorter_than_k_are_fitted_from_what_every_draft_reached_and_said():
    at = open_page(CALIBRATE)
    at.text_area(key="engine_paste").set_value(MIXED_V1).run()
    assert not at.exception and not at.error
    fit = engines.fit_alpha(engines.parse_engine_metrics(MIXED_V1))
    assert abs(fit.alpha - 0.70) < 0.03
    m = metrics(at)
    assert m["Fitted i.i.d. α"] == f"{fit.alpha:.3f}"
    assert m["95% interval for α"] == f"{fit.low:.3f} – {fit.high:.3f}"
    captions = [c.value for c in at.caption]
    assert any("fewer than k = 4" in c and "positions 1 to 2" in c for c in captions), captions
    assert not any("The paste fixes k" in c for c in captions)  # the slider holds the cut drafts' k = 2
    # One account of the drafts: the parser says what the line lacks and the counts it fits, the
    # inference which of them it assumed; nothing says they cannot be inferred.
    assert not any("could not be inferred" in c for c in captions)
    assert any("line 1 does not print its number of drafts" in c and "fit any of 799 to 801" in c for c in captions)
    assert any("assuming 800 = accepted / (mean acceptance length − 1)" in c for c in captions)
    # The drafts, 800, come from the printed mean; the link carries them cut to two positions.
    assert (fit.k, fit.drafts, fit.accepted) == (2, 800, 966)
    assert [at.query_params[key] for key in ("k", "drafts", "accepted")] == ["2", "800", "966"]  # whole, not 800.0


def test_drafts_shorter_than_k_set_the_speedup_now_and_the_rate_alpha_predicts():
    """Issue 33's line: the run drafted 2,200 / 800 = 2.75 tokens a step, not k = 4. Its speedup at
    c = 20 is 2.43 / (1 + 2.75 / 20); the accepted / drafted share α predicts is for such drafts,
    a range over the mixes with that mean, which holds the engine's 52.0% (at k = 4: 45%)."""
    at = open_page(CALIBRATE)
    at.text_area(key="engine_paste").set_value(MIXED_V1).run()
    assert not at.exception and not at.error
    m = metrics(at)
    assert m["Speedup now (drafts of 2.75 tokens on average, c = 20)"] == f"{2.43 / (1 + 2.75 / 20):.2f}×" == "2.14×"
    alpha = engines.fit_alpha(engines.parse_engine_metrics(MIXED_V1)).alpha
    low, high = (float(x) / 100 for x in m["Rate α predicts for drafts of 2.75 tokens on average"][:-1].split("–"))
    f = [sum(alpha**i for i in range(1, d + 1)) for d in range(5)]  # accepted tokens of a d-token draft
    ones = (4 - 2.75) / 3  # drafts of 1 and 4 tokens with mean 2.75: the low end
    assert low == round((ones * f[1] + (1 - ones) * f[4]) / 2.75, 3)
    assert high == round((f[2] + 0.75 * alpha**3) / 2.75, 3)  # every draft 2.75 long: the high end
    assert low < 0.520 < high and not low <= float(specmath.draft_acceptance_rate(alpha, 4)) <= high
    # The chart marks the run where it was, as the metric says: at 2.75 tokens, not at k = 4.
    figure = page_charts(at)[0]
    assert figure["layout"]["title"]["text"].startswith("Predicted speedup vs draft length")
    (run,) = [t for t in figure["data"] if t["name"].startswith("this run")]
    assert values(run["x"]) == pytest.approx([2200 / 800]) and values(run["y"]) == pytest.approx([2.43 / 1.1375])
    assert f"{values(run['y'])[0]:.2f}×" == m["Speedup now (drafts of 2.75 tokens on average, c = 20)"]
    assert not any("measured k = 4" in note["text"] for note in figure["layout"]["annotations"])
    # The formulas go in the helps, not under the numbers as a delta.
    for m in at.metric:
        if m.label.startswith(("Speedup now", "Rate α predicts")):
            assert not m.delta and "shorter than k = 4" in m.proto.help, m.label


def test_a_mixed_scrapes_link_carries_the_cut_drafts_and_reopens_the_same_alpha():
    at = open_page(CALIBRATE)
    at.text_area(key="engine_paste").set_value(MIXED_SCRAPE).run()
    assert not at.exception and not at.error
    fit = engines.fit_alpha(engines.parse_engine_metrics(MIXED_SCRAPE))
    assert (fit.k, fit.drafts, fit.accepted) == (2, 800, 952)
    assert [at.query_params[key] for key in ("k", "drafts", "accepted")] == ["2", "800", "952"]
    assert any("cut to the 2 positions every draft reached" in c.value for c in at.caption)
    reopened = open_page(CALIBRATE, **dict(at.query_params))
    for label in ("Fitted i.i.d. α", "95% interval for α"):
        assert (
            metrics(reopened)[label]
            == metrics(at)[label]
            == (f"{fit.alpha:.3f}" if label.startswith("Fitted") else f"{fit.low:.3f} – {fit.high:.3f}")
        )


def test_the_sweep_example_draws_its_curve_profile_and_measured_schedule():
    at = _click(open_page(CALIBRATE, k="5", drafts="700", accepted="1500"), calibrate_examples.SWEEP_EXAMPLE)
    assert not at.exception and not at.error
    assert at.text_area(key="engine_paste").value == calibrate_examples.EXAMPLES[calibrate_examples.SWEEP_EXAMPLE]
    sweep = engines.parse_engine_sweep(calibrate_examples.EXAMPLES[calibrate_examples.SWEEP_EXAMPLE])
    curve = engines.acceptance_curve(sweep)
    profile, _ = specmath.sweep.profile_from_curve(curve.k, curve.mean_length)
    schedule = engines.measured_schedule(sweep, curve)
    assert any("16 runs at batch sizes 1, 16, 64, 128; chains of k = 1, 2, 3" in s.value for s in at.success)
    lengths, positions, scheduled = page_charts(at)
    measured = trace(lengths, "measured, 95% interval")
    np.testing.assert_allclose(values(measured["y"]), curve.mean_length)
    np.testing.assert_allclose(values(measured["error_y"]["array"]), curve.high - curve.mean_length)
    np.testing.assert_allclose(values(trace(positions, "unconditional P(≥ i accepted)")["y"]), profile)
    np.testing.assert_array_equal(values(trace(scheduled, "k in the schedule")["y"]), [3, 3, 0, 0])
    assert schedule.schedule == [(1, 63, 3), (64, 128, 0)]
    assert any("batch 1–63: k = 3; batch 64–128: k = 0" in c.value for c in at.caption)
    # The link cannot carry a sweep, says so, and the typed counts it holds are left as they were.
    assert any("The address cannot carry a sweep" in c.value for c in at.caption)
    assert [at.query_params.get(key) for key in ("k", "drafts", "accepted")] == ["5", "700", "1500"]


def test_the_sweeps_schedule_comes_in_every_engine_with_a_synthetic_run_of_its_profile():
    """The sweep example with the sidebar's schedule settings at batch 32, which it did not run: the
    measured schedule in each engine's tab, the one-k settings and the benchmark at batch 16, forcing
    the profile the sweep implies and compared with the speedup measured there."""
    at = _click(
        open_page(CALIBRATE, cal_schedule="true", cal_batch="32", cal_method="eagle3"), calibrate_examples.SWEEP_EXAMPLE
    )
    assert not at.exception and not at.error
    sweep = engines.parse_engine_sweep(calibrate_examples.EXAMPLES[calibrate_examples.SWEEP_EXAMPLE])
    curve = engines.acceptance_curve(sweep)
    profile, _ = specmath.sweep.profile_from_curve(curve.k, curve.mean_length)
    schedule = engines.measured_schedule(sweep, curve)
    assert [tab.label for tab in at.tabs] == ["vLLM", "SGLang", "TensorRT-LLM", "llama.cpp"] * 2
    config = vllm_config(at)
    assert config["method"] == "eagle3"
    assert (
        config["num_speculative_tokens_per_batch_size"]
        == [list(r) for r in schedule.schedule]
        == [
            [1, 63, 3],
            [64, 128, 0],
        ]
    )
    at16 = list(schedule.batch).index(16)
    k16, speedup16 = int(schedule.best_k[at16]), float(schedule.best_speedup[at16])
    assert sglang_flags(at)["--speculative-num-steps"] == str(k16) == "3"
    assert any("did not run batch 32" in c.value and "for batch 16" in c.value for c in at.caption)
    synthetic = synthetic_vllm_config(at)
    np.testing.assert_allclose(synthetic["synthetic_acceptance_rates"], profile[:3], atol=5e-7)
    assert any(text.startswith(f"SGLANG_SIMULATE_ACC_LEN={1 + profile[:k16].sum():.4f} ") for text in codes(at))
    assert any("--max-concurrency 16" in text for text in codes(at))
    assert any(f"**{speedup16:.2f}×**" in m.value for m in at.markdown if "concurrent requests" in m.value)
    # Without the sidebar's settings: no configs, and the page says where they are.
    bare = _click(open_page(CALIBRATE), calibrate_examples.SWEEP_EXAMPLE)
    assert not bare.tabs and any("Batch-size schedule for a GPU" in i.value for i in bare.info)


@pytest.mark.parametrize(
    ("paste", "message"),
    [
        ('{"batch_size": 1, "acc_length": 2.0, "step_time": 0.01}', "Could not read the sweep: a run needs"),
        (
            '{"batch_size": 1, "steps": 2, "topk": 1, "num_draft_tokens": 3, "acc_length": 9, "step_time": 0.01}',
            "acc_length must be within [1, 3]",
        ),
        ('"acc_length" "step_time" ' + "[" * 100_000, "Could not read the sweep: no bench_speculative.py runs found"),
        (
            '{"batch_size": 1, "steps": 0, "topk": 0, "num_draft_tokens": 0, "acc_length": 1, "step_time": 0.01}',
            "The sweep has no chain run",
        ),
        ("llamacpp:spec_decode_num_drafts_total 0\nllamacpp:spec_decode_num_draft_tokens_total 0\n", "are all 0"),
        ('{"metrics": {"speculative_decoding": {"acceptance_histogram": [1, 2', "is not a whole JSON object"),
    ],
)
def test_bad_sweeps_and_new_formats_are_explained(paste, message):
    at = open_page(CALIBRATE)
    at.text_area(key="engine_paste").set_value(paste).run()
    assert not at.exception
    assert any(message in shown(e.value) for e in at.error), [e.value for e in at.error]


def test_detailed_per_request_metrics_draw_the_acceptance_of_each_draft_length():
    text = (FIXTURES / "vllm_per_request.jsonl").read_text()
    at = open_page(CALIBRATE)
    at.text_area(key="engine_paste").set_value(text).run()
    assert not at.exception and not at.error
    metrics_ = engines.parse_engine_metrics(text)
    fit, curve = engines.fit_alpha(metrics_), engines.acceptance_curve(metrics_)
    assert metrics(at)["Fitted i.i.d. α"] == f"{fit.alpha:.3f}"
    lengths = page_charts(at)[2]
    measured = trace(lengths, "measured, 95% interval")
    np.testing.assert_allclose(values(measured["x"]), [2, 4])
    np.testing.assert_allclose(values(measured["y"]), curve.mean_length)
    iid = trace(lengths, f"i.i.d. at fitted α = {fit.alpha:.3f}")
    np.testing.assert_allclose(values(iid["y"]), specmath.expected_tokens(fit.alpha, np.arange(1, 5)))
    assert any("each step drafted" in c.value for c in at.caption)


def test_the_sweeps_configs_serve_the_chosen_gpus_and_say_a_kind_the_method_is_not():
    at = _click(
        open_page(CALIBRATE, cal_schedule="true", cal_method="eagle3", cal_tp="2", cal_drafter_kind="parallel"),
        calibrate_examples.SWEEP_EXAMPLE,
    )
    assert not at.exception and not at.error
    assert drafter_mismatch("parallel", "eagle3") in warnings(at)
    _serve_on_two_gpus(at)


def test_rates_that_contradict_the_counts_answer_nothing():
    # vLLM's line with its rates edited to add up to 2.70 accepted, where Accepted / drafts is
    # 312 / 200 = 1.56: the counts alone answer α, the speedup and the recommended k, and a warning says so.
    paste = (FIXTURES / "vllm_v1_single.txt").read_text().replace("0.750, 0.500, 0.310", "0.950, 0.900, 0.850")
    at = open_page(CALIBRATE)
    at.text_area(key="engine_paste").set_value(paste).run()
    assert not at.exception and not at.error
    alpha = specmath.alpha_interval(312, 200, 3).alpha
    best, _ = specmath.optimal_k(alpha, float(at.session_state["c"]), max_k=calibrate.MAX_K)
    assert metrics(at)["Recommended k"].startswith(f"{int(best)} → ")
    said = [w.value for w in at.warning]
    assert any("add up to a mean acceptance length of 3.700, the counts to 2.560" in w for w in said), said


# The engines' acceptance figures, translated (issue 42) ---------------------------------------------


def test_the_translator_table_converts_the_pastes_figures():
    """SGLang's example at k = 3: its printed accept len and accept rate in the table's paste columns,
    the rate read as SGLang 0.5.11's accepted ÷ drafted; every registry row is a row of the table."""
    at = _click(open_page(CALIBRATE), "SGLang log")
    at.number_input(key="paste_k").set_value(3).run()
    assert not at.exception and not at.error
    (expander,) = [e for e in at.expander if e.label == texts.TRANSLATOR_HEADING]
    (table,) = expander.dataframe
    frame = table.value
    assert len(frame) == len(definitions.DEFINITIONS)
    rows = {(r["Engine"], r["Versions"]): r for r in frame.to_dict("records")}
    new = rows["SGLang", definitions.BY_KEY["sglang.accept_rate.drafted"].versions]
    assert (new["In your paste"], new["→ accepted ÷ drafted"], new["→ mean length L"]) == ("0.62", "62.0%", "2.86")
    length = rows["SGLang", definitions.BY_KEY["sglang.accept_len"].versions]
    assert (length["In your paste"], length["→ accepted ÷ drafted"]) == ("2.85", "61.7%")
    assert frame.iloc[0]["Engine"] == "SGLang"  # the paste's figures first


def test_an_old_sglang_rate_is_converted_before_it_is_compared():
    """SGLang 0.5.3.post3's line of the issue: accept len 1.95, accept rate 0.49 = 1.95 / 4. At k = 3 the
    engine's rate shown is (0.49 × 4 − 1) / 3 = 32.0%, beside α's (1.95 − 1) / 3 = 31.7%, not 49%."""
    line = (
        "[2025-10-20 10:00:00] Decode batch. #running-req: 8, #token: 4096, token usage: 0.02, accept len: 1.95, "
        "accept rate: 0.49, cuda graph: True, gen throughput (token/s): 300.00, #queue-req: 0, \n"
    )
    at = open_page(CALIBRATE)
    at.text_area(key="engine_paste").set_value(line).run()
    assert any("accept len ÷ (k + 1)" in shown(c.value) and "k = 3" in shown(c.value) for c in at.caption)
    at.number_input(key="paste_k").set_value(3).run()
    assert not at.exception and not at.error
    m = metrics(at)
    assert m["Engine's draft acceptance rate"] == "32.0%"
    assert m["Rate α predicts at k = 3"] == "31.7%"
    assert sum("'Decode batch.' lines print accept rate" in shown(c.value) for c in at.caption) == 1  # said once
    assert any(
        c.value.startswith("The engine's rate above is converted: SGLang printed accept rate") for c in at.caption
    )


def test_a_refused_paste_names_the_nearest_format_on_the_page():
    at = open_page(CALIBRATE)
    at.text_area(key="engine_paste").set_value((FIXTURES / "sglang_no_speculation.txt").read_text()).run()
    assert not at.exception
    (error,) = at.error
    said = shown(error.value)
    assert said.startswith("Could not read the paste: no speculative decoding metrics found in the text")
    assert said.endswith(
        "it looks most like an SGLang decode-batch log line: found 'Decode batch', missing 'accept len: X,'"
    )
