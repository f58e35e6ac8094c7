"""Cost models for a forward pass, the general speedup, the best k, and Leviathan et al.'s Table 1."""

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import specmath as sm
from specmath.costs import MAX_BATCH, MAX_CONTEXT, MAX_TABULATED_WIDTHS
from specmath.schedule import MAX_SWEEP_POINTS
from specmath.speedup import MAX_DRAFT_LENGTH

# Leviathan, Kalman and Matias (2023), "Fast Inference from Transformers via Speculative
# Decoding" (ICML 2023, arXiv:2211.17192), Table 1, as printed: "The total number of arithmetic
# operations and the inference speed vs the baseline, for various values of γ and α, assuming
# c = ĉ = 0." Operations is Theorem 3.11's factor (1 - α)(γĉ + γ + 1) / (1 - α^(γ+1)) and speed
# Theorem 3.8's walltime improvement (1 - α^(γ+1)) / ((1 - α)(γc + 1)), their c being draft time
# over target time (this package's 1/c, so their c = 0 is c = inf here) and γ this package's k.
# Columns: α, γ, operations, speed.
LEVIATHAN_TABLE_1 = [
    (0.6, 2, "1.53X", "1.96X"),
    (0.7, 3, "1.58X", "2.53X"),
    (0.8, 2, "1.23X", "2.44X"),
    (0.8, 5, "1.63X", "3.69X"),
    (0.9, 2, "1.11X", "2.71X"),
    (0.9, 10, "1.60X", "6.86X"),
]

H100 = sm.GPU_PRESETS["H100 SXM"]
L4 = sm.GPU_PRESETS["L4"]
LLAMA_8B = sm.MODEL_PRESETS["Llama-3.1-8B"]
LLAMA_1B = sm.MODEL_PRESETS["Llama-3.2-1B"]

alphas = st.floats(0.0, 1.0)
times = st.floats(1e-6, 10.0)


# --- Leviathan et al. 2023, Table 1 ---------------------------------------------------------


@pytest.mark.parametrize(("alpha", "gamma", "operations", "speed"), LEVIATHAN_TABLE_1)
def test_leviathan_table_1(alpha, gamma, operations, speed):
    assert f"{sm.operations_factor(alpha, gamma, 0.0):.2f}X" == operations
    # Their c = 0 (a free draft) is c = inf here, in the chapter's formula and in the general one.
    assert f"{sm.speedup(alpha, gamma, np.inf):.2f}X" == speed
    assert f"{sm.general_speedup(alpha, gamma, 0.0, sm.FreeVerification(1.0)):.2f}X" == speed


def test_leviathan_table_1_in_one_broadcast_call():
    alpha = np.array([row[0] for row in LEVIATHAN_TABLE_1])
    gamma = np.array([row[1] for row in LEVIATHAN_TABLE_1])
    ops = sm.operations_factor(alpha, gamma, 0.0)
    assert [f"{v:.2f}X" for v in ops] == [row[2] for row in LEVIATHAN_TABLE_1]
    # At c = ĉ = 0, operations x speed = γ + 1: every one of the γ + 1 target positions is computed.
    np.testing.assert_allclose(ops * sm.speedup(alpha, gamma, np.inf), gamma + 1, rtol=1e-14)


# --- operations_factor ------------------------------------------------------------------------


@given(alphas, st.integers(0, 200), st.floats(0.0, 10.0))
def test_operations_factor_is_the_theorem(alpha, k, c_hat):
    ops = sm.operations_factor(alpha, k, c_hat)
    assert ops == pytest.approx((k * c_hat + k + 1) / sm.expected_tokens(alpha, k), rel=1e-14)
    assert ops >= 1.0 - 1e-12  # arithmetic is never saved
    if alpha < 0.99:  # the theorem's closed form, away from its 0/0 at alpha = 1
        closed = (1 - alpha) * (k * c_hat + k + 1) / (1 - alpha ** (k + 1))
        assert ops == pytest.approx(closed, rel=1e-9)


def test_operations_factor_edges():
    assert sm.operations_factor(0.3, 0, 0.5) == 1.0  # no draft, no extra work
    assert sm.operations_factor(1.0, 7, 0.0) == 1.0  # every position kept, free draft
    assert sm.operations_factor(1.0, 4, 0.1) == pytest.approx((4 * 0.1 + 5) / 5)
    assert sm.operations_factor(0.0, 4, 0.0) == 5.0  # all but one position wasted
    out = sm.operations_factor(
        np.array([0.5, 0.9])[:, None], np.arange(1, 4), np.array([0.0, 0.05, 0.1])[:, None, None]
    )
    assert out.shape == (3, 2, 3)


