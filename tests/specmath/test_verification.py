"""Verification rules: alpha under each rule, the first token's law, temperature, token against block."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import specmath as sm
from tests.helpers import SIGNIFICANCE

BINARY_P, BINARY_Q = [1 / 3, 2 / 3], [2 / 3, 1 / 3]


def random_pairs(n, size, seed, zeros=True):
    """``n`` random (p, q) pairs over ``size`` tokens, some entries 0 when ``zeros``."""
    rng = np.random.default_rng(seed)
    P, Q = rng.dirichlet(np.full(size, 0.7), size=n), rng.dirichlet(np.full(size, 0.7), size=n)
    if zeros:
        P[rng.random(P.shape) < 0.15] = 0.0
        Q[rng.random(Q.shape) < 0.15] = 0.0
        P[:, 0] += 1e-3  # no row left empty
        Q[:, -1] += 1e-3
    return P / P.sum(axis=1, keepdims=True), Q / Q.sum(axis=1, keepdims=True)


# --- acceptance_probability ---------------------------------------------------------------------


def accepted_by_mechanism(p, q, rule):
    """P(draft kept), summed over the draft token x (and the target's y), as each rule describes."""
    if rule == "rejection":
        return sum(q[x] * min(1.0, p[x] / q[x]) for x in range(p.size) if q[x] > 0)
    if rule == "greedy_draft":
        star = int(np.flatnonzero(q == q.max())[0])
        return min(1.0, p[star] / 1.0)
    return sum(q[x] * p[y] for x in range(p.size) for y in range(p.size) if x == y)


@pytest.mark.parametrize("rule", sm.verification.ACCEPTANCE_RULES)
def test_alpha_is_each_rules_acceptance_on_random_pairs(rule):
    P, Q = random_pairs(40, 7, seed=1)
    batched = sm.acceptance_probability(P, Q, rule=rule)
    assert batched.shape == (40,)
    for p, q, alpha in zip(P, Q, batched, strict=True):
        assert sm.acceptance_probability(p, q, rule) == alpha
        assert alpha == pytest.approx(accepted_by_mechanism(p, q, rule), abs=1e-14)
    # Stacks keep their leading axes.
    assert sm.acceptance_probability(P.reshape(4, 10, 7), Q.reshape(4, 10, 7), rule).shape == (4, 10)


def test_default_rule_is_todays_rejection_alpha():
    P, Q = random_pairs(20, 5, seed=2)
    for p, q in zip(P, Q, strict=True):
        assert sm.acceptance_probability(p, q) == sm.acceptance_probability(p, q, "rejection")
        assert sm.acceptance_probability(p, q) == pytest.approx(1.0 - sm.tv_distance(p, q), abs=1e-15)
    assert isinstance(sm.acceptance_probability(P[0], Q[0]), np.float64)


def test_greedy_draft_breaks_ties_at_the_lowest_index():
    assert sm.acceptance_probability([0.1, 0.5, 0.4], [0.2, 0.4, 0.4], "greedy_draft") == 0.5
    assert sm.acceptance_probability([0.1, 0.5, 0.4], [0.4, 0.2, 0.4], "greedy_draft") == 0.1


def test_greedy_draft_loses_to_rejection_at_temperature_one_when_p_is_close_to_q():
    # p ≈ q, both flat: rejection keeps nearly every draft, a greedy draft only p(argmax q).
    logits = np.random.default_rng(3).normal(size=50)
    p = sm.with_temperature(logits, 1.0)
    q = sm.with_temperature(logits + np.random.default_rng(4).normal(scale=0.05, size=50), 1.0)
    assert sm.acceptance_probability(p, q) > 0.95
    assert sm.acceptance_probability(p, q, "greedy_draft") < 0.3


# --- first_token_distribution -------------------------------------------------------------------


@pytest.mark.parametrize("rule", sm.verification.ACCEPTANCE_RULES)
def test_lossless_rules_emit_exactly_p(rule):
    P, Q = random_pairs(200, 6, seed=5)
    law = sm.first_token_distribution(P, Q, rule)
    np.testing.assert_allclose(law, P, rtol=5e-16, atol=0)


def test_sglang_threshold_at_its_defaults_is_the_greedy_draft_and_emits_p():
    P, Q = random_pairs(200, 6, seed=6)
    np.testing.assert_allclose(sm.first_token_distribution(P, Q, "sglang_threshold"), P, rtol=1e-15, atol=1e-17)
    np.testing.assert_allclose(
        sm.first_token_distribution(P, Q, "sglang_threshold", threshold_single=1, threshold_acc=1),
        sm.first_token_distribution(P, Q, "greedy_draft"),
        rtol=1e-15,
        atol=1e-17,
    )


def sglang_kernel_draws(p, q, threshold_single, threshold_acc, n, rng):
    """First tokens as TreeSpeculativeSamplingTargetOnly runs one draft token, step by step."""
    star = int(np.argmax(q))
    coin = rng.random(n)
    kept = (coin <= p[star] / max(threshold_acc, 1e-9)) | (p[star] >= threshold_single)
    draft_probs = np.zeros_like(p)
    draft_probs[star] = p[star]  # what the kernel writes at a rejection
    relu = np.maximum(p - draft_probs, 0.0)
    resampled = rng.choice(p.size, size=n, p=relu / relu.sum())
    return np.where(kept, star, resampled)


@pytest.mark.parametrize(("single", "acc"), [(1.0, 1.0), (0.6, 0.8), (1.0, 0.3), (0.2, 1.0)])
def test_sglang_threshold_law_is_the_kernels(single, acc):
    p, q = np.array([0.15, 0.25, 0.4, 0.2]), np.array([0.1, 0.5, 0.2, 0.2])
    law = sm.first_token_distribution(p, q, "sglang_threshold", threshold_single=single, threshold_acc=acc)
    n = 40_000
    tokens = sglang_kernel_draws(p, q, single, acc, n, np.random.default_rng(7))
    counts = np.bincount(tokens, minlength=4)
    support = law > 0
    assert counts[~support].sum() == 0
    if support.sum() > 1:
        assert stats.chisquare(counts[support], law[support] * n).pvalue > SIGNIFICANCE
    # The draft token (1) is emitted exactly when kept: lossy by the extra acceptance.
    keep = 1.0 if p[1] >= single else min(1.0, p[1] / acc)
    assert law[1] == pytest.approx(keep, abs=1e-15)
    assert abs(law - p).sum() / 2 == pytest.approx(keep - p[1], abs=1e-15)


def test_typical_acceptance_keeps_the_draft_token_above_the_entropy_threshold():
    p = np.array([0.5, 0.3, 0.2])
    entropy = -(p * np.log(p)).sum()
    # Draft argmax is token 1, p(1) = 0.3; the threshold min(epsilon, delta e^{-H}).
    for epsilon, delta in [(0.09, 0.3), (0.5, 0.9), (0.29, 5.0), (0.31, 5.0), (0.0, 0.0)]:
        law = sm.first_token_distribution(p, [0.1, 0.6, 0.3], "typical", epsilon=epsilon, delta=delta)
        kept = 0.3 > min(epsilon, delta * np.exp(-entropy))
        np.testing.assert_array_equal(law, [0, 1, 0] if kept else [1, 0, 0])
    # Medusa's defaults, epsilon = 0.09 and delta = 0.3.
    np.testing.assert_array_equal(sm.first_token_distribution(p, [0.1, 0.6, 0.3], "typical"), [0, 1, 0])


def test_vllm_typical_keeps_the_sampled_token_above_the_threshold_else_emits_the_targets_argmax():
    """vLLM's typical acceptance sampler (typical_acceptance_sampler.py at 60b5eb0), token by token:
    x ~ q kept when p(x) > min(epsilon, delta e^{-H(p)}), else replaced by argmax p."""
    P, Q = random_pairs(200, 6, seed=21)
    for epsilon, delta in [(0.09, 0.3), (0.0, 0.0), (0.3, 1.0), (1.0, 1.0)]:
        law = sm.first_token_distribution(P, Q, "vllm_typical", epsilon=epsilon, delta=delta)
        for p, q, row in zip(P, Q, law, strict=True):
            entropy = -sum(x * np.log(x) for x in p if x > 0)
            threshold = min(epsilon, delta * np.exp(-entropy))
            expected = np.zeros(p.size)
            for x in range(p.size):
                expected[x if p[x] > threshold else int(np.argmax(p))] += q[x]
            np.testing.assert_allclose(row, expected, rtol=0, atol=1e-15)
    # Its defaults are Medusa's, 0.09 and 0.3; at T = 1 it is lossy, at T = 0 an exact match giving p.
    default = sm.first_token_distribution(P, Q, "vllm_typical")
    np.testing.assert_array_equal(default, sm.first_token_distribution(P, Q, "vllm_typical", epsilon=0.09, delta=0.3))
    assert np.abs(default - P).sum(axis=-1).max() > 0.5
    logits = np.random.default_rng(3).normal(size=(2, 50, 8)) * 2
    p0, q0 = sm.with_temperature(logits[0], 0), sm.with_temperature(logits[1], 0)
    np.testing.assert_array_equal(sm.first_token_distribution(p0, q0, "vllm_typical"), p0)


def test_typical_is_lossy_at_temperature_one_and_exact_at_temperature_zero():
    rng = np.random.default_rng(8)
    for _ in range(50):
        target_logits, draft_logits = rng.normal(size=(2, 8)) * 2
        p, q = sm.with_temperature(target_logits, 1.0), sm.with_temperature(draft_logits, 1.0)
        law = sm.first_token_distribution(p, q, "typical")
        point = int(np.argmax(law))
        np.testing.assert_array_equal(law, np.eye(8)[point])  # a point mass, so TV = 1 - p(point) > 0
        assert sm.tv_distance(law, p) == pytest.approx(1.0 - p[point], abs=1e-15)
        p0, q0 = sm.with_temperature(target_logits, 0), sm.with_temperature(draft_logits, 0)
        for epsilon, delta in [(0.09, 0.3), (0.0, 0.0), (1.0, 10.0)]:
            law = sm.first_token_distribution(p0, q0, "typical", epsilon=epsilon, delta=delta)
            np.testing.assert_array_equal(law, p0)


def relaxed_kernel_token(p, q, topk, gap):
    """The token TensorRT-LLM's relaxed acceptance emits first, walked as its kernel walks.

    Exact fractions: the draft argmax, the target's top ``topk`` candidates by probability (ties
    to the lowest index), the walk that stops below ``max p - gap`` after the top one, the top
    candidate when the draft token is not met.
    """
    star = max(range(len(q)), key=lambda x: (q[x], -x))
    candidates = sorted(range(len(p)), key=lambda x: (-p[x], x))[:topk]
    threshold = p[candidates[0]] - gap
    for rank, token in enumerate(candidates):
        if rank > 0 and threshold > p[token]:
            break
        if token == star:
            return star
    return candidates[0]


def test_trtllm_relaxed_law_is_the_kernels_walk_on_exact_fractions():
    rng = np.random.default_rng(12)
    for _ in range(300):
        size = int(rng.integers(2, 6))
        # Sixteenths: exact in binary floating point, and ties among them are common.
        p = [Fraction(int(w), 16) for w in rng.multinomial(16, np.full(size, 1 / size))]
        q = [Fraction(int(w), 16) for w in rng.multinomial(16, np.full(size, 1 / size))]
        topk = int(rng.integers(1, size + 1))
        gap = Fraction(int(rng.integers(0, 17)), 16)
        law = sm.first_token_distribution(
            [float(x) for x in p], [float(x) for x in q], "trtllm_relaxed", relaxed_topk=topk, relaxed_delta=float(gap)
        )
        np.testing.assert_array_equal(law, np.eye(size)[relaxed_kernel_token(p, q, topk, gap)])


def test_trtllm_relaxed_at_top_one_is_greedy_decoding_and_lossy_at_temperature_one():
    rng = np.random.default_rng(13)
    for _ in range(50):
        target_logits, draft_logits = rng.normal(size=(2, 8)) * 2
        p, q = sm.with_temperature(target_logits, 1.0), sm.with_temperature(draft_logits, 1.0)
        greedy = np.eye(8)[np.argmax(p)]
        for gap in (0.0, 0.5, 1.0):
            law = sm.first_token_distribution(p, q, "trtllm_relaxed", relaxed_delta=gap)
            np.testing.assert_array_equal(law, greedy)
        law = sm.first_token_distribution(p, q, "trtllm_relaxed", relaxed_topk=8, relaxed_delta=1.0)
        np.testing.assert_array_equal(law, np.eye(8)[np.argmax(q)])  # every token a candidate: the draft's
        p0, q0 = sm.with_temperature(target_logits, 0), sm.with_temperature(draft_logits, 0)
        for topk, gap in [(1, 0.0), (8, 0.0), (8, 0.99)]:
            law = sm.first_token_distribution(p0, q0, "trtllm_relaxed", relaxed_topk=topk, relaxed_delta=gap)
            np.testing.assert_array_equal(law, p0)


def test_first_token_laws_are_distributions_for_every_rule():
    P, Q = random_pairs(100, 5, seed=9)
    for rule in sm.verification.FIRST_TOKEN_RULES:
        law = sm.first_token_distribution(P, Q, rule)
        assert (law >= 0).all()
        np.testing.assert_allclose(law.sum(axis=-1), 1.0, atol=1e-14)


# --- with_temperature ---------------------------------------------------------------------------


def test_temperature_is_the_softmax_of_scaled_logits():
    logits = np.array([1.0, 2.0, -0.5, 0.0])
    for t in (0.3, 1.0, 2.0):
        expected = np.exp(logits / t) / np.exp(logits / t).sum()
        np.testing.assert_allclose(sm.with_temperature(logits, t), expected, rtol=1e-14)
    # Stacks along leading axes, and logits of any size without overflow.
    np.testing.assert_allclose(sm.with_temperature([[1000.0, 0.0], [0.0, 0.0]], 1.0), [[1, 0], [0.5, 0.5]])


def test_temperature_zero_is_the_limit_and_ties_go_to_the_lowest_index():
    logits = np.random.default_rng(10).normal(size=(20, 9))
    cold = sm.with_temperature(logits, 0)
    np.testing.assert_array_equal(cold, np.eye(9)[np.argmax(logits, axis=1)])
    np.testing.assert_allclose(sm.with_temperature(logits, 1e-4), cold, atol=1e-12)
    np.testing.assert_array_equal(sm.with_temperature([0.0, 3.0, 3.0], 0), [0.0, 1.0, 0.0])
    # Tiny temperatures neither overflow nor lose the argmax.
    np.testing.assert_array_equal(sm.with_temperature([1e300, -1e300, 0.0], 1e-300), [1.0, 0.0, 0.0])


def test_at_temperature_zero_every_lossless_rule_accepts_when_the_argmaxes_agree():
    logits = np.random.default_rng(11).normal(size=(2, 200, 6))
    p, q = sm.with_temperature(logits[0], 0), sm.with_temperature(logits[1], 0)
    agree = (np.argmax(logits[0], axis=1) == np.argmax(logits[1], axis=1)).astype(float)
    assert 0 < agree.sum() < 200
    for rule in sm.verification.ACCEPTANCE_RULES:
        np.testing.assert_array_equal(sm.acceptance_probability(p, q, rule), agree)


# --- expected_accepted_tokens -------------------------------------------------------------------


def block_expected_tau(p, q, k):
    """E[tau] of Sun et al.'s block verification, in exact fractions, block by block."""
    size, total = len(p), Fraction(0)
    for block in itertools.product(range(size), repeat=k):
        chance, weight, stops = Fraction(1), Fraction(1), []
        for i, x in enumerate(block):
            chance *= q[x]
            weight = min(weight * p[x] / q[x], Fraction(1)) if q[x] else Fraction(0)
            if i == k - 1:
                stops.append(weight)
            else:
                mass = sum(max(weight * p[y] - q[y], Fraction(0)) for y in range(size))
                stops.append(mass / (mass + 1 - weight) if mass else Fraction(0))
        for t in range(1, k + 1):  # tau = t: stop at t, not at any later position
            rest = Fraction(1)
            for h in stops[t:]:
                rest *= 1 - h
            total += chance * t * stops[t - 1] * rest
    return total


def test_the_papers_binary_example():
    p, q = [Fraction(1, 3), Fraction(2, 3)], [Fraction(2, 3), Fraction(1, 3)]
    assert block_expected_tau(p, q, 2) == Fraction(11, 9)
    assert sm.expected_accepted_tokens(BINARY_P, BINARY_Q, 2) == pytest.approx(10 / 9, abs=1e-15)
    assert sm.expected_accepted_tokens(BINARY_P, BINARY_Q, 2, "block") == pytest.approx(11 / 9, abs=1e-15)


def test_block_enumeration_matches_exact_fractions_on_random_pairs():
    rng = np.random.default_rng(12)
    for size, k in [(2, 3), (3, 2), (3, 3), (4, 2)]:
        counts = rng.integers(0, 6, size=(2, size)) + np.eye(2, size, dtype=int)  # zeros allowed
        p = [Fraction(int(c), int(counts[0].sum())) for c in counts[0]]
        q = [Fraction(int(c), int(counts[1].sum())) for c in counts[1]]
        exact = block_expected_tau(p, q, k)
        got = sm.expected_accepted_tokens(np.array(p, float), np.array(q, float), k, "block")
        assert got == pytest.approx(float(exact), abs=1e-12)


def test_token_verification_is_the_geometric_sum():
    P, Q = random_pairs(20, 5, seed=13)
    for p, q in zip(P, Q, strict=True):
        alpha = sm.acceptance_probability(p, q)
        for k in (1, 2, 5, 30):
            expected = sum(alpha**i for i in range(1, k + 1))
            assert sm.expected_accepted_tokens(p, q, k) == pytest.approx(expected, rel=1e-13)
    assert sm.expected_accepted_tokens([0.5, 0.5], [0.5, 0.5], 7) == 7.0
    assert sm.expected_accepted_tokens([1.0, 0.0], [0.0, 1.0], 7) == 0.0
    assert sm.expected_accepted_tokens(BINARY_P, BINARY_Q, 0, "block") == 0.0


def test_block_never_accepts_fewer_and_equals_token_at_k_one():
    P, Q = random_pairs(30, 4, seed=14)
    for p, q in zip(P, Q, strict=True):
        assert sm.expected_accepted_tokens(p, q, 1, "block") == pytest.approx(
            sm.expected_accepted_tokens(p, q, 1), abs=1e-15
        )
        for k in (2, 3, 5):
            token = sm.expected_accepted_tokens(p, q, k)
            block = sm.expected_accepted_tokens(p, q, k, "block")
            assert token - 1e-13 <= block <= k
    # Strictly better somewhere: the binary example.
    assert sm.expected_accepted_tokens(BINARY_P, BINARY_Q, 3, "block") > sm.expected_accepted_tokens(
        BINARY_P, BINARY_Q, 3
    )


def block_stream_law(p, q, k, length):
    """Law of the first ``length`` tokens of repeated block iterations, exact, for a context-free pair."""
    size = len(p)
    one = {}  # law of one iteration's output, a tuple of 1 … k + 1 tokens
    for block in itertools.product(range(size), repeat=k):
        chance, weight, weights, stops = Fraction(1), Fraction(1), [Fraction(1)], []
        for i, x in enumerate(block):
            chance *= q[x]
            weight = min(weight * p[x] / q[x], Fraction(1)) if q[x] else Fraction(0)
            weights.append(weight)
            mass = sum(max(weight * p[y] - q[y], Fraction(0)) for y in range(size))
            stops.append(weight if i == k - 1 else (mass / (mass + 1 - weight) if mass else Fraction(0)))
        if not chance:
            continue
        for tau in range(k + 1):
            rest = Fraction(1)
            for h in stops[tau:]:
                rest *= 1 - h
            at = chance * (stops[tau - 1] if tau else 1) * rest
            if not at:
                continue
            if tau == k:
                row = p
            else:
                excess = [max(weights[tau] * p[y] - q[y], Fraction(0)) for y in range(size)]
                row = [e / sum(excess) for e in excess]
            for y in range(size):
                out = (*block[:tau], y)
                one[out] = one.get(out, 0) + at * row[y]
    # Iterations start afresh (no context), so a stream is independent outputs laid end to end.
    growing, done = {(): Fraction(1)}, {}
    while growing:
        prefix, chance = growing.popitem()
        for out, law in one.items():
            longer = (prefix + out)[:length]
            into = done if len(longer) == length else growing
            into[longer] = into.get(longer, 0) + chance * law
    return done


def test_block_verification_is_lossless_exactly():
    # The algorithm itself, in fractions: the stream's first k + 1 tokens are i.i.d. p.
    for p, q, k in [
        ([Fraction(1, 3), Fraction(2, 3)], [Fraction(2, 3), Fraction(1, 3)], 2),
        ([Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)], [Fraction(1, 6), Fraction(1, 6), Fraction(2, 3)], 2),
        ([Fraction(1, 5), Fraction(4, 5)], [Fraction(1, 2), Fraction(1, 2)], 3),
    ]:
        law = block_stream_law(p, q, k, k + 1)
        for tokens, chance in law.items():
            expected = Fraction(1)
            for x in tokens:
                expected *= p[x]
            assert chance == expected


# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sm.acceptance_probability(BINARY_P, BINARY_Q, rule="typical"), r"^rule must be one of .*'typical'"),
        (lambda: sm.acceptance_probability(BINARY_P, BINARY_Q, rule=None), r"^rule must be one of .*None"),
        (
            lambda: sm.acceptance_probability([[0.5, 0.5]] * 2, [[0.5, 0.5]] * 3),
            r"^p and q must have the same shape, got \(2, 2\) and \(3, 2\)",
        ),
        (
            lambda: sm.acceptance_probability(BINARY_P, [[0.5, 0.5]] * 3),
            r"^q has shape \(3, 2\) but p has shape \(2,\)",
        ),
        (lambda: sm.acceptance_probability([[0.5, 0.5], [0.5, 0.6]], [[0.5, 0.5]] * 2), r"^p row \(1,\) sums to 1.1"),
        (lambda: sm.acceptance_probability([[0.5, 0.5]] * 2, [[0.5, -0.5]] * 2), r"^q has a negative entry \(-0.5"),
        (lambda: sm.first_token_distribution(BINARY_P, BINARY_Q, "typical", epsilon=-0.1), r"^epsilon must be >= 0"),
        (lambda: sm.first_token_distribution(BINARY_P, BINARY_Q, "typical", delta=np.inf), r"^delta must be finite"),
        (
            lambda: sm.first_token_distribution(BINARY_P, BINARY_Q, "sglang_threshold", threshold_acc=1.5),
            r"^threshold_acc must be within \[0, 1\], got 1.5",
        ),
        (
            lambda: sm.first_token_distribution(BINARY_P, BINARY_Q, "rejection", epsilon=0.1),
            r"^epsilon is not a parameter of rule 'rejection'",
        ),
        (lambda: sm.first_token_distribution(BINARY_P, BINARY_Q, "medusa"), r"^rule must be one of"),
        (
            lambda: sm.first_token_distribution(BINARY_P, BINARY_Q, "trtllm_relaxed", relaxed_topk=3),
            r"^relaxed_topk must be <= the vocabulary size V = 2 .*, got 3",
        ),
        (
            lambda: sm.first_token_distribution(BINARY_P, BINARY_Q, "trtllm_relaxed", relaxed_topk=0.5),
            r"^relaxed_topk must be an integer, got 0.5",
        ),
        (
            lambda: sm.first_token_distribution(BINARY_P, BINARY_Q, "trtllm_relaxed", relaxed_delta=-0.1),
            r"^relaxed_delta must be >= 0, got -0.1",
        ),
        (lambda: sm.with_temperature([1.0, np.nan], 1.0), r"^logits must be finite, got nan"),
        (lambda: sm.with_temperature([], 1.0), r"^logits must be an array"),
        (lambda: sm.with_temperature([1.0, 2.0], -0.5), r"^temperature must be >= 0, got -0.5"),
        (lambda: sm.with_temperature([1.0, 2.0], np.inf), r"^temperature must be finite"),
        (lambda: sm.with_temperature([1.0, 2.0], "1"), r"^temperature must be numeric"),
        (lambda: sm.expected_accepted_tokens(BINARY_P, BINARY_Q, 2, "tree"), r"^verification must be one of"),
        (lambda: sm.expected_accepted_tokens(BINARY_P, BINARY_Q, -1), r"^k must be non-negative, got -1"),
        (lambda: sm.expected_accepted_tokens(BINARY_P, BINARY_Q, [1, 2]), r"^k must be a single integer"),
        (lambda: sm.expected_accepted_tokens([[0.5, 0.5]], BINARY_Q, 2), r"^p must be a 1-D array"),
        (
            lambda: sm.expected_accepted_tokens(BINARY_P, BINARY_Q, 20, "block"),
            r"^k = 20 with V = 2 gives V\*\*k draft blocks, over the cap MAX_BLOCK_ENUMERATION = 1,000,000",
        ),
    ],
)
def test_validation_names_the_argument_and_the_value_as_given(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_block_enumeration_runs_up_to_its_cap():
    assert 0 < sm.expected_accepted_tokens(BINARY_P, BINARY_Q, 19, "block") <= 19  # 2**19 blocks


# --- block verification in the decoders ---------------------------------------------------------

#: A 3-token Markov pair where block verification accepts measurably more than token verification.
TARGET_CHAIN = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3], [0.3, 0.3, 0.4]])
DRAFT_CHAIN = np.array([[0.5, 0.2, 0.3], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6]])


