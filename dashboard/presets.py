"""Preset (p, q) pairs for the rejection-sampling page, and the simulator's toy chains. Pure NumPy."""

from __future__ import annotations

import numpy as np

import specmath

#: The chapter's 10-token example ("Speculative Decoding Math", Code Implementation).
CHAPTER_P = (0.3, 0.25, 0.15, 0.1, 0.08, 0.05, 0.03, 0.02, 0.01, 0.01)
CHAPTER_Q = (0.2, 0.2, 0.2, 0.15, 0.1, 0.05, 0.04, 0.03, 0.02, 0.01)

PRESET_LABELS = {
    "chapter": "The chapter's 10-token example",
    "identical": "Identical (p = q)",
    "disjoint": "Disjoint supports",
    "greedy_draft": "Greedy draft (one-hot q)",
    "random": "Random Dirichlet pair (the chapter's generator)",
}


def token_labels(size: int) -> list[str]:
    return [f"t{i}" for i in range(size)]


def preset_pair(name: str, vocab: int = 10, seed: int = 42) -> tuple[np.ndarray, np.ndarray]:
    """The (p, q) pair of a preset; ``vocab`` and ``seed`` only matter for ``"random"``."""
    p = np.array(CHAPTER_P)
    if name == "chapter":
        return p, np.array(CHAPTER_Q)
    if name == "identical":
        return p, p.copy()
    if name == "disjoint":
        # The target's mass on the first half of the tokens, the draft's on the second half.
        target = np.array([0.3, 0.25, 0.2, 0.15, 0.1, 0, 0, 0, 0, 0])
        return target, target[::-1].copy()
    if name == "greedy_draft":
        # A greedy draft puts all its mass on its argmax; here the target's second choice.
        return p, np.eye(p.size)[1]
    if name == "random":
        # The chapter's generator: p ~ Dirichlet(1), q a random mixture of p and noise.
        P, Q = specmath.random_distribution_pairs(1, vocab, rng=seed)
        return P[0], Q[0]
    raise ValueError(f"preset must be one of {', '.join(PRESET_LABELS)}, got {name!r}")


def toy_chains(target: str, draft: str, strength: float, vocab: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The (target, draft) pair of bigram chains the simulator page describes."""
    if target == "regimes":
        chain = specmath.two_regime_transition_matrix(vocab, rng=seed)
    else:
        chain = specmath.random_transition_matrix(vocab, 0.5, rng=seed)
    if draft == "merged":
        return chain, specmath.draft_by_merging(chain, min(int(strength), vocab))
    if draft == "temperature":
        return chain, specmath.draft_by_temperature(chain, strength)
    return chain, specmath.draft_by_noise(chain, strength)