@pytest.mark.parametrize(
    ("c_hat", "problem"), [(-0.1, ">= 0"), (np.nan, "NaN"), (np.inf, "finite"), ("0.1", "numeric")]
)
def test_operations_factor_bad_c_hat(c_hat, problem):
    with pytest.raises(ValueError, match=rf"^c_hat .*{problem}"):
        sm.operations_factor(0.5, 3, c_hat)


# --- general_speedup and general_optimal_k under free verification --------------------------


@given(alphas, st.integers(0, 200), times, times)
def test_free_verification_is_the_chapters_formula(alpha, k, t_target, t_draft):
    c = t_target / t_draft
    expected = sm.speedup(alpha, k, c)
    assert sm.general_speedup(alpha, k, t_draft, sm.FreeVerification(t_target)) == expected
    assert sm.general_speedup(alpha, k, sm.FreeVerification(t_draft), t_target) == expected  # numbers = free


def test_free_verification_grid_bit_for_bit():
    alpha = np.linspace(0, 1, 201)[:, None]
    k = np.arange(0, 41)
    for t_target, t_draft in [(0.03, 0.001), (7.0, 7.0), (0.3, 0.1), (1.0, 0.0)]:
        c = t_target / t_draft if t_draft else np.inf
        got = sm.general_speedup(alpha, k, t_draft, sm.FreeVerification(t_target))
        np.testing.assert_array_equal(got, sm.speedup(alpha, k, c))
    assert sm.general_speedup(0.7, 0, 0.01, sm.LinearOverhead(0.1, 3.0)) == 1.0  # k = 0 is plain decoding


@pytest.mark.parametrize(("t_target", "t_draft"), [(20.0, 1.0), (0.3, 0.1), (1.0, 1.0), (0.05, 0.0), (0.0123, 0.0017)])
def test_general_optimal_k_equals_optimal_k_for_free_verification(t_target, t_draft):
    alpha = np.linspace(0, 1, 201)
    c = t_target / t_draft if t_draft else np.inf
    for max_k in (1, 20, 64):
        k_general, s_general = sm.general_optimal_k(alpha, t_draft, sm.FreeVerification(t_target), max_k)
        k_chapter, s_chapter = sm.optimal_k(alpha, c, max_k)
        np.testing.assert_array_equal(k_general, k_chapter)  # ties too: alpha = 1, c = 1
        np.testing.assert_array_equal(s_general, s_chapter)


def test_general_optimal_k_matches_its_speedup_and_shapes():
    model = sm.LinearOverhead(0.02, 0.1)
    alpha = np.array([[0.5, 0.7], [0.8, 0.95]])
    k, s = sm.general_optimal_k(alpha, 0.002, model)
    assert k.shape == s.shape == (2, 2)
    np.testing.assert_array_equal(s, sm.general_speedup(alpha, k, 0.002, model))
    k0, s0 = sm.general_optimal_k(0.8, 0.002, model)
    assert np.ndim(k0) == np.ndim(s0) == 0
    # The chapter's printed example, through the general function: alpha 0.8, c 20 -> k 8, 3.09x.
    k, s = sm.general_optimal_k(0.8, 1.0, 20.0)
    assert (k, f"{s:.2f}") == (8, "3.09")


# --- linear overhead and tabulated times ------------------------------------------------------


@given(alphas, st.integers(0, 100), times, times, st.floats(0.0, 2.0))
def test_linear_overhead_closed_form(alpha, k, t_target, t_draft, beta):
    c = t_target / t_draft
    s = sm.general_speedup(alpha, k, t_draft, sm.LinearOverhead(t_target, beta))
    assert s == pytest.approx(sm.expected_tokens(alpha, k) / (k / c + 1 + beta * k), rel=1e-12)
    assert s <= sm.speedup(alpha, k, c) * (1 + 1e-12)  # never better than free verification


def test_linear_overhead_shrinks_the_best_k():
    betas = np.linspace(0, 1, 41)
    for alpha in (0.6, 0.8, 0.9, 0.97):
        ks = [sm.general_optimal_k(alpha, 0.001, sm.LinearOverhead(0.02, b))[0] for b in betas]
        assert ks[0] == sm.optimal_k(alpha, 20)[0]
        assert all(a >= b for a, b in itertools.pairwise(ks))
    # beta = 1: a pass over k + 1 positions costs k + 1 steps; with a free draft S = E[N]/(k+1) <= 1.
    k = np.arange(0, 30)
    s = sm.general_speedup(0.9, k, 0.0, sm.LinearOverhead(0.02, 1.0))
    np.testing.assert_allclose(s, sm.expected_tokens(0.9, k) / (k + 1), rtol=1e-14)
    assert (s <= 1).all()


