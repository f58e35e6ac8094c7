"""What a slider press costs per chart when Streamlit remounts a plotly chart and when it updates
an ECharts chart in place, on this machine, in Chromium.

Run: ``.venv/bin/python bench/bench_chart_kinds.py [--presses 24] [--rounds 4] [--charts 1,4]``.
Not a test: it prints figures and always exits 0 (it says so and stops when Chromium or
Playwright is missing).

``bench/chart_kinds_app.py`` shows one slider and N small line charts, each drawn by plotly
(``st.plotly_chart``: a new figure is a new element id, so the chart is remounted and drawn anew)
or by ECharts under a fixed key (``st.echarts_chart``: the chart keeps its instance and takes the
new option in place). Timing is bench_latency.py's: from the key press's time stamp to the frame,
once painted, in which the first chart, and then every chart, shows the new data. Every page stays
open and the presses are split over rounds, so a busy spell of the shared machine falls on all
of them. The ratios are to one plotly chart, which is bench/bare_app.py's page, the floor of
issue 43's guard.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts import live_app  # noqa: E402

JS = Path(__file__).with_name("js")
KEYS_JS = (JS / "keys.js").read_text(encoding="utf-8")
WATCH_JS = (JS / "watch_all.js").read_text(encoding="utf-8")
SLIDER = '[data-testid="stSidebar"] input[type="range"]'


def press(page) -> dict[str, float] | None:
    """One ArrowRight press on the page's slider, timed; the script run is over when it returns."""
    page.locator(SLIDER).focus()
    page.evaluate(WATCH_JS)
    page.keyboard.press("ArrowRight")
    elapsed = page.evaluate("window.__watch")
    live_app.wait_settled(page, None)
    return elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Slider-to-chart time, plotly remounted against ECharts in place.")
    parser.add_argument("--presses", type=int, default=24, help="timed presses per page")
    parser.add_argument("--rounds", type=int, default=4, help="rounds the presses are split over")
    parser.add_argument("--charts", default="1,4", help="chart counts, comma-separated")
    args = parser.parse_args(argv)
    if (missing := live_app.browser_missing()) is not None:
        print(f"bench_chart_kinds: not run: {missing}")
        return
    from playwright.sync_api import sync_playwright

    counts = [int(n) for n in args.charts.split(",")]
    variants = [(kind, n) for n in counts for kind in ("plotly", "echarts")]
    times: dict[tuple[str, int], list[dict[str, float]]] = {v: [] for v in variants}
    with live_app.StreamlitServer(ROOT / "bench" / "chart_kinds_app.py") as server, sync_playwright() as playwright:
        browser = live_app.launch_chromium(playwright)
        pages = {}
        for kind, n in variants:
            context = browser.new_context(viewport=live_app.VIEWPORT)
            live_app.prepare_context(context)
            context.add_init_script(KEYS_JS)
            page = context.new_page()
            page.goto(f"{server.url}/?kind={kind}&charts={n}")
            live_app.wait_settled(page, None)
            press(page)  # untimed: the first press loads the chart code paths
            pages[kind, n] = page
        for r in range(args.rounds):
            share = args.presses // args.rounds + (1 if r < args.presses % args.rounds else 0)
            for variant, page in pages.items():
                for _ in range(share):
                    if (elapsed := press(page)) is not None:
                        times[variant].append(elapsed)
        browser.close()
    floor = statistics.median(t["all"] for t in times["plotly", 1])
    print(f"{'charts':>6} {'drawn by':10} {'presses':>7} {'first chart':>12} {'every chart':>12} {'ratio':>6}")
    for (kind, n), rows in times.items():
        first = statistics.median(t["first"] for t in rows)
        every = statistics.median(t["all"] for t in rows)
        print(f"{n:>6} {kind:10} {len(rows):>7} {first:9.0f} ms {every:9.0f} ms {every / floor:5.2f}×")
    print("Medians from the key press until painted; the ratio is every chart's to one plotly chart's.")


if __name__ == "__main__":
    main()
