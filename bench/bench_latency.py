"""Interaction latency in Chromium: from a slider key press to the chart showing the new data.

Run: ``make bench`` or ``.venv/bin/python bench/bench_latency.py [--presses 24] [--rounds 4]
[--only Speedup] [--slider batch] [--cold-starts 0]``. Not a test: it prints figures and always exits 0 (it says
so and stops when Chromium or Playwright is missing). On a shared machine the bare page moves
between runs: compare changes within one run, not across runs.

Every page of the registry (``dashboard/registry.py``) with a slider is timed, on one slider: the
first its sections show at the page's defaults that moves a chart there (:func:`page_slider`;
``--slider KEY`` moves another on the pages that have it). A page's lazy tabs (a parameter with
``widget="tabs"``: only the open tab is drawn) are timed one target a tab, the others opened by
the address (``Hardware · Schedule``). The bench names the pages without a slider, which it does
not time. The slider is moved with the keyboard (focus, then
ArrowRight/ArrowLeft: one way while its range allows, else back and forth) over ``--presses``
timed presses (and untimed warm-up presses, below). On Step through the arrow keys press the
page's Next and Back buttons (``dashboard/js/step_keys.js``), which move its Step slider. Timing happens inside the
page with one clock (``performance.now()``): from the keydown event's time stamp until the
frame that first shows the new data is painted. The chart counts from the first animation
frame in which plotly.js holds the new figure's data (a new data array on a chart, checked to differ from the old data)
and the chart is visible: Streamlit 1.67 draws a remounted chart first with ``visibility:
hidden``, before its width is measured, and nobody sees that draw. That frame's callback posts
a task at ``user-blocking`` priority (``scheduler.postTask``); it runs as soon as the frame's
main-thread work (style, layout, paint, commit) is done. A plain message (``MessageChannel``)
would wait behind whatever the page had queued before it (on the map, React's handling of the
messages that follow the chart). The next frame's callback would count that work too. Raster
and display, on the compositor's threads, are not counted.
Before the next press the script run must have finished. A press after which no chart changes
within 5 s of the run's end is not counted (on Step through some steps show the same chart); if
the page's first press does so, its slider moves no chart and the page is not pressed again.

In the same run, side by side, the same is measured on ``bench/bare_app.py`` (one slider, one
small plotly line chart) served by its own Streamlit: that page is Streamlit's own floor on
this machine. The guard (issue 43): each page's median within 2x the bare page's median. Every page stays
open the whole run and the presses are split over ``--rounds`` rounds (bare page, each page,
bare page again), so a slow or fast spell of the shared machine falls on the bare page and the
pages alike. Each round's share of presses follows one untimed press (two on a page's first).

Cold start: time from spawning ``streamlit run app.py`` until the first chart of a page opened
right away (``/Speedup``) is painted, with the browser already running; median of three starts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboard.params import PARAMS  # noqa: E402
from dashboard.registry import PAGES  # noqa: E402
from scripts import live_app  # noqa: E402

#: The guard of issue 43: every page's median within this many times the bare page's.
GOAL_RATIO = 2.0
#: Untimed presses before a page's first timed press, and before each later round's (the page
#: sat idle meanwhile).
WARM_UP = 2
WARM_UP_LATER = 1

#: The JavaScript this module runs in the page, kept in .js files beside it.
JS = Path(__file__).with_name("js")

#: Installed before the page loads: the time each websocket message from the server is handled.
SOCKET_JS = (JS / "socket.js").read_text(encoding="utf-8")

#: Installed before the page loads: the time of the key press, whatever the page's own key handlers do.
KEYS_JS = (JS / "keys.js").read_text(encoding="utf-8")

#: Run in the page before a key press: ``window.__watch`` resolves once a chart shows new data.
WATCH_JS = (JS / "watch.js").read_text(encoding="utf-8")


@dataclass
class Target:
    name: str
    server: str  # "app" or "bare"
    path: str
    slider: str  # the slider's label
    keys: list[str]  # one key per press, warm-up included


def bounce(right: int, left: int, total: int) -> list[str]:
    """Keys that move a slider ``right`` steps up, then back and forth over ``right + left`` steps."""
    keys = ["ArrowRight"] * right
    span = right + left
    while len(keys) < total:
        keys += ["ArrowLeft"] * span + ["ArrowRight"] * span
    return keys[:total]


def presses_needed(timed: int, chunks: int) -> int:
    """Key presses for ``timed`` timed presses measured in ``chunks`` chunks, warm-ups included
    (as :meth:`OpenPage.measure` takes them)."""
    return timed + WARM_UP + WARM_UP_LATER * (chunks - 1)


def _path(page_id: str) -> str:
    return "/" + PAGES[page_id].url_path


#: Parameters moved over part of their range only, (steps up, steps down) from the default: the
#: sampler's 3M draws cost seconds of sampling, the page's work rather than the page's overhead,
#: and 1k … 1M keep the bench's earlier figures comparable.
RANGES = {"n": (2, 4)}


def _shown_by_default(key: str) -> bool:
    """Whether parameter ``key``'s widget is on its page before anything is moved (its chained conditions hold)."""
    condition = PARAMS[key].shown_when
    if condition is None:
        return True
    other, value = condition
    return PARAMS[other].default == value and _shown_by_default(other)


