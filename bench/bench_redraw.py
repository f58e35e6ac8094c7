"""What one press of each page's slider makes the browser redraw: the elements whose message changes.

Run: ``.venv/bin/python bench/bench_redraw.py [--only Hardware] [--slider KEY]``. Not a test: it
prints counts and always exits 0.

Streamlit 1.67 gives a plotly chart a new element id whenever its figure or config changes
(``streamlit/elements/plotly_chart.py`` lines 913–926 at 1.67.0), so each changed chart is
remounted and drawn anew; other changed elements (metrics, Markdown, code, tables) are drawn again
too. A router's widget (α, k, c, the seed) reruns the whole page and re-sends every element; a
page's own widget reruns its fragment. This script opens each page under ``AppTest`` at its
default and one slider step further (the slider ``bench_latency.py`` times) and counts, by
element type, what differs between the two runs: what a press costs the browser beyond
Streamlit's floor, before any timing.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_latency import page_slider  # noqa: E402
from dashboard.params import PARAMS  # noqa: E402
from dashboard.registry import PAGES  # noqa: E402


def stepped(key: str) -> tuple[str, str]:
    """Parameter ``key``'s default and the value one keyboard step away (up, else down), as URL text."""
    param = PARAMS[key]
    if param.kind == "choice":
        options = list(param.options)
        at = options.index(param.default)
        other = options[at + 1] if at + 1 < len(options) else options[at - 1]
        return param.fmt(param.default), param.fmt(other)
    other = param.default + param.step if param.default + param.step <= param.high else param.default - param.step
    return param.fmt(param.default), param.fmt(type(param.default)(round(other, 10)))


def leaves(node, out: list) -> list:
    """The elements under ``node`` (an AppTest tree), in order."""
    children = getattr(node, "children", None)
    if isinstance(children, dict) and children:
        for child in children.values():
            leaves(child, out)
    else:
        out.append(node)
    return out


def changed(page_id: str, key: str) -> tuple[Counter, Counter]:
    """(changed, unchanged) element counts by type between the page at ``key``'s default and one step on."""
    from tests.app_helpers import open_page

    before, after = (leaves(open_page(page_id, **{key: value})._tree, []) for value in stepped(key))
    if len(before) != len(after):
        return Counter({f"(the page has {len(before)} elements, then {len(after)})": 1}), Counter()
    moved, kept = Counter(), Counter()
    for old, new in zip(before, after, strict=True):
        kind = getattr(old, "type", type(old).__name__)
        (kept if str(getattr(old, "proto", "")) == str(getattr(new, "proto", "")) else moved)[kind] += 1
    return moved, kept


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Elements a slider press changes, per page.")
    parser.add_argument("--only", default="", help="only pages whose address contains this")
    parser.add_argument("--slider", default="", help="on pages that have this parameter, move it instead")
    args = parser.parse_args(argv)
    logging.getLogger("streamlit").setLevel(logging.ERROR)  # AppTest outside a server warns per page
    for page_id, page in PAGES.items():
        key = args.slider if args.slider in page.params else page_slider(page_id)
        if key is None or args.only not in page.url_path:
            continue
        rerun = "whole page" if key in page.app_params else "fragment"
        moved, kept = changed(page_id, key)
        print(f"{page.url_path}, {key} ({rerun}): {sum(moved.values())} changed of {sum((moved + kept).values())}")
        print("    changed: " + ", ".join(f"{n} {kind}" for kind, n in moved.most_common()))


if __name__ == "__main__":
    main()
