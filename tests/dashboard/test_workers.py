"""dashboard.workers: the Simulator's run in a worker process is the run computed in place."""

import os
from dataclasses import fields

import numpy as np
import pytest

from dashboard import workers
from dashboard.simulator_run import simulator_run

ARGS = ("regimes", "merged", 2.0, 8, 4, 2_000, 3, 200)


@pytest.fixture
def worker():
    workers.start()
    yield
    workers.stop()


def test_without_a_worker_calls_run_in_place():
    assert workers.call(os.getpid) == os.getpid()


def test_the_worker_is_another_process_and_returns_the_same_run(worker):
    assert workers.call(os.getpid) != os.getpid()
    here, there = simulator_run(*ARGS), workers.call(simulator_run, *ARGS)
    for field in fields(here):
        a, b = getattr(here, field.name), getattr(there, field.name)
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        else:
            assert repr(a) == repr(b), field.name


def test_an_error_in_the_worker_reaches_the_caller(worker):
    with pytest.raises(ValueError, match="k must be"):
        workers.call(simulator_run, "regimes", "merged", 2.0, 8, 65, 2_000, 3, 200)
