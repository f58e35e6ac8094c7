"""The Verification rules page: its logit pairs, and each rule's α, first-token law and speedup."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

import specmath
from dashboard import pq_input
from dashboard.ui import PageContext
from specmath.verification import MAX_BLOCK_ENUMERATION

#: Each preset's (target logits, draft logits); the binary one is Sun et al.'s pair at T = 1.
LOGIT_PRESETS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "binary": ((math.log(1 / 3), math.log(2 / 3)), (math.log(2 / 3), math.log(1 / 3))),
    "close": ((2.0, 1.5, 1.0, 0.2, -0.5), (1.8, 1.6, 0.9, 0.3, -0.4)),
    "overconfident": ((1.0, 0.8, 0.5, 0.0, -0.3), (3.0, 2.4, 1.5, 0.0, -0.9)),
}

#: The lossless rules, with the names the page shows.
LOSSLESS = {"rejection": "rejection sampling", "greedy_draft": "greedy draft", "exact_match": "exact match"}
#: Lossy rules at fixed settings: Medusa's defaults, and SGLang's defaults (1, 1: lossless).
LOSSY = {"typical": "typical (Medusa defaults ε 0.09, δ 0.3)", "sglang_threshold": "SGLang thresholds (1, 1)"}

#: The temperature grid of the α-against-T chart.
TEMPERATURE_GRID = np.round(np.linspace(0.0, 2.0, 41), 2)


def read_logits(text: str, name: str) -> tuple[tuple[float, ...] | None, str | None]:
    """Comma-separated logits as typed, or what is wrong with them (the text quoted literally)."""
    cells = text.split(",", pq_input.MAX_TYPED_VOCAB)
    if len(cells) > pq_input.MAX_TYPED_VOCAB:
        return None, f"{name} has more than {pq_input.MAX_TYPED_VOCAB} logits, the most supported here"
    numbers = []
    for i, cell in enumerate(cells, start=1):
        number, problem = pq_input.read_cell(cell)
        if problem:
            return None, f"{name} logit {i} {problem.replace('a probability', 'a logit')}"
        numbers.append(number)
    return tuple(numbers), None


def typed_logits(ctx: PageContext) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Typed target and draft logits (in the link as ``lp`` and ``lq``); the binary pair where they are unusable."""
    default = [pq_input.encode(v) for v in LOGIT_PRESETS["binary"]]
    texts = []
    for key, name, start in (("lp", "target logits", default[0]), ("lq", "draft logits", default[1])):
        text = st.sidebar.text_input(f"{name} (comma separated)", value=ctx.raw_param(key) or start, key=f"vr_{key}")
        st.query_params[key] = text
        texts.append((text, name))
    read = [read_logits(text, name) for text, name in texts]
    problems = [problem for _, problem in read if problem]
    if not problems and len(read[0][0]) != len(read[1][0]):
        problems = [f"target and draft logits have {len(read[0][0])} and {len(read[1][0])} entries; they must match"]
    if problems:
        st.warning("; ".join(problems) + "; showing the binary preset instead.", icon="⚠️")
        return LOGIT_PRESETS["binary"]
    return read[0][0], read[1][0]


def pair(logits: tuple[tuple[float, ...], tuple[float, ...]], temperature: float) -> tuple[np.ndarray, np.ndarray]:
    """Target p and draft q of ``logits`` at ``temperature``."""
    target, draft = logits
    return specmath.with_temperature(target, temperature), specmath.with_temperature(draft, temperature)


def alphas(p: np.ndarray, q: np.ndarray) -> dict[str, float]:
    """α of each lossless rule."""
    return {name: float(specmath.acceptance_probability(p, q, rule)) for rule, name in LOSSLESS.items()}


@st.cache_data(max_entries=16, show_spinner=False)
def alphas_over_temperature(logits: tuple[tuple[float, ...], tuple[float, ...]]) -> dict[str, np.ndarray]:
    """α of each lossless rule over :data:`TEMPERATURE_GRID`."""
    target, draft = logits
    P = np.stack([specmath.with_temperature(target, t) for t in TEMPERATURE_GRID])
    Q = np.stack([specmath.with_temperature(draft, t) for t in TEMPERATURE_GRID])
    return {name: np.asarray(specmath.acceptance_probability(P, Q, rule)) for rule, name in LOSSLESS.items()}


