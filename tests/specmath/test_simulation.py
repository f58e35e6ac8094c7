"""The sequence simulator: i.i.d. blocks against the closed form, and real decoding on Markov chains."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import specmath as sm
from tests.helpers import SIGNIFICANCE

Z = stats.norm.isf(SIGNIFICANCE / 2)  # two-sided interval at the suite's level
ALPHAS = [0.0, 0.3, 0.8, 0.95, 1.0]
KS = [1, 4, 10]


# --- i.i.d. blocks -------------------------------------------------------------------------


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("alpha", ALPHAS)
def test_pmf_is_a_law_whose_mean_is_the_closed_form(alpha, k):
    pmf = sm.tokens_per_iteration_pmf(alpha, k)
    assert pmf.shape == (k + 1,)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-15)
    assert (pmf >= 0).all()
    assert np.arange(1, k + 2) @ pmf == pytest.approx(sm.expected_tokens(alpha, k), rel=1e-14)


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("alpha", ALPHAS)
def test_iid_blocks_mean_within_confidence_interval(alpha, k):
    n = 200_000
    emitted = sm.simulate_iid_blocks(alpha, k, n, rng=11)
    assert emitted.dtype == np.int64 and emitted.shape == (n,)
    assert emitted.min() >= 1 and emitted.max() <= k + 1
    expected = sm.expected_tokens(alpha, k)
    if alpha in (0.0, 1.0):
        assert (emitted == expected).all()
        return
    pmf = sm.tokens_per_iteration_pmf(alpha, k)
    support = np.arange(1, k + 2)
    sd = np.sqrt(((support - expected) ** 2) @ pmf)
    assert abs(emitted.mean() - expected) <= Z * sd / np.sqrt(n)


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("alpha", [0.3, 0.8, 0.95])
def test_iid_blocks_follow_the_truncated_geometric_law(alpha, k):
    n = 200_000
    counts = np.bincount(sm.simulate_iid_blocks(alpha, k, n, rng=5), minlength=k + 2)[1:]
    expected = sm.tokens_per_iteration_pmf(alpha, k) * n
    keep = expected >= 5
    observed = np.append(counts[keep], counts[~keep].sum())
    wanted = np.append(expected[keep], expected[~keep].sum())
    if wanted[-1] == 0:
        observed, wanted = observed[:-1], wanted[:-1]
    if observed.size > 1:
        assert stats.chisquare(observed, wanted).pvalue > SIGNIFICANCE


def test_iid_blocks_chi_square_has_power():
    # Draws at alpha = 0.8 must be rejected as draws of alpha = 0.78.
    counts = np.bincount(sm.simulate_iid_blocks(0.8, 4, 200_000, rng=5), minlength=6)[1:]
    assert stats.chisquare(counts, sm.tokens_per_iteration_pmf(0.78, 4) * 200_000).pvalue < 1e-9


def test_iid_blocks_edges_and_validation():
    assert (sm.simulate_iid_blocks(0.5, 0, 10, rng=0) == 1).all()
    with pytest.raises(ValueError, match=r"^alpha"):
        sm.simulate_iid_blocks(1.2, 3, 10)
    with pytest.raises(ValueError, match=r"^n_iterations"):
        sm.simulate_iid_blocks(0.5, 3, 0)
    with pytest.raises(ValueError, match="scalars"):
        sm.simulate_iid_blocks([0.5, 0.6], 3, 10)


# --- fitting alpha from the mean acceptance length -----------------------------------------


@given(st.floats(0.0, 1.0), st.integers(1, 64))
def test_fit_alpha_inverts_expected_tokens(alpha, k):
    fitted = sm.iid_blocks.fit_alpha_from_acceptance_length(sm.expected_tokens(alpha, k), k)
    # E[N] is flat in alpha near 0 when k is large relative to the precision; compare in E[N].
    assert sm.expected_tokens(fitted, k) == pytest.approx(sm.expected_tokens(alpha, k), rel=1e-12)
    if 0.01 < alpha < 0.99:
        assert fitted == pytest.approx(alpha, abs=1e-9)


def test_fit_alpha_ends_and_monotone():
    assert sm.iid_blocks.fit_alpha_from_acceptance_length(1.0, 4) == 0.0
    assert sm.iid_blocks.fit_alpha_from_acceptance_length(5.0, 4) == 1.0
    grid = np.linspace(1, 5, 101)
    fitted = sm.iid_blocks.fit_alpha_from_acceptance_length(grid, 4)
    assert (np.diff(fitted) > 0).all()


@pytest.mark.parametrize(
    ("length", "k", "message"), [(0.9, 4, r"\[1, k \+ 1\]"), (5.1, 4, r"\[1, k \+ 1\]"), (2, 0, ">= 1")]
)
def test_fit_alpha_rejects_impossible_lengths(length, k, message):
    with pytest.raises(ValueError, match=message):
        sm.iid_blocks.fit_alpha_from_acceptance_length(length, k)


# --- Markov chains -------------------------------------------------------------------------


@pytest.fixture
def target():
    return sm.random_transition_matrix(5, concentration=2.0, rng=3)


def test_stationary_distribution(target):
    pi = sm.stationary_distribution(target)
    np.testing.assert_allclose(pi @ target, pi, atol=1e-14)
    assert pi.sum() == pytest.approx(1.0)


def test_drafts_are_chains_and_reduce_to_the_target(target):
    for draft in (
        sm.draft_by_noise(target, 0.4),
        sm.draft_by_temperature(target, 2.5),
        sm.draft_by_temperature(target, 0.3),
        sm.draft_by_merging(target, 2),
    ):
        np.testing.assert_allclose(draft.sum(axis=1), 1.0)
        assert (draft >= 0).all()
        assert (sm.state_acceptance(target, draft) < 1).all()
    np.testing.assert_allclose(sm.draft_by_noise(target, 0.0), target)
    np.testing.assert_allclose(sm.draft_by_temperature(target, 1.0), target)
    np.testing.assert_allclose(sm.draft_by_merging(target, 5), target)
    unigram = sm.draft_by_merging(target, 1)
    np.testing.assert_allclose(unigram, np.tile(sm.stationary_distribution(target) @ target, (5, 1)))


def test_temperature_keeps_impossible_tokens_impossible():
    chain = np.array([[0.5, 0.5, 0.0], [0.2, 0.0, 0.8], [1.0, 0.0, 0.0]])
    assert (sm.draft_by_temperature(chain, 3.0)[chain == 0] == 0).all()
    np.testing.assert_allclose(sm.draft_by_temperature(chain, 0.01)[0], [0.5, 0.5, 0.0])


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        (np.ones((2, 3)) / 3, "square"),
        (np.array([[0.5, 0.5], [0.7, 0.7]]), "row 1 sums to 1.4"),
        (np.array([[1.5, -0.5], [0.5, 0.5]]), "negative"),
        (np.array([[np.nan, 1.0], [0.5, 0.5]]), "NaN"),
    ],
)
def test_transition_matrix_validation(matrix, message):
    with pytest.raises(ValueError, match=message):
        sm.speculative_decode(matrix, matrix, 2, 10)


# --- speculative decoding on chains ---------------------------------------------------------


def _pair_counts(records, size, rng):
    # One bigram per sequence at a position chosen independently of the text: independent
    # draws from the stationary pair law pi(a) T(a, b), so the chi-square test is exact.
    tokens = records.tokens
    where = rng.integers(0, tokens.shape[1] - 1, size=tokens.shape[0])
    rows = np.arange(tokens.shape[0])
    pairs = tokens[rows, where] * size + tokens[rows, where + 1]
    return np.bincount(pairs, minlength=size * size)


def _pair_law(chain):
    return (sm.stationary_distribution(chain)[:, None] * chain).ravel()


@pytest.mark.parametrize(
    "make_draft",
    [
        lambda T: sm.draft_by_noise(T, 0.5),
        lambda T: sm.draft_by_temperature(T, 3.0),
        lambda T: sm.draft_by_merging(T, 1),
    ],
    ids=["noise", "temperature", "merged"],
)
def test_generated_text_has_the_target_bigram_law(target, make_draft):
    draft = make_draft(target)
    records = sm.speculative_decode(target, draft, 3, 12, rng=8, n_sequences=60_000)
    counts = _pair_counts(records, 5, np.random.default_rng(1))
    n = counts.sum()
    assert stats.chisquare(counts, _pair_law(target) * n).pvalue > SIGNIFICANCE
    # ...and measurably not the draft's own law: the guarantee holds for whole sequences.
    assert stats.chisquare(counts, _pair_law(draft) * n).pvalue < 1e-9


def test_every_position_has_the_stationary_law(target):
    records = sm.speculative_decode(target, sm.draft_by_temperature(target, 0.4), 4, 9, rng=2, n_sequences=40_000)
    pi = sm.stationary_distribution(target)
    for position in (0, 1, 4, 5, 8):
        counts = np.bincount(records.tokens[:, position], minlength=5)
        assert stats.chisquare(counts, pi * counts.sum()).pvalue > SIGNIFICANCE


def test_identical_draft_accepts_everything(target):
    records = sm.speculative_decode(target, target, 5, 300, rng=4, n_sequences=20)
    assert records.outcomes.all()
    assert (records.emitted == 6).all()
    summary = sm.decode_summary(records)
    assert summary.tokens_per_call == 6.0 and summary.alpha_fit == 1.0 and summary.alpha_visited == 1.0
    np.testing.assert_array_equal(summary.unconditional, 1.0)


def test_records_describe_the_text(target):
    k = 4
    records = sm.speculative_decode(target, sm.draft_by_noise(target, 0.6), k, 400, rng=6, n_sequences=3)
    assert records.tokens.shape == records.kinds.shape == (3, 400)
    assert (records.kinds[:, 0] == sm.decode.START).all()
    for s in range(3):
        kinds = records.kinds[s, 1:]
        ends = np.flatnonzero((kinds == sm.decode.RESAMPLED) | (kinds == sm.decode.BONUS))
        blocks = np.diff(np.r_[-1, ends])
        mine = records.sequence == s
        # Each complete block is the accepted prefix plus one token, as the records say.
        np.testing.assert_array_equal(blocks, records.emitted[mine][: blocks.size])
        assert ((kinds[ends] == sm.decode.BONUS) == (blocks == k + 1)).all()
    np.testing.assert_array_equal(records.outcomes.sum(axis=1), records.accepted)
    np.testing.assert_array_equal(records.drafted, k)
    # The target checks positions up to and including the first rejection.
    checked = np.isfinite(records.context_alpha).sum(axis=1)
    np.testing.assert_array_equal(checked, np.minimum(records.accepted + 1, k))


def test_plain_decoding_when_k_is_zero(target):
    records = sm.speculative_decode(target, target, 0, 50, rng=0, n_sequences=2)
    assert records.outcomes.shape == (records.accepted.size, 0)
    assert (records.kinds[:, 1:] == sm.decode.BONUS).all()
    assert sm.decode_summary(records).tokens_per_call == 1.0


def test_summary_formulas_on_hand_made_records():
    # Four iterations with k = 3 and accepted prefixes 0, 1, 3, 2.
    accepted = np.array([0, 1, 3, 2])
    outcomes = np.arange(3) < accepted[:, None]
    alpha = np.where(np.arange(3) <= accepted[:, None], 0.5, np.nan)
    records = sm.decode.DecodeRecords(
        tokens=np.zeros((1, 2), dtype=np.int64),
        kinds=np.zeros((1, 2), dtype=np.int8),
        sequence=np.zeros(4, dtype=np.int64),
        drafted=np.full(4, 3),
        accepted=accepted,
        emitted=accepted + 1,
        outcomes=outcomes,
        context_alpha=alpha,
    )
    summary = sm.decode_summary(records)
    assert summary.iterations == 4
    assert summary.tokens_per_call == 2.5
    np.testing.assert_allclose(summary.unconditional, [3 / 4, 2 / 4, 1 / 4])
    np.testing.assert_allclose(summary.conditional, [3 / 4, 2 / 3, 1 / 2])
    assert summary.acceptance_rate == 6 / 9  # 6 accepted of 1 + 2 + 3 + 3 checked positions
    assert summary.alpha_fit == pytest.approx(sm.iid_blocks.fit_alpha_from_acceptance_length(2.5, 3))
    assert summary.alpha_visited == 0.5


def test_two_regime_chain():
    chain = sm.two_regime_transition_matrix(8, stay=0.9, rng=0)
    np.testing.assert_allclose(chain.sum(axis=1), 1.0)
    np.testing.assert_allclose(chain[:4, :4].sum(axis=1), 0.9)
    np.testing.assert_allclose(chain[4:, 4:].sum(axis=1), 0.9)


def test_context_dependent_acceptance_breaks_the_iid_formula():
    # Sticky regimes where the draft does well or badly: having accepted position i makes a
    # good regime likelier, so conditional acceptance rises along the draft and the closed
    # form at the per-token acceptance rate misses the measured tokens per call.
    chain = sm.two_regime_transition_matrix(8, stay=0.9, rng=0)
    records = sm.speculative_decode(chain, sm.draft_by_merging(chain, 2), 6, 2000, rng=9, n_sequences=100)
    summary = sm.decode_summary(records)
    # Acceptance given a checked context is alpha(context): the two agree up to sampling noise.
    checked = np.isfinite(records.context_alpha).sum()
    assert abs(summary.acceptance_rate - summary.alpha_visited) < Z * 0.5 / np.sqrt(checked)
    first_pos = records.accepted.size
    reached_last = (records.accepted >= 5).sum()
    gap = summary.conditional[5] - summary.conditional[0]
    assert gap > Z * np.sqrt(0.25 / first_pos + 0.25 / reached_last)
    standard_error = records.emitted.std() / np.sqrt(records.emitted.size)
    predicted = sm.expected_tokens(summary.acceptance_rate, 6)
    assert abs(predicted - summary.tokens_per_call) > Z * standard_error
    # The alpha fitted from the mean acceptance length reproduces it, by construction.
    assert sm.expected_tokens(summary.alpha_fit, 6) == pytest.approx(summary.tokens_per_call)
