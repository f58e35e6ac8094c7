"""Every kind of bad input raises ValueError whose message names the argument and the problem."""

import re

import numpy as np
import pytest

import specmath as sm
from specmath.sampling import MAX_SAMPLES
from specmath.speedup import MAX_DRAFT_LENGTH
from specmath.verification import SUM_TOLERANCE

GOOD = np.array([0.5, 0.5])

BAD_DISTRIBUTIONS = [
    (np.array([[0.5, 0.5]]), "1-D"),
    (0.5, "1-D"),
    (np.array([]), "empty"),
    (np.array([0.5, np.nan]), "NaN"),
    (np.array([np.inf, 0.5]), "infinite"),
    (np.array([1.5, -0.5]), "negative"),
    (np.array([0.5, 0.6]), "sums to 1.1"),
    (np.array([0.0, 0.0]), "sums to 0"),
    (["a", "b"], "numeric"),
    ("0.5,0.5", "numeric"),
    (None, "numeric"),
]


@pytest.mark.parametrize(("bad", "problem"), BAD_DISTRIBUTIONS)
@pytest.mark.parametrize(
    "func",
    [sm.acceptance_probability, sm.tv_distance, sm.kl_divergence, sm.residual_distribution],
)
def test_bad_distribution_named(func, bad, problem):
    with pytest.raises(ValueError, match=rf"^p .*{problem}|^p {problem}"):
        func(bad, GOOD)
    with pytest.raises(ValueError, match=rf"^q .*{problem}|^q {problem}"):
        func(GOOD, bad)


@pytest.mark.parametrize(("bad", "problem"), BAD_DISTRIBUTIONS)
def test_sampler_rejects_bad_distribution(bad, problem):
    with pytest.raises(ValueError, match=problem):
        sm.speculative_sample(bad, GOOD, 10)


