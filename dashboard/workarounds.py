"""Workarounds for bugs of the pinned Streamlit, each in one place and each turned off elsewhere.

Every workaround here names the Streamlit code it works around and has a test that shows the
bug with the workaround off (``tests/dashboard/test_workarounds.py`` and
``tests/browser/test_workarounds.py``). They are active only on :data:`PINNED`, the version in
``requirements.txt``: on any other Streamlit the app uses Streamlit's own behaviour, and the
bug tests skip with a reason that asks for each bug to be checked again on that version.
``SDE_WORKAROUNDS=off`` in the environment turns them off on the pinned version too (the tests
use it).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

#: The Streamlit release these workarounds were written for and tested on.
PINNED = "1.67.0"
STREAMLIT = version("streamlit")


def is_active(streamlit_version: str, environ: Mapping[str, str]) -> bool:
    """Whether the workarounds run: on the pinned Streamlit, unless ``SDE_WORKAROUNDS=off``."""
    return streamlit_version == PINNED and environ.get("SDE_WORKAROUNDS", "on") != "off"


#: Whether the workarounds run in this process.
ACTIVE = is_active(STREAMLIT, os.environ)

_JS = Path(__file__).with_name("js")


def page_link_script() -> str | None:
    """HTML that makes a page-link click one step in the browser's history; None when inactive.

    Streamlit 1.67's own handling of a click on ``st.page_link`` pushes two history entries
    (Back does not return to the view left) and appends the bound parameters of the page being
    left to the link's own, so the address repeats them. ``js/page_links.js`` pushes the link's
    own address once and lets Streamlit draw it as it draws Back and Forward. Upstream: the two
    entries were noted in pull request streamlit/streamlit#9049 (closed unmerged in 2024; the
    links' query parameters came with #13093), and no issue about them was found; pull request
    #16998 (open) reworks Back and Forward for bound widgets (issue #13853).
    """
    return _script("sde-page-links", "page_links.js")


@cache
def _source(file_name: str) -> str:
    # Read once per process: the scripts go out with every run that draws the sidebar.
    return (_JS / file_name).read_text(encoding="utf-8")


def _script(element_id: str, file_name: str) -> str | None:
    if not ACTIVE:
        return None
    script = _source(file_name)
    return f'<script id="{element_id}">\n{script}</script>'


def sidebar_html() -> str | None:
    """The active workarounds' scripts as one HTML element for the sidebar; None if there are none.

    The style rule takes the element, empty on screen, out of the sidebar's layout.
    """
    scripts = [html for html in (page_link_script(),) if html is not None]
    if not scripts:
        return None
    hide = '[data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > script[id^="sde-"])'
    return f"<style>{hide} {{ display: none; }}</style>\n" + "\n".join(scripts)


def whole_number_input(container: Any, label: str, *, value: int, low: int, high: int, **common: Any) -> int:
    """A number box for whole numbers (step 1) between ``low`` and ``high``.

    Streamlit 1.67's int box converts a link's value with ``int()`` before checking its bounds
    (``NumberInputSerde.deserialize`` in ``elements/widgets/number_input.py``), so a link with
    a huge number (``?seed=999…9``: a float infinity) raises ``OverflowError`` and the page
    fails. Its float box checks the bounds first and falls back to the default like every other
    widget; shown without decimals it looks and steps like the int box. No upstream issue was
    found for it.
    """
    if not ACTIVE:
        bounds = {"min_value": int(low), "max_value": int(high)}
        return container.number_input(label, value=int(value), step=1, **bounds, **common)
    number = container.number_input(
        label, value=float(value), min_value=float(low), max_value=float(high), step=1.0, format="%.0f", **common
    )
    return round(number)


def no_external_ip_lookup() -> bool:
    """Stop Streamlit asking the internet for this machine's address; False when inactive.

    Streamlit 1.67 looks up its external IP (``net_util.get_external_ip``: two HTTP requests to
    checkip.amazonaws.com) for the start-up banner of a server on all interfaces, and again in
    the websocket origin check (``is_url_from_allowed_origins`` in ``web/server/server_util.py``)
    for every connection from an origin it does not know. It keeps only a successful answer, and
    the request's timeout does not cover the DNS query: where DNS does not answer (a room without
    internet) each attempt blocks the server's event loop, every session's rerun with it, for
    about 20 s. No configuration avoids the origin check's lookup short of turning off the check
    (``server.enableCORS = false``). This makes the lookup answer "unknown", what Streamlit
    itself concludes when the internet is unreachable, without asking: an origin at the machine's
    public address then needs ``browser.serverAddress``. Upstream: streamlit/streamlit#8364
    (open; the server hangs when offline) and #7721 (the lookup in the origin check).
    """
    if not ACTIVE:
        return False
    from streamlit import net_util

    net_util.get_external_ip = _unknown_external_ip
    return True


def _unknown_external_ip() -> None:
    return None
