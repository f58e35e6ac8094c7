"""specmath.acceptance: one value for an i.i.d. alpha, a per-position profile or a measured curve (issue 45).

An ``alpha=`` value must give every function exactly what its float gives (it runs the float's own
path); a profile's results are checked against their definitions, E[N_k] = 1 + Σ u_i over the cost,
by brute force over k; the conversions are round trips.
"""

import numpy as np
import pytest

import specmath
from specmath import acceptance

# MiniMax-M3 with its EAGLE-3 head, thinking off, vLLM on B300, SPEED-Bench coding: AL at k = 1 … 8, as
# issue 45 quotes InferenceX's golden_al_distribution. The preset (specmath/presets/acceptance.py, branch
# i-curves) carries them with their source, and its test checks them against it; here they are the issue's.
MINIMAX_M3 = {1: 1.84, 2: 2.52, 3: 2.93, 4: 3.41, 5: 3.59, 6: 3.57, 7: 3.85, 8: 4.06}

ALPHAS = (0.0, 0.35, 0.62, 0.8, 0.97, 1.0)
PRESETS = specmath.MODEL_PRESETS
H100 = specmath.GPU_PRESETS["H100 SXM"]


# --- round trips: alpha <-> profile <-> curve --------------------------------------------------------


@pytest.mark.parametrize("alpha", ALPHAS)
def test_an_iid_alpha_is_the_profile_of_its_powers_and_the_curve_of_its_closed_form(alpha):
    acc = acceptance(alpha=alpha)
    assert acc.per_position == (alpha,) and acc.alpha == alpha and acc.measured is None
    np.testing.assert_array_equal(acc.profile(9), alpha ** np.arange(1, 10))
    ks = np.arange(0, 13)
    np.testing.assert_array_equal(acc.lengths(ks), specmath.expected_tokens(alpha, ks))
    # (alpha,) extended by extend_profile's last conditional rate is alpha^i again, to rounding.
    np.testing.assert_allclose(
        specmath.calibration.extend_profile(acc.per_position, 9), acc.profile(9), rtol=1e-14, atol=0
    )
    assert acc.fitted_alpha().alpha == alpha


@pytest.mark.parametrize("alpha", (0.35, 0.62, 0.8, 0.97))
def test_alpha_to_profile_to_curve_and_back(alpha):
    m = 8
    by_profile = acceptance(per_position=acceptance(alpha=alpha).profile(m))
    np.testing.assert_allclose(by_profile.conditional, alpha, rtol=1e-12)
    np.testing.assert_allclose(by_profile.lengths(np.arange(m + 1)), specmath.expected_tokens(alpha, np.arange(m + 1)))
    by_curve = acceptance(lengths={k: float(by_profile.lengths(k)) for k in range(1, m + 1)})
    assert not by_curve.adjusted
    np.testing.assert_allclose(by_curve.per_position, by_profile.per_position, rtol=1e-12)
    for fit in (by_curve.fitted_alpha(), by_curve.fitted_alpha(k=1), by_curve.fitted_alpha(k=[3, 8])):
        assert fit.alpha == pytest.approx(alpha, abs=1e-12)
        np.testing.assert_allclose(fit.error, 0.0, atol=1e-12)


def test_conditional_and_unconditional_rates_convert_both_ways():
    u = (0.81, 0.64, 0.4, 0.1, 0.0)
    acc = acceptance(per_position=u)
    np.testing.assert_allclose(acc.conditional[:4], [0.81, 0.64 / 0.81, 0.4 / 0.64, 0.1 / 0.4], rtol=1e-15)
    assert acc.conditional[4] == 0.0  # reached, never accepted
    back = acceptance(conditional=acc.conditional)
    np.testing.assert_allclose(back.per_position, u, rtol=1e-15, atol=0)
    assert back.given == "conditional" and back.lengths(5) == pytest.approx(1 + sum(u), abs=1e-15)
    # Rates of exact binary fractions: the products are exact, so is the round trip.
    assert acceptance(conditional=[0.5, 0.5, 0.25]).per_position == (0.5, 0.25, 0.0625)


