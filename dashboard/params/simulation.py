"""The parameters of the toy-language pages: the Simulator's chains and drafts, the Step through page's step."""

from __future__ import annotations

from dashboard import toy_language
from dashboard.params.base import Param, format_count, format_number
from specmath.rules import PROPOSALS
from specmath.verification import VERIFICATIONS

TEMPERATURES = (0.25, 0.33, 0.5, 0.67, 0.8, 1.25, 1.5, 2, 3, 4)
TOKEN_COUNTS = (10_000, 30_000, 100_000, 300_000, 1_000_000)
#: The simulator generates its tokens as independent sequences of this length. Side by side,
#: shorter sequences mean fewer decoding rounds in Python, down to where NumPy's work, not the
#: loop, is what counts (docs/performance.md).
SIMULATOR_SEQUENCE = 200

#: The longest draft the Step through page steps through, and its steps for that draft: k to
#: draft, one to score, k to check, one for the correction or bonus word, one for the outcome.
STEP_MAX_K = 8
STEP_COUNT = 2 * STEP_MAX_K + 3

#: In the order the pages show them.
PARAMS: tuple[Param, ...] = (
    Param(
        "target",
        "Target chain",
        "choice",
        "regimes",
        "regimes: sticky predictable and unpredictable stretches, like boilerplate and content. "
        "random: every context drawn independently.",
        options=("regimes", "random"),
        widget="selectbox",
    ),
    Param(
        "draft",
        "Draft made by",
        "choice",
        "merged",
        "merged: a smaller model that cannot tell some contexts apart. temperature: the target "
        "sampled hotter or colder. noise: the target blurred toward uniform.",
        options=("merged", "temperature", "noise"),
        widget="selectbox",
    ),
    Param(
        "contexts",
        "Contexts the draft can tell apart",
        "int",
        2,
        "1 is a unigram draft; the vocabulary size is the target itself.",
        low=1,
        high=26,
        step=1,
        shown_when=("draft", "merged"),
    ),
    Param(
        "temperature",
        "Draft temperature",
        "choice",
        2,
        "Above 1 flatter than the target, below 1 sharper.",
        options=TEMPERATURES,
        fmt=format_number,
        shown_when=("draft", "temperature"),
    ),
    Param(
        "noise",
        "Noise weight",
        "float",
        0.3,
        "0 is the target, 1 a uniform draft.",
        low=0.0,
        high=1.0,
        step=0.05,
        shown_when=("draft", "noise"),
    ),
    Param(
        "chain_vocab",
        "Vocabulary size",
        "int",
        8,
        "Tokens of the toy language, shown as letters.",
        low=2,
        high=26,
        step=1,
    ),
    Param(
        "tokens",
        "Tokens to generate",
        "choice",
        100_000,
        f"Generated as independent sequences of {SIMULATOR_SEQUENCE} tokens.",
        options=TOKEN_COUNTS,
        fmt=format_count,
    ),
    Param(
        "step",
        "Step",
        "int",
        1,
        "Where in the iteration: drafting, the target's pass, the checks, the last word, the outcome.",
        low=1,
        high=STEP_COUNT,
        step=1,
    ),
    Param(
        "step_draft",
        "Draft made by",
        "choice",
        "noise",
        "noise: the target blurred toward uniform, so it proposes words that make no sense. "
        "temperature: the target sampled hotter or colder. merged: a smaller model that cannot "
        "tell some words apart.",
        options=("noise", "temperature", "merged"),
        widget="selectbox",
    ),
    Param(
        "step_contexts",
        "Words the draft can tell apart",
        "int",
        4,
        "The words fall into this many groups of neighbours in the word list; the draft sees only "
        f"the group of the previous word. 1 is a unigram draft, {toy_language.V} the target itself.",
        low=1,
        high=toy_language.V,
        step=1,
        shown_when=("step_draft", "merged"),
    ),
    Param(
        "greedy",
        "Greedy decoding",
        "bool",
        False,
        "Both models take their most likely word (temperature 0): a draft word passes exactly "
        "when it is the target's most likely word. Off: both sample, as in the papers.",
    ),
    # Both only while sampling: at temperature 0 a greedy draft is the draft, and block
    # verification of point masses keeps the same words as token verification.
    Param(
        "step_proposal",
        "Draft proposes",
        "choice",
        "sampled",
        "sampled: a word drawn from q, as in the papers. greedy_draft: the draft's most likely word, "
        "checked as if q gave it probability 1 (q one-hot), so accepted with probability p(word); "
        "the target still samples.",
        options=PROPOSALS,
        widget="radio",
        shown_when=("greedy", False),
    ),
    Param(
        "step_verification",
        "Verification",
        "choice",
        "token",
        "token: each word kept with probability min(1, p/q), in order, up to the first rejection "
        "(Leviathan et al. 2023). block: the draft checked jointly (Sun et al. 2024, arXiv 2403.10444, "
        "Algorithm 2); the kept prefix is decided from the block's residual weights, never fewer words "
        "on average.",
        options=VERIFICATIONS,
        widget="radio",
        shown_when=("greedy", False),
    ),
    Param(
        "presenter",
        "Presenter mode",
        "bool",
        False,
        "For a projector: larger type, big Back and Next buttons, the sidebar collapsed.",
    ),
)
