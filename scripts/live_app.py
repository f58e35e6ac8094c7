"""Run the dashboard for real and drive it in Debian's Chromium.

Shared by the browser tests (``tests/browser``), ``scripts/screenshots.py`` and
``bench/bench_latency.py``: start ``streamlit run`` on a free port and stop it reliably, launch
Chromium with the flags that work on this machine, wait until a page has finished its script run
and drawn its charts, and read the charts' data back from the page.

Playwright is imported by the callers, never here, so that this module imports without it.
"""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

#: Debian's Chromium: Playwright's own browser download does not work here.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: Every host name fails to resolve; 127.0.0.1 is an address and is not affected. A page that
#: reaches for the internet then fails the same way with or without a network, and the attempt
#: still shows up in the browser's request log.
NO_INTERNET_ARG = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"

#: Window size for tests and screenshots: 16:9, what a projector shows.
VIEWPORT = {"width": 1600, "height": 900}


def browser_missing() -> str | None:
    """Why the browser tools cannot run here, or ``None`` when Chromium and Playwright are present."""
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} not found (Debian package `chromium`; `make test` installs it when run as root)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (it is in requirements-dev.txt)"
    return None


def launch_chromium(playwright, *, no_internet: bool = True):
    """Launch Debian's Chromium headless through a started ``sync_playwright()`` instance."""
    args = [*CHROMIUM_ARGS, NO_INTERNET_ARG] if no_internet else list(CHROMIUM_ARGS)
    return playwright.chromium.launch(executable_path=CHROMIUM, args=args)


