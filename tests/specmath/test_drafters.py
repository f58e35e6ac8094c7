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
    s = sm.general_speedup(alpha, K, sm.linear_overhead(t_draft, beta), t_target, drafter="parallel")
    drafting = np.where(K > 0, t_draft * (1 + beta * (K - 1)), 0.0)
    expected = sm.expected_tokens(alpha, K) * t_target / (drafting + t_target)
    np.testing.assert_allclose(s, expected, rtol=1e-12)
    assert s[0] == 1.0


def test_parallel_drafter_on_its_plateau_pays_one_pass():
    # A 1B draft at batch 1 is memory-bound up to hundreds of positions: drafting k tokens in one
    # pass costs one step, S = E[N] / (1/c + T_t(k + 1) / T_t(1)).
    draft = sm.roofline(sm.MODEL_PRESETS["Llama-3.2-1B"], H100, 1, 1024)
    target = sm.roofline(sm.MODEL_PRESETS["Llama-3.1-8B"], H100, 1, 1024)
    c = float(target(1) / draft(1))
    k = np.arange(1, 33)
    s = sm.general_speedup(0.8, k, draft, target, drafter="parallel")
    np.testing.assert_allclose(s, sm.expected_tokens(0.8, k) / (1 / c + target(k + 1) / target(1)), rtol=1e-14)
    # Never slower than drafting the same tokens one at a time (T_d(k) <= k T_d(1)).
    assert (s >= sm.general_speedup(0.8, k, draft, target) * (1 - 1e-14)).all()


@pytest.mark.parametrize("lookup", [0.0, 1e-4])
def test_model_free_drafter_pays_its_lookup_once(lookup):
    target = sm.roofline(sm.MODEL_PRESETS["Llama-3.1-8B"], H100, 64, 4096)
    s = sm.general_speedup(0.6, K, lookup, target, drafter="model_free")
    drafting = np.where(K > 0, lookup, 0.0) / float(target(1))
    np.testing.assert_allclose(s, sm.expected_tokens(0.6, K) / (drafting + target(K + 1) / target(1)), rtol=1e-14)


@pytest.mark.parametrize("drafter", sm.DRAFTERS)
def test_optimal_k_general_is_the_best_of_general_speedup(drafter):
    draft = sm.roofline(sm.MODEL_PRESETS["Llama-3.2-1B"], H100, 32, 2048, 1e-4)
    target = sm.roofline(sm.MODEL_PRESETS["Llama-3.1-8B"], H100, 32, 2048, 1e-4)
    t_draft = 2e-4 if drafter == "model_free" else draft
    alpha = np.linspace(0, 1, 21)
    best_k, best = sm.optimal_k_general(alpha, t_draft, target, 24, drafter=drafter)
    table = sm.general_speedup(alpha[:, None], np.arange(1, 25), t_draft, target, drafter=drafter)
    np.testing.assert_array_equal(best_k, np.argmax(table, axis=1) + 1)
    np.testing.assert_array_equal(best, table.max(axis=1))


@pytest.mark.parametrize("bad", ["block", "", None, 3])
def test_bad_drafter_named(bad):
    with pytest.raises(ValueError, match=r"^drafter must be one of sequential, parallel, model_free, got"):
        sm.general_speedup(0.5, 3, 0.1, 1.0, drafter=bad)
    with pytest.raises(ValueError, match=r"^drafter must be one of"):
        sm.optimal_k_general(0.5, 0.1, 1.0, drafter=bad)
