"""The pages under test, a recorded browser tab, what the console and network may show, and the
figures the server builds for an address, to compare with what plotly.js holds."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import numpy as np
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from dashboard import navigation
from dashboard.features.engine_views import CONFIGS_KEY, METHOD_KEY, SYNTHETIC_KEY
from dashboard.params import PARAMS
from dashboard.registry import PAGES as REGISTRY
from scripts import live_app
from tests.app_helpers import codes, open_page, page_charts
from tests.links import CONDITIONS, url_text, widget_type

#: Charts a page draws where the number is fixed (Speedup draws a second for a measured curve);
#: a page not listed must draw at least one.
CHART_COUNTS = {"home": 0, "sampling": 1, "kl": 1, "exercises": 0}

#: The slider a keyboard test moves on a page (label, URL key); else the page's first slider.
#: (Hardware: the batch, as a link that chooses a published curve or a profile sets the α slider aside.)
PREFERRED_SLIDERS = {
    "speedup": "k",
    "optimal_k": "max_k",
    "sampling": "n",
    "kl": "pairs",
    "trees": "budget",
    "hardware": "batch",
}


#: The sidebar's list of pages: an expander, closed when a page opens (``dashboard.navigation``).
NAVIGATION = f'[data-testid="stSidebar"] .st-key-{navigation.PAGES_KEY}'
#: The list is open and done opening: Streamlit animates the expander's content in.
NAVIGATION_OPEN_JS = """(selector) => {
  const expander = document.querySelector(selector);
  return expander !== null && expander.querySelector('details').open
    && expander.querySelector('[data-testid="stPageLink-NavLink"]') !== null
    && expander.getAnimations({ subtree: true }).every((a) => a.playState !== 'running' && !a.pending);
}"""


@dataclass(frozen=True)
class PageSpec:
    """A page as a visitor sees it: URL path, charts, the query parameters it reads."""

    id: str
    title: str
    path: str  # after the server's root: "" for the home page
    charts: int | None  # None: any number (the Hardware page's tabs draw three, two, one or none)
    params: tuple[str, ...]
    url_params: tuple[str, ...] = ()
    slider_key: str | None = None  # a slider that changes the chart (for keyboard tests)

    @property
    def slider(self) -> str | None:
        return PARAMS[self.slider_key].label if self.slider_key else None


def _slider_key(page) -> str | None:
    preferred = PREFERRED_SLIDERS.get(page.id)
    if preferred:
        return preferred
    sliders = [
        key for key in page.params if widget_type(PARAMS[key]) in ("slider", "select_slider") and key not in CONDITIONS
    ]
    return sliders[0] if sliders else None


PAGES = {
    page.id: PageSpec(
        page.id,
        page.title,
        page.url_path,
        CHART_COUNTS.get(page.id),
        tuple(page.params),
        tuple(page.url_params),
        _slider_key(page),
    )
    for page in REGISTRY.values()
}


def next_slider_value(key: str, steps: int = 1) -> str:
    """The URL value of slider ``key`` after ``steps`` ArrowRight presses (negative: ArrowLeft)
    from its default."""
    param = PARAMS[key]
    if param.kind == "choice":
        options = list(param.options)
        return param.fmt(options[options.index(param.default) + steps])
    return url_text(param, round(param.default + steps * param.step, 10))


def query_params(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query, keep_blank_values=True)


#: The engines' containers (``dashboard.features.engine_views``), a CSS selector: what is inside is
#: the engines' own text (rules, notes, flags) and the page's rule about their methods, not a
#: message about the link.
ENGINE_BLOCKS = ", ".join(f".st-key-{key}" for key in (CONFIGS_KEY, SYNTHETIC_KEY, METHOD_KEY))


class AppTab:
    """A browser tab (its own context, so its own Streamlit session) that records what it sees:
    every request, console errors and uncaught page errors."""

    def __init__(self, context, base_url: str):
        self.context = context
        self.base_url = base_url
        live_app.prepare_context(context)
        context.set_default_timeout(60_000)
        self.page = context.new_page()
        self.requests: list[str] = []
        self.console_errors: list[tuple[str, str]] = []  # (text, url of the resource or script)
        self.page_errors: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on(
            "console",
            lambda message: (
                self.console_errors.append((message.text, message.location.get("url", "")))
                if message.type == "error"
                else None
            ),
        )
        self.page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        self.spec: PageSpec | None = None
        self.query = ""

    # --- navigation and waiting ---
    def open(self, spec: PageSpec, query: str = "") -> AppTab:
        """Load ``spec``'s page with ``query`` (a new Streamlit session); forget earlier records."""
        self.requests.clear()
        self.console_errors.clear()
        self.page_errors.clear()
        self.spec, self.query = spec, query
        url = f"{self.base_url}/{spec.path}" + (f"?{query}" if query else "")
        self.page.goto(url)
        self.settle()
        return self

    def settle(self, changed_from: str | None = None) -> None:
        live_app.wait_settled(self.page, self.spec.charts, changed_from=changed_from)

    def reload(self) -> None:
        self.page.reload()
        self.settle()

    def signature(self) -> str:
        return live_app.chart_signature(self.page)

    def press(self, label: str, key: str, times: int = 1) -> None:
        """Focus the slider called ``label`` and press ``key``; wait for the chart to change."""
        for _ in range(times):
            before = self.signature()
            self.slider(label).focus()
            self.page.keyboard.press(key)
            self.settle(changed_from=before)

    def press_for_metrics(self, label: str, key: str) -> None:
        """Focus the slider called ``label`` and press ``key``; wait for the metrics to change (on
        a view without a chart, such as the Hardware page's Engine configs)."""
        values = '[...document.querySelectorAll(\'[data-testid="stMetricValue"]\')].map((m) => m.innerText).join("|")'
        before = self.page.evaluate(f"() => {values}")
        self.slider(label).focus()
        self.page.keyboard.press(key)
        self.page.wait_for_function(f"(before) => {values} !== before", arg=before)
        self.settle()

    def type_number(self, label: str, text: str) -> None:
        """Type ``text`` into the sidebar number box ``label``, press Enter; wait for the charts to change."""
        before = self.signature()
        box = self.page.locator(f'[data-testid="stSidebar"] input[aria-label="{label}"]')
        box.fill(text)
        box.press("Enter")
        self.settle(changed_from=before)

    def open_navigation(self) -> None:
        """Open the sidebar's list of pages (a closed expander) and wait until its links have
        arrived (opening reruns the page, which sends them) and it has finished opening: a click
        on a link still sliding in can land beside it."""
        details = self.page.locator(f"{NAVIGATION} details")
        if details.get_attribute("open") is None:
            details.locator("summary").click()
        self.page.wait_for_function(NAVIGATION_OPEN_JS, arg=NAVIGATION)

    def follow_link(self, label: str, spec: PageSpec) -> None:
        """Click the sidebar navigation link ``label`` and wait until page ``spec`` has drawn."""
        before = self.signature()
        self.open_navigation()
        link = self.page.locator(f'{NAVIGATION} [data-testid="stPageLink-NavLink"]', has_text=label)
        link.click()
        self.page.wait_for_url(re.compile(rf"^{re.escape(self.base_url)}/{re.escape(spec.path)}(\?.*)?$"))
        self.spec = spec
        self.settle(changed_from=before)

    def nav_links(self) -> dict[str, str]:
        """The sidebar navigation, opened if closed: link text -> href."""
        self.open_navigation()
        return self.page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll(
                 '[data-testid="stSidebar"] [data-testid="stPageLink-NavLink"]')]
                 .map((a) => [a.textContent.trim(), a.getAttribute('href')]))"""
        )

    # --- reading the page ---
    @property
    def url(self) -> str:
        return self.page.url

    @property
    def path(self) -> str:
        return urlsplit(self.page.url).path

    def params(self) -> dict[str, list[str]]:
        return query_params(self.page.url)

    def charts(self) -> list[dict]:
        return live_app.read_charts(self.page)

    def slider(self, label: str):
        return self.page.locator(f'[data-testid="stSidebar"] input[type="range"][aria-label="{label}"]')

    def slider_values(self) -> dict[str, str]:
        """Each sidebar slider's label and the value its thumb shows."""
        return self.page.evaluate(
            """() => Object.fromEntries(
                 [...document.querySelectorAll('[data-testid="stSidebar"] [data-testid="stSlider"]')].map((el) => [
                   el.querySelector('input[type=range]').getAttribute('aria-label'),
                   el.querySelector('[data-testid="stSliderThumbValue"]').innerText.trim(),
                 ]))"""
        )

    def wait_for_slider(self, label: str, shown: str, timeout: float = 20.0) -> None:
        """Wait until the sidebar slider ``label`` shows ``shown``; fail if it has not after ``timeout``.

        A value set by a callback reaches the address and the slider in separate messages: on a
        loaded machine the address can be read before the slider's thumb has redrawn.
        """
        try:
            self.page.wait_for_function(
                """([label, shown]) =>
                     [...document.querySelectorAll('[data-testid="stSidebar"] [data-testid="stSlider"]')].some(
                       (el) => el.querySelector('input[type=range]').getAttribute('aria-label') === label
                         && el.querySelector('[data-testid="stSliderThumbValue"]').innerText.trim() === shown)""",
                arg=[label, shown],
                timeout=timeout * 1000,
            )
        except PlaywrightTimeout:
            raise AssertionError(f"{label!r} never showed {shown!r}: {self.slider_values()}") from None

    def warnings(self, engines: bool = True) -> list[str]:
        """The warnings' texts; without the engines' own (their rule messages, inside
        :data:`ENGINE_BLOCKS`) if not ``engines``."""
        return self.page.evaluate(
            """(outside) => [...document.querySelectorAll('[data-testid="stAlertContentWarning"]')]
                 .filter((alert) => !(outside && alert.closest(outside))).map((alert) => alert.innerText)""",
            None if engines else ENGINE_BLOCKS,
        )

    def exceptions(self) -> list[str]:
        return self.page.locator('[data-testid="stException"]').all_inner_texts()

    # --- what the console and the network saw ---
    def base_path_probes(self) -> set[str]:
        """Streamlit's frontend probes ``<page>/_stcore/...`` to find the base path on a deep link."""
        if not self.spec or not self.spec.path:
            return set()
        return {f"{self.base_url}/{self.spec.path}/_stcore/{name}" for name in ("health", "host-config")}

    def unexpected_console_errors(self) -> list[tuple[str, str]]:
        """Console errors other than the 404s of the base-path probes."""
        probes = self.base_path_probes()
        return [(text, url) for text, url in self.console_errors if not (url in probes and "status of 404" in text)]

    def foreign_requests(self) -> list[str]:
        """Requests to anything but the app's own server (the browser cannot reach the internet,
        and a failed request is never cached, so each attempt shows up here)."""
        local = self.base_url + "/"
        return sorted({url for url in self.requests if not url.startswith((local, "data:", "blob:"))})