def test_tabulated_times():
    table = sm.Tabulated([0.020, 0.0205, 0.021, 0.022, 0.024])
    lin = sm.LinearOverhead(0.02, 0.05)
    np.testing.assert_allclose(sm.Tabulated(lin(np.arange(1, 9))).times, lin(np.arange(1, 9)))
    assert table(3) == 0.021
    s = sm.general_speedup(0.8, np.arange(5), 0.002, table)
    expected = sm.expected_tokens(0.8, np.arange(5)) * 0.020 / (np.arange(5) * 0.002 + np.array(table.times))
    np.testing.assert_allclose(s, expected, rtol=1e-14)
    with pytest.raises(ValueError, match=r"^w must be <= 5"):
        sm.general_speedup(0.8, 5, 0.002, table)
    with pytest.raises(ValueError, match=r"^w must be <= 5"):
        sm.general_optimal_k(0.8, 0.002, table, max_k=5)
    k, _ = sm.general_optimal_k(0.8, 0.002, table, max_k=4)
    assert 1 <= k <= 4


def test_any_callable_is_a_cost_model():
    def measured(w):
        return 0.02 + 0.001 * (np.asarray(w) - 1)

    np.testing.assert_allclose(
        sm.general_speedup(0.8, np.arange(10), 0.002, measured),
        sm.general_speedup(0.8, np.arange(10), 0.002, sm.LinearOverhead(0.02, 0.05)),
        rtol=1e-14,
    )


# --- the roofline model -----------------------------------------------------------------------


def test_roofline_numbers_by_hand():
    t = sm.Roofline(LLAMA_8B, H100, batch=1, context=1024)
    kv = 2 * 32 * 8 * 128 * 2  # K and V, layers, kv heads, head dim, BF16: 128 KiB a token
    assert LLAMA_8B.kv_bytes_per_token == kv == 131_072
    # The untied input embedding, 128,256 x 4,096, is gathered a row per token: neither read in
    # full nor multiplied. The LM head, the same size, is both.
    matmul = 8_030_261_248 - 128_256 * 4096
    assert LLAMA_8B.matmul_parameters == matmul == 7_504_924_672
    bytes_read = matmul * 2 + 1024 * kv
    assert t.bytes_read == bytes_read
    assert t(1) == pytest.approx(bytes_read / 3.35e12, rel=1e-15)  # ~4.52 ms: memory-bound
    flops_1 = 2 * matmul + 4 * 32 * 4096 * 1024
    assert t.flops(1) == flops_1
    assert t.ridge_width == pytest.approx((bytes_read / 3.35e12) / (flops_1 / 989.5e12))
    assert 280 < t.ridge_width < 300
    # Memory holds the whole table all the same.
    assert t.fits and t.memory_needed == 8_030_261_248 * 2 + 1024 * kv
    assert not sm.Roofline(sm.MODEL_PRESETS["Llama-3.1-70B"], H100).fits  # 141 GB of BF16 weights
    assert sm.Roofline(LLAMA_8B, H100, 1, 1024)(3) == t(3)
    assert t(np.array([[1, 2], [3, 4]])).shape == (2, 2)


def test_memory_bound_regime_is_free_verification():
    target = sm.Roofline(LLAMA_8B, H100, batch=1, context=1024, overhead_s=2e-4)
    draft = sm.Roofline(LLAMA_1B, H100, batch=1, context=1024, overhead_s=2e-4)
    max_k = 20
    assert target.ridge_width > max_k + 1
    w = np.arange(1, max_k + 2)
    np.testing.assert_array_equal(target(w), target(1))  # exactly flat
    c = target(1) / draft(1)
    alpha = np.linspace(0, 1, 101)[:, None]
    k = np.arange(0, max_k + 1)
    np.testing.assert_array_equal(sm.general_speedup(alpha, k, draft, target), sm.speedup(alpha, k, c))
    k_general, s_general = sm.general_optimal_k(alpha[:, 0], draft, target, max_k)
    k_chapter, s_chapter = sm.optimal_k(alpha[:, 0], c, max_k)
    np.testing.assert_array_equal(k_general, k_chapter)
    np.testing.assert_array_equal(s_general, s_chapter)


