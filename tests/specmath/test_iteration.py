"""One speculative iteration as a trace: its law, its records, greedy mode and its checks.

The statistical tests chain the public function itself, each iteration starting from the last
token the one before emitted, with one generator passed along; each rests on a fixed seed and
the suite's level, and the ones that show a law is the target's also show the same test
rejecting the draft's.
"""

import re

import numpy as np
import pytest
from scipy import stats

import specmath as sm
from tests.helpers import SIGNIFICANCE, assert_distributed_as

#: A 3-token pair for the path test: every target path has probability >= 0.008, and the draft
#: cannot propose token 0 after token 0 (q = 0 < p: that token comes only from the residual).
TARGET3 = np.array([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.2, 0.5]])
DRAFT3 = np.array([[0.0, 0.5, 0.5], [0.5, 0.2, 0.3], [0.3, 0.5, 0.2]])

DRAFTS = {
    "noise": lambda T: sm.draft_by_noise(T, 0.5),
    "temperature": lambda T: sm.draft_by_temperature(T, 3.0),
    "merged": lambda T: sm.draft_by_merging(T, 1),
}


@pytest.fixture
def target():
    return sm.random_transition_matrix(5, concentration=2.0, rng=3)


def chained(target, draft, start, n_tokens, k, rng, greedy=False):
    """``n_tokens`` tokens after ``start`` from chained iterations, and the iterations' traces."""
    tokens, traces = [], []
    while len(tokens) < n_tokens:
        trace = sm.speculative_iteration(target, draft, tokens[-1] if tokens else start, k, rng=rng, greedy=greedy)
        tokens.extend(trace.emitted.tolist())
        traces.append(trace)
    return np.array(tokens[:n_tokens]), traces


def transition_pvalue(path, chain):
    """p-value of the pooled chi-square test that ``path`` (one run) has the transitions of ``chain``.

    Given how often the run left each state, the transitions out of it are multinomial with
    that state's row (asymptotically): the per-row statistics add up, as their degrees of freedom.
    """
    size = chain.shape[0]
    counts = np.bincount(path[:-1] * size + path[1:], minlength=size * size).reshape(size, size)
    if counts[chain == 0].any():
        return 0.0  # a transition the chain cannot make
    statistic, df = 0.0, 0
    for row, law in zip(counts, chain, strict=True):
        support = law > 0
        if row.sum() == 0 or support.sum() < 2:
            continue
        expected = row.sum() * law[support]
        statistic += (((row[support] - expected) ** 2) / expected).sum()
        df += support.sum() - 1
    return stats.chi2.sf(statistic, df)


# --- the law of what an iteration emits --------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DRAFTS))
def test_first_emitted_token_has_the_target_rows_law(target, name):
    draft = DRAFTS[name](target)
    rng = np.random.default_rng(21)
    first = np.array([sm.speculative_iteration(target, draft, 2, 3, rng=rng).emitted[0] for _ in range(1_000)])
    assert_distributed_as(first, target[2])
    # ...not the draft's row, which is what it was drafted from.
    counts = np.bincount(first, minlength=5)
    assert stats.chisquare(counts, draft[2] * counts.sum()).pvalue < 1e-6


@pytest.mark.parametrize("name", sorted(DRAFTS))
def test_chained_iterations_generate_the_target_chain(target, name):
    draft = DRAFTS[name](target)
    path, traces = chained(target, draft, 0, 2_000, 3, np.random.default_rng(22))
    assert transition_pvalue(path, target) > SIGNIFICANCE
    # The same test, on the same run, rejects the draft chain's law.
    assert transition_pvalue(path, draft) < 1e-9
    assert all(1 <= t.emitted.size <= 4 for t in traces)
    assert any(t.all_accepted for t in traces) and not all(t.all_accepted for t in traces)


def test_first_k_plus_1_tokens_have_the_targets_path_law():
    # k = 2 from token 0: the first 3 tokens of chained iterations (one iteration emits 1 to 3
    # of them) against T(0, a) T(a, b) T(b, c) over all 27 paths.
    k, n = 2, 2_000
    rng = np.random.default_rng(23)
    paths = np.array([chained(TARGET3, DRAFT3, 0, k + 1, k, rng)[0] for _ in range(n)])
    index = (paths * [9, 3, 1]).sum(axis=1)
    counts = np.bincount(index, minlength=27)

    def path_law(chain):
        return (chain[0][:, None, None] * chain[:, :, None] * chain[None, :, :]).ravel()

    law = path_law(TARGET3)
    assert law.min() * n >= 5  # every cell fit for the chi-square
    assert stats.chisquare(counts, law * n).pvalue > SIGNIFICANCE
    # ...and not the draft chain's: many paths start 0 -> 0, which the draft chain never makes.
    assert counts[path_law(DRAFT3) == 0].sum() > 0.1 * n