def test_length_mismatch():
    with pytest.raises(ValueError, match="same length, got 2 and 3"):
        sm.acceptance_probability(GOOD, [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="same length"):
        sm.speculative_sample(GOOD, [0.2, 0.3, 0.5], 10)


def test_sum_tolerance_is_as_stated():
    within = [0.5, 0.5 + 0.9 * SUM_TOLERANCE]
    assert sm.acceptance_probability(within, within) == pytest.approx(1.0)
    beyond = [0.5, 0.5 + 2 * SUM_TOLERANCE]
    with pytest.raises(ValueError, match="not 1"):
        sm.acceptance_probability(beyond, GOOD)


@pytest.mark.parametrize(("alpha", "problem"), [(-0.1, r"\[0, 1\]"), (1.0001, r"\[0, 1\]"), (np.nan, "NaN")])
def test_bad_alpha(alpha, problem):
    for call in (
        lambda: sm.expected_tokens(alpha, 3),
        lambda: sm.speedup(alpha, 3, 10),
        lambda: sm.optimal_k(alpha, 10),
        lambda: sm.expected_tokens([0.5, alpha], 3),
    ):
        with pytest.raises(ValueError, match=rf"^alpha .*{problem}"):
            call()


@pytest.mark.parametrize(("k", "problem"), [(-1, "non-negative"), (2.5, "integer"), (True, "boolean"), ("3", "")])
def test_bad_k(k, problem):
    with pytest.raises(ValueError, match=rf"^k .*{problem}"):
        sm.expected_tokens(0.5, k)
    with pytest.raises(ValueError, match=rf"^k .*{problem}"):
        sm.speedup(0.5, k, 10)


def test_integral_float_k_accepted():
    assert sm.expected_tokens(0.5, 3.0) == sm.expected_tokens(0.5, 3)


@pytest.mark.parametrize(("c", "problem"), [(0, "> 0"), (-5, "> 0"), (np.nan, "NaN"), ("fast", "numeric")])
def test_bad_c(c, problem):
    with pytest.raises(ValueError, match=rf"^c .*{problem}"):
        sm.speedup(0.5, 3, c)
    with pytest.raises(ValueError, match=rf"^c .*{problem}"):
        sm.optimal_k(0.5, c)


def test_c_infinite_is_the_free_draft_limit():
    assert sm.speedup(0.5, 3, np.inf) == sm.expected_tokens(0.5, 3)
    assert sm.optimal_k(0.5, np.inf, max_k=10) == (10, sm.expected_tokens(0.5, 10))


@pytest.mark.parametrize(
    ("n", "problem"),
    [(0, ">= 1"), (-3, ">= 1"), (2.5, "integer"), ("10", "integer"), (None, "integer"), (True, "integer")],
)
def test_bad_sample_count(n, problem):
    with pytest.raises(ValueError, match=rf"^n .*{problem}"):
        sm.speculative_sample(GOOD, GOOD, n)


def test_sample_count_cap():
    with pytest.raises(ValueError, match=r"^n must be <= 50,000,000"):
        sm.speculative_sample(GOOD, GOOD, MAX_SAMPLES + 1)


def test_bad_max_k():
    with pytest.raises(ValueError, match=r"^max_k must be >= 1"):
        sm.optimal_k(0.5, 10, max_k=0)
    with pytest.raises(ValueError, match=r"^max_k must be <="):
        sm.optimal_k(0.5, 10, max_k=MAX_DRAFT_LENGTH + 1)


def test_bad_pair_generator_sizes():
    with pytest.raises(ValueError, match=r"^n_pairs must be >= 1"):
        sm.random_distribution_pairs(0)
    with pytest.raises(ValueError, match=r"^vocab_size must be >= 2"):
        sm.random_distribution_pairs(10, vocab_size=1)
    with pytest.raises(ValueError, match=r"^n_pairs \* vocab_size must be <="):
        sm.random_distribution_pairs(1_000_000, vocab_size=1000)


def test_bad_divergence_inputs():
    with pytest.raises(ValueError, match=r"^P must be a 2-D"):
        sm.divergences(GOOD, GOOD)
    with pytest.raises(ValueError, match=r"^Q row 1 sums to"):
        sm.divergences([GOOD, GOOD], [GOOD, [0.5, 0.7]])
    with pytest.raises(ValueError, match=r"^kl must be >= 0"):
        sm.pinsker_bound(-1.0)


# --- wrong types and values shown as given (issue 19, "Exact edges in specmath", finding 4) --

T4 = np.full((4, 4), 0.25)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        # Complex and boolean rates are not rates: NumPy would drop the imaginary part or read 0 and 1.
        (lambda: sm.expected_tokens(0.5 + 0j, 3), "alpha must be real, not complex, got (0.5+0j)"),
        (lambda: sm.speedup([0.5, 0.25j], 3, 10), "alpha must be real, not complex, got [0.5, 0.25j]"),
        (lambda: sm.optimal_k(True, 10), "alpha must be numeric, not a boolean, got True"),
        (lambda: sm.expected_tokens(np.array([True, False]), 3), "alpha must be numeric, not a boolean"),
        (lambda: sm.expected_tokens(np.array([0.5, True], dtype=object), 3), "alpha must be numeric, not a boolean"),
        (lambda: sm.speedup(0.5, 3, 2 + 1j), "c must be real, not complex, got (2+1j)"),
        (lambda: sm.kl_divergence(GOOD, [True, False]), "q must be numeric, not a boolean, got [True, False]"),
        # The value as given, not rounded by a format: 1.0000001 is not "1".
        (lambda: sm.expected_tokens(1.0000001, 3), "alpha must be within [0, 1], got 1.0000001"),
        (lambda: sm.speedup([0.5, -1.2345678e-9], 3, 10), "alpha must be within [0, 1], got -1.2345678e-09"),
        (lambda: sm.optimal_k(np.float32(1.0000001), 10), "alpha must be within [0, 1], got 1.0000001"),
        (lambda: sm.speedup(0.5, 3, -0.0001234567), "c must be > 0, got -0.0001234567"),
        (lambda: sm.speedup(0.5, 2.0000001, 10), "k must be an integer, got 2.0000001"),
        (
            lambda: sm.acceptance_probability([1.0000001, -1.2345678e-7], GOOD),
            "p has a negative entry (-1.2345678e-07 at index 1)",
        ),
        (lambda: sm.FreeVerification(-1.0000001), "t1 must be > 0, got -1.0000001"),
        (lambda: sm.operations_factor(0.5, 3, -0.1234567), "c_hat must be >= 0, got -0.1234567"),
        (lambda: sm.pinsker_bound([0.5, -0.1234567]), "kl must be >= 0 (inf allowed), got -0.1234567"),
        (lambda: sm.speculative_sample(GOOD, GOOD, 2.5), "n must be an integer, got 2.5"),
        (lambda: sm.random_distribution_pairs(1e20), "n_pairs must be <= 10,000,000 .* got 1e+20"),
        # A source of randomness that is none: NumPy raises TypeError naming no argument.
        (lambda: sm.simulate_iid_blocks(0.5, 3, 10, rng="a"), "rng must be a numpy.random.Generator, .* got 'a'"),
        (lambda: sm.speculative_sample(GOOD, GOOD, 10, rng="seed"), "rng must be .* got 'seed'"),
        (lambda: sm.random_distribution_pairs(3, rng=1.5), "rng must be .* got 1.5"),
        (lambda: sm.random_transition_matrix(4, rng=-1), "rng must be .* got -1"),
        (lambda: sm.two_regime_transition_matrix(4, rng=True), "rng must be .* got True"),
        (lambda: sm.speculative_decode(T4, T4, 2, 10, rng="x"), "rng must be .* got 'x'"),
        # alpha_interval's confidence: text and None raised TypeError.
        (lambda: sm.alpha_interval(30, 10, 4, confidence="0.95"), "confidence must be numeric, not text, got '0.95'"),
        (lambda: sm.alpha_interval(30, 10, 4, confidence=None), "confidence must be numeric, not None, got None"),
        (lambda: sm.alpha_interval(30, 10, 4, confidence=1.0000001), "confidence must be within (0, 1), got 1.0000001"),
        (lambda: sm.alpha_interval(30, 10, 4.0000001), "k must be an integer, got 4.0000001"),
        # The Markov drafts' numbers: float("a") named no argument.
        (lambda: sm.draft_by_noise(T4, "a"), "weight must be numeric, not text, got 'a'"),
        (lambda: sm.draft_by_noise(T4, 1.0000001), "weight must be within [0, 1], got 1.0000001"),
        (lambda: sm.draft_by_temperature(T4, "hot"), "temperature must be numeric, not text, got 'hot'"),
        (lambda: sm.random_transition_matrix(4, concentration=None), "concentration must be numeric, not None"),
        (lambda: sm.two_regime_transition_matrix(4, stay="high"), "stay must be numeric, not text, got 'high'"),
        (lambda: sm.two_regime_transition_matrix(4, stay=1.0000001), "stay must be within [0, 1], got 1.0000001"),
    ],
)
def test_wrong_types_and_values_are_named_as_given(call, message):
    # The pattern is the message itself (escaped), with ".*" standing for the list of accepted kinds.
    pattern = "^" + ".*".join(re.escape(part) for part in message.split(" .* "))
    with pytest.raises(ValueError, match=pattern):
        call()