# --- What the server built for an address ----------------------------------------------------

#: The trace fields the page reader takes from plotly.js (``scripts/js/page_helpers.js``): the
#: labels compared as they are, the arrays as numbers (or, where not numbers, as they are).
TRACE_LABELS = ("type", "name", "mode")
TRACE_ARRAYS = ("x", "y", "z", "customdata")


@dataclass(frozen=True)
class Served:
    """What the server builds for an address: the figures (as the JSON sent), the code blocks' text
    and the warnings (Markdown)."""

    charts: tuple[str, ...]
    codes: tuple[str, ...]
    warnings: tuple[str, ...]


@functools.lru_cache(maxsize=128)
def _served(page_id: str, query: tuple[tuple[str, tuple[str, ...]], ...]) -> Served:
    at = open_page(page_id, **{key: values[0] if len(values) == 1 else list(values) for key, values in query})
    assert not at.exception, f"{page_id} at {dict(query)} raised under AppTest: {at.exception}"
    return Served(
        tuple(json.dumps(figure) for figure in page_charts(at)), tuple(codes(at)), tuple(w.value for w in at.warning)
    )


def served(page_id: str, params: dict[str, list[str]]) -> Served:
    """What the app builds for page ``page_id`` at the address ``params`` (as ``parse_qs`` gives
    them): the page run under AppTest with those query parameters.

    Whether that holds the right numbers is the page tests' business (``tests/pages``); here it
    is what the browser must show for the same address."""
    return _served(page_id, tuple(sorted((key, tuple(values)) for key, values in params.items())))


