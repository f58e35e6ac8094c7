"""Drafter kinds: sequential, parallel (block) and model-free drafting, against closed forms."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import specmath as sm

H100 = sm.GPU_PRESETS["H100 SXM"]
K = np.arange(0, 33)


@given(st.floats(0.0, 1.0), st.floats(1e-5, 1e-2), st.floats(1e-3, 1e-1), st.floats(0.0, 1.0))
def test_parallel_drafter_closed_form(alpha, t_draft, t_target, beta):
    # One draft pass over k positions costing t_d (1 + beta (k - 1)), free verification:
    # S = E[N] t_t / (t_d (1 + beta (k - 1)) + t_t); k = 0 is plain decoding.
    s = sm.general_speedup(alpha, K, sm.LinearOverhead(t_draft, beta), t_target, drafter="parallel")
    drafting = np.where(K > 0, t_draft * (1 + beta * (K - 1)), 0.0)
    expected = sm.expected_tokens(alpha, K) * t_target / (drafting + t_target)
    np.testing.assert_allclose(s, expected, rtol=1e-12)
    assert s[0] == 1.0


def test_parallel_drafter_on_its_plateau_pays_one_pass():
    # A 1B draft at batch 1 is memory-bound up to hundreds of positions: drafting k tokens in one
    # pass costs one step, S = E[N] / (1/c + T_t(k + 1) / T_t(1)).
    draft = sm.Roofline(sm.MODEL_PRESETS["Llama-3.2-1B"], H100, 1, 1024)
    target = sm.Roofline(sm.MODEL_PRESETS["Llama-3.1-8B"], H100, 1, 1024)
    c = float(target(1) / draft(1))
    k = np.arange(1, 33)
    s = sm.general_speedup(0.8, k, draft, target, drafter="parallel")
    np.testing.assert_allclose(s, sm.expected_tokens(0.8, k) / (1 / c + target(k + 1) / target(1)), rtol=1e-14)
    # Never slower than drafting the same tokens one at a time (T_d(k) <= k T_d(1)).
    assert (s >= sm.general_speedup(0.8, k, draft, target) * (1 - 1e-14)).all()


@pytest.mark.parametrize("lookup", [0.0, 1e-4])
def test_model_free_drafter_pays_its_lookup_once(lookup):
    target = sm.Roofline(sm.MODEL_PRESETS["Llama-3.1-8B"], H100, 64, 4096)
    s = sm.general_speedup(0.6, K, lookup, target, drafter="model_free")
    drafting = np.where(K > 0, lookup, 0.0) / float(target(1))
    np.testing.assert_allclose(s, sm.expected_tokens(0.6, K) / (drafting + target(K + 1) / target(1)), rtol=1e-14)


@pytest.mark.parametrize("drafter", sm.general.DRAFTERS)
def test_general_optimal_k_is_the_best_of_general_speedup(drafter):
    draft = sm.Roofline(sm.MODEL_PRESETS["Llama-3.2-1B"], H100, 32, 2048, 1e-4)
    target = sm.Roofline(sm.MODEL_PRESETS["Llama-3.1-8B"], H100, 32, 2048, 1e-4)
    t_draft = 2e-4 if drafter == "model_free" else draft
    alpha = np.linspace(0, 1, 21)
    best_k, best = sm.general_optimal_k(alpha, t_draft, target, 24, drafter=drafter)
    table = sm.general_speedup(alpha[:, None], np.arange(1, 25), t_draft, target, drafter=drafter)
    np.testing.assert_array_equal(best_k, np.argmax(table, axis=1) + 1)
    np.testing.assert_array_equal(best, table.max(axis=1))


@pytest.mark.parametrize("bad", ["block", "", None, 3])
def test_bad_drafter_named(bad):
    with pytest.raises(ValueError, match=r"^drafter must be one of sequential, parallel, model_free, got"):
        sm.general_speedup(0.5, 3, 0.1, 1.0, drafter=bad)
    with pytest.raises(ValueError, match=r"^drafter must be one of"):
        sm.general_optimal_k(0.5, 0.1, 1.0, drafter=bad)


# --- the batch sweeps take the kind, tensor parallelism and mixtures of experts -------------

NVLINK = sm.INTERCONNECT_PRESETS["NVLink (H100 SXM)"]
MOE = sm.ModelSpec(
    "moe", 2e9 + 48 * 128 * 4_718_592, 48, 2048, 4, 128, routed_experts=128, experts_per_token=8,
    expert_parameters=4_718_592,
)  # fmt: skip


@given(
    alpha=st.sampled_from([0.0, 0.6, 0.9, 1.0]),
    drafter=st.sampled_from(sm.general.DRAFTERS),
    target=st.sampled_from([MOE, sm.MODEL_PRESETS["Llama-3.1-8B"]]),
    tp=st.sampled_from([1, 2, 8]),
    draft_tp=st.sampled_from([1, 2]),
    context=st.sampled_from([0, 4096]),
    overhead_s=st.sampled_from([0.0, 5e-5]),
    batches=st.lists(st.integers(1, 4096), min_size=1, max_size=6),
)
def test_batch_sweep_rows_are_one_roofline_and_general_optimal_k(
    alpha, drafter, target, tp, draft_tp, context, overhead_s, batches
):
    draft = 3e-5 if drafter == "model_free" else sm.MODEL_PRESETS["Llama-3.2-1B"]
    kwargs = {"drafter": drafter, "tp": tp, "draft_tp": draft_tp, "interconnect": NVLINK}
    sweep = sm.roofline_batch_sweep(alpha, draft, target, H100, batches, context, overhead_s, 16, **kwargs)
    for row, b in enumerate(sweep.batch):
        t_target = sm.Roofline(target, H100, int(b), context, overhead_s, tp, NVLINK)
        t_draft = (
            draft
            if drafter == "model_free"
            else sm.Roofline(draft, H100, int(b), context, overhead_s, draft_tp, NVLINK)
        )
        k, s = sm.general_optimal_k(alpha, t_draft, t_target, 16, drafter=drafter)
        assert (sweep.k[row], sweep.speedup[row]) == (k, s)
        assert sweep.verify_ratio[row] == float(t_target(k + 1)) / float(t_target(1))
        assert sweep.target_fits[row] == t_target.fits
    profile = sm.roofline_batch_sweep(
        sm.acceptance(per_position=[alpha] * 3), draft, target, H100, batches, context, overhead_s, 16, **kwargs
    )
    assert profile.batch.tolist() == sweep.batch.tolist()


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (lambda: sm.roofline_batch_sweep(0.5, 1e-4, MOE, H100, [1]), "^draft must be a ModelSpec, got float"),
        (
            lambda: sm.roofline_batch_sweep(0.5, MOE, MOE, H100, [1], drafter="model_free"),
            "^draft must be a lookup time in seconds for a model-free drafter",
        ),
        (lambda: sm.roofline_batch_sweep(0.5, -1.0, MOE, H100, [1], drafter="model_free"), "^draft must be >= 0"),
        (lambda: sm.roofline_batch_sweep(0.5, MOE, MOE, H100, [1], tp=2), "^interconnect must be given when tp > 1"),
        (lambda: sm.roofline_batch_sweep(0.5, MOE, MOE, H100, [1], draft_tp=0), "^tp must be >= 1"),
        (lambda: sm.roofline_batch_sweep(0.5, MOE, MOE, H100, [1], drafter="tree"), "^drafter must be one of"),
    ],
)
def test_bad_sweep_arguments_named(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()
