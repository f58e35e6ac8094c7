"""A workshop's load: N sessions, each moving a widget every two seconds.

Run: ``make bench`` or ``.venv/bin/python bench/bench_load.py [--seconds 20] [--users 1 10 30 60]
[--pattern 1] [--workshop 2 | --url http://127.0.0.1:8501]``. Not a test; prints figures and
always exits 0. The 95th percentile moves with the moments the users happen to move: to compare
two versions of the code, run each on the same few ``--pattern`` values, interleaved.

Each user is a browserless session over Streamlit's own websocket protocol
(``scripts/ws_session.py``) on one page of the registry, the pages dealt out in turn. Every two
seconds, at a random phase, it moves one widget to a new random value (α where the page has it,
else the seed, else it simply reruns), which is what a slider move asks of the server; the figure
is the time from sending the move until the server reports the run finished. The scenarios:

* ``defaults``: every page at its defaults, for N users;
* ``heavy``: every page on the heaviest link it allows (:data:`HEAVY`), each move a new seed, so
  every run computes afresh;
* ``mixed``: light users at the defaults beside a few heavy ones; the light users' times;
* ``workshop``: the defaults through ``make workshop``'s nginx in front of N replicas
  (``--workshop N`` starts it and runs only this; ``--url`` plays against one already running).
  Each participant connects from its own loopback address (127.0.0.2, 127.0.0.3, …), so the
  proxy spreads them by address as it spreads a room's laptops.

Also printed: the server's resident memory (its peak while the scenario ran), the share of a core
it used, the share of the machine's CPU time the hypervisor gave to other machines meanwhile
(``steal``: on a shared host, figures taken at a high steal measure the neighbours too), and the
memory one idle session holds (the growth from opening 60 sessions that then do
nothing, per session), and the machine's load average (``uptime``) as the scenario ended. The
sessions run in this process, on the same two cores as the server.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboard.params import PARAMS  # noqa: E402
from dashboard.registry import PAGES  # noqa: E402
from scripts.live_app import StreamlitServer  # noqa: E402
from scripts.workshop import Workshop  # noqa: E402
from scripts.ws_session import RunFailed, Session  # noqa: E402

PERIOD = 2.0  # seconds between one user's moves
GOAL_P95 = 0.300  # seconds, 30 users at the defaults
#: The workshop's guards: the 95th percentile for 30 and 60 participants on two replicas.
WORKSHOP_GOALS = {30: 0.300, 60: 0.600}
GOAL_LIGHT_WORST = 1.0  # seconds, a light page's rerun beside heavy links

#: The heaviest link each page allows (a page not listed is no heavier than its defaults).
HEAVY = {
    "speedup": "k=64&compare=" + "&compare=".join(f"{a:g}" for a in PARAMS["compare"].options),
    "optimal_k": "max_k=64&view=speedup",
    "sampling": f"preset=random&vocab={PARAMS['vocab'].high:g}&n={PARAMS['n'].fmt(PARAMS['n'].options[-1])}",
    "kl": f"pairs={PARAMS['pairs'].high:g}&kl_vocab={PARAMS['kl_vocab'].high:g}",
    "simulator": "tokens=1M&k=64&chain_vocab=26&draft=noise&noise=1",
    "hardware": "&".join(
        f"{key}={PARAMS[key].fmt(PARAMS[key].options[-1])}" for key in ("batch", "context", "max_batch")
    ),
    # A toy pair's vector is drawn from the seed, so each move computes the trees afresh.
    "trees": "tree_source=pair&tree_chain_vocab=26&"
    + "&".join(f"{key}={PARAMS[key].high:g}" for key in ("budget", "depth", "steps", "topk")),
}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def mover(page_id: str, fresh_seed: bool, rng: random.Random):
    """The label of the widget a user of this page moves, and a random new value for it."""
    keys = PAGES[page_id].params
    if "alpha" in keys and not fresh_seed:
        return PARAMS["alpha"].label, lambda: round(rng.uniform(0.05, 0.95), 2)
    if "seed" in keys:
        return PARAMS["seed"].label, lambda: rng.randrange(10_000)
    if "alpha" in keys:
        return PARAMS["alpha"].label, lambda: round(rng.uniform(0.05, 0.95), 2)
    return None, None


#: ``--pattern``: when set, each user's arrival, phase and values follow from it and the user's
#: place in the scenario, so that two versions of the code can be compared on the same pattern.
PATTERN: int | None = None


def user_rng(index: int, page_id: str) -> random.Random:
    return random.Random(f"{PATTERN}/{index}/{page_id}") if PATTERN is not None else random.Random()


class User(threading.Thread):
    def __init__(
        self,
        url: str,
        page_id: str,
        query: str,
        until: float,
        fresh_seed: bool,
        index: int = 0,
        source: str | None = None,
    ):
        super().__init__(daemon=True)
        self.source = source
        self.rng = user_rng(index, page_id)
        self.url, self.page_id, self.query, self.until = url, page_id, query, until
        self.fresh_seed = fresh_seed
        self.times: list[float] = []
        self.failures: list[str] = []

    def run(self) -> None:
        time.sleep(self.rng.uniform(0, PERIOD))  # people do not all arrive at once
        try:
            with Session(self.url, source=self.source) as session:
                session.open(PAGES[self.page_id].url_path, self.query)
                label, value = mover(self.page_id, self.fresh_seed, self.rng)
                next_move = time.monotonic() + self.rng.uniform(0, PERIOD)
                while next_move < self.until:
                    time.sleep(max(0.0, next_move - time.monotonic()))
                    run = session.move(label, value()) if label else session._run(60.0)
                    self.times.append(run.seconds)
                    if run.exceptions:
                        self.failures.append(run.exceptions[0])
                    next_move += PERIOD
        except (RunFailed, OSError) as error:
            self.failures.append(str(error))


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_times() -> tuple[int, int]:
    """All CPU time of this machine so far and the part its hypervisor gave to other machines
    (``steal`` in ``/proc/stat``), in clock ticks."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields[:8]), fields[7] if len(fields) > 7 else 0


