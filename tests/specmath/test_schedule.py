"""batch_k_schedule: the (lo, hi, k) ranges vLLM's num_speculative_tokens_per_batch_size takes."""

import doctest
import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import specmath
import specmath.schedule


@st.composite
def sweeps(draw):
    """A per-batch sweep: strictly increasing batches (with gaps), ks, speedups on both sides of 1."""
    n = draw(st.integers(1, 30))
    steps = draw(st.lists(st.integers(1, 40), min_size=n, max_size=n))
    batches = np.cumsum(steps)
    ks = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    # Speedups drawn from a few values so that runs of equal k (and exactly 1.0) are common.
    speedups = draw(st.lists(st.sampled_from([0.5, 0.99, 1.0, 1.0000001, 1.3, 2.5]), min_size=n, max_size=n))
    return batches, np.array(ks), np.array(speedups)


def _k_at(schedule, batch):
    (k,) = [k for lo, hi, k in schedule if lo <= batch <= hi]
    return k


@given(sweeps())
def test_ranges_are_contiguous_cover_the_sweep_and_alternate(sweep):
    batches, ks, speedups = sweep
    schedule = specmath.batch_k_schedule(batches, ks, speedups)
    assert schedule[0][0] == batches[0] and schedule[-1][1] == batches[-1]
    for (lo, hi, _), (next_lo, _, _) in itertools.pairwise(schedule):
        assert lo <= hi and next_lo == hi + 1
    assert all(a[2] != b[2] for a, b in itertools.pairwise(schedule))
    assert all(type(v) is int for entry in schedule for v in entry)
    # Each range starts at a swept batch, so no range is made up of unswept batches alone.
    assert {lo for lo, _, _ in schedule} <= set(batches.tolist())


@given(sweeps())
def test_k_is_zero_exactly_where_speculation_does_not_pay_and_the_best_elsewhere(sweep):
    batches, ks, speedups = sweep
    schedule = specmath.batch_k_schedule(batches, ks, speedups)
    for b, k, s in zip(batches, ks, speedups, strict=True):
        assert _k_at(schedule, b) == (k if s > 1 else 0)


@given(sweeps())
def test_an_unswept_batch_takes_the_k_of_the_swept_batch_below(sweep):
    batches, ks, speedups = sweep
    schedule = specmath.batch_k_schedule(batches, ks, speedups)
    for batch in range(int(batches[0]), int(batches[-1]) + 1):
        below = int(np.flatnonzero(batches <= batch)[-1])
        assert _k_at(schedule, batch) == (ks[below] if speedups[below] > 1 else 0)


def test_no_speedup_above_one_is_one_range_without_speculation():
    assert specmath.batch_k_schedule([1, 2, 4, 8], [3, 2, 1, 1], [1.0, 0.98, 0.9, 0.7]) == [(1, 8, 0)]


def test_a_gap_in_the_swept_batches_is_filled_from_below():
    # 1, 2, 3 swept, then nothing until 64: batches 4 … 63 keep batch 3's k.
    schedule = specmath.batch_k_schedule([1, 2, 3, 64, 65], [4, 4, 3, 1, 1], [2.0, 1.9, 1.8, 1.05, 0.99])
    assert schedule == [(1, 2, 4), (3, 63, 3), (64, 64, 1), (65, 65, 0)]


def test_a_single_batch_is_one_range():
    assert specmath.batch_k_schedule([16], [5], [1.7]) == [(16, 16, 5)]


def test_the_schedule_of_a_roofline_sweep_starts_at_one_and_shrinks_k():
    presets, gpu = specmath.MODEL_PRESETS, specmath.GPU_PRESETS["H100 SXM"]
    sweep = specmath.roofline_batch_sweep(
        0.8, presets["Llama-3.2-1B"], presets["Llama-3.1-8B"], gpu, np.arange(1, 257), 1024, max_k=32
    )
    schedule = specmath.batch_k_schedule(sweep.batch, sweep.k, sweep.speedup)
    assert schedule[0][0] == 1 and schedule[-1][1] == 256
    assert [k for _, _, k in schedule] == sorted({int(k) for k in sweep.k}, reverse=True)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([], [], []), r"^batches must be a non-empty 1-D list, got \[\]"),
        (([[1, 2]], [1], [1.5]), r"^batches must be a non-empty 1-D list"),
        (([1, 2], [1], [1.5, 1.2]), r"lengths 2, 1 and 2"),
        (([0, 1], [1, 1], [1.5, 1.2]), r"^batches must be >= 1, got 0"),
        (([1, 2.5], [1, 1], [1.5, 1.2]), r"^batches must be an integer, got 2.5"),
        (([1, 4, 4], [1, 1, 1], [1.5, 1.2, 1.1]), r"^batches must be strictly increasing, got 4 after 4 \(index 2\)"),
        (([2, 1], [1, 1], [1.5, 1.2]), r"^batches must be strictly increasing, got 1 after 2"),
        (([1, 2], [1, -1], [1.5, 1.2]), r"^best_k must be non-negative, got -1"),
        (([1, 2], [1, 2], [1.5, np.nan]), r"^best_speedup must be finite and > 0, got nan"),
        (([1, 2], [1, 2], [1.5, 0.0]), r"^best_speedup must be finite and > 0, got 0.0"),
        (([1, 2], [1, 2], ["1.5", "2"]), r"^best_speedup must be numeric, not text"),
        (None, r"^batches must be a non-empty 1-D list, got None"),
    ],
)
def test_bad_sweeps_are_refused_by_name(args, message):
    with pytest.raises(ValueError, match=message):
        specmath.batch_k_schedule(*(args if args is not None else (None, [1], [1.5])))


def test_the_docstring_example_holds():
    result = doctest.testmod(specmath.schedule)
    assert result.attempted == 1 and result.failed == 0
