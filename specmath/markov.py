"""A real generative toy: target and draft are bigram Markov chains over a small vocabulary.

A chain is a row-stochastic matrix ``T`` with ``T[s, x] = P(next = x | previous = s)``. The
drafts are derived from a target in three ways a practitioner meets: mixing with noise (an
under-trained draft), a temperature (a draft sampled hotter or colder), and a draft with fewer
context states (a smaller model that cannot tell some contexts apart).
"""

from __future__ import annotations

import numpy as np

from ._validate import SUM_TOLERANCE, as_count, as_float_array, as_number, as_rng, shown

#: Largest vocabulary of a toy chain: the page shows it as letters, and decoding loops over it.
MAX_CHAIN_VOCAB = 64


def as_transition_matrix(value, name: str) -> np.ndarray:
    """Check a bigram transition matrix: square, finite, non-negative rows summing to 1."""
    T = as_float_array(value, name)
    if T.ndim != 2 or T.shape[0] != T.shape[1] or T.shape[0] == 0:
        raise ValueError(f"{name} must be a square 2-D transition matrix, got shape {T.shape}")
    if T.shape[0] > MAX_CHAIN_VOCAB:
        raise ValueError(f"{name} has {T.shape[0]} states; at most {MAX_CHAIN_VOCAB} are supported")
    if not np.isfinite(T).all():
        raise ValueError(f"{name} contains NaN or an infinite value")
    if (T < 0).any():
        raise ValueError(f"{name} has a negative entry; probabilities must be >= 0")
    sums = T.sum(axis=1)
    off = np.abs(sums - 1.0) > SUM_TOLERANCE
    if off.any():
        row = int(np.flatnonzero(off)[0])
        raise ValueError(f"{name} row {row} sums to {sums[row]:.9g}, not 1 (tolerance {SUM_TOLERANCE:g})")
    return T / sums[:, None]


def random_transition_matrix(vocab_size, concentration=0.5, rng=None) -> np.ndarray:
    """A random target chain: each row ~ Dirichlet(concentration).

    Small concentrations give peaked, text-like rows (a few likely next tokens per context).

    Parameters
    ----------
    vocab_size : int
        Number of states, 2 to :data:`MAX_CHAIN_VOCAB`.
    concentration : float, default 0.5
        Dirichlet parameter, > 0.
    rng : numpy.random.Generator, int or None
        Source of randomness.
    """
    vocab_size = as_count(vocab_size, "vocab_size", cap=MAX_CHAIN_VOCAB, minimum=2)
    if not 0 < as_number(concentration, "concentration") < np.inf:
        raise ValueError(f"concentration must be a finite number > 0, got {shown(concentration)}")
    rng = as_rng(rng)
    rows = rng.standard_gamma(concentration, size=(vocab_size, vocab_size))
    rows += 1e-300  # a row of gamma draws can underflow to all zeros at tiny concentrations
    return rows / rows.sum(axis=1, keepdims=True)


def two_regime_transition_matrix(vocab_size, stay=0.9, rng=None) -> np.ndarray:
    """A text-like target with a predictable regime and an unpredictable one, each sticky.

    The first half of the tokens is "boilerplate": next-token rows ~ Dirichlet(0.1), peaked. The
    second half is "content": rows ~ Dirichlet(3), diffuse. From either regime the next token
    stays in it with probability ``stay``. Because regimes persist, how well a draft does at one
    position predicts how it does at the next: the correlation the i.i.d. formula ignores.

    Parameters
    ----------
    vocab_size : int
        Number of states, 2 to :data:`MAX_CHAIN_VOCAB`.
    stay : float, default 0.9
        Probability of staying in the current regime, in [0, 1].
    rng : numpy.random.Generator, int or None
        Source of randomness.
    """
    vocab_size = as_count(vocab_size, "vocab_size", cap=MAX_CHAIN_VOCAB, minimum=2)
    if not 0.0 <= as_number(stay, "stay") <= 1.0:
        raise ValueError(f"stay must be within [0, 1], got {shown(stay)}")
    rng = as_rng(rng)
    half = vocab_size // 2
    in_boilerplate = np.arange(vocab_size) < half
    to_boilerplate = np.where(in_boilerplate, stay, 1.0 - stay)[:, None]
    T = np.empty((vocab_size, vocab_size))
    T[:, :half] = to_boilerplate * rng.dirichlet(np.full(half, 0.1), size=vocab_size)
    T[:, half:] = (1.0 - to_boilerplate) * rng.dirichlet(np.full(vocab_size - half, 3.0), size=vocab_size)
    return T


