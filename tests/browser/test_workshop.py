"""``make workshop``'s setup: two replicas behind nginx, one page driven through the proxy."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import specmath
from scripts import workshop
from tests.browser.helpers import PAGES, AppTab, next_slider_value

IN_CI = os.environ.get("CI") == "true"


@pytest.fixture
def setup(playwright_instance):
    if not os.access(workshop.NGINX, os.X_OK):
        reason = f"{workshop.NGINX} not found (Debian package `nginx`; `make workshop` installs it as root)"
        if IN_CI:
            pytest.fail(f"CI=true, so the workshop test must run, but {reason}", pytrace=False)
        pytest.skip(reason)
    running = workshop.Workshop(replicas=2).start()
    pids = running.pids()
    try:
        yield running
    finally:
        running.stop()
        # Every process it started is gone: the replicas, nginx's master and its worker.
        assert len(pids) == 4 and not [pid for pid in pids if Path(f"/proc/{pid}").exists()]


def test_a_page_through_the_proxy_moves_a_slider_redraws_its_chart_and_downloads(setup, browser):
    context = browser.new_context()
    try:
        tab = AppTab(context, setup.local_url)
        sockets: list[str] = []
        tab.page.on("websocket", lambda socket: sockets.append(socket.url))
        spec = PAGES["optimal_k"]
        tab.open(spec)
        assert tab.exceptions() == []
        # The page came through the proxy, its websocket included.
        assert sockets == [setup.local_url.replace("http", "ws", 1) + "/_stcore/stream"]
        assert all(url.startswith(setup.local_url) for url in tab.requests)

        before = tab.charts()
        tab.press(spec.slider, "ArrowRight")  # waits until the chart differs
        max_k = next_slider_value("max_k")
        assert tab.params()["max_k"] == [max_k]
        assert tab.charts() != before

        with tab.page.expect_download() as download:
            tab.page.locator('[data-testid="stDownloadButton"]', has_text="Download as CSV").click()
        assert download.value.suggested_filename == f"optimal_k_table_maxk{max_k}.csv"
        table = pd.read_csv(download.value.path(), encoding="utf-8-sig")
        k, _ = specmath.optimal_k(table["α"].to_numpy(), table["c"].to_numpy(), max_k=int(max_k))
        np.testing.assert_array_equal(table["optimal k"].to_numpy(), k)
    finally:
        context.close()