def participant_address(index: int) -> str:
    """The loopback address participant ``index`` connects from: 127.0.0.2, 127.0.0.3, …"""
    return f"127.{(index + 2) // 65536 % 256}.{(index + 2) // 256 % 256}.{(index + 2) % 256}"


def scenario(
    url: str, pids: list[int], users: list[tuple[str, str, bool]], seconds: float, own_addresses: bool = False
) -> tuple[list[User], float, list[float], float]:
    """Run the users against ``url``, each from its own loopback address if ``own_addresses``.

    Returns the threads, the servers' peak MB, each server's CPU share and the machine's steal
    share (``/proc/stat`` before and after).
    """
    until = time.monotonic() + PERIOD + seconds
    threads = [
        User(url, page_id, query, until, fresh, index=i, source=participant_address(i) if own_addresses else None)
        for i, (page_id, query, fresh) in enumerate(users)
    ]
    peak = sum(rss_mb(pid) for pid in pids)
    cpu, start = [cpu_seconds(pid) for pid in pids], time.monotonic()
    total, stolen = machine_times()
    for thread in threads:
        thread.start()
    while any(t.is_alive() for t in threads):
        peak = max(peak, sum(rss_mb(pid) for pid in pids))
        time.sleep(0.25)
    elapsed = time.monotonic() - start
    shares = [(cpu_seconds(pid) - before) / elapsed for pid, before in zip(pids, cpu, strict=True)]
    total_after, stolen_after = machine_times()
    return threads, peak, shares, (stolen_after - stolen) / max(1, total_after - total)


def deal(n: int, heavy: bool) -> list[tuple[str, str, bool]]:
    """(page, query, heavy) for n users: the pages in turn, or the heavy links in turn."""
    pages = list(HEAVY) if heavy else list(PAGES)
    return [(pages[i % len(pages)], HEAVY[pages[i % len(pages)]] if heavy else "", heavy) for i in range(n)]


def p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")


def summary(times: list[float]) -> str:
    if not times:
        return "no runs"
    median, high, worst = (1e3 * x for x in (statistics.median(times), p95(times), max(times)))
    return f"{len(times):5d} runs  median {median:6.0f} ms  p95 {high:6.0f} ms  worst {worst:6.0f} ms"


def alone(server: StreamlitServer, page_id: str, query: str, moves: int = 5) -> str:
    """Median rerun and the server's memory growth over five back-to-back moves on one link."""
    pid = server.process.pid
    with Session(server.url) as session:
        session.open(PAGES[page_id].url_path, query)
        label, value = mover(page_id, True, user_rng(0, page_id))
        base, samples, times = rss_mb(pid), [], []
        done = threading.Event()
        watcher = threading.Thread(target=_watch, args=(pid, done, samples))
        watcher.start()
        for _ in range(moves):
            times.append(session.move(label, value()).seconds if label else session._run(60.0).seconds)
        done.set()
        watcher.join()
    growth = max(samples, default=base) - base
    return f"median {statistics.median(times) * 1e3:5.0f} ms  server +{growth:4.0f} MB at its peak"


def _watch(pid: int, done: threading.Event, samples: list[float]) -> None:
    while not done.is_set():
        samples.append(rss_mb(pid))
        time.sleep(0.005)


