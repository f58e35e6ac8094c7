"""Page runs take turns: one server computes one session's run at a time, in about the order asked.

Every session's script runs in a thread of the one server process, and Python's GIL lets one
thread compute at a time anyway. Left to share it, runs slow each other down beyond their own
work: each element a page sends wakes the server's event loop, the thread gives the GIL up for
that moment and, with other runs waiting, gets it back only after Python's 5 ms switch interval,
and a page sends 30 to 60 elements. In turn, a run shares the GIL with the event loop alone, and
everyone's wait is shorter (``bench/bench_load.py``; the figures are in ``docs/performance.md``).

The router (``app.py``) runs each page in :func:`page_run`, and :func:`dashboard.ui.interactive`
each fragment rerun. A run that waits for other work (the Simulator's decoding in the worker
process) gives its turn to the next meanwhile (:func:`aside`); it must hold no lock another run
may wait for with the turn, such as the one ``st.cache_data`` holds while it computes a value.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_turn = threading.Lock()
_held = threading.local()


@contextmanager
def page_run() -> Iterator[None]:
    """Hold the turn while the block runs; a block within a run that holds it goes straight through.

    A page's fragment runs within the page's run on a full rerun, and on its own on a fragment
    rerun: both run in :func:`page_run`, and only the outer one waits.
    """
    if getattr(_held, "turn", False):
        yield
        return
    with _turn:
        _held.turn = True
        try:
            yield
        finally:
            _held.turn = False


@contextmanager
def aside() -> Iterator[None]:
    """Give the turn to the next run while the block waits, and take it back after; see the module's docstring."""
    if not getattr(_held, "turn", False):
        yield
        return
    _held.turn = False
    _turn.release()
    try:
        yield
    finally:
        _turn.acquire()
        _held.turn = True
