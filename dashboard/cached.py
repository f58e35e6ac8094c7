"""Cached calls into ``specmath``: what the pages compute, once per distinct input (and the
optimal-k map's contour lines, which depend on its grid alone).

Results are small (counts and grids, never raw samples), so a cache entry costs kilobytes even
for ten million sampling rounds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st

import specmath
from dashboard import calibrate_input, charts, exercises, tree_view
from dashboard.params import BATCHES, SIMULATOR_SEQUENCE, TREE_MAX_BUDGET, TREE_MAX_DEPTH
from dashboard.presets import toy_chains

#: The optimal-k map's grid: 101 acceptance rates (every 0.01) by 101 log-spaced cost ratios.
#: A finer grid made plotly.js's redraw of the map on each slider move several times slower.
GRID_ALPHA = np.linspace(0.0, 1.0, 101)
GRID_C = np.geomspace(1.0, 200.0, 101)

#: Draft lengths on the speedup page's x axis (the k slider's range).
K_AXIS = np.arange(1, 65)


@st.cache_data(max_entries=64, show_spinner=False)
def speedup_curves(alphas: tuple[float, ...], c: float) -> tuple[np.ndarray, dict]:
    """Speedup over :data:`K_AXIS` for each alpha, and each curve's best k on that axis."""
    grid = specmath.speedup(np.array(alphas)[:, None], K_AXIS, c)
    best_k, best = specmath.optimal_k(np.array(alphas), c, max_k=int(K_AXIS[-1]))
    optima = {a: (int(k), float(s)) for a, k, s in zip(alphas, best_k, best, strict=True)}
    return grid, optima


@st.cache_data(max_entries=64, show_spinner=False)
def optimal_k_grid(max_k: int) -> tuple[np.ndarray, np.ndarray]:
    """``optimal_k`` over the whole (alpha, c) grid in one broadcast call: (k*, speedup), shape (c, alpha)."""
    return specmath.optimal_k(GRID_ALPHA, GRID_C[:, None], max_k=max_k)


@st.cache_data(max_entries=64, show_spinner=False)
def map_contours(max_k: int) -> list[dict]:
    """The optimal-k map's best-speedup lines and labels: they move with max_k, not with α or c."""
    _, best = optimal_k_grid(max_k)
    return charts.speedup_contours(GRID_ALPHA, GRID_C, best)


