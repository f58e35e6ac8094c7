"""Calibration from engine counters: alpha with its interval, and the per-position profile."""

import dataclasses

import numpy as np
import pytest
from scipy import stats

import specmath as sm
import specmath.calibration
from tests.helpers import SIGNIFICANCE


# Known standard normal quantiles to nine decimals (1.959963985: a two-sided 95% interval), and
# SciPy's, which the library may not import.
@pytest.mark.parametrize(
    ("p", "z"), [(0.5, 0.0), (0.8, 0.841621234), (0.95, 1.644853627), (0.975, 1.959963985), (0.995, 2.575829304)]
)
def test_normal_quantile_is_the_known_one(p, z):
    for q, expected in ((p, z), (1 - p, -z)):
        assert specmath.calibration._normal_quantile(q) == pytest.approx(expected, abs=1e-9)
        assert specmath.calibration._normal_quantile(q) == pytest.approx(stats.norm.ppf(q), abs=1e-12)


def test_alpha_interval_brackets_the_fit():
    fit = sm.alpha_interval(accepted=2_400, drafts=1_000, k=4)
    assert fit.low < fit.alpha < fit.high
    assert sm.expected_tokens(fit.alpha, 4) == pytest.approx(3.4)
    narrow = sm.alpha_interval(accepted=240_000, drafts=100_000, k=4)
    assert narrow.alpha == pytest.approx(fit.alpha)
    assert narrow.high - narrow.low < (fit.high - fit.low) / 5  # ~ 1/sqrt(100) as wide


def test_alpha_interval_at_the_ends():
    none = sm.alpha_interval(accepted=0, drafts=50, k=3)
    assert none.alpha == 0.0 and none.low == 0.0 and 0 < none.high < 0.2
    every = sm.alpha_interval(accepted=150, drafts=50, k=3)
    assert every.alpha == 1.0 and every.high == 1.0 and 0.8 < every.low < 1


def test_alpha_interval_coverage_matches_its_level():
    # Round trip: simulate i.i.d. blocks at a known alpha, keep only the counts an engine
    # would print, fit; the 95% interval must contain the truth about 95% of the time.
    alpha, k, drafts, runs = 0.72, 5, 400, 400
    rng = np.random.default_rng(2024)
    covered = 0
    for _ in range(runs):
        emitted = sm.simulate_iid_blocks(alpha, k, drafts, rng=rng)
        fit = sm.alpha_interval(int((emitted - 1).sum()), drafts, k)
        covered += fit.low <= alpha <= fit.high
    assert stats.binomtest(covered, runs, 0.95).pvalue > SIGNIFICANCE, covered


@pytest.mark.parametrize(
    ("accepted", "drafts", "k", "message"),
    [(-1, 10, 4, "^accepted"), (41, 10, 4, "^accepted must be <= k"), (5, 0, 4, "^drafts"), (5, 10, 0, "^k")],
)
def test_alpha_interval_validation(accepted, drafts, k, message):
    with pytest.raises(ValueError, match=message):
        sm.alpha_interval(accepted, drafts, k)


def test_conditional_from_unconditional():
    np.testing.assert_allclose(sm.calibration.conditional_acceptance([0.8, 0.6, 0.3]), [0.8, 0.75, 0.5])
    assert np.isnan(sm.calibration.conditional_acceptance([0.5, 0.0, 0.0])[2])
    with pytest.raises(ValueError, match="must not increase"):
        sm.calibration.conditional_acceptance([0.5, 0.6])


@pytest.mark.parametrize("alpha", [0.0, 0.35, 0.8, 1.0])
def test_geometric_profile_reproduces_the_closed_form(alpha):
    # u_i = alpha^i is the i.i.d. profile: the profile's predictions are the closed form's, at
    # measured draft lengths and, by the extrapolation rule, beyond them.
    measured = alpha ** np.arange(1, 5)
    ks = np.arange(0, 30)
    np.testing.assert_allclose(
        sm.expected_tokens(sm.acceptance(per_position=measured), ks), sm.expected_tokens(alpha, ks), rtol=1e-12
    )
    np.testing.assert_allclose(
        sm.speedup(sm.acceptance(per_position=measured), ks, 20), sm.speedup(alpha, ks, 20), rtol=1e-12
    )