def stationary_distribution(T) -> np.ndarray:
    r"""The stationary law :math:`\pi = \pi T` of a chain (the one reached from uniform, if several).

    Solved as a linear system with the normalization :math:`\sum \pi = 1` in place of one
    balance equation; a chain with several closed classes falls back to averaging the
    uniform start over many steps.
    """
    T = as_transition_matrix(T, "T")
    size = T.shape[0]
    system = T.T - np.eye(size)
    system[-1] = 1.0
    rhs = np.zeros(size)
    rhs[-1] = 1.0
    try:
        pi = np.linalg.solve(system, rhs)
    except np.linalg.LinAlgError:
        pi = np.full(size, 1.0 / size) @ np.linalg.matrix_power(T, 4096)
    pi = np.maximum(pi, 0.0)
    return pi / pi.sum()


def draft_by_noise(T, weight) -> np.ndarray:
    """Draft ``(1 - weight) T + weight / V``: the target blurred toward uniform.

    ``weight`` in [0, 1]; 0 is the target itself, 1 a draft that knows nothing.
    """
    T = as_transition_matrix(T, "T")
    given, weight = weight, as_number(weight, "weight")
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight must be within [0, 1], got {shown(given)}")
    return (1.0 - weight) * T + weight / T.shape[0]


def draft_by_temperature(T, temperature) -> np.ndarray:
    r"""Draft rows :math:`\propto T(s, \cdot)^{1/\tau}`: sampled hotter (> 1) or colder (< 1).

    Tokens impossible under the target stay impossible; ``temperature = 1`` is the target.
    """
    T = as_transition_matrix(T, "T")
    given, temperature = temperature, as_number(temperature, "temperature")
    if not 0 < temperature < np.inf:
        raise ValueError(f"temperature must be a finite number > 0, got {shown(given)}")
    # Scale each row by its maximum before the power so small temperatures cannot underflow.
    scaled = (T / T.max(axis=1, keepdims=True)) ** (1.0 / temperature)
    return scaled / scaled.sum(axis=1, keepdims=True)


def draft_by_merging(T, n_states) -> np.ndarray:
    """Draft that sees only ``n_states`` context classes: a smaller model fitted to the target.

    Previous tokens are grouped into ``n_states`` contiguous classes; every context in a class
    gets the same next-token law, the target's rows averaged with stationary weights (the
    best such model in expected log-likelihood). ``n_states = V`` is the target, 1 a unigram
    model.
    """
    T = as_transition_matrix(T, "T")
    size = T.shape[0]
    n_states = as_count(n_states, "n_states", cap=size)
    pi = stationary_distribution(T)
    group = np.arange(size) * n_states // size
    weights = np.zeros((n_states, size))
    weights[group, np.arange(size)] = pi + 1e-300  # a class of zero stationary mass still averages
    merged = (weights @ T) / weights.sum(axis=1, keepdims=True)
    return merged[group]


def state_acceptance(target, draft) -> np.ndarray:
    r"""Per-context acceptance rate :math:`\alpha(s) = \sum_x \min(T(s, x), D(s, x))`."""
    target = as_transition_matrix(target, "target")
    draft = as_transition_matrix(draft, "draft")
    if target.shape != draft.shape:
        raise ValueError(f"target and draft must have the same shape, got {target.shape} and {draft.shape}")
    return np.minimum(target, draft).sum(axis=1)
