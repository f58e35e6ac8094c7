"""The workshop exercises as data: links valid for the registry, questions filled from the links'
settings, and every number of every answer checked against ``specmath`` here."""

import dataclasses
import itertools
import math
import re
from pathlib import Path

import numpy as np
import pytest

import specmath
from dashboard import presets
from dashboard.features import exercises
from dashboard.features.exercises import BY_ID, EXERCISES, K_MAX, problems
from dashboard.params import PARAMS
from dashboard.registry import PAGES

ROOT = Path(__file__).resolve().parents[2]


def _answer(exercise_id: str) -> str:
    return BY_ID[exercise_id].answer_text()


def test_nine_exercises_each_with_a_good_link():
    assert len(EXERCISES) == 9
    assert len({e.id for e in EXERCISES}) == len(EXERCISES)
    for exercise in EXERCISES:
        assert problems(exercise) == []
        assert exercise.page in PAGES and exercise.page not in ("home", "exercises")
        assert set(exercise.settings) <= set(PAGES[exercise.page].params)


def test_every_exercise_says_its_question_with_the_links_values():
    for exercise in EXERCISES:
        text = exercise.question_text()
        assert "{" not in text and "}" not in text, text
        assert text.rstrip().endswith(("?", ".")), text
    assert "**α = 0.95**" in BY_ID["long_draft"].question_text()
    assert "**k = 10**" in BY_ID["long_draft"].question_text() and "**c = 5**" in BY_ID["long_draft"].question_text()
    assert "1M times" in BY_ID["rejections"].question_text()


def test_link_queries_are_what_the_address_carries():
    assert BY_ID["long_draft"].query() == {"alpha": "0.95", "k": "10", "c": "5"}
    assert BY_ID["rejections"].query() == {"preset": "chapter", "n": "1M"}
    assert BY_ID["kl_floor"].query() == {"logx": "true"}


def test_values_fill_in_the_pages_defaults():
    values = BY_ID["long_draft"].values()
    assert values == {
        "alpha": 0.95,
        "acc": PARAMS["acc"].default,
        "acc_profile": "",
        "k": 10,
        "c": 5,
        "compare": PARAMS["compare"].default,
        "published": False,
    }
    assert BY_ID["kl_floor"].values()["kl"] == 0.1


def test_a_broken_exercise_is_named():
    good = BY_ID["long_draft"]
    assert problems(dataclasses.replace(good, page="nowhere")) == ["long_draft: no page 'nowhere' in the registry"]
    assert problems(dataclasses.replace(good, settings={"max_k": 5})) == [
        "long_draft: page 'speedup' has no parameter 'max_k'"
    ]
    (problem,) = problems(dataclasses.replace(good, settings={"alpha": 1.5}))
    assert "`alpha`" in problem and "outside 0 to 1" in problem
    (problem,) = problems(dataclasses.replace(good, settings={"c": 37}))
    assert "not one of the offered values" in problem


# --- Each answer's numbers, from specmath ------------------------------------------------------


def test_long_draft_answer():
    text = _answer("long_draft")
    at_10 = specmath.speedup(0.95, 10, 5)
    best_k, best = specmath.optimal_k(0.95, 5, max_k=K_MAX)
    assert best_k == 10 and at_10 == best  # the example: k = 10 is the best k
    assert "**Yes: k = 10 is the best draft length here.**" in text
    assert f"**{at_10:.2f}×**" in text and "2.87×" in text
    assert f"α^10 = {0.95**10:.2f}" in text
    # The smallest k within 95% of the best: k = 6, 2.74×.
    curve = specmath.speedup(0.95, np.arange(1, 65), 5)
    near = int(np.argmax(curve >= 0.95 * best)) + 1
    assert near == 6 and curve[near - 2] < 0.95 * best
    assert f"k = 6 already gives {curve[5]:.2f}×, {100 * curve[5] / best:.0f}% of the best, with 40% fewer" in text