#: Sliders a page shows at its defaults that move none of its charts there: the router makes the
#: shared α's slider on every page that reads it, and Draft trees reads it only for a chain.
IDLE_AT_DEFAULTS = {"trees": {"alpha"}}


def page_slider(page_id: str) -> str | None:
    """The key of the first slider ``page_id`` shows at its defaults (its sections' order) that moves
    a chart there, or None."""
    for key in PAGES[page_id].params:
        if (
            PARAMS[key].widget_type in ("slider", "select_slider")
            and _shown_by_default(key)
            and key not in IDLE_AT_DEFAULTS.get(page_id, ())
        ):
            return key
    return None


def room(key: str) -> tuple[int, int]:
    """Keyboard steps from parameter ``key``'s default to its top and to its bottom."""
    if key in RANGES:
        return RANGES[key]
    param = PARAMS[key]
    if param.kind == "choice":
        at = list(param.options).index(param.default)
        return len(param.options) - 1 - at, at
    return round((param.high - param.default) / param.step), round((param.default - param.low) / param.step)


def moves(key: str, total: int) -> list[str]:
    """``total`` keys for parameter ``key``'s slider: one way while its range allows, else back and forth.

    One way, each press asks for values not computed before; a range too short for that is swept
    back and forth, later passes then finding cached results, as for a person moving it to and fro.
    """
    up, down = room(key)
    if up >= total:
        return ["ArrowRight"] * total
    if down >= total:
        return ["ArrowLeft"] * total
    return bounce(up, down, total)


def untimed() -> dict[str, str]:
    """The pages the bench does not time, each with the reason."""
    return {
        page.title: "no slider at its defaults" if page.sections else "no parameters"
        for page_id, page in PAGES.items()
        if page_slider(page_id) is None
    }


def targets(presses: int, rounds: int, slider: str = "") -> list[Target]:
    """The bare page first, then one slider per page of the registry (:func:`page_slider`, or
    ``slider`` on pages that have it); keys for ``presses`` timed presses in ``rounds`` rounds
    (the bare page's twice as many: it is measured before and after the pages each round)."""
    total = presses_needed(presses, rounds)
    chosen = [
        Target("bare page (floor)", "bare", "/", "Value", ["ArrowRight"] * presses_needed(2 * presses, 2 * rounds))
    ]
    for page_id, page in PAGES.items():
        key = slider if slider in page.params else page_slider(page_id)
        if key is None:
            continue
        chosen.append(Target(f"{page.title}, {key}", "app", _path(page_id), PARAMS[key].label, moves(key, total)))
        # A page's lazy tabs draw only the open one: each other tab is timed as a page of its own.
        for tabs in (PARAMS[name] for name in page.params if PARAMS[name].widget_type == "tabs"):
            for option in (o for o in tabs.options if o != tabs.default):
                label = tabs.fmt(option)
                path = f"{_path(page_id)}?{urlencode({tabs.key: label})}"
                chosen.append(
                    Target(f"{page.title} · {label}, {key}", "app", path, PARAMS[key].label, moves(key, total))
                )
    return chosen


