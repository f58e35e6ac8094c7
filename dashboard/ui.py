"""The Streamlit layer: page set-up, widgets bound to the URL, navigation and charts.

Every page starts with ``ctx = page_setup("<page id>")``. That call configures the page, draws
the navigation and remembers what the link asked for, so that :meth:`PageContext.widget` can say
when a value in it could not be used. The page then hands its interactive part (widgets, metrics,
charts) to :func:`interactive`, which runs it as an ``st.fragment`` after creating the widgets
of the shared parameters (α, k, c) the page uses: moving a widget reruns and redraws only that
part, not the navigation, the formulas and the explanations around it. Widgets use Streamlit's
own ``bind="query-params"``: the address bar is always a link to the current view.

Moving between pages is a step in the browser's history (see :data:`NAV_SCRIPT`): the next page
is drawn from the link's address alone, exactly as Back and Forward draw a page.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dashboard import charts
from dashboard.pages import PAGES, PageInfo
from dashboard.params import PARAMS, SHARED_KEYS, Param, check_url_value
from dashboard.texts import APP_NAME

#: st.session_state key of the shared α, k, c last set on any page; the navigation links
#: carry them to the next page.
SHARED_STORE = "shared_values"

#: The browser tab's icon. An emoji is drawn by the browser itself; a ":material/…:" icon
#: here would make the browser fetch the SVG from Google's font servers (no network at a
#: workshop, and a request the offline test forbids).
FAVICON = "⚡"

#: Query parameters Streamlit itself owns; never reported as unknown.
STREAMLIT_PARAMS = frozenset({"embed", "embed_options"})


def _display(param: Param, value: Any) -> str:
    if param.kind == "multi":
        return ", ".join(param.fmt(v) for v in value) or "none"
    return param.fmt(value)


@dataclass
class PageContext:
    """What a page needs after set-up: its registry entry, the link's raw values, widget values."""

    info: PageInfo
    raw_url: dict[str, list[str]]
    notices: DeltaGenerator
    navigation: DeltaGenerator
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def binds_shared(self) -> bool:
        """Whether the page has widgets of the shared α, k, c (its links then wait for them)."""
        return bool(shared_params(self.info))

    def widget(self, key: str, container: DeltaGenerator | None = None) -> Any:
        """Create the widget of parameter ``key`` (bound to the URL) and return its value."""
        param = PARAMS[key]
        with _bound_for_every_page(key):
            value = _make_widget(param, container if container is not None else st.sidebar)
        raw = self.raw_url.get(key)
        problem = check_url_value(param, raw) if raw is not None else None
        if problem:
            self.notices.warning(f"{problem}; using {_display(param, value)}.", icon="⚠️")
        self.values[key] = value
        return value

    def read_address(self) -> None:
        """Take the link's values from the address bar; before any widget of this run exists."""
        self.raw_url = {key: st.query_params.get_all(key) for key in st.query_params}

    def raw_param(self, key: str) -> str | None:
        """The link's value of a hand-encoded parameter (such as ``p``), if it has one."""
        values = self.raw_url.get(key)
        return values[-1] if values else None


def _make_widget(param: Param, container: DeltaGenerator) -> Any:
    common = {"key": param.key, "help": param.help or None, "bind": "query-params"}
    kind, widget = param.kind, param.widget_type
    if kind == "int" and widget == "number_input":
        # A whole-number box is a float box shown without decimals: Streamlit 1.67's int box
        # crashes (int(inf)) on a link with a huge number, where its float box falls back to
        # the default like every other widget.
        bounds = {"min_value": float(param.low), "max_value": float(param.high), "step": float(param.step)}
        value = container.number_input(param.label, value=float(param.default), format="%.0f", **bounds, **common)
        return round(value)
    if kind in ("float", "int"):
        cast = float if kind == "float" else int
        bounds = {"min_value": cast(param.low), "max_value": cast(param.high), "step": cast(param.step)}
        return getattr(container, widget)(param.label, value=cast(param.default), **bounds, **common)
    options = list(param.options)
    if widget == "select_slider":
        return container.select_slider(
            param.label, options=options, value=param.default, format_func=param.fmt, **common
        )
    if widget in ("selectbox", "radio"):
        extra = {"horizontal": True} if widget == "radio" else {}
        return getattr(container, widget)(
            param.label, options, index=options.index(param.default), format_func=param.fmt, **extra, **common
        )
    if widget == "multiselect":
        return container.multiselect(param.label, options, default=list(param.default), format_func=param.fmt, **common)
    if widget == "toggle":
        return container.toggle(param.label, value=param.default, **common)
    raise ValueError(f"no widget {widget!r} for parameter {param.key} of kind {kind!r}")