def test_compute_bound_regime_is_proportional_to_width():
    target = sm.Roofline(LLAMA_8B, L4, batch=4096, context=0)
    draft = sm.Roofline(LLAMA_1B, L4, batch=4096, context=0)
    assert target.ridge_width < 1 and draft.ridge_width < 1
    w = np.arange(1, 65)
    np.testing.assert_allclose(target(w), w * target(1), rtol=1e-14)
    with_overhead = sm.Roofline(LLAMA_8B, L4, batch=4096, context=0, overhead_s=1e-3)
    np.testing.assert_allclose(with_overhead(w) - 1e-3, w * (with_overhead(1) - 1e-3), rtol=1e-12)
    # Both compute-bound: time is arithmetic, so the speedup is 1 / Leviathan's operations factor
    # with c_hat = T_d(1) / T_t(1) (here the parameter ratio), and never above 1.
    c_hat = draft(1) / target(1)
    # Arithmetic per position: the 1B's every parameter (its embedding is its head), the 8B's
    # all but its untied input embedding (128,256 x 4,096).
    assert c_hat == pytest.approx(1_235_814_400 / (8_030_261_248 - 128_256 * 4096), rel=1e-14)
    alpha = np.linspace(0, 1, 51)[:, None]
    k = np.arange(0, 21)
    s = sm.general_speedup(alpha, k, draft, target)
    np.testing.assert_allclose(s, 1 / sm.operations_factor(alpha, k, c_hat), rtol=1e-12)
    assert (s <= 1 + 1e-12).all()
    # The target alone compute-bound suffices, with c_hat the time ratio: here a fixed 3 ms draft.
    s = sm.general_speedup(alpha, k, 3e-3, target)
    np.testing.assert_allclose(s, 1 / sm.operations_factor(alpha, k, 3e-3 / target(1)), rtol=1e-12)


@st.composite
def rooflines(draw, overhead=True):
    model = sm.ModelSpec(
        "m",
        parameters=draw(st.floats(1e6, 1e12)),
        layers=draw(st.integers(1, 128)),
        hidden=draw(st.integers(64, 16384)),
        kv_heads=draw(st.integers(1, 64)),
        head_dim=draw(st.integers(32, 256)),
        bytes_per_parameter=draw(st.sampled_from([0.5, 1.0, 2.0, 4.0])),
    )
    gpu = sm.GPUSpec("g", draw(st.floats(1e11, 1e13)), draw(st.floats(1e13, 1e16)), 1e12)
    return sm.Roofline(
        model,
        gpu,
        batch=draw(st.integers(1, 4096)),
        context=draw(st.integers(0, 100_000)),
        overhead_s=draw(st.floats(0.0, 1e-2)) if overhead else 0.0,
    )


W = np.arange(1, 130)


@given(rooflines())
def test_roofline_time_is_non_decreasing_convex_and_subadditive(t):
    # T(w) = max(M, w C) + o: property 1 (non-decreasing, convex) and 2 (T(w)/w non-increasing).
    tw = t(W)
    assert (np.diff(tw) >= 0).all()
    assert (tw >= t(1)).all()
    assert (np.diff(tw, 2) >= -1e-12 * tw[2:]).all()
    per_position = tw / W
    assert (np.diff(per_position) <= 1e-12 * per_position[1:]).all()
    assert (tw <= W * t(1) * (1 + 1e-12)).all()


@given(rooflines())
def test_roofline_plateau_then_line(t):
    # Property 3: flat up to the ridge width w*, then rising (property 4: a line, slope C).
    # (w* is a rounded ratio: widths within 1e-12 of it may fall either side.)
    ridge = t.ridge_width
    tw = t(W)
    flat, rising = W < ridge * (1 - 1e-12), W > ridge * (1 + 1e-12)
    np.testing.assert_array_equal(tw[flat], t(1))
    assert (tw[rising & (W > 1)] > t(1)).all()
    slope = float(t.compute_time(1))
    # Taking away an overhead much larger than the compute time leaves that difference with the
    # rounding of T(w) itself, an ulp of T(w), not of the difference.
    np.testing.assert_allclose(tw[rising] - t.overhead_s, W[rising] * slope, rtol=1e-12, atol=2 * np.spacing(tw).max())


@given(rooflines(), rooflines(), alphas)
def test_roofline_speedup_between_compute_and_memory_bounds(target, draft, alpha):
    # From property 2: E[N]/(k/c + k + 1) <= S <= E[N]/(k/c + 1), c = T_t(1)/T_d(1).
    k = np.arange(0, 31)
    c = target(1) / draft(1)
    s = sm.general_speedup(alpha, k, draft, target)
    e = sm.expected_tokens(alpha, k)
    assert (s <= sm.speedup(alpha, k, c) * (1 + 1e-12)).all()
    assert (s >= e / (k / c + k + 1) * (1 - 1e-12)).all()
    best_k, best = sm.general_optimal_k(alpha, draft, target)
    assert best <= sm.optimal_k(alpha, c)[1] * (1 + 1e-12)
    assert best == sm.general_speedup(alpha, best_k, draft, target)


