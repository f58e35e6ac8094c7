"""dashboard.workers: the Simulator's run in a worker process is the run computed in place, and a
worker that dies is replaced."""

import os
import subprocess
import sys
from pathlib import Path

from dashboard import workers

ROOT = Path(__file__).resolve().parents[2]

# In a fresh interpreter, as dashboard.serve starts the worker before any script runs: a spawned
# worker imports the parent's __main__, and Streamlit's script runs (AppTest here) replace it.
PROBE = """
import os
from dataclasses import fields
import numpy as np
from dashboard import workers
from dashboard.simulator_run import simulator_run

ARGS = ("regimes", "merged", 2.0, 8, 4, 2_000, 3, 200)
workers.start()
assert workers.call(os.getpid) != os.getpid(), "ran in place"
here, there = simulator_run(*ARGS), workers.call(simulator_run, *ARGS)
for field in fields(here):
    a, b = getattr(here, field.name), getattr(there, field.name)
    same = np.array_equal(a, b) if isinstance(a, np.ndarray) else repr(a) == repr(b)
    assert same, field.name
try:
    workers.call(simulator_run, "regimes", "merged", 2.0, 8, 65, 2_000, 3, 200)
except ValueError as error:
    assert "k must be" in str(error), error
else:
    raise AssertionError("no error from the worker")
workers.stop()
print("ok")
"""


def test_without_a_worker_calls_run_in_place():
    assert workers.call(os.getpid) == os.getpid()


def test_the_worker_is_another_process_returns_the_same_run_and_passes_errors_on():
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


# A killed worker: the call that finds it dead runs in place and the next in a new worker, until
# MAX_RESTARTS workers have replaced dead ones; then every call runs in place.
DEATHS = """
import os, signal
from dashboard import workers

workers.start()
here = os.getpid()
for death in range(workers.MAX_RESTARTS + 1):
    worker = workers.call(os.getpid)
    assert worker != here, f"no worker after {death} deaths"
    os.kill(worker, signal.SIGKILL)
    assert workers.call(os.getpid) == here, "the call that finds the worker dead runs in place"
assert workers.call(os.getpid) == here == workers.call(os.getpid), "no worker past the restarts"
print("ok")
"""


def test_a_dead_worker_is_replaced_a_few_times():
    out = subprocess.run([sys.executable, "-c", DEATHS], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
