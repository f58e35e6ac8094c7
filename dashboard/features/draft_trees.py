"""What the Draft trees page computes from an acceptance vector, and its cached calls.

The typed vector is read here (:func:`parse_acceptance`, cell by cell with the Rejection sampling
page's :func:`~dashboard.pq_input.read_cell`); the settings SGLang can take are resolved
(:func:`eagle_settings`) and written as the engines' settings by :func:`engines.tree_configs`,
at the fastest num_draft_tokens (:func:`fastest_eagle`); the speedup of every
(budget, depth) of the best-tree table is weighed by :func:`specmath.tree_speedup`
(:func:`speedup_table`, :func:`best_setting`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import streamlit as st

import specmath
from dashboard import engine_config
from dashboard.params import TREE_MAX_BUDGET, TREE_MAX_DEPTH, TREE_MAX_RANKS, Section
from dashboard.pq_input import read_cell
from dashboard.presets import toy_chains
from specmath.verification import SUM_TOLERANCE

#: The page's parameters. The acceptance's widgets depend on its source, the cost's on its model.
ACCEPTANCE = Section(
    "Acceptance",
    (
        "tree_source",
        "alpha",
        "acc",
        "acc_profile",
        "tree_target",
        "tree_chain_vocab",
        "tree_contexts",
        "seed",
        "acceptance",
    ),
)
TREE = Section("Tree", ("budget", "depth"))
EAGLE = Section("EAGLE in SGLang", ("topk", "steps"))
COST = Section(
    "Verification cost",
    (
        "c",
        "tree_cost",
        "tree_beta",
        "tree_target_model",
        "tree_gpu",
        "tree_precision",
        "tree_batch",
        "tree_context",
        "tree_tp",
        "tree_interconnect",
        "tree_link_bandwidth",
        "tree_link_latency_us",
    ),
)
SECTIONS = (ACCEPTANCE, TREE, EAGLE, COST)

#: How typed numbers are separated: commas, semicolons, spaces (so a decimal point, not a comma).
_SEPARATORS = re.compile(r"[,;\s]+")

#: Longest typed text read: 32 numbers of a dozen characters each fit many times over.
MAX_TYPED_CHARS = 1000


def parse_acceptance(text: str | None) -> tuple[np.ndarray | None, str | None]:
    """The typed acceptance vector ``p_1, p_2, …``, or what is wrong with it (user text quoted literally).

    The reason reads after "The typed acceptance vector": ``has no numbers``, ``entry 2 “x” is
    not a number…``. Each entry must be within [0, 1] and the entries must sum to at most 1.
    """
    text = "" if text is None else str(text)
    if len(text) > MAX_TYPED_CHARS:
        return None, f"is longer than {MAX_TYPED_CHARS:,} characters"
    cells = [cell for cell in _SEPARATORS.split(text.strip()) if cell]
    if not cells:
        return None, "has no numbers: type p₁, p₂, … such as 0.6, 0.2, 0.1"
    if len(cells) > TREE_MAX_RANKS:
        return None, f"has {len(cells)} entries; at most {TREE_MAX_RANKS} ranks are supported here"
    numbers = []
    for position, cell in enumerate(cells, start=1):
        number, problem = read_cell(cell)
        if problem:
            # read_cell's hint offers a decimal comma, which separates numbers here.
            reason = problem.split(": type a probability")[0]
            return None, f"entry {position} {reason}: type numbers such as 0.6, 0.2, 0.1"
        if not 0 <= number <= 1:
            return None, f"entry {position} is {number:g}: each p_r must be within 0 to 1"
        numbers.append(number)
    values = np.array(numbers)
    total = float(values.sum())
    if total > 1 + SUM_TOLERANCE:
        return None, f"sums to {total:.6g}, more than 1: the ranks share one accepted child at most"
    return values, None


@dataclass(frozen=True)
class EagleSettings:
    """SGLang's EAGLE flags for the page's choices, and why they differ from what was asked (or None)."""

    steps: int
    topk: int
    num_draft_tokens: int
    note: str | None = None


def eagle_capacity(steps: int, topk: int) -> int:
    """Most nodes SGLang's EAGLE tree can verify, root included: 1 + topk + (steps − 1) topk²."""
    return 1 + topk + (steps - 1) * topk * topk


def eagle_settings(budget: int, steps: int, topk: int, ranks: int) -> EagleSettings:
    """The EAGLE tree the page draws: num_draft_tokens = the budget, where SGLang allows it."""
    notes = []
    if topk > ranks:
        notes.append(f"the acceptance vector has {ranks} rank{'s' * (ranks > 1)}, so topk is {ranks}")
        topk = ranks
    if topk == 1:
        tokens = steps + 1
        notes.append(
            f"with topk = 1 the EAGLE tree is the chain of {steps} drafts: SGLang sets "
            f"num_draft_tokens = steps + 1 = {tokens}"
        )
    else:
        tokens = min(budget, eagle_capacity(steps, topk))
        if tokens < budget:
            notes.append(
                f"{steps} steps of topk {topk} draft at most {tokens - 1} tokens, so num_draft_tokens is {tokens}"
            )
    note = ("; ".join(notes) + ".") if notes else None
    return EagleSettings(steps, topk, tokens, note[0].upper() + note[1:] if note else None)


def draft_head_placeholder(target: str | None) -> str:
    """What the flags name as the draft model: the EAGLE head trained for ``target`` (a Hub name)."""
    name = target.split("/")[-1] if target else "YOUR-TARGET"
    return engine_config.HEAD_PLACEHOLDER.format(kind="EAGLE", target=name)


