"""A page's floor: its own elements drawn with nothing computed, timed beside the page and the bare page.

Run: ``make bench`` or ``.venv/bin/python bench/bench_floor.py [--only Hardware] [--presses 16] [--rounds 2]
[--repeats 2]``.
Not a test: it prints figures and always exits 0 (it says so and stops when Chromium or
Playwright is missing).

For each target of ``bench_latency.py`` whose name contains ``--only``, the page is opened under
AppTest (as the app runs it, the target's link parameters set) at every value the bench's key
presses move its slider to, and its sidebar and main area are kept as element trees: widgets,
texts, metrics, charts with their options and heights. ``bench/floor_app.py`` serves them at the
page's address and draws, on each press, the capture at the slider's new value, computing
nothing. Then the bare page, the page and its floor are timed as ``bench_latency.py`` times them,
interleaved over ``--rounds``, ``--repeats`` times with the page and its floor taking turns to go
first. The page's figure over its floor's is what the dashboard's own work costs a press; the
floor over the bare page is what Streamlit 1.67 and the browser spend on the page's elements.

The page's fragment (``ui.interactive``) is captured with a mark in each block it draws, and
the floor draws those blocks in a fragment of its own, so that a press of a page's own slider
reruns the same part of the page on both. A page whose fragment writes into blocks made outside
it (Rejection sampling) is not timed. Elements the floor does not draw (data grids, tables,
download buttons) are named.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from unittest import mock
from urllib.parse import parse_qsl, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import bench_latency  # noqa: E402
from dashboard.params import PARAMS  # noqa: E402
from dashboard.registry import PAGES  # noqa: E402
from scripts import live_app  # noqa: E402

#: Element types floor_app.py draws; others are left out of the floor and named.
DRAWN = frozenset(
    {
        *("markdown", "caption", "latex", "divider", "title", "header", "subheader", "html", "code", "metric"),
        *("info", "warning", "error", "success", "echarts_chart", "plotly_chart"),
        *("slider", "select_slider", "selectbox", "radio", "number_input", "text_input", "text_area"),
        *("checkbox", "toggle", "multiselect", "button"),
    }
)


#: What the page's fragment draws first in each of its blocks while it is captured.
FRAGMENT = '<span data-bench-floor="fragment"></span>'


def values_pressed(key: str, keys: list[str]) -> list:
    """The values parameter ``key``'s slider takes over the presses ``keys``, its default first."""
    param = PARAMS[key]
    if param.kind == "choice":
        options = list(param.options)
        at = options.index(param.default)
        seen = [param.default]
        for press in keys:
            at += 1 if press == "ArrowRight" else -1
            seen.append(options[at])
    else:
        value, seen = param.default, [param.default]
        for press in keys:
            value = round(value + (param.step if press == "ArrowRight" else -param.step), 10)
            seen.append(value)
    return list(dict.fromkeys(seen))


def _tree(node, heights: dict[str, int], left_out: set[str]) -> list[dict]:
    from google.protobuf.json_format import MessageToDict

    out = []
    for child in node.children.values():
        proto = MessageToDict(child.proto, preserving_proto_field_name=True) if child.proto is not None else {}
        entry = {"type": child.type, "proto": proto}
        if isinstance(getattr(child, "children", None), dict):  # a block (AppTest's Block)
            children = _tree(child, heights, left_out)
            if children and children[0]["type"] == "html" and children[0]["proto"].get("body") == FRAGMENT:
                entry["fragment"] = True  # drawn by the page's fragment (see capture)
                children = children[1:]
            entry.update(children=children, label=getattr(child, "label", ""))
        elif child.type not in DRAWN:
            left_out.add(child.type)
            continue
        elif getattr(child, "key", None):
            entry["key"] = child.key
        if child.type == "echarts_chart":
            entry["height"] = heights[child.key]
        out.append(entry)
    return out


def slider_path(sidebar: list[dict], label: str) -> tuple[int, ...] | None:
    """Where the slider ``label`` is in a captured sidebar: (i,) among the router's widgets, (i, j)
    in a block (the page's fragment's), or None."""
    for i, node in enumerate(sidebar):
        if node.get("proto", {}).get("label") == label and "children" not in node:
            return (i,)
        for j, child in enumerate(node.get("children", [])):
            if child.get("proto", {}).get("label") == label:
                return i, j
    return None


def redrawable(data: dict) -> bool:
    """Whether floor_app.py can draw the capture: the timed slider is the router's, or its page's
    fragment drew it in a block of its own (Rejection sampling's fragment writes into containers
    the page made before it)."""
    path = data["slider_path"]
    return path is not None and (
        len(path) == 1 or bool(data["captures"][0]["tree"]["sidebar"][path[0]].get("fragment"))
    )