class OpenPage:
    """One target's page, kept open in its own browser context over the whole run."""

    def __init__(self, browser, base_url: str, target: Target):
        self.target = target
        self.keys = iter(target.keys)
        self.context = browser.new_context(viewport=live_app.VIEWPORT)
        live_app.prepare_context(self.context)
        self.context.add_init_script(SOCKET_JS)
        self.context.add_init_script(KEYS_JS)
        self.page = self.context.new_page()
        self.page.goto(base_url + target.path)
        live_app.wait_settled(self.page, None)
        self.slider = self.page.locator(f'[data-testid="stSidebar"] input[type="range"][aria-label="{target.slider}"]')
        self.presses = 0
        self.stuck = False  # the first press showed no new chart: the slider moves none here
        self.charted = False  # a press has shown a new chart

    def measure(self, presses: int) -> list[dict[str, float]]:
        """``presses`` timed presses after untimed ones (``WARM_UP`` the first time, then
        ``WARM_UP_LATER``: the page sat idle while the others were measured).

        Per timed press: ms from the key press to the chart painted (``chart``), to the script run
        starting (``run_start``) and ending (``run_end``), to the last websocket message handled.
        """
        times = []
        warm_up = WARM_UP if self.presses == 0 else WARM_UP_LATER
        for i in range(warm_up + presses):
            if self.stuck:
                break
            if self.page.evaluate("document.activeElement?.getAttribute('aria-label')") != self.target.slider:
                self.slider.focus()
            self.page.evaluate(WATCH_JS)
            self.page.keyboard.press(next(self.keys))
            self.presses += 1
            elapsed = self.page.evaluate("window.__watch")
            live_app.wait_settled(self.page, None)
            if elapsed is None:
                # A page whose slider has moved a chart may show the same chart for some values.
                self.stuck = not self.charted
                then = "no more presses" if self.stuck else "not counted"
                print(f"note: {self.target.name}: press {self.presses} showed no new chart; {then}")
            else:
                self.charted = True
                if i >= warm_up:
                    times.append(elapsed)
        return times

    def close(self) -> None:
        self.context.close()


def measure_interleaved(browser, urls: dict[str, str], chosen: list[Target], presses: int, rounds: int):
    """Every target's timed presses, in ``rounds`` rounds: the bare page, each page, the bare page.

    All pages stay open, so a round only moves sliders; a slow spell of the shared machine then
    falls on the bare page and the pages alike instead of on whichever was measured at the time.
    """
    pages = [OpenPage(browser, urls[target.server], target) for target in chosen]
    results: dict[str, list[dict[str, float]]] = {target.name: [] for target in chosen}
    bare, others = pages[0], pages[1:]
    for r in range(rounds):
        share = presses // rounds + (1 if r < presses % rounds else 0)
        results[bare.target.name] += bare.measure(share)
        for page in others:
            results[page.target.name] += page.measure(share)
        results[bare.target.name] += bare.measure(share)
    for page in pages:
        page.close()
    return results


def cold_start(playwright, runs: int) -> list[tuple[float, float]]:
    """(seconds to /_stcore/health, seconds to the first chart painted) per fresh start."""
    out = []
    browser = live_app.launch_chromium(playwright)
    for _ in range(runs):
        server = live_app.StreamlitServer()
        try:
            server.spawn()
            server.wait()
            healthy = time.perf_counter() - server.started_at
            context = browser.new_context(viewport=live_app.VIEWPORT)
            live_app.prepare_context(context)
            page = context.new_page()
            page.goto(server.url + _path("speedup"))
            page.wait_for_function("window.__sde && window.__sde.ready(1)", timeout=120_000, polling="raf")
            page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
            out.append((healthy, time.perf_counter() - server.started_at))
            context.close()
        finally:
            server.stop()
    browser.close()
    return out


