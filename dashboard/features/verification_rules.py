"""The Verification rules page: its logit pairs, and each rule's α, first-token law and speedup."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import specmath
from dashboard import pq_input, toy_language
from dashboard.params import PARAMS, Section
from dashboard.params.verification import LOGIT_PRESETS, LOSSY_PARAMS, lossy_key
from dashboard.ui import PageContext
from specmath.rules import PROPOSALS, RULES
from specmath.verification import MAX_BLOCK_ENUMERATION

#: The page's parameters: the pair (a preset, a toy-language row or typed logits), the temperature,
#: one widget per lossy setting, however many rules share it.
PAIR = Section("Pair", ("vr_preset", "vr_context", "lp", "lq"))
TEMPERATURE = Section(None, ("vr_temperature",))
LOSSY = Section("Lossy rules", tuple(param.key for param in LOSSY_PARAMS))
SECTIONS = (PAIR, TEMPERATURE, LOSSY, Section(None, ("k", "c")))

#: The rules the α charts compare: specmath's lossless rules, with the names the page shows.
LOSSLESS = {name: rule.title for name, rule in RULES.items() if rule.lossless}

#: For each way a draft proposes (``specmath.rules.PROPOSALS``), the first lossless rule that
#: checks such a draft: rejection sampling for a sampled draft, the greedy draft's rule for its argmax.
PROPOSAL_RULES = {
    proposal: next(n for n, r in RULES.items() if r.lossless and r.acceptance and r.proposal == proposal)
    for proposal in PROPOSALS
}

#: Each lossy rule's settings (specmath's names) and the page's parameter (URL key) for each.
LOSSY_KEYS = {
    name: {setting.name: lossy_key(setting) for setting in rule.params}
    for name, rule in RULES.items()
    if not rule.lossless
}

#: The toy language's draft: the Step through page's default, the target blurred toward uniform.
TOY_DRAFT = ("noise", PARAMS["step_noise"].default)

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
    """The typed target and draft logits (``lp``, ``lq``, in :data:`PAIR`); the binary pair where unusable."""
    texts = [(ctx.values["lp"], "target logits"), (ctx.values["lq"], "draft logits")]
    read = [read_logits(text, name) for text, name in texts]
    problems = [problem for _, problem in read if problem]
    if not problems and len(read[0][0]) != len(read[1][0]):
        problems = [f"target and draft logits have {len(read[0][0])} and {len(read[1][0])} entries; they must match"]
    if problems:
        st.warning("; ".join(problems) + "; showing the binary preset instead.", icon="⚠️")
        return LOGIT_PRESETS["binary"]
    return read[0][0], read[1][0]


def toy_logits(word: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The toy language's target and :data:`TOY_DRAFT` after ``word``, as log-probabilities (−inf: impossible)."""
    target, draft = toy_language.row_log_probabilities(word, *TOY_DRAFT)
    return tuple(target), tuple(draft)


def toy_pair_caption(word: str, p: np.ndarray, q: np.ndarray) -> str:
    """The words the target allows after ``word``, most likely first, with p and q; q's mass elsewhere."""
    allowed = [int(i) for i in np.argsort(-p, kind="stable") if p[i] > 0]
    words = ", ".join(f"“{toy_language.WORDS[i]}” {p[i]:.3f} ({q[i]:.3f})" for i in allowed)
    elsewhere = 1.0 - float(q[allowed].sum())
    return (
        f"After “{word}” the target allows: {words} (p, and the draft's q in brackets); the draft puts "
        f"{elsewhere:.3f} on the {len(p) - len(allowed)} words the target never says there."
    )


def at_temperature(logits, temperature: float) -> np.ndarray:
    """``specmath.with_temperature`` over the finite logits; a −inf logit is a token of probability 0 at every T."""
    arr = np.asarray(logits, dtype=float)
    possible = np.isfinite(arr)
    out = np.zeros(arr.shape)
    out[possible] = specmath.with_temperature(arr[possible], temperature)
    return out


def pair(logits: tuple[tuple[float, ...], tuple[float, ...]], temperature: float) -> tuple[np.ndarray, np.ndarray]:
    """Target p and draft q of ``logits`` at ``temperature``."""
    target, draft = logits
    return at_temperature(target, temperature), at_temperature(draft, temperature)


def alphas(p: np.ndarray, q: np.ndarray) -> dict[str, float]:
    """α of each lossless rule."""
    return {name: float(specmath.acceptance_probability(p, q, rule)) for rule, name in LOSSLESS.items()}


@st.cache_data(max_entries=16, show_spinner=False)
def alphas_over_temperature(logits: tuple[tuple[float, ...], tuple[float, ...]]) -> dict[str, np.ndarray]:
    """α of each lossless rule over :data:`TEMPERATURE_GRID`."""
    pairs = [pair(logits, t) for t in TEMPERATURE_GRID]
    P, Q = np.stack([p for p, _ in pairs]), np.stack([q for _, q in pairs])
    return {name: np.asarray(specmath.acceptance_probability(P, Q, rule)) for rule, name in LOSSLESS.items()}


def lossy_settings(values: dict[str, float], vocab: int) -> dict[str, dict[str, float]]:
    """Each lossy rule's parameters from the page's values; a whole-number one (a top-K) at most the vocabulary size."""
    settings = {}
    for rule, keys in LOSSY_KEYS.items():
        params = {param.name: param for param in RULES[rule].params}
        settings[rule] = {
            name: min(int(values[key]), vocab) if params[name].integer else values[key] for name, key in keys.items()
        }
    return settings