def test_long_draft_answer_when_k_is_not_the_best():
    other = dataclasses.replace(BY_ID["long_draft"], settings={"alpha": 0.95, "k": 30, "c": 5})
    text = other.answer_text()
    at_30 = specmath.speedup(0.95, 30, 5)
    best_k, best = specmath.optimal_k(0.95, 5, max_k=K_MAX)
    assert f"**k = 30 gives {at_30:.2f}×, {100 * at_30 / best:.0f}% of the best:** k = {best_k}" in text


def test_draft_is_target_answer():
    values = BY_ID["draft_is_target"].values()
    chain, draft = presets.toy_chains("regimes", "merged", 8, 8, values["seed"])
    np.testing.assert_allclose(draft, chain, atol=1e-12)  # the draft is the target
    text = _answer("draft_is_target")
    assert "α = Σ min(p, p) = 1.000" in text
    assert specmath.expected_tokens(1.0, 8) == 9 and "**9.000 tokens per target call**" in text
    assert "1 + k/c = 1.40" in text
    assert f"**{9 / 1.4:.2f}×**" in text and "**6.43×**" in text
    assert f"k = 64 gives {specmath.speedup(1.0, 64, 20):.2f}×" in text and "15.48×" in text
    assert all(specmath.speedup(1.0, k, 20) < 20 for k in range(1, 1025, 31))  # bounded by c
    assert "stays below c = 20" in text


def test_slower_than_plain_answer():
    text = _answer("slower_than_plain")
    best_k, best = specmath.optimal_k(0.3, 2, max_k=PARAMS["max_k"].default)
    assert best_k == 1 and best < 1
    assert f"k = 1, and even it gives **{best:.2f}×**" in text and "0.87×" in text
    assert f"(k = 4: {specmath.speedup(0.3, 4, 2):.2f}×)" in text
    assert "does not pay" in text and "below α = 0.5 at c = 2 and α = 0.05 at c = 20" in text
    assert f"exactly {specmath.speedup(0.5, 1, 2):.2f}×" in text


def test_the_slower_region_is_alpha_at_most_one_over_c():
    # The rule the answer states, over the map's grid: some k in 1..64 beats plain decoding
    # exactly when α > 1/c (at α = 1/c, k = 1 breaks even; nothing does better).
    alphas = np.linspace(0, 1, 201)
    for c in PARAMS["c"].options:
        _, best = specmath.optimal_k(alphas, c, max_k=64)
        pays = best > 1 + 1e-12
        assert np.array_equal(pays, alphas > 1 / c + 1e-12), c


def test_vllm_average_answer():
    values = BY_ID["vllm_average"].values()
    chain, draft = presets.toy_chains("random", "noise", 0.2, 8, values["seed"])
    alpha = float(specmath.stationary_distribution(chain) @ specmath.state_acceptance(chain, draft))
    text = _answer("vllm_average")
    assert f"α = {alpha:.3f} on average" in text and "α = 0.912" in text
    rates = [(specmath.expected_tokens(alpha, k) - 1) / k for k in (1, 2, 4, 8, 16)]
    assert all(a > b for a, b in itertools.pairwise(rates))  # falls with k
    shown = ", ".join(f"k = {k}: {r:.2f}" for k, r in zip((1, 2, 4, 8, 16), rates, strict=True))
    assert f"**{shown}**" in text
    assert shown == "k = 1: 0.91, k = 2: 0.87, k = 4: 0.80, k = 8: 0.68, k = 16: 0.50"
    # (E[N] − 1)/k is accepted / drafted: the mean of α^i over the k positions.
    for k in (1, 4, 16):
        assert exercises.vllm_rate(alpha, k) == pytest.approx(np.mean(alpha ** np.arange(1, k + 1)))