#: URL parameters more than one page reads: α, k, c and the seed.
APP_WIDE_KEYS = frozenset(
    key for key, pages in Counter(key for page in PAGES.values() for key in page.params).items() if pages > 1
)


@contextmanager
def _bound_for_every_page(key: str) -> Iterator[None]:
    """Create the widget of ``key`` as the entry script's (app.py's) when several pages read ``key``.

    On a page switch, Back and Forward included, Streamlit 1.67 drops from the next page's
    address every parameter bound to a widget of the page being left, even when the address
    asks for it: ``/Speedup?alpha=0.5`` followed to ``Optimal_k?alpha=0.5`` opened Optimal k at
    the default α, and Back from ``Acceptance_vs_KL?seed=5`` to ``Rejection_sampling?seed=3``
    lost the seed. Widgets of the entry script are exempt: they are the app's, not a page's,
    and the address decides their value on Back, Forward and the navigation of
    :data:`NAV_SCRIPT`. (Streamlit also keeps them on screen while the next page's script runs,
    and removes them at its end if that page has none.) A parameter only one page reads cannot
    collide, so its widget stays the page's.
    """
    ctx = get_script_run_ctx()
    if ctx is None or key not in APP_WIDE_KEYS:
        yield
        return
    with ctx.run_with_active_hash(ctx.pages_manager.main_script_hash):
        yield


def shared_params(page: PageInfo) -> list[str]:
    """The shared parameters (α, k, c) that ``page`` has widgets for, in the page's order."""
    return [key for key in page.params if key in SHARED_KEYS]


def shared_values() -> dict[str, Any]:
    if SHARED_STORE not in st.session_state:
        st.session_state[SHARED_STORE] = {key: PARAMS[key].default for key in SHARED_KEYS}
    return st.session_state[SHARED_STORE]


def link_params(page: PageInfo) -> dict[str, str]:
    """Query parameters for a link to ``page``: the shared values it uses, where not default."""
    shared = shared_values()
    return {key: PARAMS[key].fmt(shared[key]) for key in shared_params(page) if shared[key] != PARAMS[key].default}


#: Per page (by its name in the address bar), the shared parameters its links carry, in order.
LINKED_KEYS = {page.url_path: shared_params(page) for page in PAGES.values()}

#: Makes a click on a page link a plain step in the browser's history: push the link's address,
#: then let Streamlit handle it as it handles Back and Forward (a ``popstate`` event), which
#: draws the page from that address alone. Streamlit's own handling of a page-link click adds
#: the bound parameters of the page being left, which the server then drops from the address
#: bar before the switch: two history entries (Back showed the page left at its defaults), and
#: a link's own α or c lost when the page left had bound them too. A click with a modifier key
#: is left to the browser (a new tab or window opens the link, a complete view). Installed once
#: per browser tab; the links stay ordinary ``st.page_link`` elements. The style rule takes the
#: script's empty element out of the sidebar's layout (it would add a gap under the links).
#:
#: It also keeps the links' α, k, c in step with the address bar. The links are drawn outside the
#: page's fragment (see :func:`interactive`), so moving a slider does not redraw them; whenever
#: Streamlit writes the address (``history.replaceState`` after a bound widget moved), each link
#: takes the values of the parameters this page binds from it, and keeps the rest (the session's
#: values of parameters this page does not show), as :func:`link_params` writes them.
NAV_SCRIPT = """<style>
  [data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > script#sde-navigation) { display: none; }
</style>
<script id="sde-navigation">
(() => {
  if (window.__sdeNavigation) return;
  window.__sdeNavigation = true;
  const LINKED_KEYS = __LINKED_KEYS__;
  const linkSelector = 'a[data-testid="stPageLink-NavLink"]';
  const pageName = (url) => decodeURIComponent(url.pathname.split('/').pop());
  // The href is relative to the app's root ("" for the home page, "Optimal_k?alpha=0.5").
  const resolve = (link) => new URL('./' + link.getAttribute('href'), window.location.href);

  const refreshLinks = () => {
    const here = new URL(window.location.href);
    const bound = LINKED_KEYS[pageName(here)] || [];
    for (const link of document.querySelectorAll(linkSelector)) {
      if (link.getAttribute('href') === null) continue;
      const url = resolve(link);
      const name = pageName(url);
      const carried = LINKED_KEYS[name];
      if (carried === undefined) continue;
      const query = new URLSearchParams();
      for (const key of carried) {
        const value = bound.includes(key) ? here.searchParams.get(key) : url.searchParams.get(key);
        if (value !== null) query.set(key, value);
      }
      const href = name + (query.size ? '?' + query : '');
      if (href !== link.getAttribute('href')) link.setAttribute('href', href);
    }
  };
  for (const method of ['pushState', 'replaceState']) {
    const original = window.history[method].bind(window.history);
    window.history[method] = (...args) => { const result = original(...args); refreshLinks(); return result; };
  }

  window.addEventListener('click', (event) => {
    const link = event.target instanceof Element && event.target.closest(linkSelector);
    if (!link || event.defaultPrevented || event.button !== 0) return;
    event.stopPropagation();
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    const url = resolve(link);
    // An embedded app stays embedded, as with Streamlit's own page switch.
    const here = new URLSearchParams(window.location.search);
    for (const key of ['embed', 'embed_options']) {
      if (!url.searchParams.has(key)) here.getAll(key).forEach((value) => url.searchParams.append(key, value));
    }
    if (url.href === window.location.href) return;
    window.history.pushState({}, '', url.href);
    window.dispatchEvent(new PopStateEvent('popstate', { state: {} }));
  }, true);
})();
</script>""".replace("__LINKED_KEYS__", json.dumps(LINKED_KEYS))

