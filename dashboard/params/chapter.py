"""The parameters of the chapter's pages: α, k, c, the seed; Speedup, the map, Rejection sampling, α vs KL."""

from __future__ import annotations

from dashboard import acceptance
from dashboard.params.base import Param, format_count, format_number
from dashboard.presets import PRESET_LABELS

#: Cost ratios offered by the c slider: roughly log-spaced, so 1 to 200 fits one slider with
#: fine steps where c is small and the chapter's 10, 20 and 50 all on it.
C_OPTIONS = (
    1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 18, 20, 22, 25, 30, 35,
    40, 45, 50, 60, 70, 80, 90, 100, 120, 140, 160, 180, 200,
)  # fmt: skip

#: Acceptance rates offered for the comparison curves.
ALPHA_CHOICES = (*(round(0.05 * i, 2) for i in range(1, 20)), 0.99)

#: Up to 3M: 10M rounds is past one run's budget (dashboard/limits.py; figures in docs/performance.md).
SAMPLE_COUNTS = (1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000)

#: In the order the pages show them.
PARAMS: tuple[Param, ...] = (
    Param(
        "alpha",
        "Acceptance rate α",
        "float",
        0.8,
        "Probability that the target accepts a draft token, α = Σ min(p, q).",
        low=0.0,
        high=1.0,
        step=0.01,
        shared=True,
    ),
    Param(
        "acc",
        "Acceptance from",
        "choice",
        acceptance.ALPHA,
        "α: the slider, the chapter's i.i.d. acceptance (every position accepted with probability α). "
        "A published curve: a draft head's measured acceptance length at each k (specmath.ACCEPTANCE_PRESETS, "
        "each with its source). profile: rates or a curve you type, or that Calibrate's link carries.",
        options=acceptance.OPTIONS,
        widget="selectbox",
    ),
    Param(
        "acc_profile",
        "Per-position rates or k:AL pairs",
        "text",
        "",
        "Unconditional rates u_i = P(at least i accepted), position 1 first, as vLLM and llama.cpp print "
        "them (0.73, 0.52, 0.35); or a measured curve of mean acceptance lengths, bonus token included "
        "(1:1.84, 2:2.52, 3:2.93).",
        max_chars=acceptance.PROFILE_CHARS,
        allowed=acceptance.valid_profile,
        rule=acceptance.PROFILE_RULE,
        placeholder="0.73, 0.52, 0.35  or  1:1.84, 2:2.52",
        shown_when=("acc", acceptance.PROFILE),
    ),
    Param(
        "k",
        "Draft length k",
        "int",
        8,
        "Tokens the draft proposes per iteration.",
        low=1,
        high=64,
        step=1,
        shared=True,
    ),
    Param(
        "c",
        "Cost ratio c (target step / draft step)",
        "choice",
        20,
        "How many draft steps fit in one target step. c = 20: the draft is 20× faster.",
        options=C_OPTIONS,
        fmt=format_number,
        shared=True,
    ),
    Param(
        "compare",
        "Compare with α =",
        "multi",
        (0.5, 0.6, 0.7, 0.8, 0.9),
        "Acceptance rates drawn as comparison curves (the chapter's set by default).",
        options=ALPHA_CHOICES,
        fmt=format_number,
    ),
    Param(
        "published",
        "Published results",
        "bool",
        False,
        "Measured speedups from the papers beside the curves, each with its citation "
        "(dashboard/data/SOURCES.md); Spec-Bench's, which have no fixed k, in a table.",
    ),
    Param(
        "max_k",
        "Longest draft considered (max k)",
        "int",
        20,
        "optimal_k searches k = 1 … max k; the chapter uses 20.",
        low=1,
        high=64,
        step=1,
    ),
    Param(
        "preset",
        "Distributions",
        "choice",
        "chapter",
        "Start from a preset, then edit p and q in the table.",
        options=tuple(PRESET_LABELS),
        fmt=str,
        widget="selectbox",
    ),
    Param(
        "vocab",
        "Vocabulary size",
        "int",
        10,
        "Tokens in the random Dirichlet pair.",
        low=2,
        high=50,
        step=1,
        shown_when=("preset", "random"),
    ),
    Param(
        "n",
        "Number of samples",
        "choice",
        100_000,
        "Independent speculative sampling rounds.",
        options=SAMPLE_COUNTS,
        fmt=format_count,
    ),
    Param(
        "seed",
        "Random seed",
        "int",
        42,
        "Same seed, same samples.",
        low=0,
        high=9999,
        step=1,
        widget="number_input",
    ),
    Param(
        "pairs",
        "Number of pairs",
        "int",
        200,
        "Random (p, q) pairs; the chapter draws 200.",
        low=10,
        high=5000,
        step=10,
    ),
    Param(
        "kl_vocab",
        "Vocabulary size",
        "int",
        20,
        "Tokens per distribution; the chapter uses 20.",
        low=2,
        high=1000,
        step=1,
    ),
    Param("logx", "Log scale for KL", "bool", False, "Spread out the small divergences."),
    Param(
        "view",
        "Colour the map by",
        "choice",
        "k",
        "The optimal draft length k*, or the best speedup it achieves.",
        options=("k", "speedup"),
        widget="radio",
    ),
)
