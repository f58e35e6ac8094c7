"""Fixtures of the browser tests: the real app under ``streamlit run`` and Debian's Chromium.

Without Chromium or Playwright the tests skip with the reason, except under ``CI=true``, where
they must run: there a missing browser is an error.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from scripts import live_app
from tests.browser.helpers import AppTab

IN_CI = os.environ.get("CI") == "true"


def _require_browser() -> None:
    reason = live_app.browser_missing()
    if reason is None:
        return
    if IN_CI:
        pytest.fail(f"CI=true, so the browser tests must run, but {reason}", pytrace=False)
    pytest.skip(f"browser tests need Chromium and Playwright: {reason}")


@pytest.fixture(scope="session")
def playwright_instance():
    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright_instance):
    browser = live_app.launch_chromium(playwright_instance)
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def app_server(playwright_instance) -> Iterator[live_app.StreamlitServer]:
    """One server for most tests; every new browser page is a new Streamlit session."""
    with live_app.StreamlitServer() as server:
        yield server


@pytest.fixture(scope="session")
def first_visit_server(playwright_instance) -> Iterator[live_app.StreamlitServer]:
    """A server only the first-visitor tests visit, each page in a session of its own."""
    with live_app.StreamlitServer() as server:
        yield server


@pytest.fixture
def open_tab(browser):  # for other servers, in a browser context of its own
    """A factory of recorded browser tabs: ``tab = open_tab(server)``; closed after the test."""
    contexts = []

    def make(server: live_app.StreamlitServer) -> AppTab:
        context = browser.new_context(viewport=live_app.VIEWPORT)
        contexts.append(context)
        return AppTab(context, server.url)

    yield make
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def warm_tab(browser, app_server) -> Iterator[AppTab]:
    context = browser.new_context(viewport=live_app.VIEWPORT)
    yield AppTab(context, app_server.url)
    context.close()


@pytest.fixture
def tab(warm_tab) -> AppTab:
    """A tab on the session's server, reused from test to test: its warm cache makes a page load
    take about a second instead of four. Each ``open`` starts a new Streamlit session all the same."""
    return warm_tab
