"""The router's work for each run: pages for ``st.navigation``, the sidebar, the app's widgets.

``app.py`` hands :func:`st_pages` to ``st.navigation`` and calls :func:`prepare` with the page
it returned before running that page. :func:`prepare` configures the page, draws its title and
the sidebar's links (in a closed expander), warns about link parameters the page does not have,
and creates the widgets of the parameters several pages read (``registry.APP_KEYS``). Those
widgets belong to the entry script, which Streamlit documents as common to all pages; a
parameter only one page reads keeps its widget on that page.

The shared α, k, c last set on any page stay with the session, and the navigation links carry
them to the next page.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

import streamlit as st

from dashboard import workarounds
from dashboard.address import literal
from dashboard.binding import Container
from dashboard.params import PARAMS, SHARED_KEYS
from dashboard.registry import PAGES, PageInfo, by_url_path
from dashboard.texts import APP_NAME
from dashboard.ui import CONTEXT_KEY, PageContext

#: st.session_state key of the shared α, k, c last set on any page.
SHARED_STORE = "shared_values"

#: The browser tab's icon. An emoji is drawn by the browser itself; a ":material/…:" icon
#: here would make the browser fetch the SVG from Google's font servers (no network at a
#: workshop, and a request the offline test forbids).
FAVICON = "⚡"

#: The sidebar's list of the pages: an expander, closed (see :func:`_draw_navigation`).
PAGES_LABEL = "Pages"
PAGES_ICON = ":material/menu:"
#: The sidebar's list of pages, open or closed, in session state.
PAGES_KEY = "nav_pages"
#: Whether the list was left open, kept across pages.
PAGES_OPEN = "nav_pages_open"

#: Unknown link parameters named in the warning at most; the rest are counted.
MAX_NAMED = 3

#: Query parameters Streamlit itself owns; never reported as unknown.
STREAMLIT_PARAMS = frozenset({"embed", "embed_options"})


#: The home page's ``url_path`` for ``st.Page``; its address is the app's root all the same.
HOME_URL_PATH = "Home"


def st_pages() -> dict[str, Any]:
    """One ``st.Page`` per registry entry, by page id, the home page the default.

    The pages get no icon here: Streamlit would make a ":material/…:" page icon the browser
    tab's, fetched from Google's servers. The sidebar's links show the registry's icons.
    """
    return {
        info.id: st.Page(
            info.script,
            title=info.title,
            url_path=info.url_path or HOME_URL_PATH,
            default=not info.url_path,
        )
        for info in PAGES.values()
    }


def shared_values() -> dict[str, Any]:
    """The session's α, k, c: the defaults until a page's widget sets them."""
    if SHARED_STORE not in st.session_state:
        st.session_state[SHARED_STORE] = {key: PARAMS[key].default for key in SHARED_KEYS}
    return st.session_state[SHARED_STORE]


def link_params(page: PageInfo) -> dict[str, str]:
    """Query parameters for a link to ``page``: the shared values it uses, where not default."""
    shared = shared_values()
    return {key: PARAMS[key].fmt(shared[key]) for key in page.shared_params if shared[key] != PARAMS[key].default}


def page_link(
    page_id: str,
    container: Container | None = None,
    label: str | None = None,
    query_params: dict[str, str] | None = None,
) -> None:
    """A link to a page that carries the shared α, k, c along (or ``query_params``, when given)."""
    page = PAGES[page_id]
    # This run's st.Page: given a script path instead, Streamlit resolves it on disk for every
    # link, a tenth of a rerun's time with the sidebar's ten links.
    (container or st).page_link(
        st.session_state[CONTEXT_KEY].pages[page_id],
        label=label or page.title,
        icon=page.icon,
        query_params=(link_params(page) if query_params is None else query_params) or None,
    )


def _keep_pages_open() -> None:
    st.session_state[PAGES_OPEN] = st.session_state[PAGES_KEY]


def _draw_navigation(nav: Container) -> None:
    nav.markdown(f"### :material/bolt: {APP_NAME}")
    # Closed: the twelve links open filled a 1024 × 768 screen, and α, k, c started below it.
    # Lazy (documented in st.expander: with on_change="rerun" only an open expander's content
    # runs): closed, no link is sent, so a press of α, k or c does not redraw the twelve links
    # that carry it: about half of what the app around a page added to a press (docs/performance.md).
    # A widget's state does not follow a switch of pages (as with α, k, c: shared_values), so the
    # list's is kept beside it, and the list opens on the next page as it was left.
    opened = st.session_state.get(PAGES_OPEN, False)
    links = nav.expander(PAGES_LABEL, opened, icon=PAGES_ICON, key=PAGES_KEY, on_change=_keep_pages_open)
    if links.open:
        for other in PAGES:
            page_link(other, links)
    nav.caption("The address bar always links to exactly this view: copy it to share.")
    scripts = workarounds.sidebar_html()
    if scripts is not None:
        nav.html(scripts, unsafe_allow_javascript=True)
    nav.divider()


def _warn_unknown(ctx: PageContext) -> None:
    info = ctx.info
    known = set(info.params) | set(info.url_params) | STREAMLIT_PARAMS
    unknown = sorted(key for key in ctx.raw_url if key not in known)
    if unknown:
        # The names come from the link: shown as literal text, a few of them.
        named = ", ".join(literal(key) for key in unknown[:MAX_NAMED])
        more = f" and {len(unknown) - MAX_NAMED} more" if len(unknown) > MAX_NAMED else ""
        ctx.notices.warning(
            f"This page has no parameter {named}{more}; ignored. "
            f"Its parameters are {', '.join(f'`{k}`' for k in info.params + info.url_params) or 'none'}.",
            icon="⚠️",
        )


def requested_page(url: str | None, base_path: str = "") -> str:
    """The page name the address asked for: its path after the app's base path ("" for the root).

    ``st.navigation`` runs the default page for a path it does not know, and Streamlit's
    documented ``st.context.url`` still holds that path, so the home page can say the page
    asked for does not exist instead of standing in for it silently.
    """
    if not url:
        return ""
    path = unquote(urlsplit(url).path).strip("/")
    base = base_path.strip("/")
    if base and (path == base or path.startswith(base + "/")):
        path = path[len(base) :].strip("/")
    return path


def _warn_missing_page(ctx: PageContext, requested: str) -> None:
    if requested in ("", HOME_URL_PATH):
        return
    near = [info for info in PAGES.values() if info.url_path and info.url_path.lower() == requested.lower()]
    hint = f" Did you mean `{near[0].url_path}`? Addresses are case-sensitive." if near else ""
    ctx.notices.warning(
        f"There is no page {literal(requested)} here, so this is the home page.{hint} "
        f"The pages: {', '.join(f'`{info.url_path}`' for info in PAGES.values() if info.url_path)}.",
        icon="⚠️",
    )


def prepare(page, pages: dict[str, Any]) -> PageContext:
    """Set up the run of ``page``, what ``st.navigation`` returned from ``pages`` (see the module's docstring).

    Returns the context, which the page takes with ``ui.page()``.
    """
    info = by_url_path(page.url_path)
    st.set_page_config(
        page_title=APP_NAME if info.id == "home" else f"{info.title} · {APP_NAME}",
        page_icon=FAVICON,
        layout="wide",
        initial_sidebar_state="expanded",
    )
    nav = st.sidebar.container()
    if info.id != "home":
        st.title(f"{info.icon} {info.title}")
    ctx = PageContext(info, {}, st.container(), pages)
    st.session_state[CONTEXT_KEY] = ctx
    # Read before any widget exists: binding corrects or drops bad values once widgets register.
    ctx.read_address()
    if info.id == "home":
        _warn_missing_page(ctx, requested_page(st.context.url, st.get_option("server.baseUrlPath")))
    _warn_unknown(ctx)

    if info.app_params:
        st.sidebar.subheader("Configuration")
    shared = shared_values()
    for key in info.app_params:
        if not ctx.shows(key):  # a conditional one (acc_profile) while its condition does not hold
            ctx.values[key] = PARAMS[key].default
            continue
        value = ctx.widget(key)
        if key in SHARED_KEYS:
            shared[key] = value
    # After the widgets: the links carry the values they hold in this run.
    _draw_navigation(nav)
    return ctx