def warm(server: StreamlitServer) -> None:
    """Visit every page once (imports, the defaults' caches), as the host does before a workshop."""
    for page_id in PAGES:
        with Session(server.url) as session:
            session.open(PAGES[page_id].url_path)


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def report(
    name: str, n: int, url: str, pids: list[int], users, seconds: float, goal: float | None = None, **kw
) -> None:
    threads, peak, shares, steal = scenario(url, pids, users, seconds, **kw)
    times = [t for thread in threads for t in thread.times]
    verdict = f"  guard p95 < {goal * 1e3:.0f} ms: " + ("met" if p95(times) < goal else "MISSED") if goal else ""
    cores = " + ".join(f"{share:.0%}" for share in shares) if pids else "?"
    print(
        f"{name:10} N = {n:2d}: {summary(times)}  servers {peak:4.0f} MB, {cores} of a core, "
        f"steal {steal:3.0%}, {load()}{verdict}",
        flush=True,
    )
    for failure in sorted({f for thread in threads for f in thread.failures})[:3]:
        print(f"    failed: {failure}")


def workshop_scenarios(url: str, pids: list[int], users: list[int], seconds: float, replicas: int | None) -> None:
    """The default users through a workshop's proxy, each from its own loopback address."""
    loopback = url.startswith(("http://127.", "http://localhost"))
    for n in users:
        goal = WORKSHOP_GOALS.get(n) if replicas == 2 else None
        report(f"workshop {replicas or '?'}", n, url, pids, deal(n, False), seconds, goal, own_addresses=loopback)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long each scenario runs")
    parser.add_argument("--users", type=int, nargs="+", help="participants (default: 1 10 20 30 60; a workshop 30 60)")
    parser.add_argument("--pattern", type=int, help="a fixed pattern of arrivals and moves (default: a new one)")
    parser.add_argument("--workshop", type=int, metavar="N", help="only: N replicas behind nginx (make workshop)")
    parser.add_argument("--url", help="only: participants against a workshop already running at this address")
    args = parser.parse_args()
    global PATTERN
    PATTERN = args.pattern
    if args.url:
        workshop_scenarios(args.url.rstrip("/"), [], args.users or [30, 60], args.seconds, None)
        return
    if args.workshop:
        with Workshop(args.workshop) as workshop:
            for server in workshop.servers:
                warm(server)
            pids = [server.process.pid for server in workshop.servers]
            workshop_scenarios(workshop.local_url, pids, args.users or [30, 60], args.seconds, args.workshop)
        return
    args.users = args.users or [1, 10, 20, 30, 60]

    with StreamlitServer() as server:
        warm(server)
        print(f"server after one visit of every page: {rss_mb(server.process.pid):.0f} MB")
        time.sleep(1.0)
        before = rss_mb(server.process.pid)
        idle = [Session(server.url) for _ in range(60)]
        for i, session in enumerate(idle):
            session.open(PAGES[list(PAGES)[i % len(PAGES)]].url_path)
        time.sleep(1.0)
        after = rss_mb(server.process.pid)
        print(f"60 idle sessions: server {before:.0f} → {after:.0f} MB, {(after - before) / 60:.1f} MB per session")
        for session in idle:
            session.close()

        print("one user alone on each page's heaviest link, five new seeds (goal: 0.5 s, 100 MB a run):")
        for page_id, query in HEAVY.items():
            print(f"    {page_id:10} {alone(server, page_id, query)}")

        for name, heavy in (("defaults", False), ("heavy", True)):
            for n in args.users:
                goal = GOAL_P95 if name == "defaults" and n == 30 else None
                report(name, n, server.url, [server.process.pid], deal(n, heavy), args.seconds, goal)

        # Ten light users alone stay well inside the goal, so what the heavy ones add shows; at
        # thirty the light users' own load already takes most of the time.
        for light_users in (10, 30):
            for heavy_users in (1, 3):
                users = deal(light_users, False) + deal(heavy_users, True)
                threads, peak, (share,), steal = scenario(server.url, [server.process.pid], users, args.seconds)
                light = [t for thread in threads if not thread.fresh_seed for t in thread.times]
                verdict = "met" if max(light, default=float("nan")) < GOAL_LIGHT_WORST else "MISSED"
                print(
                    f"mixed      {light_users} light + {heavy_users} heavy: light {summary(light)}  server"
                    f" {peak:4.0f} MB, {share:4.0%} of a core, steal {steal:3.0%}, {load()}"
                    f"  goal worst < 1 s: {verdict}"
                )

    # Streamlit runs every session of a server in one Python process: two replicas behind the
    # workshop's proxy use both cores.
    with Workshop(2) as workshop:
        for server in workshop.servers:
            warm(server)
        pids = [server.process.pid for server in workshop.servers]
        workshop_scenarios(workshop.local_url, pids, [30, 60], args.seconds, 2)


if __name__ == "__main__":
    main()