def capture(target: bench_latency.Target, page_id: str, key: str) -> tuple[dict, set[str]]:
    """The page's element trees at each value the target's presses move ``key`` to."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    query = dict(parse_qsl(urlsplit(target.path).query))
    heights: dict[str, int] = {}
    drawn = st.echarts_chart

    def echarts_chart(option, *args, key=None, height=None, **kwargs):
        heights[key] = height
        return drawn(option, *args, key=key, height=height, **kwargs)

    fragment = st.fragment

    def marked(body):
        # The page's fragment marks the blocks it draws in, the sidebar's and the main area's.
        def run():
            st.html(FRAGMENT)
            st.sidebar.html(FRAGMENT)
            body()

        return fragment(run)

    left_out: set[str] = set()
    captures = []
    with mock.patch.object(st, "echarts_chart", echarts_chart), mock.patch.object(st, "fragment", marked):
        for value in values_pressed(key, target.keys):
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
            at.run()  # registers st.navigation's pages
            at.switch_page(PAGES[page_id].script)
            for name, text in {**query, key: PARAMS[key].url_text(value)}.items():
                at.query_params[name] = text
            at.run()
            tree = {"sidebar": _tree(at.sidebar, heights, left_out), "main": _tree(at.main, heights, left_out)}
            captures.append({"value": value, "tree": tree})
    info = PAGES[page_id]
    return {
        "title": info.title,
        "url_path": info.url_path,
        "url_paths": [page.url_path for page in PAGES.values()],
        "slider_path": slider_path(captures[0]["tree"]["sidebar"], target.slider),
        "captures": captures,
    }, left_out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A page against its own elements drawn with nothing computed.")
    parser.add_argument("--only", default="", help="time only the targets whose name contains this")
    parser.add_argument("--presses", type=int, default=16, help="timed presses per page and repeat")
    parser.add_argument("--rounds", type=int, default=2, help="rounds the presses are split over")
    parser.add_argument("--repeats", type=int, default=1, help="runs, the page and its floor taking turns first")
    args = parser.parse_args(argv)
    if (missing := live_app.browser_missing()) is not None:
        print(f"bench_floor: not run: {missing}")
        return
    from playwright.sync_api import sync_playwright

    chosen = [t for t in bench_latency.targets(args.presses, args.rounds) if t.server == "app" and args.only in t.name]
    print(f"{'page, slider':40} {'bare':>6} {'page':>6} {'floor':>6} | ratios to the bare page: page, floor")
    for target in chosen:
        page_id = next(pid for pid, info in PAGES.items() if urlsplit(target.path).path == "/" + info.url_path)
        key = next(k for k in PAGES[page_id].params if PARAMS[k].label == target.slider)
        data, left_out = capture(target, page_id, key)
        if not redrawable(data):
            print(f"{target.name:40} not timed: its fragment draws into blocks made outside it")
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as file:
            json.dump(data, file)
        floor_app = live_app.StreamlitServer(ROOT / "bench" / "floor_app.py", env={"SDE_FLOOR": file.name})
        with sync_playwright() as playwright, live_app.StreamlitServer() as app, floor_app as floor:
            with live_app.StreamlitServer(ROOT / "bench" / "bare_app.py") as bare:
                browser = live_app.launch_chromium(playwright)
                urls = {"app": app.url, "floor": floor.url, "bare": bare.url}
                for repeat in range(args.repeats):
                    total = 2 * bench_latency.presses_needed(args.presses, args.rounds)
                    runs = [bench_latency.Target("bare", "bare", "/", "Value", ["ArrowRight"] * total)]
                    pair = [("page", "app"), ("floor", "floor")]
                    for name, server in pair[:: 1 if repeat % 2 == 0 else -1]:
                        runs.append(bench_latency.Target(name, server, target.path, target.slider, target.keys))
                    results = bench_latency.measure_interleaved(browser, urls, runs, args.presses, args.rounds)
                    if not all(results.values()):
                        print(f"{target.name:40} no new chart: not timed")
                        break
                    median = {name: statistics.median(row["chart"] for row in rows) for name, rows in results.items()}
                    print(
                        f"{target.name:40} {median['bare']:4.0f} ms {median['page']:4.0f} ms {median['floor']:4.0f} ms"
                        f" | {median['page'] / median['bare']:.2f}×, {median['floor'] / median['bare']:.2f}×",
                        flush=True,
                    )
                browser.close()
        Path(file.name).unlink()
        if left_out:
            print(f"{'':40} not drawn on the floor: {', '.join(sorted(left_out))}")


if __name__ == "__main__":
    main()