@given(rooflines(overhead=False), st.lists(st.integers(1, 4096), min_size=2, max_size=8))
def test_verification_ratio_rises_with_batch(t, batches):
    # Property 5: without overhead, T(w)/T(1) = clip(w / w*, 1, w), non-decreasing in the batch.
    previous = None
    for b in sorted(batches):
        tb = dataclasses.replace(t, batch=b)
        ratio = tb(W) / tb(1)
        np.testing.assert_allclose(ratio, np.clip(W / tb.ridge_width, 1, W), rtol=1e-12)
        if previous is not None:
            assert (ratio >= previous * (1 - 1e-12)).all()
        previous = ratio


# --- presets ----------------------------------------------------------------------------------

# The presets whose config.json is not kept as a fixture yet (tests/specmath/test_presets.py
# checks the others against theirs), from each model's config.json on the Hugging Face Hub:
# vocab_size, hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
# num_key_value_heads, head_dim, tie_word_embeddings, and whether q/k/v projections have biases (Qwen2).
CONFIGS = {
    "Llama-3.1-70B": (128256, 8192, 28672, 80, 64, 8, 128, False, False),
    "Llama-3.2-1B": (128256, 2048, 8192, 16, 32, 8, 64, True, False),
    "Llama-2-7B": (32000, 4096, 11008, 32, 32, 32, 128, False, False),
    "LLaMA-68M": (32000, 768, 3072, 2, 12, 12, 64, False, False),
    "Qwen2.5-0.5B": (151936, 896, 4864, 24, 14, 2, 64, True, True),
}


def parameter_count(vocab, hidden, intermediate, layers, heads, kv_heads, head_dim, tied, qkv_bias):
    q, kv = heads * head_dim, kv_heads * head_dim
    attention = hidden * q + 2 * hidden * kv + q * hidden + (q + 2 * kv if qkv_bias else 0)
    mlp = 3 * hidden * intermediate  # gate, up, down (SwiGLU)
    per_layer = attention + mlp + 2 * hidden  # two RMSNorm weights
    embeddings = vocab * hidden * (1 if tied else 2)
    return embeddings + layers * per_layer + hidden  # + final norm


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_model_presets_match_their_configs(name):
    vocab, hidden, _, layers, heads, kv_heads, head_dim, tied, _ = CONFIGS[name]
    spec = sm.MODEL_PRESETS[name]
    assert spec.parameters == parameter_count(*CONFIGS[name])
    assert (spec.layers, spec.hidden, spec.kv_heads, spec.head_dim) == (layers, hidden, kv_heads, head_dim)
    assert (spec.vocab_size, spec.tie_word_embeddings) == (vocab, tied)
    assert spec.input_embedding_parameters == (0 if tied else vocab * hidden)
    assert heads * head_dim == hidden  # what the attention FLOP count assumes
    assert spec.bytes_per_parameter == spec.kv_bytes_per_element == 2.0
    assert spec.source


#: The tokenizer family of the presets whose fixture does not give it by config.json's
#: bos_token_id and eos_token_id (tests/specmath/test_presets.py reads those; specmath/presets/models.py).
TOKENIZERS = {
    "Llama-3.1-70B": "Llama 3",
    "Llama-3.2-1B": "Llama 3",
    "Llama-2-7B": "Llama 2",
    "LLaMA-68M": "Llama 2",
    "Qwen2.5-0.5B": "Qwen2.5",
    "DeepSeek-V3": "DeepSeek-V3",
    "Qwen3-235B-A22B": "Qwen3",
    "Mixtral-8x7B": "Mistral",
    "Mistral-7B": "Mistral",
    "gpt-oss-120b": "o200k_harmony",
    "GLM-4.7-Flash": "GLM-4.7",  # its config defaults give pad_token_id only
    "Llama-4-Scout": "Llama 4",  # Llama4TextConfig's defaults give bos 1 and eos 2, not the checkpoint's
}


def test_model_presets_carry_their_tokenizer_family():
    assert {name: sm.MODEL_PRESETS[name].tokenizer for name in TOKENIZERS} == TOKENIZERS
    # One family, one vocab_size, except where the embedding table is padded differently.
    # (EAGLE-3 heads and the MTP module gather their target's embedding: vocab_size 0.)
    sizes = {(spec.tokenizer, spec.vocab_size) for spec in sm.MODEL_PRESETS.values() if spec.vocab_size}
    assert sizes == {
        ("Llama 3", 128256),
        ("Llama 2", 32000),
        ("Qwen2.5", 152064),
        ("Qwen2.5", 151936),
        ("DeepSeek-V3", 129280),
        ("Qwen3", 151936),
        ("Mistral", 32000),
        ("o200k_harmony", 201088),
        ("GLM-4.7", 154880),
        ("Llama 4", 202048),
    }
    with pytest.raises(ValueError, match=r"^tokenizer must be a string, got 3$"):
        dataclasses.replace(LLAMA_8B, tokenizer=3)


