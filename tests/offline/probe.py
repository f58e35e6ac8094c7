"""Start the dashboard in a room without internet and report what it did, as JSON on stdout.

Run as root inside a new network and mount namespace (``unshare --net --mount``), as
``test_offline_server.py`` does: only the loopback interface exists, so nothing can leave the
machine, and DNS is a local socket that reads every query and never answers (a room whose router
gives out a name server that cannot reach the internet). The probe then

1. starts the server as ``make run`` does and waits for its first health-check answer;
2. opens a session of the Speedup page over the websocket and moves α once;
3. opens a websocket from a foreign origin;

and prints whether the foreign origin was let in and every name the server asked DNS. It times
nothing: the start-up figure is ``bench/bench_latency.py``'s.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from scripts.live_app import StreamlitServer  # noqa: E402
from scripts.ws_session import RunFailed, Session  # noqa: E402

DNS_ADDRESS = "127.0.0.53"
ALPHA = "Acceptance rate α"


def silent_dns(queries: list[str]) -> None:
    """Read DNS queries on port 53 forever, record each name asked, answer none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((DNS_ADDRESS, 53))
        while True:
            packet = sock.recv(4096)
            queries.append(_query_name(packet))


def _query_name(packet: bytes) -> str:
    labels, at = [], 12  # the question follows the 12-byte header as length-prefixed labels
    while at < len(packet) and packet[at]:
        length = packet[at]
        labels.append(packet[at + 1 : at + 1 + length].decode("ascii", "replace"))
        at += 1 + length
    return ".".join(labels)


def isolate(dns_options: str) -> None:
    """Loopback only, and a resolver that points at :func:`silent_dns` (this namespace only)."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    handle, name = tempfile.mkstemp(suffix=".resolv.conf")
    with os.fdopen(handle, "w") as resolv:
        resolv.write(f"nameserver {DNS_ADDRESS}\n" + (f"options {dns_options}\n" if dns_options else ""))
    subprocess.run(["mount", "--bind", name, "/etc/resolv.conf"], check=True)


def foreign_attempt(url: str) -> str:
    try:
        Session(url, origin="http://workshop-slides.example").close()
        return "accepted"
    except Exception as error:  # the server refuses the handshake
        return f"refused: {type(error).__name__}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", help="--server.address; none: what .streamlit/config.toml says")
    parser.add_argument("--start-only", action="store_true", help="stop after the first health-check answer")
    parser.add_argument("--dns-options", default="", help="resolv.conf options, e.g. 'timeout:1 attempts:1'")
    args = parser.parse_args()

    isolate(args.dns_options)
    queries: list[str] = []
    threading.Thread(target=silent_dns, args=(queries,), daemon=True).start()

    server = StreamlitServer(address=args.host)
    report: dict = {"host": args.host}
    # Not `with server.spawn()`: entering the server starts it again, and the first one lived on.
    server.spawn()
    try:
        while True:  # by hand: the server may die before it answers, and then its log is the report
            try:
                with urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=30) as response:
                    response.read()
                break
            except OSError:
                if server.process.poll() is not None:
                    print(server.log_tail(), file=sys.stderr)
                    return 1
                time.sleep(0.02)
        report["queries_at_start"] = list(queries)
        if args.start_only:
            print(json.dumps(report))
            return 0
        try:
            with Session(server.url) as session:
                session.open("Speedup")
                session.move(ALPHA, 0.7)
                report["foreign"] = foreign_attempt(server.url)
        except RunFailed as error:
            report["error"] = str(error)
        report["queries"] = list(queries)
    finally:
        server.stop()
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