def test_extrapolation_uses_the_last_conditional_rate():
    extended = sm.calibration.extend_profile([0.9, 0.72, 0.36], 5)
    np.testing.assert_allclose(extended, [0.9, 0.72, 0.36, 0.18, 0.09])
    np.testing.assert_allclose(sm.calibration.extend_profile([0.9, 0.72, 0.36], 2), [0.9, 0.72])


def test_profile_from_a_real_run_predicts_shorter_drafts():
    # Contexts that forget quickly (a random chain): where an iteration starts does not depend
    # on the draft length, so the measured profile transfers to shorter drafts.
    chain = sm.random_transition_matrix(8, concentration=2.0, rng=0)
    draft = sm.draft_by_merging(chain, 2)
    long_run = sm.decode_summary(sm.speculative_decode(chain, draft, 6, 1000, rng=1, n_sequences=200))
    # At the measured length the identity E[N] = 1 + sum u_i holds exactly on the data.
    assert sm.expected_tokens(sm.acceptance(per_position=long_run.unconditional), 6) == pytest.approx(
        long_run.tokens_per_call
    )
    # A separate run at k = 3 emits what the k = 6 profile predicts, within sampling error.
    short = sm.speculative_decode(chain, draft, 3, 1000, rng=2, n_sequences=200)
    predicted = sm.expected_tokens(sm.acceptance(per_position=long_run.unconditional), 3)
    se = np.hypot(short.emitted.std() / np.sqrt(short.emitted.size), 3 / np.sqrt(long_run.iterations))
    assert abs(short.emitted.mean() - predicted) < stats.norm.isf(SIGNIFICANCE / 2) * se


def test_cost_ratio_from_times():
    assert sm.cost_ratio_from_times(30.0, 1.5) == 20.0
    with pytest.raises(ValueError, match=r"^draft_ms"):
        sm.cost_ratio_from_times(30.0, 0.0)


# --- fit_roofline: the roofline scaled to measured step times ----------------------------------

H100 = sm.GPU_PRESETS["H100 SXM"]
LLAMA_8B, LLAMA_1B = sm.MODEL_PRESETS["Llama-3.1-8B"], sm.MODEL_PRESETS["Llama-3.2-1B"]


def _scaled(gpu, efficiency):
    return sm.GPUSpec("scaled", gpu.memory_bandwidth * efficiency, gpu.peak_flops * efficiency, gpu.memory_bytes)


@pytest.mark.parametrize("efficiency", [0.3, 0.62, 1.0])
@pytest.mark.parametrize("overhead_s", [0.0, 4e-4, 3e-3])
@pytest.mark.parametrize(("batch", "context"), [(1, 0), (16, 2048), (512, 8192)])
def test_fit_roofline_recovers_the_efficiency_and_overhead_that_made_the_times(efficiency, overhead_s, batch, context):
    truth = _scaled(H100, efficiency)
    t_target = float(sm.Roofline(LLAMA_8B, truth, batch, context, overhead_s)(1))
    t_draft = float(sm.Roofline(LLAMA_1B, truth, batch, context, overhead_s)(1))
    fit = sm.fit_roofline(t_target, t_draft, LLAMA_8B, LLAMA_1B, H100, batch, context)
    assert fit.exact
    assert fit.efficiency == pytest.approx(efficiency, rel=1e-9)
    assert fit.overhead_s == pytest.approx(overhead_s, rel=1e-9, abs=1e-15)
    # The fitted roofline gives both measured times, and every width as the truth does.
    widths = np.arange(1, 65)
    for model in (LLAMA_8B, LLAMA_1B):
        fitted = sm.Roofline(model, fit.gpu, batch, context, fit.overhead_s)
        np.testing.assert_allclose(
            fitted(widths), sm.Roofline(model, truth, batch, context, overhead_s)(widths), rtol=1e-9
        )
        assert fitted.ridge_width == pytest.approx(sm.Roofline(model, H100, batch, context).ridge_width, rel=1e-12)