def pair_counts(tokens, size, rng):
    """One bigram per sequence at a position chosen independently of the text."""
    where = rng.integers(0, tokens.shape[1] - 1, size=tokens.shape[0])
    rows = np.arange(tokens.shape[0])
    return np.bincount(tokens[rows, where] * size + tokens[rows, where + 1], minlength=size * size)


def pair_law(chain):
    return (sm.stationary_distribution(chain)[:, None] * chain).ravel()


@pytest.mark.parametrize("k", [1, 3, 6])
def test_block_decoding_generates_the_target_chain(k):
    records = sm.speculative_decode(TARGET_CHAIN, DRAFT_CHAIN, k, 12, rng=31, n_sequences=40_000, verification="block")
    counts = pair_counts(records.tokens, 3, np.random.default_rng(32))
    n = counts.sum()
    assert stats.chisquare(counts, pair_law(TARGET_CHAIN) * n).pvalue > SIGNIFICANCE
    # The same test rejects the draft chain's law.
    assert stats.chisquare(counts, pair_law(DRAFT_CHAIN) * n).pvalue < 1e-9
    # Every emitted token's kind is recorded as the token rule's are.
    assert set(np.unique(records.kinds[:, 1:])) <= {sm.decode.ACCEPTED, sm.decode.RESAMPLED, sm.decode.BONUS}


