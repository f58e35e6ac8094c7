"""The server in a room without internet: it asks nobody, and refuses a foreign origin unasked.

Each test runs ``probe.py`` in a new network and mount namespace (root only; CI runs as root),
where DNS reads every query and answers none: the probe reports every name the server asked.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ON_PINNED_STREAMLIT

PROBE = Path(__file__).with_name("probe.py")


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "a network namespace needs root"
    for tool in ("unshare", "ip", "mount"):
        if shutil.which(tool) is None:
            return f"`{tool}` is missing (util-linux, iproute2)"
    if subprocess.run(["unshare", "--net", "--mount", "true"], capture_output=True).returncode != 0:
        return "this machine does not allow new network namespaces"
    return None


@pytest.fixture(scope="module")
def probe():
    reason = _missing()
    if reason and os.environ.get("CI") == "true":
        pytest.fail(f"CI=true, so the offline tests must run, but {reason}", pytrace=False)
    if reason:
        pytest.skip(reason)

    def run(*args: str, workarounds: str = "on") -> dict:
        env = {**os.environ, "SDE_WORKAROUNDS": workarounds}
        done = subprocess.run(
            ["unshare", "--net", "--mount", sys.executable, str(PROBE), *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    return run


def test_a_workshop_server_on_every_interface_asks_the_internet_nothing(probe):
    # Any lookup would wait the resolver's own timeouts (about 10 s a name) in a room without internet.
    report = probe("--host", "0.0.0.0")
    assert report["queries"] == [], report
    assert report["foreign"].startswith("refused"), report  # the origin check still works


def test_the_default_address_is_this_machine_only_and_needs_no_lookup(probe):
    """.streamlit/config.toml alone (no workaround) keeps the start-up banner from asking."""
    report = probe("--start-only", workarounds="off")
    assert report["queries_at_start"] == [], report


@ON_PINNED_STREAMLIT
def test_bug_without_the_workaround_a_foreign_origin_freezes_every_session(probe):
    """Streamlit 1.67 asks DNS on each foreign-origin websocket, blocking its event loop."""
    report = probe("--host", "0.0.0.0", "--dns-options", "timeout:1 attempts:1", workarounds="off")
    assert "checkip.amazonaws.com" in report["queries_at_start"], report
    # The foreign origin's websocket asks DNS again, on the event loop every session shares.
    assert len(report["queries"]) > len(report["queries_at_start"]), report
