"""batch_k_schedule: the (lo, hi, k) ranges vLLM's num_speculative_tokens_per_batch_size takes."""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import specmath
from specmath.costs import MAX_BATCH


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


# --- roofline_batch_sweep of a measured per-position profile: the best k per batch ----------

PAIRS = [("Llama-3.2-1B", "Llama-3.1-8B"), ("LLaMA-68M", "Llama-2-7B"), ("Llama-3.1-8B", "Llama-3.1-70B")]


@st.composite
def profiles(draw):
    """u_1 … u_m: products of conditional rates, so non-increasing in [0, 1]."""
    conditional = draw(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12))
    return np.cumprod(conditional)


@given(
    per_position=profiles(),
    pair=st.sampled_from(PAIRS),
    gpu=st.sampled_from(sorted(specmath.GPU_PRESETS)),
    context=st.sampled_from([0, 1024, 32768]),
    overhead_s=st.sampled_from([0.0, 2e-3]),
    max_k=st.integers(1, 32),
    batches=st.lists(st.integers(1, MAX_BATCH), min_size=1, max_size=8),
)
def test_profile_sweep_is_the_best_k_of_each_batch_by_brute_force(
    per_position, pair, gpu, context, overhead_s, max_k, batches
):
    """Each row: E[N_k] of the profile over the cost of one batch's Rooflines, the first best k."""
    presets = specmath.MODEL_PRESETS
    draft, target, device = presets[pair[0]], presets[pair[1]], specmath.GPU_PRESETS[gpu]
    sweep = specmath.roofline_batch_sweep(
        specmath.acceptance(per_position=per_position), draft, target, device, batches, context, overhead_s, max_k
    )
    assert sweep.batch.tolist() == sorted(set(batches))
    ks = np.arange(1, max_k + 1)
    tokens = specmath.expected_tokens(specmath.acceptance(per_position=per_position), ks)
    for row, b in enumerate(sweep.batch):
        t_target = specmath.Roofline(target, device, int(b), context, overhead_s)
        t_draft = specmath.Roofline(draft, device, int(b), context, overhead_s)
        c = float(t_target(1)) / float(t_draft(1))
        speedups = tokens / (ks / c + t_target(ks + 1) / float(t_target(1)))
        best = int(np.argmax(speedups))
        assert (sweep.k[row], sweep.speedup[row]) == (best + 1, speedups[best])
        assert sweep.c[row] == c


def test_a_geometric_profile_sweeps_as_its_alpha():
    """u_i = α^i measured at every position gives roofline_batch_sweep's k and speedup."""
    presets, gpu = specmath.MODEL_PRESETS, specmath.GPU_PRESETS["H100 SXM"]
    draft, target = presets["Llama-3.2-1B"], presets["Llama-3.1-8B"]
    batches = np.arange(1, 513)
    for alpha in (0.5, 0.74, 0.9):
        profile = alpha ** np.arange(1, 33)
        by_profile = specmath.roofline_batch_sweep(
            specmath.acceptance(per_position=profile), draft, target, gpu, batches, 1024, max_k=32
        )
        by_alpha = specmath.roofline_batch_sweep(alpha, draft, target, gpu, batches, 1024, max_k=32)
        np.testing.assert_array_equal(by_profile.k, by_alpha.k)
        np.testing.assert_allclose(by_profile.speedup, by_alpha.speedup, rtol=1e-12)


def test_a_profile_that_falls_off_schedules_shorter_drafts_than_its_iid_alpha():
    """Two positions accepted often, the third rarely: the i.i.d. α of the same mean length
    over-drafts at every batch (the reason to schedule from the profile when there is one)."""
    presets, gpu = specmath.MODEL_PRESETS, specmath.GPU_PRESETS["H100 SXM"]
    draft, target = presets["Llama-3.2-1B"], presets["Llama-3.1-8B"]
    profile = np.array([0.9, 0.8, 0.1, 0.01])
    alpha = specmath.iid_blocks.fit_alpha_from_acceptance_length(1 + profile.sum(), 4)
    batches = np.arange(1, 129)
    by_profile = specmath.roofline_batch_sweep(
        specmath.acceptance(per_position=profile), draft, target, gpu, batches, 1024, max_k=16
    )
    by_alpha = specmath.roofline_batch_sweep(alpha, draft, target, gpu, batches, 1024, max_k=16)
    assert (by_profile.k <= 2).all()
    assert (by_alpha.k > by_profile.k).all()


@pytest.mark.parametrize(
    ("per_position", "message"),
    [
        ([0.5, 0.6], r"^per_position must not increase"),
        ([], r"^per_position must be a non-empty 1-D sequence"),
        ([1.2], r"^per_position must be within \[0, 1\]"),
    ],
)
def test_a_bad_profile_is_refused_by_name(per_position, message):
    presets, gpu = specmath.MODEL_PRESETS, specmath.GPU_PRESETS["H100 SXM"]
    with pytest.raises(ValueError, match=message):
        specmath.roofline_batch_sweep(
            specmath.acceptance(per_position=per_position),
            presets["Llama-3.2-1B"],
            presets["Llama-3.1-8B"],
            gpu,
            [1, 2],
        )