def test_vllm_rate_is_what_the_decoder_counts():
    # accepted / drafted tokens over a real run of the page's chains falls with k as the answer says.
    chain, draft = presets.toy_chains("random", "noise", 0.2, 8, 42)
    alpha = float(specmath.stationary_distribution(chain) @ specmath.state_acceptance(chain, draft))
    for k in (2, 8):
        records = specmath.speculative_decode(chain, draft, k, 500, rng=1, n_sequences=40)
        measured = records.accepted.sum() / (k * records.accepted.size)
        assert measured == pytest.approx(exercises.vllm_rate(alpha, k), abs=0.02), k


def test_rejections_answer():
    p, q = np.array(presets.CHAPTER_P), np.array(presets.CHAPTER_Q)
    alpha = specmath.acceptance_probability(p, q)
    assert alpha == pytest.approx(0.85)
    text = _answer("rejections")
    assert f"1 − α = TV(p, q) = {specmath.tv_distance(p, q):.3f}** (α = Σ min(p, q) = {alpha:.3f})" in text
    assert "about 150,000 of the 1,000,000 rounds" in text
    assert f"= {math.sqrt(alpha * (1 - alpha) / 1e6):.5f}" in text
    r = specmath.residual_distribution(p, q)
    assert np.flatnonzero(r).tolist() == [0, 1]
    assert f"r(t0) = {r[0]:.3f}, r(t1) = {r[1]:.3f}" in text and "r(t0) = 0.667, r(t1) = 0.333" in text
    assert "(q > p: t2, t3, t4, t6, t7, t8)" in text


def test_kl_floor_answer():
    text = _answer("kl_floor")
    pinsker, bh = specmath.pinsker_bound(0.1), specmath.bretagnolle_huber_bound(0.1)
    assert f"α ≥ 1 − √(KL/2) = {pinsker:.3f}.**" in text and "0.776" in text
    assert f"1 − √(1 − e^(−KL)) = {bh:.3f}" in text and "0.692" in text
    assert "Pinsker tells you more here" in text
    # They cross where KL/2 = 1 − e^(−KL).
    cross = float(re.search(r"beyond KL = ([0-9.]+) nats", text).group(1))
    assert cross / 2 == pytest.approx(-math.expm1(-cross), abs=1e-3)
    assert specmath.pinsker_bound(cross - 0.01) > specmath.bretagnolle_huber_bound(cross - 0.01)
    assert specmath.pinsker_bound(cross + 0.01) < specmath.bretagnolle_huber_bound(cross + 0.01)
    P, Q = specmath.random_distribution_pairs(200, 20, rng=42)
    result = specmath.divergences(P, Q)
    close = result.kl <= 0.1
    assert f"the {close.sum()} with KL ≤ 0.1 all have α ≥ {result.alpha[close].min():.3f}" in text
    assert result.alpha[close].min() >= pinsker  # the bound holds for every pair


# --- Verification rules --------------------------------------------------------------------------


def _softmax(logits, temperature):
    weights = np.exp(np.asarray(logits, dtype=float) / temperature)
    return weights / weights.sum()


def test_greedy_draft_keeps_p_of_the_drafts_argmax_and_agrees_at_temperature_zero():
    exercise = BY_ID["greedy_draft"]
    assert exercise.query() == {"vr_preset": "close", "vr_temperature": "1"}
    target, draft = (2.0, 1.5, 1.0, 0.2, -0.5), (1.8, 1.6, 0.9, 0.3, -0.4)  # the page's close pair
    p, q = _softmax(target, 1), _softmax(draft, 1)
    greedy, overlap = p[np.argmax(q)], np.minimum(p, q).sum()
    text = exercise.answer_text()
    assert f"p(x*) = **{greedy:.3f}**" in text and f"= 1 − TV(p, q) = **{overlap:.3f}**" in text
    assert (round(greedy, 3), round(overlap, 3)) == (0.450, 0.934)
    k, c = PARAMS["k"].default, PARAMS["c"].default
    for alpha in (overlap, greedy):
        tokens = (1 - alpha ** (k + 1)) / (1 - alpha)
        assert f"{tokens:.2f} tokens per iteration, {tokens / (1 + k / c):.2f}×" in text
    # At T = 0 both models are point masses on token 0: every rule keeps it.
    assert np.argmax(target) == np.argmax(draft) == 0 and "α = 1 under both" in text
    assert "**T = 1**" in exercise.question_text()