def test_block_decoding_accepts_the_enumerated_mean_on_a_context_free_pair():
    # Every row the same pair: the decoder's mean accepted length is expected_accepted_tokens.
    p, q = np.array([0.2, 0.5, 0.3]), np.array([0.5, 0.2, 0.3])
    target, draft = np.tile(p, (3, 1)), np.tile(q, (3, 1))
    for k in (2, 4):
        records = sm.speculative_decode(target, draft, k, 40, rng=33 + k, n_sequences=5_000, verification="block")
        accepted = records.accepted
        exact = sm.expected_accepted_tokens(p, q, k, "block")
        z = (accepted.mean() - exact) / (accepted.std() / np.sqrt(accepted.size))
        assert abs(z) < stats.norm.isf(SIGNIFICANCE / 2)
        assert exact > sm.expected_accepted_tokens(p, q, k) + 0.02


def test_block_iterations_are_the_block_decoder_and_token_is_todays_default():
    for seed, k in ((0, 1), (1, 3), (2, 5)):
        records = sm.speculative_decode(TARGET_CHAIN, DRAFT_CHAIN, k, 200, rng=seed, verification="block")
        rng = np.random.default_rng(seed)
        rng.random(1)  # the decoder's draw of the start token
        tokens, accepted = [records.tokens[0, 0]], []
        while len(tokens) < 200:
            trace = sm.speculative_iteration(TARGET_CHAIN, DRAFT_CHAIN, tokens[-1], k, rng=rng, verification="block")
            tokens.extend(trace.emitted.tolist())
            accepted.append(trace.first_rejection)
            assert trace.checked.all() and np.isfinite(trace.u).all()
            assert (trace.block_stop[trace.first_rejection :] <= 1).all()
        np.testing.assert_array_equal(tokens[:200], records.tokens[0])
        np.testing.assert_array_equal(accepted, records.accepted)
        default = sm.speculative_decode(TARGET_CHAIN, DRAFT_CHAIN, k, 200, rng=seed)
        explicit = sm.speculative_decode(TARGET_CHAIN, DRAFT_CHAIN, k, 200, rng=seed, verification="token")
        np.testing.assert_array_equal(default.tokens, explicit.tokens)