def _relative_error(fitted, measured):
    return float(sum(((f - t) / t) ** 2 for f, t in zip(fitted, measured, strict=True)))


R_TARGET, R_DRAFT = float(sm.Roofline(LLAMA_8B, H100)(1)), float(sm.Roofline(LLAMA_1B, H100)(1))
#: Step times from half to eight times the datasheet roofline's, the draft's and the target's apart.
TIME_GRID = [(R_TARGET * x, R_DRAFT * y) for x in (0.5, 0.9, 1.0, 1.3, 2.0, 5.0) for y in (0.5, 1.0, 1.2, 3.0, 8.0)]


@pytest.mark.parametrize(("t_target", "t_draft"), TIME_GRID)
def test_fit_roofline_stays_within_physical_bounds_and_is_the_closest_there(t_target, t_draft):
    """Kernels at most at the datasheet's peaks, a fixed time per pass of at least 0, and no pair of
    those (brute force over a grid) closer to the measured times in relative error."""
    fit = sm.fit_roofline(t_target, t_draft, LLAMA_8B, LLAMA_1B, H100)
    assert 0.0 < fit.efficiency <= 1.0 and fit.overhead_s >= 0.0
    assert fit.too_fast == (t_target < R_TARGET or t_draft < R_DRAFT)
    for model, fitted in zip((LLAMA_8B, LLAMA_1B), fit.fitted_s, strict=True):
        assert float(sm.Roofline(model, fit.gpu, overhead_s=fit.overhead_s)(1)) == pytest.approx(fitted, rel=1e-12)
    measured = (t_target, t_draft)
    if fit.exact:
        np.testing.assert_allclose(fit.fitted_s, measured, rtol=1e-9)
    best = min(
        _relative_error((R_TARGET * inverse + overhead, R_DRAFT * inverse + overhead), measured)
        for inverse in np.linspace(1.0, 12.0, 221)
        for overhead in np.linspace(0.0, 40e-3, 401)
    )
    assert _relative_error(fit.fitted_s, measured) <= best + 1e-12


@pytest.mark.parametrize(("t_target", "t_draft"), [(6e-3, 4e-3), (R_TARGET * 1.1, R_DRAFT * 3), (4.8e-3, 1.2e-3)])
def test_times_slower_than_the_roofline_by_a_fixed_amount_fit_an_overhead(t_target, t_draft):
    """Both slower than the datasheet roofline, and apart by less than it (the issue's 6 and 4 ms):
    kernels at the peaks cannot give them without a fixed time per pass; the fit has one."""
    assert t_target > R_TARGET and t_draft > R_DRAFT and t_target - t_draft < R_TARGET - R_DRAFT
    fit = sm.fit_roofline(t_target, t_draft, LLAMA_8B, LLAMA_1B, H100)
    assert not fit.exact and not fit.too_fast
    assert fit.efficiency == 1.0 and fit.overhead_s > 0.0
    # At e = 1 the closest overhead is the relative-error-weighted mean of the excesses.
    w = np.array([t_target, t_draft]) ** -2.0
    assert fit.overhead_s == pytest.approx(float(w @ [t_target - R_TARGET, t_draft - R_DRAFT]) / w.sum(), rel=1e-12)