def test_llama_68m_drafting_for_llama_2_7b_implies_c_152():
    # Memory-bound at batch 1 with an empty cache and no overhead, on any GPU: c is the ratio of
    # the weight bytes each pass reads. Both embeddings are untied (32,000 rows); leaving the
    # input table out removes 131,072,000 of the 7B's parameters and 24,576,000 (36%) of the
    # 68M's. Counting the tables as read gave 6,738,415,616 / 68,030,208 = 99.05 instead.
    draft, target = sm.MODEL_PRESETS["LLaMA-68M"], sm.MODEL_PRESETS["Llama-2-7B"]
    assert draft.input_embedding_parameters / draft.parameters == pytest.approx(0.361, abs=1e-3)
    expected = (6_738_415_616 - 32_000 * 4096) / (68_030_208 - 32_000 * 768)  # 6,607,343,616 / 43,454,208
    for gpu in sm.GPU_PRESETS.values():
        c = sm.Roofline(target, gpu)(1) / sm.Roofline(draft, gpu)(1)
        assert c == pytest.approx(expected, rel=1e-14)
    assert f"{expected:.2f}" == "152.05"


def test_tied_or_unknown_embeddings_are_read_in_full():
    # Llama-3.2-1B ties its embedding to the head: one matrix, counted once, read every pass.
    assert LLAMA_1B.input_embedding_parameters == 0
    assert sm.Roofline(LLAMA_1B, H100).bytes_read == 1_235_814_400 * 2
    # Without vocab_size (or with tying) a spec counts every parameter, as before.
    bare = sm.ModelSpec("m", parameters=1e9, layers=4, hidden=1024, kv_heads=8, head_dim=128)
    assert bare.matmul_parameters == 1e9 and bare.flops_per_position(0) == 2e9
    untied = dataclasses.replace(bare, vocab_size=50_000, tie_word_embeddings=False)
    assert untied.matmul_parameters == 1e9 - 50_000 * 1024
    assert sm.Roofline(untied, H100).memory_needed == sm.Roofline(bare, H100).memory_needed == 2e9


def test_gpu_presets():
    # Each preset's figures against its datasheet: tests/specmath/test_presets.py.
    for gpu in sm.GPU_PRESETS.values():
        assert gpu.source
        assert 100 < gpu.ridge_intensity < 500  # FLOPs per byte: decoding at batch 1 is far below


def test_presets_are_read_only_and_editable_by_copy():
    with pytest.raises(TypeError):
        sm.GPU_PRESETS["mine"] = H100
    with pytest.raises(dataclasses.FrozenInstanceError):
        H100.peak_flops = 1.0
    fp8 = dataclasses.replace(LLAMA_8B, bytes_per_parameter=1, kv_bytes_per_element=1)
    assert fp8.weight_bytes == LLAMA_8B.weight_bytes / 2
    assert sm.MODEL_PRESETS["Llama-3.1-8B"].bytes_per_parameter == 2.0
    with pytest.raises(ValueError, match=r"^memory_bandwidth must be > 0"):
        dataclasses.replace(H100, memory_bandwidth=0)
    t = sm.Roofline(LLAMA_8B, H100, 1, 1024)
    assert dataclasses.replace(t, gpu=dataclasses.replace(H100, memory_bandwidth=6.7e12))(1) < t(1)


# --- batch sweep ------------------------------------------------------------------------------


def test_batch_sweep_speculation_stops_paying():
    batches = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    sweep = sm.roofline_batch_sweep(0.8, LLAMA_1B, LLAMA_8B, H100, batches, context=0)
    assert sweep.batch.tolist() == batches
    assert (np.diff(sweep.k) <= 0).all() and (np.diff(sweep.speedup) <= 1e-12).all()
    assert sweep.k[0] > 1 and sweep.k[-1] == 1
    assert sweep.speedup[0] > 2 and sweep.speedup[-1] < 1
    assert sweep.crossover_batch == batches[int(np.argmax(sweep.speedup < 1))] == 256
    assert (sweep.verify_ratio >= 1).all() and sweep.verify_ratio[0] == 1.0
    assert sweep.target_fits.all()
    # Batch 1 is memory-bound: the chapter's optimal_k with the hardware's c.
    k, s = sm.optimal_k(0.8, sweep.c[0])
    assert (sweep.k[0], sweep.speedup[0]) == (k, s)
    # Every row is general_optimal_k on the two rooflines.
    row = 5
    target = sm.Roofline(LLAMA_8B, H100, batches[row])
    draft = sm.Roofline(LLAMA_1B, H100, batches[row])
    assert (sweep.k[row], sweep.speedup[row]) == sm.general_optimal_k(0.8, draft, target)


