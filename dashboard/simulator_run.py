"""What the Simulator page computes for one setting: a pure function, so it can run in the worker.

No Streamlit here: :func:`dashboard.workers.call` sends :func:`simulator_run` to the worker
process, which imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import specmath
from dashboard.presets import toy_chains

#: Tokens of the first sequence kept for the coloured sample.
SAMPLE_LENGTH = 160


@dataclass(frozen=True)
class SimulatorRun:
    """What the simulator page shows of one run (small: no full records)."""

    summary: specmath.DecodeSummary
    emitted_counts: np.ndarray  # iterations that emitted n = 1 … k + 1 tokens
    sample_tokens: np.ndarray
    sample_kinds: np.ndarray
    stationary_alpha: float  # sum_s pi(s) alpha(s) under the target's stationary law


def simulator_run(
    target: str, draft: str, strength: float, vocab: int, k: int, tokens: int, seed: int, length: int
) -> SimulatorRun:
    """Decode ``tokens`` tokens on the toy chains, as sequences of ``length``, and keep what the page shows."""
    chain, draft_chain = toy_chains(target, draft, strength, vocab, seed)
    sequences = max(1, tokens // length)
    records = specmath.speculative_decode(chain, draft_chain, k, length, rng=seed, n_sequences=sequences)
    pi = specmath.stationary_distribution(chain)
    return SimulatorRun(
        summary=specmath.decode_summary(records),
        emitted_counts=np.bincount(records.emitted, minlength=k + 2)[1:],
        sample_tokens=records.tokens[0, :SAMPLE_LENGTH].copy(),  # not a view of the whole text
        sample_kinds=records.kinds[0, :SAMPLE_LENGTH].copy(),
        stationary_alpha=float(pi @ specmath.state_acceptance(chain, draft_chain)),
    )
