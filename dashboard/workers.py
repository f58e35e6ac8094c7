"""A worker process for the pages' heaviest pure computations, on the core the server does not use.

Every session's script runs in a thread of the one server process, so a page's computation
shares one core and Python's GIL with everyone's reruns. ``make run`` (``dashboard/serve.py``)
calls :func:`start`; from then on :func:`call` runs a function in one worker process while the
script's thread waits without holding the GIL. Without it (AppTest, a plain ``streamlit run``)
:func:`call` runs the function in place, with the same result. A function sent to the worker and
its arguments must pickle: module-level functions of modules that make no Streamlit call on import.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

R = TypeVar("R")

_pool: ProcessPoolExecutor | None = None
_replacing = threading.Lock()

#: Workers started in place of one that died; past them, the server computes in place.
MAX_RESTARTS = 3
_restarts = 0


def _ready() -> bool:
    import specmath  # noqa: F401  (imported once, before the first visitor waits for it)

    return True


def start() -> None:
    """Start the worker process; it imports specmath while the server starts."""
    global _pool
    if _pool is None:
        # "spawn": a fresh interpreter, not a fork of a process that runs threads.
        _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        _pool.submit(_ready)


def stop() -> None:
    """Stop the worker (the server's exit does it too)."""
    global _pool
    if _pool is not None:
        _pool.shutdown()
        _pool = None


def call(function: Callable[..., R], *args: Any) -> R:
    """``function(*args)``, in the worker process when one was started, else here.

    When the worker has died (killed, out of memory), this call computes here and a new worker
    starts for the next ones, up to :data:`MAX_RESTARTS` times.
    """
    pool = _pool
    if pool is not None:
        try:
            return pool.submit(function, *args).result()
        except BrokenProcessPool:
            _replace(pool)
    return function(*args)


def _replace(broken: ProcessPoolExecutor) -> None:
    global _pool, _restarts
    with _replacing:
        if _pool is not broken:  # another call replaced it already
            return
        broken.shutdown(wait=False, cancel_futures=True)
        _pool = None
        if _restarts < MAX_RESTARTS:
            _restarts += 1
            start()