# --- draft lengths beyond int64 (issue 19, finding 1) ----------------------------------------

#: Every public function taking a draft length (and fit_alpha_from_acceptance_length, which fitted_alpha runs),
#: with that length as its only free argument.
TAKES_K = {
    "expected_tokens": lambda k: sm.expected_tokens(0.5, k),
    "speedup": lambda k: sm.speedup(0.5, k, 10),
    "general_speedup": lambda k: sm.general_speedup(0.5, k, 0.1, 1.0),
    "operations_factor": lambda k: sm.operations_factor(0.5, k, 0.1),
    "tokens_per_iteration_pmf": lambda k: sm.tokens_per_iteration_pmf(0.5, k),
    "simulate_iid_blocks": lambda k: sm.simulate_iid_blocks(0.5, k, 10, rng=0),
    "fit_alpha_from_acceptance_length": lambda k: sm.iid_blocks.fit_alpha_from_acceptance_length(1.5, k),
    "alpha_interval": lambda k: sm.alpha_interval(5, 10, k),
    "expected_tokens of a profile": lambda k: sm.expected_tokens(sm.acceptance(per_position=[0.8, 0.6]), k),
    "speedup of a profile": lambda k: sm.speedup(sm.acceptance(per_position=[0.8, 0.6]), k, 10),
    "speculative_decode": lambda k: sm.speculative_decode(T4, T4, k, 10, rng=0),
    "speculative_iteration": lambda k: sm.speculative_iteration(T4, T4, 0, k, rng=0),
}
TAKES_MAX_K = {
    "optimal_k": lambda m: sm.optimal_k(0.5, 10, max_k=m),
    "general_optimal_k": lambda m: sm.general_optimal_k(0.5, 0.1, 1.0, max_k=m),
    "roofline_batch_sweep": lambda m: sm.roofline_batch_sweep(
        0.5, sm.MODEL_PRESETS["LLaMA-68M"], sm.MODEL_PRESETS["Llama-2-7B"], sm.GPU_PRESETS["L4"], [1], max_k=m
    ),
}
# As given: a Python int past int64, 2**63 itself (NumPy makes it uint64), and a float.
HUGE = [(10**20, "100000000000000000000"), (2**63, "9223372036854775808"), (1e20, "1e+20")]


