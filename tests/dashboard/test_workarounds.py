"""The Streamlit workarounds: where they may live, when they run, and the bug each one works around.

Each bug test runs Streamlit's own behaviour, without the workaround, on the pinned version and
asserts the bug is there: when an upgrade fixes it, the test fails and says the workaround can go.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import workarounds
from tests.helpers import ON_PINNED_STREAMLIT

ROOT = Path(__file__).resolve().parents[2]


def test_workarounds_run_only_on_the_pinned_streamlit():
    assert workarounds.is_active(workarounds.PINNED, {})
    assert not workarounds.is_active(workarounds.PINNED, {"SDE_WORKAROUNDS": "off"})
    assert not workarounds.is_active("1.68.0", {})
    assert not workarounds.is_active("1.66.1", {})


def test_the_pin_is_the_requirement():
    assert f"streamlit=={workarounds.PINNED}\n" in (ROOT / "requirements.txt").read_text()


def _is_module(name: str) -> bool:
    try:
        return name.startswith("streamlit.") and importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            # `from streamlit import net_util` is an import of the module streamlit.net_util.
            names |= {f"{node.module}.{a.name}" for a in node.names if _is_module(f"{node.module}.{a.name}")}
    return names


#: The code that runs in the app and its tools; the tests may use Streamlit's testing API.
APP_CODE = sorted(
    path
    for pattern in ("app.py", "app_pages/*.py", "dashboard/**/*.py", "specmath/**/*.py", "scripts/*.py", "bench/*.py")
    for path in ROOT.glob(pattern)
)
TEST_CODE = sorted(ROOT.glob("tests/**/*.py"))


@pytest.mark.parametrize("path", APP_CODE + TEST_CODE, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_import_from_streamlits_internals(path):
    allowed = {"streamlit"}
    if path in TEST_CODE or path.parent.name in ("bench", "scripts"):
        # Streamlit's testing API, and the protobuf messages of its wire protocol for sessions
        # without a browser (scripts/ws_session.py).
        allowed |= {"streamlit.testing.v1"} | {n for n in _imports(path) if n.startswith("streamlit.proto.")}
    if path == ROOT / "dashboard" / "workarounds.py":
        allowed |= {"streamlit.net_util"}  # the one module that works around Streamlit's internals
    internal = sorted(name for name in _imports(path) if name.startswith("streamlit.") and name not in allowed)
    assert internal == [], f"{path.relative_to(ROOT)} imports Streamlit's internals: {internal}"


@pytest.mark.parametrize("path", APP_CODE, ids=lambda path: str(path.relative_to(ROOT)))
def test_javascript_lives_in_js_files(path):
    """JavaScript, the app's and its tools', is in .js files, not in Python strings (tests may
    spell out a short scenario inline)."""
    text = path.read_text(encoding="utf-8")
    assert "addEventListener" not in text and "=> {" not in text, f"JavaScript in {path.relative_to(ROOT)}"


@pytest.mark.parametrize(("make", "file_name"), [("page_link_script", "page_links.js")])
def test_each_script_comes_from_its_js_file_and_only_when_active(make, file_name, monkeypatch):
    source = (ROOT / "dashboard" / "js" / file_name).read_text(encoding="utf-8")
    monkeypatch.setattr(workarounds, "ACTIVE", True)
    html = getattr(workarounds, make)()
    assert source in html and html.count("<script") == 1
    assert html in workarounds.sidebar_html()
    monkeypatch.setattr(workarounds, "ACTIVE", False)
    assert getattr(workarounds, make)() is None
    assert workarounds.sidebar_html() is None


def _whole_number_box():
    import streamlit as st

    from dashboard import workarounds

    number = workarounds.whole_number_input(st, "Seed", value=42, low=0, high=9999, key="seed", bind="query-params")
    st.write(f"seed={number!r}")


def _plain_int_box():
    import streamlit as st

    number = st.number_input("Seed", value=42, min_value=0, max_value=9999, step=1, key="seed", bind="query-params")
    st.write(f"seed={number!r}")


HUGE = "9" * 400  # float("9" * 400) is inf


@ON_PINNED_STREAMLIT
def test_bug_a_huge_number_in_a_link_crashes_streamlits_int_box():
    """Streamlit 1.67: ``int(inf)`` in ``NumberInputSerde.deserialize`` before the bounds check."""
    at = AppTest.from_function(_plain_int_box)
    at.query_params["seed"] = HUGE
    at.run()
    assert at.exception, "Streamlit's int box no longer fails on a huge link value: drop whole_number_input"


#: The box with the workaround, and on any other Streamlit also without it (on the pinned one,
#: Streamlit's own int box is the bug above).
BOX_MODES = [True] if workarounds.STREAMLIT == workarounds.PINNED else [True, False]


@pytest.mark.parametrize("active", BOX_MODES)
def test_whole_number_box_takes_a_link_and_falls_back_on_a_huge_one(active, monkeypatch):
    monkeypatch.setattr(workarounds, "ACTIVE", active)
    at = AppTest.from_function(_whole_number_box)
    at.query_params["seed"] = "17"
    at.run()
    assert not at.exception
    assert at.markdown[0].value == "seed=17"
    at = AppTest.from_function(_whole_number_box)
    at.query_params["seed"] = HUGE
    at.run()
    assert not at.exception
    assert at.markdown[0].value == "seed=42"