def test_identical_draft_accepts_all_k(target):
    rng = np.random.default_rng(24)
    for context in range(5):
        for _ in range(20):
            trace = sm.speculative_iteration(target, target, context, 6, rng=rng)
            assert trace.all_accepted and trace.first_rejection == 6
            assert trace.accepted.all() and (trace.u < 1.0).all()
            np.testing.assert_array_equal(trace.ratio, 1.0)
            assert trace.residual is None and trace.residual_token is None
            assert trace.emitted.size == 7 and trace.bonus_token == trace.emitted[-1]
            np.testing.assert_allclose(trace.bonus_row, target[trace.drafted[-1]], rtol=1e-15)


# --- the record ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(40))
def test_record_is_one_consistent_iteration(target, seed):
    draft = sm.draft_by_noise(target, 0.7)
    k, context = 4, seed % 5
    t = sm.speculative_iteration(target, draft, context, k, rng=seed)
    assert (t.context, t.k, t.greedy) == (context, k, False)
    contexts = np.r_[context, t.drafted]  # the token before each of the k + 1 positions
    assert t.drafted.shape == (k,) and t.q.shape == (k, 5) and t.p.shape == (k + 1, 5)
    # The rows as validated: the caller's, renormalized to sum 1 (a change of rounding only).
    np.testing.assert_allclose(t.q, draft[contexts[:k]], rtol=1e-15)
    np.testing.assert_allclose(t.p, target[contexts], rtol=1e-15)
    np.testing.assert_array_equal(t.ratio, t.p[np.arange(k), t.drafted] / t.q[np.arange(k), t.drafted])
    # The accepted prefix passed u < p/q; the first rejection failed it; nothing after is checked.
    r = t.first_rejection
    np.testing.assert_array_equal(t.accepted, np.arange(k) < r)
    np.testing.assert_array_equal(t.checked, np.arange(k) <= r)
    assert (t.u[:r] < t.ratio[:r]).all() and np.isnan(t.u[r + 1 :]).all()
    assert ((0 <= t.u[t.checked]) & (t.u[t.checked] < 1)).all()
    np.testing.assert_array_equal(t.emitted[:-1], t.drafted[:r])
    np.testing.assert_array_equal(t.kinds[:-1], sm.decode.ACCEPTED)
    if r < k:
        assert t.u[r] >= t.ratio[r] and not t.all_accepted
        np.testing.assert_allclose(t.residual, sm.residual_distribution(t.p[r], t.q[r]), rtol=1e-12, atol=1e-15)
        assert t.residual[t.residual_token] > 0 and t.residual_token == t.emitted[-1]
        assert t.kinds[-1] == sm.decode.RESAMPLED and t.bonus_row is None and t.bonus_token is None
    else:
        np.testing.assert_array_equal(t.bonus_row, t.p[k])
        assert t.bonus_token == t.emitted[-1] and t.kinds[-1] == sm.decode.BONUS and t.residual is None


def test_chained_iterations_are_speculative_decode(target):
    # From the same generator state the iteration draws and checks as the decoder does: after
    # the decoder's start token, chained iterations reproduce its text and records exactly.
    draft = sm.draft_by_temperature(target, 2.0)
    for seed, k in ((0, 1), (1, 3), (2, 5)):
        records = sm.speculative_decode(target, draft, k, 200, rng=seed)
        rng = np.random.default_rng(seed)
        rng.random(1)  # the decoder's draw of the start token
        tokens, traces = chained(target, draft, records.tokens[0, 0], 199, k, rng)
        np.testing.assert_array_equal(tokens, records.tokens[0, 1:])
        np.testing.assert_array_equal([t.first_rejection for t in traces], records.accepted)
        np.testing.assert_array_equal(np.concatenate([t.kinds for t in traces])[:199], records.kinds[0, 1:])
        np.testing.assert_array_equal(np.vstack([t.accepted for t in traces]), records.outcomes)


def test_k_zero_is_one_target_step(target):
    rng = np.random.default_rng(25)
    traces = [sm.speculative_iteration(target, sm.draft_by_noise(target, 0.5), 1, 0, rng=rng) for _ in range(500)]
    t = traces[0]
    assert t.drafted.shape == (0,) and t.q.shape == (0, 5) and t.u.shape == (0,)
    np.testing.assert_allclose(t.p, target[[1]], rtol=1e-15)
    np.testing.assert_array_equal(t.bonus_row, t.p[0])
    assert t.all_accepted and t.first_rejection == 0 and t.kinds.tolist() == [sm.decode.BONUS]
    assert_distributed_as(np.array([t.emitted[0] for t in traces]), target[1])


# --- greedy --------------------------------------------------------------------------------------


def greedy_path(chain, start, n):
    path = [start]
    for _ in range(n):
        path.append(int(np.argmax(chain[path[-1]])))
    return np.array(path[1:])