def test_batch_sweep_long_context_keeps_verification_cheap():
    # At 8k tokens of context the KV cache dominates the bytes and attention is memory-bound
    # (GQA: 4 query heads per KV head), so even batch 1024 keeps speculation worthwhile.
    sweep = sm.roofline_batch_sweep(0.8, LLAMA_1B, LLAMA_8B, H100, [1, 64, 1024], context=8192)
    assert sweep.crossover_batch is None
    assert (sweep.speedup > 1.5).all()
    assert not sweep.target_fits[-1]  # 1024 x 8k tokens x 128 KiB is 1.1 TB: the page should say so


@given(
    alpha=st.sampled_from([0.0, 0.3, 0.6, 0.8, 0.95, 1.0]),
    pair=st.sampled_from(
        [("Llama-3.2-1B", "Llama-3.1-8B"), ("LLaMA-68M", "Llama-2-7B"), ("Llama-3.1-8B", "Llama-3.1-70B")]
    ),
    gpu=st.sampled_from(sorted(sm.GPU_PRESETS)),
    context=st.sampled_from([0, 1, 1024, 32768]),
    overhead_s=st.sampled_from([0.0, 1e-5, 2e-3]),
    max_k=st.integers(1, 32),
    batches=st.lists(st.integers(1, MAX_BATCH), min_size=1, max_size=12),
)
def test_batch_sweep_is_one_roofline_and_general_optimal_k_per_batch(
    alpha, pair, gpu, context, overhead_s, max_k, batches
):
    """The sweep computes all batches at once; each row is what one batch's Roofline and
    general_optimal_k give, bit for bit."""
    draft, target, device = sm.MODEL_PRESETS[pair[0]], sm.MODEL_PRESETS[pair[1]], sm.GPU_PRESETS[gpu]
    sweep = sm.roofline_batch_sweep(alpha, draft, target, device, batches, context, overhead_s, max_k)
    assert sweep.batch.tolist() == sorted(set(batches))
    for row, b in enumerate(sweep.batch):
        t_target = sm.Roofline(target, device, int(b), context, overhead_s)
        t_draft = sm.Roofline(draft, device, int(b), context, overhead_s)
        k, s = sm.general_optimal_k(alpha, t_draft, t_target, max_k)
        assert (sweep.k[row], sweep.speedup[row]) == (k, s)
        assert sweep.c[row] == float(t_target(1)) / float(t_draft(1))
        assert sweep.verify_ratio[row] == float(t_target(k + 1)) / float(t_target(1))
        assert sweep.target_fits[row] == t_target.fits


def test_batch_sweep_sorts_and_deduplicates():
    sweep = sm.roofline_batch_sweep(0.7, LLAMA_1B, LLAMA_8B, L4, np.array([64, 1, 64, 8]))
    assert sweep.batch.tolist() == [1, 8, 64]
    assert sweep.k.dtype == np.int64 and sweep.target_fits.dtype == bool


