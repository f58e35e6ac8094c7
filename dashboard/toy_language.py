"""A toy language that reads: 21 words, simple sentences, a hand-written target chain over them.

"the small cat sat on the mat ." Every word's successors make grammatical sense: an article is
followed by an adjective or a noun, an animal by a verb or the end of the sentence, a verb by a
preposition, "quietly", "home" or the end, a preposition by an article. The period ends a
sentence and starts the next: its row is the sentence's first word.

The words are ordered by kind (articles, adjectives, animals, places, verbs, prepositions,
adverbs), so the merged draft of ``specmath.draft_by_merging``, which groups contiguous words,
first confuses words of one kind. Pure: NumPy and ``specmath``, no Streamlit.
"""

from __future__ import annotations

import numpy as np

import specmath

WORDS = (
    ".",
    "the",
    "a",
    "big",
    "small",
    "happy",
    "cat",
    "dog",
    "bird",
    "mat",
    "tree",
    "sun",
    "sat",
    "ran",
    "slept",
    "sang",
    "on",
    "under",
    "in",
    "quietly",
    "home",
)

#: Each word's successors and their probabilities; every other successor has probability 0.
_NEXT = {
    ".": {"the": 0.6, "a": 0.4},
    "the": {"big": 0.1, "small": 0.1, "happy": 0.05, "cat": 0.2, "dog": 0.2, "bird": 0.1, "mat": 0.1, "tree": 0.1}
    | {"sun": 0.05},
    "a": {"big": 0.15, "small": 0.15, "happy": 0.1, "cat": 0.2, "dog": 0.2, "bird": 0.15, "tree": 0.05},
    "big": {"cat": 0.3, "dog": 0.4, "tree": 0.3},
    "small": {"cat": 0.35, "dog": 0.25, "bird": 0.4},
    "happy": {"cat": 0.3, "dog": 0.4, "bird": 0.3},
    "cat": {"sat": 0.45, "slept": 0.25, "ran": 0.15, ".": 0.15},
    "dog": {"ran": 0.45, "sat": 0.2, "slept": 0.2, ".": 0.15},
    "bird": {"sang": 0.5, "sat": 0.2, "slept": 0.15, ".": 0.15},
    "mat": {".": 1.0},
    "tree": {".": 1.0},
    "sun": {".": 1.0},
    "sat": {"on": 0.5, "under": 0.2, "in": 0.15, "quietly": 0.15},
    "ran": {"home": 0.3, "under": 0.25, "in": 0.15, "quietly": 0.1, ".": 0.2},
    "slept": {"on": 0.3, "under": 0.25, "in": 0.2, "quietly": 0.15, ".": 0.1},
    "sang": {"quietly": 0.3, ".": 0.3, "in": 0.2, "on": 0.2},
    "on": {"the": 0.8, "a": 0.2},
    "under": {"the": 0.8, "a": 0.2},
    "in": {"the": 0.9, "a": 0.1},
    "quietly": {".": 1.0},
    "home": {".": 1.0},
}

V = len(WORDS)
PERIOD = WORDS.index(".")


def target_chain() -> np.ndarray:
    """The target: a row-stochastic (V, V) matrix, ``T[s, x]`` = P(next word x | word s)."""
    T = np.zeros((V, V))
    for word, successors in _NEXT.items():
        for successor, probability in successors.items():
            T[WORDS.index(word), WORDS.index(successor)] = probability
    return T


#: The draft kinds and what their strength means (as on the Simulator page).
DRAFT_KINDS = ("noise", "temperature", "merged")


def draft_chain(kind: str, strength: float) -> np.ndarray:
    """A draft derived from the target: blurred toward uniform (``noise``, weight in [0, 1]),
    sampled hotter or colder (``temperature``), or seeing only ``strength`` classes of
    contiguous words (``merged``; ``V`` or more is the target itself)."""
    T = target_chain()
    if kind == "noise":
        return specmath.draft_by_noise(T, strength)
    if kind == "temperature":
        return specmath.draft_by_temperature(T, strength)
    if kind == "merged":
        return specmath.draft_by_merging(T, min(int(strength), V))
    raise ValueError(f"draft kind must be one of {DRAFT_KINDS}, got {kind!r}")


#: Words of the opening before the current word, drawn from the target after a period.
OPENING_WORDS = 3


def opening(seed: int) -> np.ndarray:
    """The text before the iteration: a period, then :data:`OPENING_WORDS` words of the target.

    Its last word is the iteration's context. Drawn from its own stream of the seed, so the
    opening and the iteration (``speculative_iteration(..., rng=seed)``) do not share draws.
    """
    rng = np.random.default_rng([seed, 1])
    T = target_chain()
    words = [PERIOD]
    for _ in range(OPENING_WORDS):
        words.append(int(rng.choice(V, p=T[words[-1]])))
    return np.array(words)


def text(tokens) -> str:
    """Word indices as the text they spell, words separated by spaces."""
    return " ".join(WORDS[int(t)] for t in tokens)


def row_log_probabilities(word: str, kind: str, strength: float) -> tuple[np.ndarray, np.ndarray]:
    """The target's and a draft's next-word log-probabilities after ``word``: −inf where impossible.

    As logits they give the rows back under a softmax at temperature 1, and at temperature T
    the rows raised to 1/T and renormalized, impossible words staying impossible.
    """
    row = WORDS.index(word)
    with np.errstate(divide="ignore"):  # log 0 = -inf: an impossible word
        return np.log(target_chain()[row]), np.log(draft_chain(kind, strength)[row])
