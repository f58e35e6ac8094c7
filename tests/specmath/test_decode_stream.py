"""speculative_decode against a scalar reference: the same text and records, bit for bit, from a seed.

The reference runs Algorithm 1 one sequence and one position at a time, drawing its uniforms with
one ``random`` call per draft position as the decoder always has, so a shared link's seed keeps
giving the text it gave. The vectorized decoder's exact draws (one ``searchsorted`` on integer
keys; the draft's table of next tokens) are checked against the plain count they replace, at the
edges of the CDF too.
"""

import math

import numpy as np
import pytest

import specmath as sm
from specmath import _kernels, decode
from specmath.decode import ACCEPTED, BONUS, CHUNK, RESAMPLED, START, UNIT, _row_cdfs, _Search, _Walk
from specmath.markov import as_transition_matrix


def _count(cdf_row: np.ndarray, u: float) -> int:
    return int(sum(1 for value in cdf_row if value <= u))


def reference_decode(target, draft, k, n_tokens, seed, n_sequences):
    """Scalar speculative decoding, the uniforms drawn in the decoder's order."""
    rng = np.random.default_rng(seed)
    # The matrices as the decoder holds them after its check, which renormalizes the rows.
    target, draft = as_transition_matrix(target, "target"), as_transition_matrix(draft, "draft")
    size = target.shape[0]
    draft_cdf = _row_cdfs(draft)
    final_cdf = _row_cdfs(np.vstack([_kernels.residual(target, draft), target]))
    start_cdf = _row_cdfs(sm.stationary_distribution(target)[None, :])[0]
    alpha_of = np.minimum(target, draft).sum(axis=1)

    texts = [[_count(start_cdf, u)] for u in rng.random(n_sequences)]
    kinds = [[START] for _ in range(n_sequences)]
    sequence, accepted, context_alpha = [], [], []
    active = list(range(n_sequences))
    while active:
        m = len(active)
        u_draft = [rng.random(m) for _ in range(k)]
        u_check = rng.random((m, k))
        u_final = rng.random(m)
        for r, s in enumerate(active):
            path = [texts[s][-1]]
            for i in range(k):
                path.append(_count(draft_cdf[path[-1]], u_draft[i][r]))
            a = 0
            while a < k and u_check[r, a] < target[path[a], path[a + 1]] / draft[path[a], path[a + 1]]:
                a += 1
            last = _count(final_cdf[path[a] if a < k else size + path[k]], u_final[r])
            texts[s] += [*path[1 : a + 1], last]
            kinds[s] += [ACCEPTED] * a + [RESAMPLED if a < k else BONUS]
            sequence.append(s)
            accepted.append(a)
            context_alpha.append([alpha_of[path[i]] if i <= a else math.nan for i in range(k)])
        active = [s for s in active if len(texts[s]) < n_tokens]
    return (
        np.array([t[:n_tokens] for t in texts]),
        np.array([t[:n_tokens] for t in kinds]),
        np.array(sequence),
        np.array(accepted),
        np.array(context_alpha, dtype=float).reshape(len(accepted), k),
    )


def _chain(rng, size, sparse):
    matrix = rng.dirichlet(np.full(size, 0.4), size=size)
    if sparse:  # tokens a context never follows with: zero rows of T / D, empty residuals
        matrix[rng.random((size, size)) < 0.4] = 0.0
        matrix[np.arange(size), rng.integers(size, size=size)] += 0.1
        matrix /= matrix.sum(axis=1, keepdims=True)
    return matrix