def test_a_profile_to_its_curve_and_back_is_the_profile():
    u = np.cumprod([0.9, 0.8, 0.7, 0.5, 0.5, 0.3])
    acc = acceptance(per_position=u)
    curve = acceptance(lengths={k: float(acc.lengths(k)) for k in range(1, 7)})
    assert not curve.adjusted and curve.given == "lengths"
    np.testing.assert_allclose(curve.per_position, u, rtol=1e-12)
    assert curve.lengths(6) == pytest.approx(acc.lengths(6), abs=1e-14)


def test_a_curve_with_gaps_spreads_each_rise_and_says_when_it_adjusted():
    acc = acceptance(lengths=[(4, 3.0), (1, 1.8)])  # pairs, any order
    assert acc.curve == ((1, 1.8), (4, 3.0))
    np.testing.assert_allclose(acc.per_position, [0.8, 0.4, 0.4, 0.4], rtol=1e-14)
    assert not acc.adjusted and acc.measured == 4
    rising = acceptance(lengths={1: 1.5, 2: 2.3})  # the second position better than the first: pooled
    assert rising.adjusted and rising.per_position == pytest.approx((0.65, 0.65))


def test_the_iid_fit_of_lengths_at_the_ends_is_zero_or_one():
    assert acceptance(lengths={1: 1.0, 3: 1.0}).fitted_alpha().alpha == 0.0
    assert acceptance(lengths={1: 2.0, 3: 4.0}).fitted_alpha().alpha == 1.0


def test_the_least_squares_alpha_is_the_minimum_of_the_squared_errors():
    acc = acceptance(lengths=MINIMAX_M3)
    fit = acc.fitted_alpha()
    ks, lengths = np.array(fit.k), np.array(fit.lengths)

    def sse(a):
        return float(((specmath.expected_tokens(np.asarray(a)[..., None], ks) - lengths) ** 2).sum(axis=-1).min())

    grid = np.linspace(0, 1, 200_001)
    assert sse(fit.alpha) <= sse(grid)
    assert fit.alpha == pytest.approx(grid[np.argmin([sse(a) for a in grid[::100]]) * 100], abs=1e-3)
    assert fit.fitted_k == tuple(range(1, 9))


# --- a plain alpha: every function bit for bit as the float ---------------------------------------


@pytest.mark.parametrize("alpha", ALPHAS)
def test_every_function_gives_an_iid_value_exactly_what_it_gives_its_float(alpha):
    acc = acceptance(alpha=alpha)
    ks, cs = np.arange(0, 25), np.array([0.5, 1.0, 3.0, 20.0, np.inf])
    same = np.testing.assert_array_equal
    same(specmath.expected_tokens(acc, ks), specmath.expected_tokens(alpha, ks))
    same(specmath.speedup(acc, ks[:, None], cs), specmath.speedup(alpha, ks[:, None], cs))
    same(specmath.draft_acceptance_rate(acc, ks[1:]), specmath.draft_acceptance_rate(alpha, ks[1:]))
    same(specmath.operations_factor(acc, ks, 0.1), specmath.operations_factor(alpha, ks, 0.1))
    for got, want in zip(specmath.optimal_k(acc, cs, 12), specmath.optimal_k(alpha, cs, 12), strict=True):
        same(got, want)
    draft, target = PRESETS["Llama-3.2-1B"], PRESETS["Llama-3.1-8B"]
    t_draft, t_target = specmath.Roofline(draft, H100, 64, 4096), specmath.Roofline(target, H100, 64, 4096)
    for drafter in specmath.general.DRAFTERS:
        d = 1e-4 if drafter == "model_free" else t_draft
        for t in (t_target, 0.02):  # a roofline, and free verification (optimal_k's closed form)
            same(
                specmath.general_speedup(acc, ks, d, t, drafter=drafter),
                specmath.general_speedup(alpha, ks, d, t, drafter=drafter),
            )
            for got, want in zip(
                specmath.general_optimal_k(acc, d, t, 16, drafter=drafter),
                specmath.general_optimal_k(alpha, d, t, 16, drafter=drafter),
                strict=True,
            ):
                same(got, want)
    batches = [1, 2, 8, 64, 512, 4096]
    by_value = specmath.roofline_batch_sweep(acc, draft, target, H100, batches, 2048, 1e-3, max_k=16)
    by_float = specmath.roofline_batch_sweep(alpha, draft, target, H100, batches, 2048, 1e-3, max_k=16)
    for got, want in zip(by_value, by_float, strict=True):
        same(got, want)