def test_fit_roofline_without_a_pair_that_separates_efficiency_and_overhead_is_not_exact():
    """A draft measured faster than the target's efficiency allows would need a negative overhead:
    the fit is the closest with none, kernels at sum(a) / sum(a^2) of the peaks' inverse, a = R / T."""
    fit = sm.fit_roofline(2 * R_TARGET, 1.01 * R_DRAFT, LLAMA_8B, LLAMA_1B, H100)
    a = np.array([0.5, 1 / 1.01])
    assert not fit.exact and fit.overhead_s == 0.0
    assert fit.efficiency == pytest.approx((a @ a) / a.sum(), rel=1e-12)
    # The same model as both, and a "draft" slower than the target: no pair to separate e from o.
    for times, models in (((8e-3, 2e-3), (LLAMA_8B, LLAMA_8B)), ((2e-3, 8e-3), (LLAMA_8B, LLAMA_1B))):
        fit = sm.fit_roofline(*times, *models, H100)
        assert not fit.exact and 0.0 < fit.efficiency <= 1.0 and fit.overhead_s >= 0.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0.0, 1e-3, LLAMA_8B, LLAMA_1B, H100), r"^target_s must be > 0, got 0.0"),
        ((8e-3, float("nan"), LLAMA_8B, LLAMA_1B, H100), r"^draft_s must be finite, got nan"),
        (("8", 1e-3, LLAMA_8B, LLAMA_1B, H100), r"^target_s must be numeric"),
        ((8e-3, 1e-3, "Llama-3.1-8B", LLAMA_1B, H100), r"^target must be a ModelSpec, got str"),
        ((8e-3, 1e-3, LLAMA_8B, None, H100), r"^draft must be a ModelSpec, got NoneType"),
        ((8e-3, 1e-3, LLAMA_8B, LLAMA_1B, "H100"), r"^gpu must be a GPUSpec, got str"),
        ((8e-3, 1e-3, LLAMA_8B, LLAMA_1B, H100, 0), r"^batch must be"),
    ],
)
def test_fit_roofline_refuses_bad_arguments_by_name(args, message):
    with pytest.raises(ValueError, match=message):
        sm.fit_roofline(*args)


@pytest.mark.parametrize(
    ("target", "draft", "tp", "draft_tp", "batch"),
    [
        ("Qwen3-30B-A3B", "Qwen3-30B-A3B-EAGLE-3", 1, 1, 1),
        ("Qwen3-235B-A22B", "Qwen3-235B-A22B-EAGLE-3", 4, 1, 16),
        ("DeepSeek-V3", "DeepSeek-V3-MTP", 8, 8, 64),
        ("Llama-3.1-70B", "Llama-3.2-1B", 2, 1, 8),
    ],
)
def test_fit_roofline_recovers_moe_and_tensor_parallel_kernels(target, draft, tp, draft_tp, batch):
    # Times made by kernels at 70% of both peaks plus 0.3 ms a pass, the all-reduces at the
    # link's own cost: the fit finds 0.7 and 0.3 ms again, and its roofline gives both times.
    link = sm.INTERCONNECT_PRESETS["NVLink (H100 SXM)"]
    specs = sm.MODEL_PRESETS[target], sm.MODEL_PRESETS[draft]
    slow = dataclasses.replace(H100, memory_bandwidth=0.7 * H100.memory_bandwidth, peak_flops=0.7 * H100.peak_flops)
    times = [
        float(sm.Roofline(spec, slow, batch, 2048, 3e-4, degree, link)(1))
        for spec, degree in zip(specs, (tp, draft_tp), strict=True)
    ]
    fit = sm.fit_roofline(*times, *specs, H100, batch, 2048, tp=tp, draft_tp=draft_tp, interconnect=link)
    assert fit.exact and not fit.too_fast
    assert fit.efficiency == pytest.approx(0.7, rel=1e-9) and fit.overhead_s == pytest.approx(3e-4, rel=1e-7)
    for spec, degree, measured in zip(specs, (tp, draft_tp), times, strict=True):
        fitted = sm.Roofline(spec, fit.gpu, batch, 2048, fit.overhead_s, degree, link)
        assert float(fitted(1)) == pytest.approx(measured, rel=1e-12)
    # The datasheet's roofline, all-reduces included, is the fastest the GPUs allow.
    assert all(r < t for r, t in zip(fit.roofline_s, times, strict=True))
    with pytest.raises(ValueError, match=r"^interconnect must be given when tp > 1"):
        sm.fit_roofline(*times, *specs, H100, batch, 2048, tp=2)