#: One plotly.js draw per chart and rerun, shown as soon as it is done. A chart's element id in
#: Streamlit 1.67 changes with its figure, so each rerun remounts it. The new chart first calls
#: ``Plotly.react`` before its width is measured (``layout.width`` undefined, drawn hidden), then
#: again at the measured width with a copy of the same figure, which plotly.js redraws in full.
#: The script draws the first call at the width the chart's element already has (the one the
#: second call brings), shows it, and answers that second call without drawing. It hands the
#: second call's figure to the chart, so Streamlit's update after it sees nothing new and does not
#: call a third time. A second call at another width or height is drawn as asked, as are charts
#: outside ``st.plotly_chart`` and charts given a width. Installed once per browser tab, when
#: Streamlit's chart code sets ``window.Plotly``.
#:
#: plotly.js draws from copies of the figure's objects: it keeps each typed array it decodes on
#: the array's spec object (``{dtype, bdata, _inputArray}``), and right after the chart mounts
#: Streamlit copies the figure it holds through ``JSON.stringify``, which writes such an array
#: out one key per number. On the map that copy grew from about 150 kB to 766 kB: 20-27 ms.
CHART_SCRIPT = """<script id="sde-charts">
(() => {
  if (window.__sdeCharts) return;
  window.__sdeCharts = true;
  const install = (Plotly) => {
    if (!Plotly || Plotly.__sdeOneDraw) return;
    Plotly.__sdeOneDraw = true;
    const react = Plotly.react;
    const drawnAt = new WeakMap();  // chart -> the width its hidden first call was drawn at
    const isPlain = (value) => value !== null && typeof value === 'object' && !Array.isArray(value)
      && Object.getPrototypeOf(value) === Object.prototype;
    // Plain objects copied, arrays of numbers shared: plotly.js writes on the copies only.
    const fresh = (value) => {
      if (Array.isArray(value)) {
        return value.some((item) => isPlain(item) || Array.isArray(item)) ? value.map(fresh) : value;
      }
      if (!isPlain(value)) return value;
      const copy = {};
      for (const key of Object.keys(value)) copy[key] = fresh(value[key]);
      return copy;
    };
    Plotly.react = function (gd, ...args) {
      const figure = args.length === 1 && args[0] && !Array.isArray(args[0])
        ? args[0] : { data: args[0], layout: args[1], config: args[2] };
      const layout = figure.layout || {};
      const chart = gd instanceof Element && !gd._fullLayout && layout.width === undefined
        ? gd.closest('[data-testid="stPlotlyChart"]') : null;
      const width = chart ? chart.getBoundingClientRect().width : 0;
      const copied = (sized) => ({ ...figure, data: fresh(figure.data), layout: { ...fresh(layout), ...sized } });
      if (width > 0) {
        return react.call(Plotly, gd, copied({ width })).then((drawn) => {
          drawnAt.set(gd, width);  // only a draw that succeeded lets the second call go undrawn
          gd.style.visibility = '';
          return drawn;
        });
      }
      if (drawnAt.has(gd)) {
        const drawn = drawnAt.get(gd);
        drawnAt.delete(gd);
        if (layout.width === drawn && layout.height === gd.layout.height) {
          gd.data = figure.data;
          gd.layout = figure.layout;
          return Promise.resolve(gd);
        }
      }
      return react.call(Plotly, gd, copied());
    };
  };
  if (window.Plotly) { install(window.Plotly); return; }
  let plotly;  // Streamlit's chart code loads on the first chart and sets window.Plotly
  Object.defineProperty(window, 'Plotly', {
    configurable: true, enumerable: true, get: () => plotly, set: (value) => { plotly = value; install(value); },
  });
})();
</script>"""