def first_token_laws(p: np.ndarray, q: np.ndarray) -> dict[str, np.ndarray]:
    """The first emitted token's law under each rule (lossy ones at the settings :data:`LOSSY` names)."""
    rules = LOSSLESS | LOSSY
    return {name: specmath.first_token_distribution(p, q, rule) for rule, name in rules.items()}


def law_table(p: np.ndarray, laws: dict[str, np.ndarray]) -> pd.DataFrame:
    """TV and KL(law ‖ p) of each rule's first-token law from p."""
    rows = []
    for name, law in laws.items():
        with np.errstate(divide="ignore", invalid="ignore"):  # 0 log 0 is 0, taken by the where
            kl = float(np.sum(np.where(law > 0, law * np.log(np.where(law > 0, law, 1.0) / p), 0.0)))
        rows.append({"rule": name, "TV(law, p)": 0.5 * float(np.abs(law - p).sum()), "KL(law ‖ p)": kl})
    return pd.DataFrame(rows)


def longest_block_k(vocab: int, k: int) -> int:
    """The longest draft up to ``k`` whose V**k blocks the exact block enumeration takes."""
    longest = 0
    while longest < k and vocab ** (longest + 1) <= MAX_BLOCK_ENUMERATION:
        longest += 1
    return longest


def speedup_table(p: np.ndarray, q: np.ndarray, k: int, c: float) -> pd.DataFrame:
    """Tokens per iteration (1 + expected accepted) and speedup at (k, c) for each lossless rule and block."""
    rows = []
    for name, alpha in alphas(p, q).items():
        rows.append(
            {
                "rule": name,
                "tokens per iteration": float(specmath.expected_tokens(alpha, k)),
                "speedup": float(specmath.speedup(alpha, k, c)),
            }
        )
    if longest_block_k(p.size, k) == k:
        tokens = 1.0 + float(specmath.expected_accepted_tokens(p, q, k, verification="block"))
        rows.append({"rule": "block verification", "tokens per iteration": tokens, "speedup": tokens / (k / c + 1)})
    return pd.DataFrame(rows)


@st.cache_data(max_entries=16, show_spinner=False)
def block_against_token(p: tuple[float, ...], q: tuple[float, ...], k_max: int) -> dict[str, np.ndarray]:
    """Expected accepted draft tokens, block and token verification, for k = 1 … ``k_max``."""
    ks = np.arange(1, k_max + 1)
    return {
        "k": ks,
        "token": np.array([specmath.expected_accepted_tokens(p, q, int(k)) for k in ks]),
        "block": np.array([specmath.expected_accepted_tokens(p, q, int(k), verification="block") for k in ks]),
    }


#: What each engine verifies with by default and what switches it, with the source each fact was
#: read in; "not verified" where no one has read it in the engine's source yet.
ENGINE_RULES: tuple[dict[str, str], ...] = (
    {
        "engine": "SGLang (target-only kernel)",
        "default": "greedy draft x* = argmax q, kept with probability 1 at thresholds 1 and 1 (lossless)",
        "switch": "--speculative-accept-threshold-single, --speculative-accept-threshold-acc (lossy below 1); "
        "the flag to rejection sampling: not verified",
        "source": "sgl-kernel/csrc/speculative/speculative_sampling.cuh lines 78-103 at 120affb "
        "(read for specmath.first_token_distribution); server_args.py line: not verified",
    },
    {
        "engine": "Medusa (typical acceptance)",
        "default": "typical acceptance, posterior_threshold 0.09, posterior_alpha 0.3 (lossy)",
        "switch": "not verified",
        "source": "medusa/model/medusa_model.py lines 244-249, medusa/model/utils.py lines 474-487 at e2a5d20",
    },
    {
        "engine": "vLLM",
        "default": "not verified",
        "switch": "not verified (leads: draft_sample_method, rejection_sample_method)",
        "source": "not verified",
    },
    {
        "engine": "TensorRT-LLM",
        "default": "not verified",
        "switch": "not verified (lead: use_rejection_sampling)",
        "source": "not verified",
    },
)
