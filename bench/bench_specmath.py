"""Time specmath's hot paths against their baselines and print the figures.

Run: ``make bench`` or ``.venv/bin/python bench/bench_specmath.py``. Not a test: it prints
numbers and whether each goal of issue 2 is met, and always exits 0.

- ``speculative_sample`` at n = 1,000,000, vocabularies 10 and 32,000, beside
  (a) the chapter's scalar loop (``rng.choice`` + ``sample_with_rejection`` per sample), timed on
  fewer samples and reported per sample, and (b) drawing the uniforms the sampler consumes
  (one per draft, one per acceptance test, one per residual draw) and nothing else.
- ``optimal_k`` on a 201 x 201 grid of (alpha, c) with max_k = 64.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import specmath as sm
from bench.timing import median_seconds

N = 1_000_000
SCALAR_N = 3_000
REPEATS = 9


def chapter_scalar_loop(p, q, n, rng):
    """The chapter's per-sample code: draft with rng.choice, accept or resample from the residual."""
    out = []
    for _ in range(n):
        draft = rng.choice(len(q), p=q)
        if rng.uniform() < min(1.0, p[draft] / q[draft]):
            out.append(draft)
        else:
            residual = np.maximum(0, p - q)
            residual = residual / residual.sum()
            out.append(rng.choice(len(p), p=residual))
    return out


def bench_sampler(vocab, p, q):
    rng = np.random.default_rng(0)
    alpha = sm.acceptance_probability(p, q)
    uniforms_needed = int(N * (2 + (1 - alpha)))
    vec = median_seconds(lambda: sm.speculative_sample(p, q, N, rng=rng), repeats=REPEATS)
    bare = median_seconds(lambda: rng.random(uniforms_needed), repeats=REPEATS)
    scalar = median_seconds(lambda: chapter_scalar_loop(p, q, SCALAR_N, rng), repeats=3)
    per_vec, per_scalar = vec / N, scalar / SCALAR_N
    print(
        f"vocab {vocab:>6,}  alpha {alpha:.3f}  sampler {vec * 1e3:7.1f} ms/1M ({per_vec * 1e9:6.1f} ns/sample)"
        f"  | scalar loop {per_scalar * 1e6:7.1f} us/sample -> {per_scalar / per_vec:8.0f}x faster"
        f"  | bare uniforms ({uniforms_needed / 1e6:.2f}M) {bare * 1e3:6.1f} ms -> sampler {vec / bare:4.2f}x"
    )
    return per_scalar / per_vec, vec / bare


def main():
    chapter_p = np.array([0.3, 0.25, 0.15, 0.1, 0.08, 0.05, 0.03, 0.02, 0.01, 0.01])
    chapter_q = np.array([0.2, 0.2, 0.2, 0.15, 0.1, 0.05, 0.04, 0.03, 0.02, 0.01])
    big = np.random.default_rng(1)
    big_p, big_q = big.dirichlet(np.full(32_000, 0.5)), big.dirichlet(np.full(32_000, 0.5))
    big_q = 0.5 * big_q + 0.5 * big_p  # a draft that is neither identical nor disjoint

    print(f"speculative_sample, n = {N:,}, median of {REPEATS} runs")
    speedup_10, ratio_10 = bench_sampler(10, chapter_p, chapter_q)
    _, ratio_32k = bench_sampler(32_000, big_p, big_q)

    alpha = np.linspace(0, 1, 201)
    c = np.geomspace(1, 200, 201)[:, None]
    opt = median_seconds(lambda: sm.optimal_k(alpha, c, max_k=64), repeats=21)
    print(f"optimal_k on 201 x 201 grid, max_k = 64: {opt * 1e3:.1f} ms (median of 21)")

    print("goals:")
    print(f"  >= 500x the scalar loop at vocab 10: {speedup_10:.0f}x  {'met' if speedup_10 >= 500 else 'MISSED'}")
    worst = max(ratio_10, ratio_32k)
    print(f"  within 5x of bare uniforms:          {worst:.2f}x  {'met' if worst <= 5 else 'MISSED'}")
    print(f"  optimal_k grid under 50 ms:          {opt * 1e3:.1f} ms  {'met' if opt < 0.05 else 'MISSED'}")


if __name__ == "__main__":
    main()