# --- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (lambda: sm.FreeVerification(0), "^t1 must be > 0"),
        (lambda: sm.FreeVerification(np.nan), "^t1 must be finite"),
        (lambda: sm.FreeVerification("1"), "^t1 must be numeric"),
        (lambda: sm.FreeVerification([1.0, 2.0]), "^t1 must be a single number"),
        (lambda: sm.LinearOverhead(1.0, -0.1), "^beta must be >= 0"),
        (lambda: sm.LinearOverhead(-1.0, 0.1), "^t1 must be > 0"),
        (lambda: sm.Tabulated([]), "^times must be a non-empty"),
        (lambda: sm.Tabulated([0.1, -0.1]), "^times must all be finite and > 0"),
        (lambda: sm.Tabulated(np.ones(MAX_TABULATED_WIDTHS + 1)), "^times must have at most"),
        (lambda: dataclasses.replace(LLAMA_8B, parameters=-1), "^parameters must be > 0"),
        (lambda: dataclasses.replace(LLAMA_8B, layers=0), "^layers must be >= 1"),
        (lambda: dataclasses.replace(LLAMA_8B, kv_heads=2.5), "^kv_heads must be an integer"),
        (lambda: dataclasses.replace(LLAMA_8B, head_dim=True), "^head_dim must be an integer"),
        (lambda: dataclasses.replace(LLAMA_8B, bytes_per_parameter=0), "^bytes_per_parameter must be > 0"),
        (lambda: dataclasses.replace(LLAMA_8B, vocab_size=-1), "^vocab_size must be >= 0, got -1"),
        (lambda: dataclasses.replace(LLAMA_8B, tie_word_embeddings="no"), "^tie_word_embeddings must be True or False"),
        (lambda: dataclasses.replace(LLAMA_8B, vocab_size=10**6), r"^parameters \(8030261248.0\) must include"),
        (
            lambda: dataclasses.replace(LLAMA_8B, head="Medusa"),
            "^head must be one of EAGLE, EAGLE-3, MTP or empty, got 'Medusa'",
        ),
        (lambda: dataclasses.replace(LLAMA_8B, head_of="Llama-3.1-70B"), "^head_of must name the target of a head"),
        (lambda: dataclasses.replace(LLAMA_8B, head="MTP", head_of="x"), "^vocab_size must be 0 for a head"),
        (lambda: dataclasses.replace(H100, peak_flops=np.inf), "^peak_flops must be finite"),
        (lambda: sm.Roofline(LLAMA_8B, H100, batch=0), "^batch must be >= 1"),
        (lambda: sm.Roofline(LLAMA_8B, H100, batch=MAX_BATCH + 1), "^batch must be <="),
        (lambda: sm.Roofline(LLAMA_8B, H100, context=-1), "^context must be >= 0"),
        (lambda: sm.Roofline(LLAMA_8B, H100, context=MAX_CONTEXT + 1), "^context must be <="),
        (lambda: sm.Roofline(LLAMA_8B, H100, overhead_s=-1e-3), "^overhead_s must be >= 0"),
        (lambda: sm.Roofline("Llama-3.1-8B", H100), "^model must be a ModelSpec"),
        (lambda: sm.Roofline(LLAMA_8B, "H100 SXM"), "^gpu must be a GPUSpec"),
        (lambda: sm.Roofline(LLAMA_8B, H100)(0), "^w must be >= 1"),
        (lambda: sm.Roofline(LLAMA_8B, H100)(1.5), "^w must be an integer"),
        (lambda: sm.FreeVerification(1.0)(np.array([1, -2])), "^w must be"),
    ],
)
def test_bad_inputs_named(make, pattern):
    with pytest.raises(ValueError, match=pattern):
        make()


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (lambda: sm.general_speedup(0.5, 3, -1.0, 1.0), "^t_draft must be >= 0"),
        (lambda: sm.general_speedup(0.5, 3, 0.1, 0.0), "^t_target must be > 0"),
        (lambda: sm.general_speedup(0.5, 3, 0.1, "fast"), "^t_target must be numeric"),
        (lambda: sm.general_speedup(0.5, 3, 0.1, lambda w: -np.ones(np.shape(w))), r"^t_target\(w\) must be a finite"),
        (lambda: sm.general_speedup(0.5, 3, 0.1, lambda w: np.ones(3)), r"^t_target\(w\) must return one time"),
        (lambda: sm.general_speedup(0.5, 3, lambda w: np.full(np.shape(w), np.nan), 1.0), r"^t_draft\(w\)"),
        (lambda: sm.general_speedup(1.5, 3, 0.1, 1.0), "^alpha must be within"),
        (lambda: sm.general_speedup(0.5, -1, 0.1, 1.0), "^k must be non-negative"),
        (lambda: sm.general_optimal_k(0.5, 0.1, 1.0, max_k=0), "^max_k must be >= 1"),
        (lambda: sm.general_optimal_k(0.5, 0.1, 1.0, max_k=MAX_DRAFT_LENGTH + 1), "^max_k must be <="),
        (lambda: sm.roofline_batch_sweep([0.5, 0.6], LLAMA_1B, LLAMA_8B, H100, [1]), "^alpha must be a single"),
        (lambda: sm.roofline_batch_sweep(0.5, LLAMA_1B, "8B", H100, [1]), "^target must be a ModelSpec"),
        (lambda: sm.roofline_batch_sweep(0.5, None, LLAMA_8B, H100, [1]), "^draft must be a ModelSpec"),
        (lambda: sm.roofline_batch_sweep(0.5, LLAMA_1B, LLAMA_8B, H100, []), "^batches must be a non-empty"),
        (lambda: sm.roofline_batch_sweep(0.5, LLAMA_1B, LLAMA_8B, H100, [0, 4]), r"^batches must be within"),
        (lambda: sm.roofline_batch_sweep(0.5, LLAMA_1B, LLAMA_8B, H100, [2.5]), "^batches must be an integer"),
        (
            lambda: sm.roofline_batch_sweep(0.5, LLAMA_1B, LLAMA_8B, H100, np.ones(MAX_SWEEP_POINTS + 1)),
            "^batches must have at most",
        ),
        (lambda: sm.roofline_batch_sweep(0.5, LLAMA_1B, LLAMA_8B, H100, [1], context=-5), "^context must be >= 0"),
    ],
)
def test_bad_arguments_named(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()