@pytest.mark.parametrize(
    ("size", "k", "n_tokens", "n_sequences", "kind"),
    [
        (3, 0, 40, 3, "random"),
        (5, 1, 60, 4, "sparse"),
        (8, CHUNK, 80, 6, "random"),
        (6, CHUNK + 1, 80, 5, "sparse"),
        (4, 3 * CHUNK + 2, 120, 3, "close"),
        (2, 2, 30, 7, "same"),
        (64, 3, 50, 2, "random"),
    ],
)
@pytest.mark.parametrize("drafting", ["table", "search"])
def test_decoder_matches_the_scalar_reference(size, k, n_tokens, n_sequences, kind, drafting, monkeypatch):
    if drafting == "search":  # the draft's draws of a chain too large for a table of next tokens
        monkeypatch.setattr(decode, "MAX_WALK_TABLE", 0)
    rng = np.random.default_rng(size * 100 + k)
    target = _chain(rng, size, kind == "sparse")
    draft = {
        "same": target,
        "close": 0.9 * target + 0.1 * _chain(rng, size, False),
    }.get(kind, _chain(rng, size, kind == "sparse"))
    records = sm.speculative_decode(target, draft, k, n_tokens, rng=7, n_sequences=n_sequences)
    tokens, kinds, sequence, accepted, context_alpha = reference_decode(target, draft, k, n_tokens, 7, n_sequences)
    np.testing.assert_array_equal(records.tokens, tokens)
    np.testing.assert_array_equal(records.kinds, kinds)
    np.testing.assert_array_equal(records.sequence, sequence)
    np.testing.assert_array_equal(records.accepted, accepted)
    np.testing.assert_array_equal(records.outcomes, np.arange(k) < accepted[:, None])
    np.testing.assert_array_equal(records.context_alpha, context_alpha)  # NaN where not checked
    assert records.kinds.dtype == np.int8 and records.tokens.dtype == np.int64


@pytest.mark.parametrize("size", [2, 5, 33, 64])
def test_search_and_table_draws_are_the_exact_count(size):
    rng = np.random.default_rng(size)
    probabilities = rng.dirichlet(np.full(size, 0.3), size=2 * size)
    probabilities[rng.random(probabilities.shape) < 0.3] = 0.0
    probabilities[:, 0] += probabilities.sum(axis=1) == 0
    cdf = _row_cdfs(probabilities)
    rows = np.repeat(np.arange(cdf.shape[0]), size)
    # Uniforms as Generator.random makes them (multiples of 2**-53), on both sides of every
    # CDF value and on it where it is such a multiple, besides random ones.
    grid = cdf[rows, np.tile(np.arange(size), cdf.shape[0])] * UNIT
    j = np.concatenate([np.floor(grid), np.ceil(grid), np.floor(grid) - 1, np.ceil(grid) + 1])
    j = np.clip(j, 0, UNIT - 1)
    every = np.tile(rows, 4)
    u = np.concatenate([j / UNIT, rng.random(every.size)])
    every = np.concatenate([every, every])
    counted = (cdf[every] <= u[:, None]).sum(axis=1)
    drawn = _Search.of(cdf).draw(every, (u * UNIT).astype(np.int64))
    np.testing.assert_array_equal(drawn, counted)
    assert (probabilities[every, drawn] > 0).all()  # never a token of probability zero
    path = np.stack([every, np.zeros_like(every)])
    _Walk.of(cdf).walk(path, u[None, :])
    np.testing.assert_array_equal(path[1], counted)


@pytest.mark.parametrize(
    "bit_generator", [np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox, np.random.SFC64]
)
def test_generator_uniforms_are_multiples_of_two_to_the_minus_53(bit_generator):
    # The exact draw rests on it: u * 2**53 is an integer for every uniform Generator.random gives.
    u = np.random.Generator(bit_generator(5)).random(100_000)
    scaled = u * UNIT
    assert (scaled == np.floor(scaled)).all() and (u < 1).all()


@pytest.mark.parametrize("seed", [0, 42, 2024])
@pytest.mark.parametrize("k", [1, 8, 21])
@pytest.mark.parametrize(("vocab", "target"), [(2, "random"), (8, "regimes"), (26, "random")])
def test_toy_language_runs_match_the_scalar_reference(seed, k, vocab, target):
    # The Simulator's chains: a two-regime or random target, its draft by merging contexts.
    if target == "regimes":
        chain = sm.two_regime_transition_matrix(vocab, rng=seed)
    else:
        chain = sm.random_transition_matrix(vocab, 0.5, rng=seed)
    draft = sm.draft_by_merging(chain, max(1, vocab // 4))
    records = sm.speculative_decode(chain, draft, k, 60, rng=seed, n_sequences=12)
    tokens, kinds, sequence, accepted, context_alpha = reference_decode(chain, draft, k, 60, seed, 12)
    np.testing.assert_array_equal(records.tokens, tokens)
    np.testing.assert_array_equal(records.kinds, kinds)
    np.testing.assert_array_equal(records.sequence, sequence)
    np.testing.assert_array_equal(records.accepted, accepted)
    np.testing.assert_array_equal(records.context_alpha, context_alpha)
