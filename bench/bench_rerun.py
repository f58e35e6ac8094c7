"""Server time of one rerun of each page at default settings, measured with AppTest.

Run: ``make bench`` or ``.venv/bin/python bench/bench_rerun.py``. Prints the first run (cold
caches, imports done) and the median and worst of later reruns, which is what a person pays
per widget move. AppTest adds its own overhead, so these figures are an upper bound on the
script time. Not a test; always exits 0.
"""

from __future__ import annotations

import logging
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboard.registry import PAGES  # noqa: E402
from tests.app_helpers import open_page, switch  # noqa: E402

RERUNS = 15
GOAL_MS = 150


def timed_run(at) -> float:
    start = time.perf_counter()
    at.run()
    elapsed = (time.perf_counter() - start) * 1e3
    assert not at.exception, at.exception
    return elapsed


def main() -> None:
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    open_page("home")  # imports, once
    print(f"{'page':34} {'first run':>10} {'rerun median':>13} {'rerun worst':>12}  goal < {GOAL_MS} ms")
    for page_id, page in PAGES.items():
        at = open_page("home")
        if page_id != "home":
            switch(at, page_id)
        first = timed_run(at)
        reruns = [timed_run(at) for _ in range(RERUNS)]
        median = statistics.median(reruns)
        verdict = "met" if median < GOAL_MS else "MISSED"
        print(f"{page.script:34} {first:8.1f} ms {median:10.1f} ms {max(reruns):9.1f} ms  {verdict}")


if __name__ == "__main__":
    main()
