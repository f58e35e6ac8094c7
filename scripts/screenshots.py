"""PNG screenshots of every page, for slides and for the page reference (docs/pages.md).

Starts the app itself on a free port, opens each page in Debian's Chromium at 1600 x 900 (16:9;
``--size`` for another) with a device scale factor of 2 (a 3200 x 1800 picture, sharp on a projector), waits until the
page has drawn its charts, and saves the first screen:

    make screenshots                                   # every page at its defaults and the registry's
                                                       # other views (page-view.png), into docs/screenshots/
    make screenshots QUERY='alpha=0.9&c=50' SHOTS=out  # one configuration, applied where a page uses it
    make screenshots SIZE=1024x768                     # at 1024 x 768, into docs/screenshots/1024x768/
    .venv/bin/python scripts/screenshots.py --url 'http://localhost:8501/Speedup?alpha=0.7&k=5' --out out

``--query`` gives each page the parameters it reads (the shared α, k, c go to every page that
uses them; the others to their own page). ``--url`` takes links copied from the address bar,
any host: the path and the query are replayed on the app this script starts.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboard.registry import PAGES  # noqa: E402
from scripts import live_app  # noqa: E402

#: For slides: no empty band above the title and no app header; the page is otherwise as shown.
SLIDE_CSS = """
[data-testid="stHeader"] { display: none !important; }
[data-testid="stMainBlockContainer"] { padding-top: 1.5rem !important; }
[data-testid="stSidebarHeader"] { display: none !important; }
"""


def file_name(path: str) -> str:
    page = next((p for p in PAGES.values() if p.url_path == path.strip("/")), None)
    return f"{page.id if page else (path.strip('/') or 'home').lower()}.png"


def targets(query: str, urls: list[str]) -> list[tuple[str, str]]:
    """(path with query, file name) for each picture to take."""
    if urls:
        out, used = [], set()
        for url in urls:
            parts = urlsplit(url)
            path = parts.path.strip("/")
            name, n = file_name(path), 1
            while name in used:  # the same page twice: page-2.png, page-3.png, ...
                n += 1
                name = f"{file_name(path)[:-4]}-{n}.png"
            used.add(name)
            fragment = f"#{parts.fragment}" if parts.fragment else ""
            out.append((f"/{path}" + (f"?{parts.query}" if parts.query else "") + fragment, name))
        return out
    pairs = parse_qsl(query.lstrip("?"), keep_blank_values=True)
    out = []
    for page in PAGES.values():
        keys = set(page.params) | set(page.url_params)
        mine = [(k, v) for k, v in pairs if k in keys]
        for name, view in (("", ""), *page.views):
            # The view's own parameters win over the configuration's; its #anchor stays at the end.
            view, hash_sign, anchor = view.partition("#")
            own = parse_qsl(view)
            both = urlencode([(k, v) for k, v in mine if k not in dict(own)] + own)
            file = f"{page.id}-{name}.png" if name else f"{page.id}.png"
            out.append((f"/{page.url_path}" + (f"?{both}" if both else "") + hash_sign + anchor, file))
    return out


def window_size(text: str) -> tuple[int, int]:
    """``"1024x768"`` -> (1024, 768): the window's width and height in CSS pixels."""
    width, sep, height = text.lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit() and int(width) > 0 and int(height) > 0):
        raise argparse.ArgumentTypeError(f"a size is WIDTHxHEIGHT in pixels, e.g. 1024x768, not {text!r}")
    return int(width), int(height)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots", help="folder for the PNGs")
    parser.add_argument("--query", default="", help="URL parameters, e.g. 'alpha=0.8&c=20', for every page")
    parser.add_argument("--url", action="append", default=[], help="a page's full URL (repeatable)")
    parser.add_argument("--width", type=int, default=live_app.VIEWPORT["width"])
    parser.add_argument("--height", type=int, default=live_app.VIEWPORT["height"])
    parser.add_argument("--size", type=window_size, help="WIDTHxHEIGHT, e.g. 1024x768: --width and --height at once")
    parser.add_argument("--scale", type=float, default=2.0, help="device scale factor (2: sharp on slides)")
    parser.add_argument("--full-page", action="store_true", help="the whole page, not the first screen")
    args = parser.parse_args(argv)
    if args.size:
        args.width, args.height = args.size

    missing = live_app.browser_missing()
    if missing:
        print(f"screenshots need Chromium and Playwright: {missing}", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with live_app.StreamlitServer() as server, sync_playwright() as playwright:
        browser = live_app.launch_chromium(playwright)
        context = browser.new_context(
            viewport={"width": args.width, "height": args.height}, device_scale_factor=args.scale
        )
        live_app.prepare_context(context)
        page = context.new_page()
        for target, name in targets(args.query, args.url):
            start = time.perf_counter()
            page.goto(server.url + target)
            live_app.wait_settled(page, None, quiet_ms=500)
            problems = page.locator('[data-testid="stException"]').all_inner_texts()
            if problems:
                print(f"{target}: the page shows an exception; no picture taken", file=sys.stderr)
                return 1
            for warning in page.locator('[data-testid="stAlertContentWarning"]').all_inner_texts():
                print(f"note: {target} warns: {' '.join(warning.split())}", file=sys.stderr)
            page.add_style_tag(content=SLIDE_CSS)
            if "#" in target:  # a view of a part further down: its heading's anchor at the top
                page.locator(f"[id='{target.split('#', 1)[1]}']").first.evaluate("el => el.scrollIntoView()")
            page.evaluate("document.fonts.ready.then(() => true)")
            page.mouse.move(0, args.height - 1)  # no hover labels or toolbars in the picture
            page.wait_for_timeout(300)
            path = args.out / name
            page.screenshot(path=path, full_page=args.full_page, animations="disabled")
            print(f"{path}  {target}  ({path.stat().st_size / 1024:.0f} KB, {time.perf_counter() - start:.1f} s)")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