def test_block_trace_records_its_weights_stops_and_residual():
    rng = np.random.default_rng(34)
    seen_rejection = seen_bonus = False
    for _ in range(200):
        trace = sm.speculative_iteration(TARGET_CHAIN, DRAFT_CHAIN, 0, 3, rng=rng, verification="block")
        contexts = np.r_[0, trace.drafted[:-1]]
        weight, weights = 1.0, []
        for a, b in zip(contexts, trace.drafted, strict=True):
            weight = min(1.0, weight * TARGET_CHAIN[a, b] / DRAFT_CHAIN[a, b])
            weights.append(weight)
        np.testing.assert_allclose(trace.block_weight, weights, rtol=1e-15)
        assert trace.block_stop[-1] == trace.block_weight[-1]
        for i, (x, w) in enumerate(zip(trace.drafted[:-1], trace.block_weight[:-1], strict=True)):
            mass = np.maximum(w * TARGET_CHAIN[x] - DRAFT_CHAIN[x], 0).sum()
            assert trace.block_stop[i] == pytest.approx(mass / (mass + 1 - w) if mass > 1e-12 else 0.0, rel=1e-14)
        tau = trace.first_rejection
        passed = trace.u < trace.block_stop
        assert tau == (np.flatnonzero(passed).max() + 1 if passed.any() else 0)
        if trace.all_accepted:
            seen_bonus = True
            assert trace.bonus_token is not None and trace.residual is None
        else:
            seen_rejection = True
            w = trace.block_weight[tau - 1] if tau else 1.0
            at = 0 if tau == 0 else trace.drafted[tau - 1]
            excess = np.maximum(w * TARGET_CHAIN[at] - DRAFT_CHAIN[at], 0)
            np.testing.assert_allclose(trace.residual, excess / excess.sum())
            assert trace.residual[trace.residual_token] > 0
    assert seen_rejection and seen_bonus


def test_greedy_block_iteration_is_the_greedy_token_iteration():
    for context in range(3):
        for k in (1, 2, 4):
            token = sm.speculative_iteration(TARGET_CHAIN, DRAFT_CHAIN, context, k, greedy=True)
            block = sm.speculative_iteration(TARGET_CHAIN, DRAFT_CHAIN, context, k, greedy=True, verification="block")
            np.testing.assert_array_equal(block.emitted, token.emitted)


@pytest.mark.parametrize("bad", ["tree", None, 1])
def test_decoders_name_a_bad_verification(bad):
    with pytest.raises(ValueError, match=r"^verification must be one of 'token', 'block'"):
        sm.speculative_decode(TARGET_CHAIN, DRAFT_CHAIN, 2, 10, verification=bad)
    with pytest.raises(ValueError, match=r"^verification must be one of 'token', 'block'"):
        sm.speculative_iteration(TARGET_CHAIN, DRAFT_CHAIN, 0, 2, verification=bad)