def fastest_eagle(speedups: np.ndarray) -> tuple[int, float]:
    """(num_draft_tokens, speedup) of the fastest EAGLE tree; ``speedups[n - 1]`` is that of n
    tokens, NaN where SGLang takes no such value. Ties go to fewer tokens."""
    filled = np.where(np.isnan(speedups), -np.inf, speedups)
    best = int(np.argmax(filled))
    return best + 1, float(speedups[best])


def fastest_steps(by_steps: dict[int, np.ndarray]) -> tuple[int, int, float]:
    """(steps, num_draft_tokens, speedup) of the fastest EAGLE tree over ``by_steps`` (steps to
    the speedups of :func:`fastest_eagle`); ties go to fewer steps, then fewer tokens."""
    return max(((steps, *fastest_eagle(s)) for steps, s in sorted(by_steps.items())), key=lambda t: (t[2], -t[0]))


def eagle_budgets(steps: int, topk: int, max_budget: int) -> np.ndarray:
    """The num_draft_tokens SGLang accepts at ``steps`` and ``topk``, up to ``max_budget``."""
    if topk == 1:
        return np.array([steps + 1]) if steps + 1 <= max_budget else np.array([], dtype=np.int64)
    return np.arange(1, min(max_budget, eagle_capacity(steps, topk)) + 1)


def speedup_table(table: np.ndarray, t_draft: float, t_target) -> np.ndarray:
    """:func:`specmath.tree_speedup` of every entry ``[m, d]`` of an :func:`~specmath.optimal_tree_table`.

    Entry ``[m, d]`` is the best tree of ``m`` nodes and depth at most ``d``, charged ``d`` draft
    steps (a tree shallower than ``d`` is also entry ``[m, its depth]``, charged less). Row 0
    and infeasible entries are NaN.
    """
    budgets = np.arange(table.shape[0])[:, None]
    depths = np.arange(table.shape[1])[None, :]
    out = np.full(table.shape, np.nan)
    out[1:] = specmath.tree_speedup(table[1:], budgets[1:], depths, t_draft, t_target)
    return out


def best_setting(speedups: np.ndarray, max_depth: int | None = None) -> tuple[int, int, float]:
    """(budget, depth, speedup) of the best entry with depth at most ``max_depth``; ties to smaller trees.

    Rows run over budgets and columns over depths, so the first maximum in row-major order is the
    smallest budget, then the smallest depth, that reaches the best speedup.
    """
    part = speedups if max_depth is None else speedups[:, : max_depth + 1]
    filled = np.where(np.isnan(part), -np.inf, part)
    m, d = np.unravel_index(int(np.argmax(filled)), filled.shape)
    return int(m), int(d), float(part[m, d])


def largest_feasible(column: np.ndarray, budget: int) -> int:
    """The largest budget at most ``budget`` with a finite entry in ``column`` (a table column)."""
    finite = np.flatnonzero(np.isfinite(column[: budget + 1]))
    return int(finite[-1])


def node_scores(parents: np.ndarray, acceptance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each node's rank among its siblings (root 0) and its path score, the product of p_rank
    from the root to it (root 1): the probability that it is accepted, its share of F."""
    ranks = np.zeros(len(parents), dtype=np.int64)
    scores = np.ones(len(parents))
    children = np.zeros(len(parents), dtype=np.int64)
    for i in range(1, len(parents)):
        parent = parents[i]
        children[parent] += 1
        ranks[i] = children[parent]
        scores[i] = scores[parent] * acceptance[ranks[i] - 1]
    return ranks, scores


def best_over_depth(speedups: np.ndarray, max_depth: int) -> tuple[np.ndarray, np.ndarray]:
    """For each budget (row), the best speedup over depths 0 … ``max_depth`` and that depth.

    NaN and depth -1 where no tree of that budget fits (row 0 among them).
    """
    part = speedups[:, : max_depth + 1]
    filled = np.where(np.isnan(part), -np.inf, part)
    depths = np.argmax(filled, axis=1)
    values = filled[np.arange(part.shape[0]), depths]
    feasible = np.isfinite(values)
    return np.where(feasible, values, np.nan), np.where(feasible, depths, -1)


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
    for tokens in eagle_budgets(steps, topk, TREE_MAX_BUDGET):
        out[tokens] = specmath.eagle_tree(np.array(acceptance), steps, topk, int(tokens))[0]
    return out


def chain_alpha(value: specmath.Acceptance) -> tuple[float, str]:
    """The one rank's p₁ a chain takes from a measured curve or profile, and the caption saying which.

    specmath's trees refuse an Acceptance: a tree's acceptance is one probability per sibling rank, and
    a chain's measurements say how rank 1 fares at each depth, nothing of ranks 2, 3, …. So the chain
    takes the i.i.d. α fitted by least squares over every measured k: the AL(1) fit (u₁) would
    promise every deeper position u₁'s chance, which a falling profile does not keep.
    """
    fit, first = value.fitted_alpha(), value.per_position[0]
    ks = ", ".join(str(k) for k in fit.fitted_k)
    return fit.alpha, (
        f"Trees take one probability per sibling rank, and a chain's measurements say nothing of ranks 2, 3, …: "
        f"the chain uses the i.i.d. α fitted by least squares over k = {ks}, p₁ = {fit.alpha:.3f} "
        f"(AL(1) alone gives {first:.3f}, which the deeper positions do not keep)."
    )