def page_link(page_id: str, container: DeltaGenerator | None = None, label: str | None = None) -> None:
    """A link to a page that carries the shared α, k, c along."""
    page = PAGES[page_id]
    (container or st).page_link(
        page.script, label=label or page.title, icon=page.icon, query_params=link_params(page) or None
    )


def _draw_navigation(nav: DeltaGenerator) -> None:
    nav.markdown(f"### :material/bolt: {APP_NAME}")
    for other in PAGES:
        page_link(other, nav)
    nav.caption("The address bar always links to exactly this view: copy it to share.")
    nav.html(NAV_SCRIPT + CHART_SCRIPT, unsafe_allow_javascript=True)
    nav.divider()


def page_setup(page_id: str) -> PageContext:
    """Configure the page and draw its title; return the context.

    The navigation goes at the top of the sidebar: drawn here, or, on a page with widgets of
    the shared α, k, c, by :func:`interactive` once those widgets hold this run's values.
    """
    info = PAGES[page_id]
    st.set_page_config(
        page_title=APP_NAME if page_id == "home" else f"{info.title} · {APP_NAME}",
        page_icon=FAVICON,
        layout="wide",
        initial_sidebar_state="expanded",
    )
    nav = st.sidebar.container()
    if page_id != "home":
        st.title(f"{info.icon} {info.title}")
    ctx = PageContext(info, {}, st.container(), nav)
    # Read before any widget exists: binding corrects or drops bad values once widgets register.
    ctx.read_address()
    raw_url = ctx.raw_url

    known = set(info.params) | set(info.url_params) | STREAMLIT_PARAMS
    unknown = sorted(key for key in raw_url if key not in known)
    if unknown:
        ctx.notices.warning(
            f"This page has no parameter {', '.join(f'`{k}`' for k in unknown)}; ignored. "
            f"Its parameters are {', '.join(f'`{k}`' for k in info.params + info.url_params) or 'none'}.",
            icon="⚠️",
        )

    if ctx.binds_shared:
        st.sidebar.subheader("Configuration")
    else:
        _draw_navigation(nav)
    return ctx


def interactive(ctx: PageContext, body: Callable[[], None]) -> None:
    """Run ``body``, the page's widgets and what they drive, as a fragment of the page.

    The fragment first creates the widgets of the shared α, k, c the page uses (in the sidebar,
    under "Configuration"), so ``body`` finds their values in ``ctx.values``. Moving any widget
    of the fragment reruns only the fragment: Streamlit then re-sends and redraws its elements
    alone (a Speedup page rerun sent 38 messages to the browser, the fragment sends 20). The
    navigation links outside it are kept up to date by :data:`NAV_SCRIPT`.

    The four pages the latency bench moves (Speedup, the map, rejection sampling, α vs KL) send
    their chart before the metrics shown above it (they go into a container made before the
    chart): the browser then draws the chart first, instead of handling each metric's message
    while the chart's waits (6-17 ms sooner on three of them; see the README's performance
    section). The metrics follow within the same rerun.
    """

    def fragment() -> None:
        ctx.read_address()  # a fragment rerun sees the address as this page's widgets left it
        shared = shared_values()
        for key in shared_params(ctx.info):
            shared[key] = ctx.widget(key)
        body()

    st.fragment(fragment)()
    if ctx.binds_shared:
        # After the fragment's first run: the links carry the values its widgets now hold.
        _draw_navigation(ctx.navigation)


def chart(fig: go.Figure, filename: str) -> None:
    """Show a figure with the PNG export named ``filename`` at 2x scale."""
    st.plotly_chart(fig, theme=None, config=charts.chart_config(filename))