def lossy_name(rule: str, params: dict[str, float]) -> str:
    """The name a lossy rule's law goes by on the page, with its settings."""
    return RULES[rule].titled(params)


def rules_table() -> pd.DataFrame:
    """Every rule the page shows: whether it is lossless, the engines that run it, where it was read."""
    return pd.DataFrame(
        {
            "rule": rule.titled({}),
            "lossless": "yes" if rule.lossless else "no",
            "draft proposes": "its most likely token (greedy draft)" if rule.proposal == "greedy_draft" else "x ~ q",
            "engines": rule.engines,
            "source": rule.source,
        }
        for rule in RULES.values()
    )


def first_token_laws(p: np.ndarray, q: np.ndarray, lossy: dict[str, dict[str, float]]) -> dict[str, np.ndarray]:
    """The first emitted token's law under each lossless rule and each lossy one at its ``lossy`` settings."""
    laws = {name: specmath.first_token_distribution(p, q, rule) for rule, name in LOSSLESS.items()}
    for rule, params in lossy.items():
        laws[lossy_name(rule, params)] = specmath.first_token_distribution(p, q, rule, **params)
    return laws


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


#: What each engine verifies with by default and what switches it, each fact with the engine's
#: file and lines at the version read (vLLM and SGLang as their PyPI releases ship them; GitHub
#: commits otherwise), and where a fact could not be read at a commit, why.
ENGINE_RULES: tuple[dict[str, str], ...] = (
    {
        "engine": "vLLM 0.34.0",
        "default": 'greedy draft: draft_sample_method "greedy" proposes argmax q, treated as one-hot; '
        'rejection_sample_method "standard" keeps it when p(x) > u·q(x) with q(x) = 1, i.e. with '
        "probability p(argmax q), and resamples from p without it (lossless: α = greedy draft's); "
        "at temperature 0 kept when it equals the target's argmax",
        "switch": 'in --speculative-config: draft_sample_method "probabilistic" (x ~ q, the full ratio '
        'test: rejection sampling); rejection_sample_method "block" (Sun et al.), "synthetic" (fixed '
        'acceptance rates, for benchmarks) or "fly" (lossy, an entropy-gated deferred window)',
        "source": "vllm/config/speculative.py lines 98-99, 610-617, 682-688; "
        "vllm/v1/worker/gpu/spec_decode/speculator.py lines 248-250, 627; "
        "vllm/v1/worker/gpu/spec_decode/rejection_sampler_utils.py lines 200-201, 589, 634, 646-676, "
        "716, 990-1000 (vllm 0.34.0 wheel)",
    },
    {
        "engine": "SGLang 0.5.23 (EAGLE)",
        "default": "the draft's top-k (argmax q at top-k 1); the target-only kernel keeps x* with probability "
        "min(1, p(x*)/threshold_acc), always when p(x*) ≥ threshold_single, and otherwise samples p "
        "without x*: at the defaults 1 and 1 the greedy draft's rule (lossless); all-greedy batches "
        "keep it when it equals the target's argmax",
        "switch": "--speculative-use-rejection-sampling (default false; x ~ q at the request's temperature, "
        "top-k 1), --speculative-use-block-verification (default false, with it); "
        "--speculative-accept-threshold-single and --speculative-accept-threshold-acc (default 1.0; "
        "lossy below 1)",
        "source": "sglang/srt/arg_groups/fields/spec.py lines 109-124; sglang/srt/speculative/eagle_utils.py "
        "lines 640-651, 713-718, 745-749; sglang/srt/speculative/eagle_worker_v2.py lines 1077-1085 "
        "(sglang 0.5.23 wheel); sgl-kernel/csrc/speculative/speculative_sampling.cuh lines 78-103 at "
        "120affb (the kernel)",
    },
    {
        "engine": "TensorRT-LLM (MTP)",
        "default": "draft argmax q; kept when it equals the target's argmax (exact match; at 23ee85ee MTP "
        "“only support[s] greedy sampling”); later versions take the target's own sample for "
        "non-greedy batches instead (exact match) unless use_rejection_sampling",
        "switch": "use_rejection_sampling (speculative config, default false; later versions); "
        "use_relaxed_acceptance_for_thinking (default false) with relaxed_topk (default 1) and "
        "relaxed_delta (default 0): lossy, inside a thinking span",
        "source": "tensorrt_llm/llmapi/llm_args.py lines 793-797; tensorrt_llm/_torch/speculative/mtp.py "
        "lines 710-728, 730-888 (relaxed 819-857, strict 859-886), 1103-1146 at 23ee85ee; "
        "cpp/tensorrt_llm/kernels/speculativeDecoding/mtpKernels.cu lines 249-311 (exact match), 453-543 "
        "(relaxed) at b35ac1b; use_rejection_sampling and exact match on non-greedy batches: "
        "NVIDIA/TensorRT-LLM pull request 15775 (merged), its diff of "
        "tensorrt_llm/_torch/speculative/interface.py line 1894, not read at a commit",
    },
    {
        "engine": "Medusa (FasterDecoding)",
        "default": "medusa_generate temperature 0.0: a candidate kept when it equals the target's argmax; "
        'at T > 0 sampling "typical" (posterior_threshold 0.09, posterior_alpha 0.3, fast): typical '
        "acceptance (lossy)",
        "switch": 'sampling "nucleus" (top_p 0.8): a candidate kept when it equals the target\'s own '
        "top-p sample (exact match); no rejection-sampling switch",
        "source": "medusa/model/medusa_model.py lines 235-250; medusa/model/utils.py lines 350-402, 459-472, "
        "474-500, 517-529 at e2a5d20",
    },
)
