"""Serve a workshop: N replicas of the dashboard behind nginx, one address to hand out.

Run: ``make workshop [REPLICAS=2] [PORT=8501] [HOST=0.0.0.0]`` or ``.venv/bin/python
scripts/workshop.py --replicas 2 --port 8501 --host 0.0.0.0``. Ctrl-C stops everything.

Streamlit runs every session of a server in one Python process, so one server uses one core; a
workshop scales as Streamlit is deployed, by replicas behind a proxy that keeps each participant
on one replica (a session's websocket and its downloads must reach the server that holds it).
Each replica is ``python -m dashboard.serve`` on 127.0.0.1, as ``make run`` starts it; nginx
listens on ``--host``. Its configuration, pid file, logs and temporary files live in a temporary
folder, so no root is needed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.live_app import ServerError, StreamlitServer, free_port  # noqa: E402

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

CONFIG = """\
daemon off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;

events {{
    worker_connections 4096;
}}

http {{
    access_log off;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;

    map $http_upgrade $connection_upgrade {{
        default upgrade;
        '' close;
    }}

    upstream replicas {{
        # Sticky by client address. Not ip_hash: for IPv4 it hashes only the first three octets
        # (addrlen = 3 in src/http/modules/ngx_http_upstream_ip_hash_module.c, nginx
        # release-1.22.1, lines 123-124), so a room behind one /24, or the bench's 127.0.0.x
        # participants, would all land on one replica.
        hash $remote_addr consistent;
{servers}
    }}

    server {{
        listen {listen};
        location / {{
            proxy_pass http://replicas;
            # Streamlit's session is a websocket (/_stcore/stream): HTTP/1.1 and the upgrade.
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            # A participant who reads for a while sends nothing; keep the websocket open.
            proxy_read_timeout 1d;
            proxy_send_timeout 1d;
            proxy_buffering off;
        }}
    }}
}}
"""


def nginx_config(tmp: Path, listen: str, ports: list[int]) -> str:
    servers = "\n".join(f"        server 127.0.0.1:{port};" for port in ports)
    return CONFIG.format(tmp=tmp, listen=listen, servers=servers)


def default_replicas() -> int:
    """One replica per core this process may run on."""
    return max(1, len(os.sched_getaffinity(0)))


def room_address() -> str | None:
    """This machine's address on its default route (no packet is sent), or None without one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(("192.0.2.1", 9))  # TEST-NET-1: only picks the outgoing interface
            return sock.getsockname()[0]
        except OSError:
            return None


class Workshop:
    """Replicas and nginx; a context manager. ``url`` is the address to hand out."""

    def __init__(self, replicas: int | None = None, port: int | None = None, host: str = "127.0.0.1"):
        self.replicas = replicas or default_replicas()
        self.port = port or free_port()
        self.host = host
        self.servers: list[StreamlitServer] = []
        self.nginx: subprocess.Popen | None = None
        self.tmp: Path | None = None

    @property
    def public_host(self) -> str:
        if self.host in ("0.0.0.0", ""):
            return room_address() or socket.gethostname()
        return self.host

    @property
    def url(self) -> str:
        return f"http://{self.public_host}:{self.port}"

    @property
    def local_url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    def start(self, timeout: float = 120.0) -> Workshop:
        if not os.access(NGINX, os.X_OK):
            raise ServerError(f"{NGINX} not found (Debian package `nginx`; `make workshop` installs it as root)")
        self.tmp = Path(tempfile.mkdtemp(prefix="workshop-"))
        # A browser's origin is the proxy's address, which Streamlit's websocket check must know.
        extra = ("--browser.serverAddress", self.public_host) if self.host in ("0.0.0.0", "") else ()
        try:
            self.servers = [StreamlitServer(extra_args=extra).spawn() for _ in range(self.replicas)]
            for server in self.servers:
                server.wait(timeout)
            config = self.tmp / "nginx.conf"
            config.write_text(nginx_config(self.tmp, f"{self.host}:{self.port}", [s.port for s in self.servers]))
            self.nginx = subprocess.Popen(
                [NGINX, "-p", str(self.tmp), "-e", str(self.tmp / "error.log"), "-c", str(config)],
                stdin=subprocess.DEVNULL,
            )
            self._wait_proxy(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_proxy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.nginx.poll() is not None:
                raise ServerError(f"nginx exited with code {self.nginx.returncode}:\n{self.error_log()}")
            try:
                with urllib.request.urlopen(f"{self.local_url}/_stcore/health", timeout=2) as response:
                    if response.read().strip() == b"ok":
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.05)
        raise ServerError(f"nginx did not answer within {timeout:.0f} s:\n{self.error_log()}")

    def error_log(self) -> str:
        path = self.tmp / "error.log" if self.tmp else None
        return path.read_text(errors="replace")[-3000:] if path and path.exists() else ""

    def pids(self) -> list[int]:
        """Every process of the workshop: the replicas, nginx's master and its workers."""
        pids = [s.process.pid for s in self.servers if s.process is not None]
        if self.nginx is not None:
            pids.append(self.nginx.pid)
            for task in Path(f"/proc/{self.nginx.pid}/task").glob("*/children"):
                try:
                    pids.extend(int(pid) for pid in task.read_text().split())
                except OSError:
                    pass
        return pids

    def stop(self) -> None:
        nginx, self.nginx = self.nginx, None
        if nginx is not None and nginx.poll() is None:
            nginx.send_signal(signal.SIGTERM)  # nginx's fast shutdown, workers included
            try:
                nginx.wait(15)
            except subprocess.TimeoutExpired:
                nginx.kill()
                nginx.wait(15)
        for server in self.servers:
            server.stop()
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None

    def __enter__(self) -> Workshop:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicas", type=int, default=default_replicas(), help="servers (default: one per core)")
    parser.add_argument("--port", type=int, default=8501, help="the proxy's port")
    parser.add_argument("--host", default="127.0.0.1", help="the proxy's address (0.0.0.0: the room's network)")
    args = parser.parse_args()
    workshop = Workshop(args.replicas, args.port, args.host)
    # make's Ctrl-C reaches every process of the group; a plain kill of this one stops them too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        workshop.start()
        print(f"{workshop.replicas} replicas behind nginx. Hand out: {workshop.url}  (Ctrl-C stops)", flush=True)
        workshop.nginx.wait()
    except KeyboardInterrupt:
        pass
    finally:
        workshop.stop()


if __name__ == "__main__":
    main()