@pytest.mark.parametrize(("k", "as_given"), HUGE)
@pytest.mark.parametrize("name", sorted(TAKES_K))
def test_huge_k_is_refused_not_wrapped(name, k, as_given):
    # int64 wrapped these to negative numbers: expected_tokens(0.5, 10**20) was -inf.
    with pytest.raises(ValueError, match=rf"^k must be <= 1,024, got {re.escape(as_given)}$"):
        TAKES_K[name](k)


@pytest.mark.parametrize("name", ["expected_tokens", "speedup", "general_speedup", "operations_factor"])
def test_huge_k_in_an_array_is_shown_as_given(name):
    with pytest.raises(ValueError, match=r"^k must be <= 1,024, got 100000000000000000000$"):
        TAKES_K[name]([3, 10**20])


@pytest.mark.parametrize("name", sorted(TAKES_K))
def test_k_cap_is_max_draft_length(name):
    with pytest.raises(ValueError, match=r"^k must be <= 1,024, got 1025$"):
        TAKES_K[name](MAX_DRAFT_LENGTH + 1)


@pytest.mark.parametrize(("m", "as_given"), [(10**20, "100000000000000000000"), (2**63, "9223372036854775808")])
@pytest.mark.parametrize("name", sorted(TAKES_MAX_K))
def test_huge_max_k_is_refused(name, m, as_given):
    with pytest.raises(ValueError, match=rf"^max_k must be <= 1,024 .*, got {as_given}$"):
        TAKES_MAX_K[name](m)


def test_longest_draft_gives_the_closed_form():
    k = MAX_DRAFT_LENGTH
    # E[N] = (1 - alpha^(k+1)) / (1 - alpha): 2 - 2^-1024 rounds to 2; k + 1 exactly at alpha = 1.
    assert sm.expected_tokens(0.5, k) == 2.0
    assert sm.expected_tokens(1.0, np.uint64(k)) == k + 1
    assert sm.speedup(1.0, k, np.inf) == k + 1
    assert sm.tokens_per_iteration_pmf(1.0, k)[-1] == 1.0
    assert (sm.simulate_iid_blocks(1.0, k, 5, rng=0) == k + 1).all()


def test_widths_and_batches_past_int64_are_refused():
    roof = sm.Roofline(sm.MODEL_PRESETS["Llama-2-7B"], sm.GPU_PRESETS["L4"])
    with pytest.raises(ValueError, match=r"^w must be <= 100,000,000, got 100000000000000000000$"):
        roof(10**20)
    with pytest.raises(ValueError, match=r"^batches must be <= 1,000,000, got 9223372036854775808$"):
        sm.roofline_batch_sweep(0.5, roof.model, roof.model, roof.gpu, [2**63])