def free_port() -> int:
    """A TCP port nobody listens on right now (the server may still lose a race for it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerError(RuntimeError):
    pass


class StreamlitServer:
    """``streamlit run <script>`` on 127.0.0.1 and a free port; a context manager.

    ``start`` returns once ``/_stcore/health`` answers ``ok``; ``stop`` terminates the process,
    waits, and kills it if it does not exit in time. The server's output goes to a temporary
    log file that is quoted when the server fails to come up.
    """

    def __init__(
        self,
        script: str | Path = "app.py",
        *,
        cwd: Path = ROOT,
        extra_args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
        address: str | None = "127.0.0.1",
    ):
        self.script = str(script)
        self.address = address  # None: what .streamlit/config.toml says
        self.cwd = cwd
        self.extra_args = extra_args
        self.env = env or {}  # added to this process's environment
        self.port: int | None = None
        self.process: subprocess.Popen | None = None
        self.log_path: Path | None = None
        self.started_at: float | None = None  # time.perf_counter() just before the process was spawned

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _spawn(self) -> None:
        self.port = free_port()
        handle, name = tempfile.mkstemp(prefix=f"streamlit-{self.port}-", suffix=".log")
        self.log_path = Path(name)
        # The dashboard starts as `make run` starts it; other scripts (the bench's bare app) plainly.
        launch = ["dashboard.serve"] if self.script == "app.py" else ["streamlit", "run", self.script]
        command = [
            sys.executable,
            "-m",
            *launch,
            "--server.headless",
            "true",
            *(("--server.address", self.address) if self.address else ()),
            "--server.port",
            str(self.port),
            "--browser.gatherUsageStats",
            "false",
            *self.extra_args,
        ]
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        self.started_at = time.perf_counter()
        with os.fdopen(handle, "wb") as log:
            self.process = subprocess.Popen(
                command, cwd=self.cwd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env
            )

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:] if self.log_path else ""
        except OSError:
            return ""

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as response:
                return response.status == 200 and response.read().strip() == b"ok"
        except (urllib.error.URLError, OSError):
            return False

    def spawn(self) -> StreamlitServer:
        """Start the process and return at once; :meth:`wait` waits until it serves."""
        self._spawn()
        return self

    def wait(self, timeout: float = 90.0, attempts: int = 3) -> StreamlitServer:
        """Wait for ``/_stcore/health``; respawn on a new port if another process took the port."""
        for attempt in range(attempts):
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    break
                if self._healthy():
                    return self
                time.sleep(0.05)
            else:
                log = self.log_tail()
                self.stop()
                raise ServerError(f"streamlit did not answer /_stcore/health within {timeout:.0f} s:\n{log}")
            log = self.log_tail()
            self.stop()
            if "is not available" not in log or attempt == attempts - 1:
                raise ServerError(f"streamlit exited with code {self.process.returncode}:\n{log}")
            self._spawn()
        raise AssertionError("unreachable")

    def start(self, timeout: float = 90.0) -> StreamlitServer:
        return self.spawn().wait(timeout)

    def stop(self, timeout: float = 15.0) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout)
        if process is not None:
            self.process = process  # keep returncode readable
        if self.log_path is not None:
            self.log_path.unlink(missing_ok=True)
            self.log_path = None

    def __enter__(self) -> StreamlitServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --- In the page ---------------------------------------------------------------------------

#: The JavaScript this module runs in the page, kept in .js files beside it.
JS = Path(__file__).with_name("js")

#: Installed into every page (``context.add_init_script``) as ``window.__sde``.
PAGE_HELPERS_JS = (JS / "page_helpers.js").read_text(encoding="utf-8")


def prepare_context(context) -> None:
    """Install the page helpers in a new browser context (before any navigation); once."""
    if not getattr(context, "_sde_helpers", False):
        context.add_init_script(PAGE_HELPERS_JS)
        context._sde_helpers = True


_token = 0


def wait_settled(page, charts: int | None, *, changed_from: str | None = None, timeout: float = 60.0, quiet_ms=150):
    """Wait until the page is done (see ``ready`` above) and stayed so for ``quiet_ms``.

    With ``changed_from`` (a :func:`chart_signature` taken before an action) also wait for the
    charts to differ from it: the rerun the action caused has arrived.
    """
    global _token
    _token += 1
    page.wait_for_function(
        """([charts, token, quiet, before]) =>
             window.__sde && window.__sde.settled(charts, token, quiet)
             && (before === null || window.__sde.signature() !== before
                 || document.querySelector('[data-testid="stException"]') !== null)""",
        arg=[charts, _token, quiet_ms, changed_from],
        timeout=timeout * 1000,
    )


def chart_signature(page) -> str:
    return page.evaluate("window.__sde.signature()")


_DTYPES = {"u1c": "u1"}  # plotly's Uint8ClampedArray code


def decode_array(value: Any) -> Any:
    """A trace field as plotly.js holds it -> NumPy array (typed ``{dtype, bdata, shape}`` or list)."""
    if isinstance(value, dict) and "bdata" in value:
        dtype = np.dtype(_DTYPES.get(value["dtype"], value["dtype"])).newbyteorder("<")
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=dtype)
        shape = value.get("shape")
        if shape:
            array = array.reshape([int(s) for s in str(shape).split(",")])
        return array
    if isinstance(value, list):
        try:
            return np.asarray([decode_array(v) for v in value])
        except ValueError:
            return value
    return value


def read_charts(page) -> list[dict]:
    """The page's charts: ``[{"layout": {...}, "traces": {name: {"x": array, ...}}, "data": [...]}]``;
    an ECharts chart's series read as traces (``dashboard.charts.echart.as_figure``)."""
    from dashboard.charts import echart  # here: the module itself imports no dashboard code

    charts = page.evaluate("window.__sde.charts()")
    for chart in charts:
        if "echarts" in chart:  # an ECharts option, read as the figure the tests compare
            chart["data"] = echart.as_figure(chart.pop("echarts") or {})["data"]
        for trace in chart["data"]:
            for key in ("x", "y", "z", "customdata"):
                if key in trace:
                    trace[key] = decode_array(trace[key])
        chart["traces"] = {trace.get("name"): trace for trace in chart["data"]}
    return charts
