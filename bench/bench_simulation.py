"""Throughput of the sequence simulator: i.i.d. blocks and speculative decoding on Markov chains.

Run: ``make bench`` or ``.venv/bin/python bench/bench_simulation.py``. Prints figures; not a test.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import numpy as np

import specmath as sm
from bench.timing import median_seconds


def main():
    rng = np.random.default_rng(0)
    n = 1_000_000
    for alpha, k in ((0.8, 4), (0.95, 16)):
        t = median_seconds(lambda a=alpha, kk=k: sm.simulate_iid_blocks(a, kk, n, rng=rng))
        print(
            f"simulate_iid_blocks alpha={alpha}, k={k}: 1M iterations in {t * 1e3:.1f} ms "
            f"({n / t / 1e6:.1f}M iterations/s)"
        )

    chain = sm.two_regime_transition_matrix(16, rng=0)
    draft = sm.draft_by_merging(chain, 4)
    for k, length, sequences in ((4, 100_000, 1), (4, 1_000, 1_000), (8, 1_000, 1_000)):
        t = median_seconds(
            lambda kk=k, m=length, s=sequences: sm.speculative_decode(chain, draft, kk, m, rng=rng, n_sequences=s),
            repeats=3,
        )
        tokens = length * sequences
        print(
            f"speculative_decode V=16, k={k}, {sequences:,} sequence(s) x {length:,} tokens: "
            f"{t * 1e3:.0f} ms ({tokens / t / 1e6:.2f}M tokens/s)"
        )

    # The Simulator page: 100k tokens as 500 sequences of 200 (its defaults), and its heaviest
    # link, k = 64 at the cap of 2M tokens x (k + 1).
    chain = sm.two_regime_transition_matrix(8, rng=0)
    draft = sm.draft_by_merging(chain, 2)
    for k, sequences in ((8, 500), (64, 2_000_000 // 65 // 200)):
        t = median_seconds(
            lambda kk=k, s=sequences: sm.speculative_decode(chain, draft, kk, 200, rng=rng, n_sequences=s),
            repeats=5,
        )
        print(f"speculative_decode V=8, k={k}, {sequences:,} sequences x 200 tokens (Simulator page): {t * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