def test_floats_still_broadcast_and_a_value_is_one_acceptance():
    alphas = np.linspace(0, 1, 11)[:, None]
    assert specmath.speedup(alphas, np.arange(4), 10.0).shape == (11, 4)
    assert specmath.optimal_k(alphas, np.array([5.0, 50.0]))[0].shape == (11, 2)
    with pytest.raises(ValueError, match=r"^alpha must be a single value here"):
        acceptance(alpha=[0.5, 0.6])


# --- a profile or a curve: the definitions, by brute force --------------------------------------


PROFILE = acceptance(per_position=[0.9, 0.72, 0.5, 0.3, 0.15])


@pytest.mark.parametrize("acc", [PROFILE, acceptance(lengths=MINIMAX_M3)], ids=["profile", "curve"])
def test_a_profiles_speedup_and_best_k_are_its_lengths_over_the_cost(acc):
    ks, cs = np.arange(0, 21), np.array([1.0, 4.0, 10.0, 25.0, 80.0, np.inf])
    tokens = acc.lengths(ks)
    np.testing.assert_array_equal(specmath.speedup(acc, ks[:, None], cs), tokens[:, None] / (1 + ks[:, None] / cs))
    np.testing.assert_array_equal(specmath.expected_tokens(acc, ks), tokens)
    best_k, best = specmath.optimal_k(acc, cs, 20)
    for c, k, s in zip(cs, best_k, best, strict=True):
        table = [specmath.speedup(acc, kk, c) for kk in range(1, 21)]
        assert (k, s) == (int(np.argmax(table)) + 1, max(table))
    # Free verification is the chapter's cost: general_speedup and its search agree with the above.
    for c in cs[:-1]:
        np.testing.assert_array_equal(specmath.general_speedup(acc, ks, 1.0 / c, 1.0), specmath.speedup(acc, ks, c))
        assert specmath.general_optimal_k(acc, 1.0 / c, 1.0, 20) == specmath.optimal_k(acc, c, 20)


def test_a_profiles_roofline_sweep_is_its_best_k_at_each_batch_by_brute_force():
    draft, target = PRESETS["Llama-3.2-1B"], PRESETS["Llama-3.1-8B"]
    batches = [1, 16, 256, 2048]
    sweep = specmath.roofline_batch_sweep(PROFILE, draft, target, H100, batches, 4096, max_k=12)
    for row, b in enumerate(batches):
        t_draft, t_target = specmath.Roofline(draft, H100, b, 4096), specmath.Roofline(target, H100, b, 4096)
        assert (sweep.k[row], sweep.speedup[row]) == specmath.general_optimal_k(PROFILE, t_draft, t_target, 12)
    # The sweep of a bare profile is this sweep.
    by_tuple = specmath.roofline_batch_sweep(
        specmath.acceptance(per_position=PROFILE.per_position), draft, target, H100, batches, 4096, max_k=12
    )
    for got, want in zip(by_tuple, sweep, strict=True):
        np.testing.assert_array_equal(got, want)


def test_a_curve_counts_nothing_past_its_last_k_and_a_profile_extrapolates():
    curve = acceptance(lengths={1: 1.8, 2: 2.4, 3: 2.8})
    np.testing.assert_array_equal(curve.lengths([3, 4, 10]), [curve.lengths(3)] * 3)
    np.testing.assert_array_equal(curve.profile(5)[3:], [0.0, 0.0])
    assert specmath.optimal_k(curve, np.inf, 20)[0] == 3  # no search goes past what was measured
    np.testing.assert_allclose(PROFILE.profile(7)[5:], [0.15 * 0.5, 0.15 * 0.25])  # last conditional rate 0.5


