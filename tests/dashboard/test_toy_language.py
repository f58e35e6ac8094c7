"""The Step through page's toy language: words that read, a target chain that makes sentences,
the drafts specmath derives from it, and the opening before the iteration."""

import itertools

import numpy as np
import pytest

import specmath
from dashboard import toy_language as tl

KINDS = {
    "article": ("the", "a"),
    "adjective": ("big", "small", "happy"),
    "animal": ("cat", "dog", "bird"),
    "place": ("mat", "tree", "sun"),
    "verb": ("sat", "ran", "slept", "sang"),
    "preposition": ("on", "under", "in"),
    "ending": ("quietly", "home"),
    "period": (".",),
}
#: What may follow each kind of word: the grammar the hand-written chain must keep to.
GRAMMAR = {
    "period": {"article"},
    "article": {"adjective", "animal", "place"},
    "adjective": {"animal", "place"},
    "animal": {"verb", "period"},
    "place": {"period"},
    "verb": {"preposition", "ending", "period"},
    "preposition": {"article"},
    "ending": {"period"},
}
KIND_OF = {word: kind for kind, words in KINDS.items() for word in words}


def test_a_small_vocabulary_of_distinct_words_each_of_one_kind():
    assert 12 <= tl.V <= 30
    assert len(set(tl.WORDS)) == tl.V
    assert set(tl.WORDS) == set(KIND_OF)
    assert tl.WORDS[tl.PERIOD] == "."


def test_the_target_is_a_chain_whose_successors_make_sentences():
    T = tl.target_chain()
    np.testing.assert_array_equal(specmath.markov.as_transition_matrix(T, "T"), T)
    for s, row in enumerate(T):
        successors = {KIND_OF[tl.WORDS[x]] for x in np.flatnonzero(row)}
        assert successors <= GRAMMAR[KIND_OF[tl.WORDS[s]]], (tl.WORDS[s], successors)
    # Irreducible and aperiodic: from any word every word is reachable, in the same number of steps.
    assert (np.linalg.matrix_power(T, 12) > 0).all()


def test_text_from_the_target_is_sentences():
    T = tl.target_chain()
    rng = np.random.default_rng(5)
    words = [tl.PERIOD]
    for _ in range(400):
        words.append(int(rng.choice(tl.V, p=T[words[-1]])))
    sentences = tl.text(words).split(" . ")[1:-1]
    assert len(sentences) > 30
    for sentence in sentences:
        first, *rest = sentence.split()
        assert KIND_OF[first] == "article" and rest, sentence


@pytest.mark.parametrize(("kind", "identity"), [("noise", 0.0), ("temperature", 1), ("merged", tl.V)])
def test_each_draft_is_the_target_at_its_identity_strength(kind, identity):
    np.testing.assert_allclose(tl.draft_chain(kind, identity), tl.target_chain(), atol=1e-12)


def test_drafts_are_specmaths():
    T = tl.target_chain()
    np.testing.assert_array_equal(tl.draft_chain("noise", 0.3), specmath.draft_by_noise(T, 0.3))
    np.testing.assert_array_equal(tl.draft_chain("temperature", 2), specmath.draft_by_temperature(T, 2))
    np.testing.assert_array_equal(tl.draft_chain("merged", 4), specmath.draft_by_merging(T, 4))
    np.testing.assert_allclose(tl.draft_chain("merged", 99), T, atol=1e-12)  # more classes than words: the target
    unigram = tl.draft_chain("merged", 1)
    assert np.allclose(unigram, unigram[0])
    with pytest.raises(ValueError, match="draft kind"):
        tl.draft_chain("oracle", 1)


def test_a_noisy_draft_proposes_what_the_target_never_says():
    T, D = tl.target_chain(), tl.draft_chain("noise", 0.3)
    assert (D[T == 0] > 0).all()
    assert specmath.acceptance_probability(T[tl.PERIOD], D[tl.PERIOD]) == pytest.approx(0.7 + 0.3 * 2 / tl.V)


def test_the_opening_is_a_period_and_three_words_of_the_target():
    T = tl.target_chain()
    for seed in range(50):
        opening = tl.opening(seed)
        assert opening.shape == (tl.OPENING_WORDS + 1,) and opening[0] == tl.PERIOD
        assert all(T[a, b] > 0 for a, b in itertools.pairwise(opening))
        np.testing.assert_array_equal(tl.opening(seed), opening)
    assert len({tuple(tl.opening(seed)) for seed in range(50)}) > 10
    assert tl.text(tl.opening(42)) == ". a small dog"
