"""The Acceptance vs divergence page: the chapter's random pairs (cached) and the lower bounds on α."""

from __future__ import annotations

import numpy as np
import streamlit as st

import specmath
from dashboard.params import Section

#: The page's parameters.
EXPERIMENT = Section("Experiment", ("pairs", "kl_vocab", "seed", "logx"))
SECTIONS = (EXPERIMENT,)


@st.cache_data(max_entries=16, show_spinner=False)
def kl_experiment(pairs: int, vocab: int, seed: int) -> specmath.distributions.Divergences:
    """alpha, TV and KL of the chapter's random pairs."""
    P, Q = specmath.random_distribution_pairs(pairs, vocab, rng=seed)
    return specmath.divergences(P, Q)


def bound_curves(kl: np.ndarray, log_x: bool, points: int = 200) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The Pinsker and Bretagnolle-Huber lower bounds on alpha over the range of ``kl``."""
    top = max(float(kl.max()) * 1.05, 1e-3)
    if log_x:
        grid = np.geomspace(max(float(kl.min()) / 2, 1e-6), top, points)
    else:
        grid = np.linspace(0.0, top, points)
    return {
        "Pinsker: α ≥ 1 − √(KL/2)": (grid, specmath.pinsker_bound(grid)),
        "Bretagnolle–Huber: α ≥ 1 − √(1 − e^(−KL))": (grid, specmath.bretagnolle_huber_bound(grid)),
    }