def test_block_against_token_quotes_sun_et_al_s_ninths():
    exercise = BY_ID["block_against_token"]
    assert exercise.query() == {"vr_preset": "binary", "k": "2"}
    text = exercise.answer_text()
    # Token: α = 2/3, accepted α + α² = 10/9. Block: 11/9 (Sun et al. 2024). Ideal, Σ over t of the
    # overlap of the t-token prefix laws: 2/3 + (1/9 + 2/9 + 2/9 + 1/9) = 12/9.
    assert "**Token by token: 10/9 ≈ 1.111 accepted tokens per iteration; block verification: 11/9 ≈ 1.222" in text
    assert "no lossless verifier can beat 12/9 ≈ 1.333**" in text
    assert "w₁ = min(1, p(a)/q(a)) = 0.50" in text and "w₂ = min(1, w₁ · p(b)/q(b)) = 1.00" in text
    assert "**k = 2**" in exercise.question_text()


def test_the_ideal_verifiers_bound_is_the_overlap_of_the_prefix_laws():
    p, q = np.array([1 / 3, 2 / 3]), np.array([2 / 3, 1 / 3])
    assert exercises._ideal_accepted(p, q, 1) == pytest.approx(2 / 3)
    assert exercises._ideal_accepted(p, q, 2) == pytest.approx(12 / 9)
    # Never below block verification's (a lossless rule keeps t tokens at most that often).
    rng = np.random.default_rng(5)
    for _ in range(20):
        p, q = rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(3))
        for k in (1, 2, 3):
            block = specmath.expected_accepted_tokens(p, q, k, verification="block")
            assert exercises._ideal_accepted(p, q, k) >= block - 1e-12


def test_long_draft_disappoints_answer():
    """The MiniMax-M3 EAGLE-3 curve (issue 45's example) against the α fitted on its AL(1), from specmath alone."""
    text = _answer("long_draft_disappoints")
    curve = {1: 1.84, 2: 2.52, 3: 2.93, 4: 3.41, 5: 3.59, 6: 3.57, 7: 3.85, 8: 4.06}  # the numbers
    assert dict(specmath.ACCEPTANCE_PRESETS["MiniMax-M3 EAGLE-3 (thinking off)"].lengths) == curve
    measured = specmath.acceptance(lengths=curve)
    alpha = 0.84  # AL(1) = 1 + α: the exact inversion at k = 1
    assert measured.fitted_alpha(k=1).alpha == pytest.approx(alpha, abs=1e-12)
    promised = float(specmath.expected_tokens(alpha, 8))
    assert f"AL(8) = {promised:.2f}" in text and "4.95" in text and "22 % too high" in text
    c = 10
    at_8, iid_at_8 = specmath.speedup(measured, 8, c), specmath.speedup(alpha, 8, c)
    assert f"{at_8:.2f}×, the i.i.d. α promises {iid_at_8:.2f}×" in text
    best_k, best = specmath.optimal_k(measured, c, max_k=8)
    iid_k, iid_best = specmath.optimal_k(alpha, c, max_k=K_MAX)
    assert best_k < iid_k  # the issue's test: the curve's best k below its fitted α's at the same costs
    assert f"**k = {best_k} → {best:.2f}× on the measured curve, against k = {iid_k} → {iid_best:.2f}×" in text
    # Positions 2 to 8: (AL(8) - AL(1)) / 7 measured, (E[N_8] - E[N_1]) / 7 under α.
    assert f"add {(4.06 - 1.84) / 7:.2f} accepted tokens each" in text
    assert f"would add {(promised - 1.84) / 7:.2f}" in text
