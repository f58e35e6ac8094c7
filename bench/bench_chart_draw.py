"""plotly.js's own part of a slider press: each page's chart drawn anew, and updated in place.

Run: ``.venv/bin/python bench/bench_chart_draw.py [--repeats 15]`` (also part of ``make bench``).
Not a test: it prints figures and always exits 0 (it says so and stops when Chromium or
Playwright is missing).

Streamlit 1.67 gives a chart a new element id whenever its figure changes, so every slider
press remounts the chart and plotly.js draws it on a new element (``Plotly.newPlot``). A chart
kept mounted would get ``Plotly.react`` on the element already drawn instead; that is what
Streamlit's open pull request #16052 does for keyed charts. This script times both for the
figures the pages send before and after one press of the slider the latency bench moves (taken
from the pages under ``AppTest``, so exactly what the browser receives), and the same for the
bare page's line chart. Each draw is timed in the dashboard's own page, from the call until the
frame that shows it has been painted (as ``bench_latency.py`` stops its clock), interleaved.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts import live_app  # noqa: E402

#: (name, registry id of the page or None for the bare page, parameters before the press, after it). The
#: pages' states are those the latency bench passes through about halfway.
CASES = [
    ("bare page (floor)", None, {"value": 22}, {"value": 23}),
    ("Speedup, k", "speedup", {"k": "16"}, {"k": "17"}),
    ("Speedup, α", "speedup", {"alpha": "0.68"}, {"alpha": "0.67"}),
    ("Optimal_k, α", "optimal_k", {"alpha": "0.68"}, {"alpha": "0.67"}),
    ("Optimal_k, max k", "optimal_k", {"max_k": "34"}, {"max_k": "35"}),
    ("Rejection_sampling, n", "sampling", {"n": "10000"}, {"n": "100000"}),
    ("Acceptance_vs_KL, pairs", "kl", {"pairs": "340"}, {"pairs": "350"}),
]

#: The JavaScript this module runs in the page, kept in .js files beside it.
JS = Path(__file__).with_name("js")

#: In the page: per case, ms from the call to the painted frame, drawn anew and in place.
DRAW_JS = (JS / "draw.js").read_text(encoding="utf-8")


def sent_figure(page_id: str | None, params: dict) -> str:
    """The figure JSON (with its config) a page sends at ``params``, as the browser receives it."""
    from streamlit.testing.v1 import AppTest

    from tests.app_helpers import open_page, page_charts

    if page_id is None:
        at = AppTest.from_file(str(ROOT / "bench" / "bare_app.py"))
        at.run()
        at.slider[0].set_value(params["value"]).run()
    else:
        at = open_page(page_id, **params)
    figure = page_charts(at)[0]
    config = at.get("plotly_chart")[0].proto.config
    figure["config"] = json.loads(config) if config else {}
    return json.dumps(figure)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="plotly.js draw of each page's chart: anew and in place.")
    parser.add_argument("--repeats", type=int, default=15, help="draws of each kind per case")
    args = parser.parse_args(argv)

    missing = live_app.browser_missing()
    if missing:
        print(f"bench_chart_draw: skipped, {missing}")
        return
    from playwright.sync_api import sync_playwright

    logging.getLogger("streamlit").setLevel(logging.ERROR)  # AppTest outside a server warns per page
    figures = [(sent_figure(script, before), sent_figure(script, after)) for _, script, before, after in CASES]
    with live_app.StreamlitServer() as server, sync_playwright() as playwright:
        browser = live_app.launch_chromium(playwright)
        page = browser.new_page(viewport=live_app.VIEWPORT)
        live_app.prepare_context(page.context)
        page.goto(server.url + "/Speedup")  # loads Streamlit's plotly.js, as the pages use it
        live_app.wait_settled(page, None)
        width = page.evaluate("document.querySelector('[data-testid=\"stPlotlyChart\"]').getBoundingClientRect().width")
        times = page.evaluate(DRAW_JS, [figures, width, args.repeats])
        browser.close()

    floor = statistics.median(times[0]["anew"])
    print(f"plotly.js draw, median of {args.repeats}, ms from the call to the frame painted ({width:.0f} px wide)")
    print(f"{'page, slider':26} {'anew':>7} {'× bare':>7} {'in place':>9} {'× bare':>7}")
    for (name, *_), drawn in zip(CASES, times, strict=True):
        anew, in_place = statistics.median(drawn["anew"]), statistics.median(drawn["inPlace"])
        print(f"{name:26} {anew:7.1f} {anew / floor:6.2f}× {in_place:9.1f} {in_place / floor:6.2f}×")
    print(
        "'anew': Plotly.newPlot on a new element, as each remount in Streamlit 1.67 draws; 'in place': "
        "Plotly.react\non the chart already drawn with the figure before the press (both × the bare page's "
        "chart drawn anew)."
    )


if __name__ == "__main__":
    main()