@st.cache_data(max_entries=16, show_spinner=False)
def sample_counts(p: tuple[float, ...], q: tuple[float, ...], n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-token counts of accepted and of resampled rounds, in bounded memory."""
    return specmath.speculative_sample_counts(np.array(p), np.array(q), n, rng=seed)


@st.cache_data(max_entries=16, show_spinner=False)
def kl_experiment(pairs: int, vocab: int, seed: int) -> specmath.Divergences:
    """alpha, TV and KL of the chapter's random pairs."""
    P, Q = specmath.random_distribution_pairs(pairs, vocab, rng=seed)
    return specmath.divergences(P, Q)


@st.cache_data(max_entries=32, show_spinner=False)
def calibration(measurement: calibrate_input.Measurement, c: float) -> calibrate_input.Calibration:
    """:func:`dashboard.calibrate_input.calibrate`, kept: the interval's two bisections (120
    evaluations of the i.i.d. model) were a third of Calibrate's rerun."""
    return calibrate_input.calibrate(measurement, c)


@st.cache_data(show_spinner=False)
def exercise_answers() -> tuple[str, ...]:
    """Each exercise's answer, in order: they depend on nothing a session sets, and computing them
    was half the Exercises page's run."""
    return tuple(exercise.answer_text() for exercise in exercises.EXERCISES)


#: The chapter's grid for its "Optimal draft length" table.
CHAPTER_ALPHAS = (0.6, 0.7, 0.8, 0.9)
CHAPTER_CS = (10, 20, 50)


@st.cache_data(max_entries=64, show_spinner=False)
def chapter_table(max_k: int) -> pd.DataFrame:
    """The chapter's optimal-k table from one broadcast call (rows in the chapter's order)."""
    alpha = np.repeat(CHAPTER_ALPHAS, len(CHAPTER_CS))
    c = np.tile(CHAPTER_CS, len(CHAPTER_ALPHAS))
    k, s = specmath.optimal_k(alpha, c, max_k=max_k)
    return pd.DataFrame({"α": alpha, "c": c, "optimal k": k, "speedup": s})


def bound_curves(kl: np.ndarray, log_x: bool, points: int = 200) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The Pinsker and Bretagnolle-Huber lower bounds on alpha over the range of ``kl``."""
    top = max(float(kl.max()) * 1.05, 1e-3)
    if log_x:
        grid = np.geomspace(max(float(kl.min()) / 2, 1e-6), top, points)
    else:
        grid = np.linspace(0.0, top, points)
    return {
        "Pinsker: α ≥ 1 − √(KL/2)": (grid, specmath.pinsker_bound(grid)),
        "Bretagnolle–Huber: α ≥ 1 − √(1 − e^(−KL))": (grid, specmath.bretagnolle_huber_bound(grid)),
    }


SEQUENCE_LENGTH = SIMULATOR_SEQUENCE

#: Tokens of the first sequence kept for the coloured sample.
SAMPLE_LENGTH = 160


@dataclass(frozen=True)
class SimulatorRun:
    """What the simulator page shows of one run (small: no full records)."""

    summary: specmath.DecodeSummary
    emitted_counts: np.ndarray  # iterations that emitted n = 1 … k + 1 tokens
    sample_tokens: np.ndarray
    sample_kinds: np.ndarray
    stationary_alpha: float  # sum_s pi(s) alpha(s) under the target's stationary law


@st.cache_data(max_entries=16, show_spinner="Decoding…")
def simulate(target: str, draft: str, strength: float, vocab: int, k: int, tokens: int, seed: int) -> SimulatorRun:
    """Decode ``tokens`` tokens on the toy chains, as sequences of :data:`SEQUENCE_LENGTH`, and keep
    what the page shows."""
    chain, draft_chain = toy_chains(target, draft, strength, vocab, seed)
    sequences = max(1, tokens // SEQUENCE_LENGTH)
    records = specmath.speculative_decode(chain, draft_chain, k, SEQUENCE_LENGTH, rng=seed, n_sequences=sequences)
    pi = specmath.stationary_distribution(chain)
    return SimulatorRun(
        summary=specmath.decode_summary(records),
        emitted_counts=np.bincount(records.emitted, minlength=k + 2)[1:],
        sample_tokens=records.tokens[0, :SAMPLE_LENGTH].copy(),  # not a view of the whole text
        sample_kinds=records.kinds[0, :SAMPLE_LENGTH].copy(),
        stationary_alpha=float(pi @ specmath.state_acceptance(chain, draft_chain)),
    )


#: Draft lengths the hardware page searches and draws.
HARDWARE_K = np.arange(1, 33)


@dataclass(frozen=True)
class HardwareSetup:
    """The draft's and the target's roofline cost models on one GPU, and what they imply."""

    target: specmath.Roofline
    draft: specmath.Roofline
    c: float
    arithmetic_ratio: float  # draft FLOPs / target FLOPs per position: Leviathan's c-hat


def hardware_setup(
    target: str,
    draft: str,
    gpu: str,
    bytes_per_parameter: float,
    batch: int,
    context: int,
    overhead_ms: float,
    bandwidth_gbs: float,
    peak_tflops: float,
) -> HardwareSetup:
    """Cost models from the presets with the page's edits (precision, overrides) applied."""
    device = specmath.GPU_PRESETS[gpu]
    device = replace(
        device,
        memory_bandwidth=bandwidth_gbs * 1e9 if bandwidth_gbs > 0 else device.memory_bandwidth,
        peak_flops=peak_tflops * 1e12 if peak_tflops > 0 else device.peak_flops,
    )
    specs = [replace(specmath.MODEL_PRESETS[name], bytes_per_parameter=bytes_per_parameter) for name in (target, draft)]
    target_cost, draft_cost = (specmath.roofline(s, device, batch, context, overhead_ms / 1e3) for s in specs)
    return HardwareSetup(
        target=target_cost,
        draft=draft_cost,
        c=float(target_cost(1)) / float(draft_cost(1)),
        arithmetic_ratio=specs[1].flops_per_position(context) / specs[0].flops_per_position(context),
    )


@st.cache_data(max_entries=32, show_spinner=False)
def batch_sweep(
    acceptance: float | tuple[float, ...], target: str, draft: str, gpu: str, bytes_per_parameter: float,
    context: int, overhead_ms: float, bandwidth_gbs: float, peak_tflops: float,
) -> specmath.BatchSweep:  # fmt: skip
    """Best k and speedup at every offered batch size, for the page's other settings (α or a profile)."""
    settings = (target, draft, gpu, bytes_per_parameter, context, overhead_ms, bandwidth_gbs, peak_tflops)
    return _roofline_sweep(acceptance, settings, BATCHES)


def _roofline_sweep(acceptance: float | tuple[float, ...], settings: tuple, batches) -> specmath.BatchSweep:
    """The roofline sweep of the Hardware page's settings (as :func:`batch_sweep` takes them), at one
    α (:func:`specmath.roofline_batch_sweep`) or a profile (a tuple: :func:`specmath.profile_batch_sweep`)."""
    target, draft, gpu, bytes_per_parameter, context, overhead_ms, bandwidth_gbs, peak_tflops = settings
    setup = hardware_setup(target, draft, gpu, bytes_per_parameter, 1, context, overhead_ms, bandwidth_gbs, peak_tflops)
    sweep = specmath.profile_batch_sweep if isinstance(acceptance, tuple) else specmath.roofline_batch_sweep
    return sweep(
        acceptance,
        setup.draft.model,
        setup.target.model,
        setup.target.gpu,
        batches,
        context,
        overhead_ms / 1e3,
        max_k=int(HARDWARE_K[-1]),
    )


@st.cache_data(max_entries=32, show_spinner=False)
def pair_acceptance(target: str, contexts: int, vocab: int, seed: int) -> tuple[float, ...]:
    """Positional acceptance of the Simulator's toy target and a draft merging its contexts, greedy.

    Under greedy decoding a draft made by noise or temperature ranks the tokens as the target
    does (p_1 = 1): only a merged draft is offered.
    """
    chain, draft = toy_chains(target, "merged", contexts, vocab, seed)
    return tuple(specmath.acceptance_from_pair(chain, draft).tolist())


@st.cache_data(max_entries=32, show_spinner=False)
def tree_table(acceptance: tuple[float, ...]) -> np.ndarray:
    """The best F over trees of every budget and depth limit up to the Draft trees page's caps."""
    return specmath.optimal_tree_table(np.array(acceptance), TREE_MAX_BUDGET, TREE_MAX_DEPTH)


@st.cache_data(max_entries=32, show_spinner=False)
def best_tree(acceptance: tuple[float, ...], budget: int, depth: int) -> tuple[float, np.ndarray]:
    """The best tree of ``budget`` nodes and depth at most ``depth``: (F, parents)."""
    value, parents = specmath.optimal_tree(np.array(acceptance), budget, depth)
    return float(value), parents


@st.cache_data(max_entries=32, show_spinner=False)
def eagle_curve(acceptance: tuple[float, ...], steps: int, topk: int) -> np.ndarray:
    """F of SGLang's EAGLE tree at ``steps`` and ``topk`` for every num_draft_tokens 0 … the
    page's largest budget (index = num_draft_tokens; NaN where SGLang takes no such value)."""
    out = np.full(TREE_MAX_BUDGET + 1, np.nan)
    for tokens in tree_view.eagle_budgets(steps, topk, TREE_MAX_BUDGET):
        out[tokens] = specmath.eagle_tree(np.array(acceptance), steps, topk, int(tokens))[0]
    return out


@st.cache_data(max_entries=32, show_spinner=False)
def schedule_sweep(
    acceptance: float | tuple[float, ...], target: str, draft: str, gpu: str, bytes_per_parameter: float,
    context: int, overhead_ms: float, bandwidth_gbs: float, peak_tflops: float, max_batch: int,
) -> specmath.BatchSweep:  # fmt: skip
    """Best k and speedup at every batch size 1 … ``max_batch``: the sweep the k schedule is made from,
    at one α or (a tuple) a measured per-position profile.

    Every whole batch, not the powers of two of :func:`batch_sweep`, so that each range of the
    schedule starts where the best k really changes; one array computation makes that cheap.
    """
    settings = (target, draft, gpu, bytes_per_parameter, context, overhead_ms, bandwidth_gbs, peak_tflops)
    return _roofline_sweep(acceptance, settings, np.arange(1, max_batch + 1))