def test_trees_refuse_an_acceptance_value_and_say_why():
    for value in (acceptance(alpha=0.8), PROFILE):
        with pytest.raises(ValueError, match=r"^acceptance must be a tree's acceptance per sibling rank .* ranks 2, 3"):
            specmath.tree_expected_tokens([-1, 0, 1], value)
        with pytest.raises(ValueError, match=r"^acceptance must be a tree's acceptance per sibling rank"):
            specmath.eagle_tree(value, 2, 1, 3)


# --- MiniMax-M3's EAGLE-3 curve: the i.i.d. alpha of AL(1) promises too much ----------------------


def test_the_alpha_that_fits_al1_predicts_al8_22_percent_high():
    fit = acceptance(lengths=MINIMAX_M3).fitted_alpha(k=1)
    assert fit.alpha == pytest.approx(0.84, abs=1e-15)
    assert fit.k == tuple(range(1, 9)) and fit.lengths == tuple(MINIMAX_M3.values())
    assert round(fit.predicted[-1], 2) == 4.95  # (1 - 0.84^9) / 0.16 = 4.9487
    assert round(fit.error[-1], 2) == 0.22 and fit.error[0] == pytest.approx(0.0, abs=1e-15)
    assert max(fit.error) == pytest.approx(4.4057 / 3.57 - 1, abs=1e-4)  # worst at k = 6, 23 %


def test_the_curves_best_k_is_below_its_fitted_alphas_at_the_same_costs():
    curve = acceptance(lengths=MINIMAX_M3)
    assert curve.adjusted  # AL(6) < AL(5): the rise there is clipped to 0 and pooled
    alpha = curve.fitted_alpha(k=1).alpha
    for c in (5.0, 10.0, 15.0, 20.0, 30.0, 50.0):
        k_curve, s_curve = specmath.optimal_k(curve, c)
        k_alpha, s_alpha = specmath.optimal_k(alpha, c)
        assert k_curve < k_alpha and s_curve < s_alpha, c
    assert specmath.optimal_k(curve, 10.0)[0] == 4 and specmath.optimal_k(alpha, 10.0)[0] == 7


# --- the value itself -----------------------------------------------------------------------------


def test_a_value_is_immutable_hashable_and_equal_to_its_twin():
    a, b = acceptance(lengths=MINIMAX_M3), acceptance(lengths=list(MINIMAX_M3.items()))
    assert a == b and hash(a) == hash(b) and len({a, b, PROFILE}) == 2
    with pytest.raises(AttributeError):
        a.alpha = 0.5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, r"^acceptance takes exactly one of alpha, per_position, conditional, lengths; got none"),
        ({"alpha": 0.5, "lengths": {1: 1.5}}, r"exactly one .*; got alpha, lengths"),
        ({"alpha": 1.5}, r"^alpha must be within \[0, 1\]"),
        ({"per_position": [0.5, 0.6]}, r"^per_position must not increase"),
        ({"conditional": [0.5, 1.2]}, r"^conditional must be within \[0, 1\]"),
        ({"conditional": []}, r"^conditional must be a non-empty 1-D sequence"),
        ({"lengths": {}}, r"^lengths must be a non-empty \{k: mean acceptance length\} mapping"),
        ({"lengths": {0: 1.0}}, r"^k must be >= 1"),
        ({"lengths": {1: 0.5}}, r"^mean_length must be finite and >= 1"),
        ({"lengths": [(1, 1.5), (1, 1.6)]}, r"^k must be strictly increasing"),
    ],
)
def test_bad_input_is_refused_by_name(kwargs, message):
    with pytest.raises(ValueError, match=message):
        acceptance(**kwargs)


def test_a_fit_at_an_unmeasured_k_is_refused():
    with pytest.raises(ValueError, match=r"^k must be among the measured draft lengths \[1, 2, 3, 4, 5, 6, 7, 8\]"):
        acceptance(lengths=MINIMAX_M3).fitted_alpha(k=9)


def test_a_value_built_by_hand_is_checked_as_acceptance_checks_it():
    with pytest.raises(ValueError, match=r"^per_position must not increase"):
        specmath.Acceptance((0.5, 0.6))
    with pytest.raises(ValueError, match=r"^per_position must be \(alpha,\)"):
        specmath.Acceptance((0.5,), alpha=0.6, given="alpha")