def chromium_version() -> str:
    try:
        return subprocess.run([live_app.CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Slider-to-chart latency in Chromium, against a bare page.")
    parser.add_argument("--presses", type=int, default=24, help="measured presses per page (at least 20)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds the presses are split over")
    parser.add_argument("--cold-starts", type=int, default=3, help="0 skips the cold-start figure")
    parser.add_argument("--only", default="", help="measure only pages whose name contains this (the bare page always)")
    parser.add_argument("--slider", default="", help="on pages that have this parameter, move its slider instead")
    args = parser.parse_args(argv)

    missing = live_app.browser_missing()
    if missing:
        print(f"bench_latency: skipped, {missing}")
        return
    import streamlit
    from playwright.sync_api import sync_playwright

    print(f"Interaction latency: {chromium_version()}, Streamlit {streamlit.__version__}, {os.cpu_count()} cores")
    with sync_playwright() as playwright:
        cold = cold_start(playwright, args.cold_starts) if args.cold_starts > 0 else []
        with live_app.StreamlitServer() as app, live_app.StreamlitServer(ROOT / "bench" / "bare_app.py") as bare:
            browser = live_app.launch_chromium(playwright)
            everything = targets(args.presses, args.rounds, args.slider)
            chosen = [t for t in everything if t.server == "bare" or args.only in t.name]
            urls = {"app": app.url, "bare": bare.url}
            results = measure_interleaved(browser, urls, chosen, args.presses, args.rounds)
            browser.close()

    def median(rows: list[dict], key: str) -> float:
        values = [row[key] for row in rows if row[key] is not None]
        return statistics.median(values) if values else float("nan")

    floor = median(results["bare page (floor)"], "chart")
    print(
        f"\n{'page, slider':34} {'presses':>7} {'median':>7} {'worst':>7} {'ratio':>6}  {'guard':6}"
        f" | medians: {'run starts':>10} {'last message':>12} {'run ends':>8}"
    )
    for name, rows in results.items():
        if not rows:
            print(f"{name:34} {0:7d} no new chart: not timed")
            continue
        chart = median(rows, "chart")
        ratio = chart / floor
        verdict = "" if name.startswith("bare") else ("within" if ratio <= GOAL_RATIO else "OVER")
        worst = max(row["chart"] for row in rows)
        print(
            f"{name:34} {len(rows):7d} {chart:4.0f} ms {worst:4.0f} ms {ratio:5.2f}×  {verdict:6}"
            f" | {median(rows, 'run_start'):7.0f} ms {median(rows, 'last_message'):9.0f} ms"
            f" {median(rows, 'run_end'):5.0f} ms"
        )
    print(
        f"All times from the key press: 'median' and 'worst' until the new chart is painted; the guard is a "
        f"median ≤ {GOAL_RATIO:g}× the bare page's.\n'run starts' / 'run ends': the rerun as the page sees it; 'last "
        f"message': when the page handled the rerun's last websocket message; on a busy page the server "
        f"sent it well before."
    )
    for title, why in untimed().items():
        print(f"Not timed: {title} ({why}).")
    if not cold:
        return
    healthy = statistics.median(h for h, _ in cold)
    painted = statistics.median(p for _, p in cold)
    runs = ", ".join(f"{p:.1f}" for _, p in cold)
    print(
        f"\nCold start (streamlit run -> first chart painted on /Speedup): median {painted:.1f} s "
        f"over {len(cold)} starts ({runs} s); server healthy after {healthy:.1f} s"
    )


if __name__ == "__main__":
    main()