def served_charts(page_id: str, params: dict[str, list[str]]) -> list[dict]:
    """The figures the server sends for page ``page_id`` at the address ``params``, as JSON."""
    return [json.loads(text) for text in served(page_id, params).charts]


def _numbers(value) -> np.ndarray | None:
    """``value`` as floats (null as NaN), or None where it holds text."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None


def _plain(value):
    return value.tolist() if isinstance(value, np.ndarray) else value


def assert_drawn_as_served(charts: list[dict], served: list[dict]) -> None:
    """plotly.js holds, chart by chart and trace by trace, what the server sent: the same traces
    with the same labels and arrays (typed arrays arrive as raw float64 bytes, so the numbers are
    the same bits), and the same titles."""
    assert len(charts) == len(served), f"{len(charts)} charts drawn, {len(served)} sent"
    for number, (chart, figure) in enumerate(zip(charts, served, strict=True)):
        title = (figure["layout"].get("title") or {}).get("text")
        where = f"chart {number} ({title})"
        if title is not None:
            assert chart["layout"]["title"] == title, where
        drawn, sent = chart["data"], figure["data"]
        names = [t.get("name") for t in drawn], [t.get("name") for t in sent]
        assert len(drawn) == len(sent), f"{where}: traces {names[0]} drawn, {names[1]} sent"
        for shown, trace in zip(drawn, sent, strict=True):
            what = f"{where}, trace {trace.get('name')!r}"
            for key in TRACE_LABELS:
                if key in trace:
                    assert shown.get(key) == trace[key], f"{what}: {key}"
            for key in TRACE_ARRAYS:
                if key not in trace:
                    continue
                assert key in shown, f"{what}: no {key} drawn"
                held, given = shown[key], live_app.decode_array(trace[key])
                numbers = _numbers(held), _numbers(given)
                if numbers[0] is None or numbers[1] is None:
                    assert _plain(held) == _plain(given), f"{what}: {key}"
                else:
                    assert numbers[0].shape == numbers[1].shape, f"{what}: {key} shape"
                    np.testing.assert_array_equal(numbers[0], numbers[1], err_msg=f"{what}: {key}")


def assert_shows_its_address(tab: AppTab) -> None:
    """The tab's charts are those the server builds for the address the tab shows."""
    assert_drawn_as_served(tab.charts(), served_charts(tab.spec.id, tab.params()))