@pytest.mark.parametrize("name", sorted(DRAFTS))
def test_greedy_follows_the_targets_argmax_path(name):
    chain = sm.random_transition_matrix(12, concentration=0.3, rng=4)
    draft = DRAFTS[name](chain)
    for start in range(0, 12, 2):
        tokens, traces = chained(chain, draft, start, 40, 4, None, greedy=True)
        np.testing.assert_array_equal(tokens, greedy_path(chain, start, 40))
        for t in traces:
            # Drafted: the draft's argmax path; kept exactly while it is the target's argmax.
            np.testing.assert_array_equal(t.drafted, np.argmax(t.q, axis=1))
            np.testing.assert_array_equal(t.accepted, np.cumprod(t.drafted == np.argmax(t.p[:-1], axis=1)) == 1)
            assert t.greedy and np.isnan(t.u).all()
            if not t.all_accepted:
                np.testing.assert_array_equal(t.residual, np.eye(12)[np.argmax(t.p[t.first_rejection])])


def test_greedy_ties_go_to_the_lowest_index_and_leave_rng_alone():
    target = np.array([[0.1, 0.45, 0.45], [0.5, 0.5, 0.0], [0.4, 0.2, 0.4]])
    draft = np.array([[0.4, 0.4, 0.2], [0.2, 0.4, 0.4], [1 / 3, 1 / 3, 1 / 3]])
    rng = np.random.default_rng(26)
    state = rng.bit_generator.state
    t = sm.speculative_iteration(target, draft, 0, 2, rng=rng, greedy=True)
    assert rng.bit_generator.state == state
    # From 0 the draft proposes 0 (tie 0/1), the target wants 1 (tie 1/2): rejected, corrected to 1.
    assert t.drafted.tolist() == [0, 0] and t.first_rejection == 0 and t.emitted.tolist() == [1]
    t = sm.speculative_iteration(target, draft, 2, 2, greedy=True)
    # From 2: draft 0 (three-way tie), target 0 (tie 0/2): kept; from 0 draft 0, target 1: corrected.
    assert t.drafted.tolist() == [0, 0] and t.first_rejection == 1 and t.emitted.tolist() == [0, 1]
    t = sm.speculative_iteration(target, target, 1, 3, greedy=True)
    assert t.all_accepted and t.emitted.tolist() == [0, 1, 0, 1]  # 1 -> 0 (tie 0/1) -> 1 (tie 1/2) -> ...


# --- validation ----------------------------------------------------------------------------------

T5 = np.full((5, 5), 0.2)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"context": 5}, "context must be <= 4, got 5"),
        ({"context": -1}, "context must be non-negative, got -1"),
        ({"context": 2.5}, "context must be an integer, got 2.5"),
        ({"context": 10**20}, "context must be <= 4, got 100000000000000000000"),
        ({"context": True}, "context must be a non-negative integer, not a boolean, got True"),
        ({"context": "a"}, "context must be numeric, not text, got 'a'"),
        ({"context": None}, "context must be numeric, not None, got None"),
        ({"context": [1, 2]}, "context must be a single token index, got an array of shape (2,)"),
        ({"k": 65}, "k must be <= 64, got 65"),
        ({"k": 65.0}, "k must be <= 64, got 65.0"),
        ({"k": 2**63}, "k must be <= 1,024, got 9223372036854775808"),
        ({"k": -1}, "k must be non-negative, got -1"),
        ({"k": 1.5}, "k must be an integer, got 1.5"),
        ({"k": [1, 2]}, "k must be a single integer, got an array of shape (2,)"),
        ({"greedy": "yes"}, "greedy must be True or False, got 'yes'"),
        ({"greedy": 1}, "greedy must be True or False, got 1"),
        ({"greedy": None}, "greedy must be True or False, got None"),
        ({"rng": "x"}, "rng must be a numpy.random.Generator, a non-negative integer seed or None, got 'x'"),
        ({"target": np.full((4, 4), 0.25)}, "target and draft must have the same shape, got (4, 4) and (5, 5)"),
        ({"draft": np.full((5, 5), 0.3)}, "draft row 0 sums to 1.5, not 1"),
    ],
)
def test_validation_names_the_argument_and_the_value_as_given(kwargs, message):
    arguments = {"target": T5, "draft": T5, "context": 0, "k": 3, "rng": 0} | kwargs
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        sm.speculative_iteration(**arguments)


@pytest.mark.parametrize("context", [4, 4.0, np.int64(4), np.array(4)])
@pytest.mark.parametrize("greedy", [False, True, np.True_])
def test_integral_and_numpy_arguments_are_accepted(context, greedy):
    t = sm.speculative_iteration(T5, T5, context, np.int64(2), rng=0, greedy=greedy)
    assert t.context == 4 and type(t.context) is int and t.greedy is bool(greedy)
