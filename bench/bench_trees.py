"""Time the draft-tree search and print the Sequoia vector's best trees.

Run: ``.venv/bin/python bench/bench_trees.py``. Not a test: it prints numbers and whether the
goal of issue 21 is met, and always exits 0.

- ``optimal_tree_table`` at 32 ranks (the Sequoia vector), budget 128, depth 16: goal < 1 s.
- The Sequoia vector's best expected tokens at 32 nodes and depth 9 (Sequoia's own
  ``tree_search.py`` counts 10 levels), and at a few other budgets, beside the chain
  (``expected_tokens(p_1, budget - 1)``) and SGLang's EAGLE tree at matching settings.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import specmath as sm
from bench.timing import median_seconds

REPEATS = 7
EAGLE_TOPK = 4


def main():
    p = sm.SEQUOIA_ACCEPTANCE
    table_time = median_seconds(lambda: sm.optimal_tree_table(p, 128, 16), repeats=REPEATS)
    print(f"optimal_tree_table, {p.size} ranks, budget 128, depth 16: {table_time * 1e3:.1f} ms (median of {REPEATS})")

    print(f"Sequoia vector ({sm.presets.SEQUOIA_ACCEPTANCE_SOURCE})")
    print(f"  {'budget':>6} {'depth':>5} {'best tree':>9} {'chain':>6} {f'EAGLE top-{EAGLE_TOPK}':>11}")
    table = sm.optimal_tree_table(p, 128, 16)
    for budget, depth in [(32, 9), (4, 3), (8, 5), (16, 7), (64, 10), (128, 12), (128, 16)]:
        chain = sm.expected_tokens(p[0], min(budget - 1, depth))
        eagle, _ = sm.eagle_tree(p, num_steps=depth, topk=EAGLE_TOPK, num_draft_tokens=budget)
        print(f"  {budget:>6} {depth:>5} {table[budget, depth]:>9.4f} {chain:>6.3f} {eagle:>11.4f}")

    print("goal:")
    print(f"  table at 32 ranks, 128, 16 under 1 s: {table_time * 1e3:.1f} ms  {'met' if table_time < 1 else 'MISSED'}")


if __name__ == "__main__":
    main()
