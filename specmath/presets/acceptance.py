"""Measured acceptance, each with its source: Sequoia's tree vector, published curves, and acceptance against context.

- :data:`SEQUOIA_ACCEPTANCE`: the positional acceptance vector Sequoia's tree search reads;
- :class:`AcceptancePreset` records (:data:`ACCEPTANCE_CURVES`): acceptance-length curves {k: AL}
  as published, every InferenceX golden curve and the heads vLLM's own test pins;
- :class:`ContextMeasurement` records (:data:`CONTEXT_POINTS`): acceptance measured at several
  context lengths, which :func:`specmath.fit_context_falloff` fits.

Each source's text is kept verbatim under tests/fixtures/presets/acceptance/ and .../context/
(first line ``# `` and the record's ``source``); tests/specmath/test_acceptance_presets.py and
test_context.py read every number against it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# An acceptance vector for draft trees (specmath.trees): Sequoia's, the one its tree search
# reads by default. Infini-AI-Lab/Sequoia at commit 0ff3ff71475ca148f2dfb7545e0de5caf5c67b39,
# file acceptance-rate-vector.pt (a torch tensor of 34 little-endian float32, read here from the
# zip's raw storage, acceptance-rate-vector/data/0, without torch). Its layout is that of
# tests/test_accept.py, which writes it: entry 0 is unused (0), entries 1 to 32 are the ranks
# 1 to 32 (--W 32), entry 33 the share of target calls that accepted no child (49/667);
# tree_search.py drops the last entry and reads p[1] onward. Every entry is a count out of 667
# target calls: the stored float32 values are float32(count / 667) exactly, and the counts
# below are those values times 667. The README's command for producing such a vector uses
# JackFram/llama-68m (JF68M) as draft for meta-llama/Llama-2-7b-hf (stochastic decoding,
# temperature 0.6, CNN); the file itself records no settings.
_SEQUOIA_CALLS = 667
_SEQUOIA_COUNTS = (
    *(423, 72, 38, 15, 13, 10, 3, 2, 8, 3, 5, 3, 4, 2, 1, 2),  # ranks 1 to 16
    *(1, 2, 0, 2, 2, 2, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1),  # ranks 17 to 32
)

#: Sequoia's positional acceptance vector, ranks 1 to 32 (JF68M draft, Llama-2-7B target): read-only.
SEQUOIA_ACCEPTANCE = np.array(_SEQUOIA_COUNTS) / _SEQUOIA_CALLS
SEQUOIA_ACCEPTANCE.flags.writeable = False

#: Where :data:`SEQUOIA_ACCEPTANCE` comes from, for a page to show beside it.
SEQUOIA_ACCEPTANCE_SOURCE = (
    "Infini-AI-Lab/Sequoia, acceptance-rate-vector.pt (commit 0ff3ff7): JackFram/llama-68m draft "
    "for Llama-2-7B, counts out of 667 target calls (Chen et al. 2024, Sequoia)"
)


@dataclass(frozen=True)
class AcceptancePreset:
    """A published acceptance-length curve: what a draft head achieved at each k, and where that is written.

    Plain data: ``dict(preset.lengths)`` is the curve {k: AL}, ready for
    ``specmath.acceptance(lengths=...)``.

    Attributes
    ----------
    name : str
        The registry key.
    model : str
        The target model as the source names it.
    head : str
        The drafter (method, and its checkpoint where the source names one).
    engine, hardware, dataset : str or None
        Where and on what it was measured; None where the source does not say.
    temperature : float or None
        The sampling temperature, None where the source does not say.
    thinking : bool or None
        The chat template's thinking mode, None where it does not apply or is not said.
    lengths : tuple of (int, float)
        (k, AL) pairs, k ascending: AL is the mean tokens per target pass, the target's bonus
        token included (1 + accepted draft tokens / drafts).
    per_position : tuple of float or None
        The unconditional rates u_i = P(at least i draft tokens accepted), position 1 first, as
        vLLM prints them ("Per-position acceptance"), where the source prints them (at its
        largest k); then 1 + sum(u) is that k's AL, up to the source's rounding.
    source : str
        The document: repository, file and commit, or issue/PR and comment.
    """

    name: str
    model: str
    head: str
    engine: str | None
    hardware: str | None
    dataset: str | None
    temperature: float | None
    thinking: bool | None
    lengths: tuple[tuple[int, float], ...]
    per_position: tuple[float, ...] | None
    source: str


_INFERENCEX = "SemiAnalysisAI/InferenceX at {commit}, golden_al_distribution/{file} (source run {run})"
_RUNS = "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/"


def _golden(name, model, head, file, commit, run, thinking, temperature, lengths):
    """An InferenceX golden curve: vLLM on B300, SPEED-Bench's coding split, k = 1 to 8."""
    return AcceptancePreset(
        name=name,
        model=model,
        head=head,
        engine="vLLM",
        hardware="B300",
        dataset="SPEED-Bench Qualitative, coding (80 prompts), output_len 4096",
        temperature=temperature,
        thinking=thinking,
        lengths=tuple(enumerate(lengths, start=1)),
        per_position=None,
        source=_INFERENCEX.format(commit=commit, file=file, run=_RUNS + run),
    )


# Every golden curve in golden_al_distribution/ (InferenceX at 843c625, 2026-08-22), each file at
# the commit that last changed it. The model is the YAML's top-level key; the head is the YAML's
# method, with the draft checkpoint its collector script (benchmarks/single_node/speedbench/, same
# commit) names. Each AL is 1 + accepted / drafts from vLLM's counters (the README's step 5): the
# bonus token included, as here.
_MINIMAX = ("minimax-m3", "ab51b0612d3aec25a08196505334848b83987a45", "28061204145")
_MINIMAX_GQA = ("minimax-m3", "85606a70014714b56f284c43bc269735e99b74e2", "29784780049")
_KIMI25 = ("kimi-k2.5-nvfp4", "ab51b0612d3aec25a08196505334848b83987a45", "28122195822")
_QWEN35 = ("qwen3.5-397b-a17b-nvfp4", "ab51b0612d3aec25a08196505334848b83987a45", "27317114007")
_DSV4 = ("deepseek-v4-pro", "ab51b0612d3aec25a08196505334848b83987a45", "27180633016")
_EAGLE_MINIMAX = "EAGLE-3 (Inferact/MiniMax-M3-EAGLE3)"
# The GQA file came with no collector change: the script at its commit still names the MHA head.
_EAGLE_MINIMAX_GQA = "EAGLE-3, GQA variant (checkpoint not recorded)"
_EAGLE_KIMI = "EAGLE-3 (lightseekorg/kimi-k2.5-eagle3-mla)"


def _pair(name, head, file, entry, on, off, temperatures=(1.0, 1.0)):
    """A file's two curves, thinking on and off."""
    model, commit, run = entry
    return [
        _golden(f"{name} (thinking on)", model, head, file, commit, run, True, temperatures[0], on),
        _golden(f"{name} (thinking off)", model, head, file, commit, run, False, temperatures[1], off),
    ]


INFERENCEX_CURVES = [
    *_pair(
        "MiniMax-M3 EAGLE-3",
        _EAGLE_MINIMAX,
        "minimaxm3_eagle3.yaml",
        _MINIMAX,
        on=(1.78, 2.38, 2.83, 3.11, 3.35, 3.45, 3.53, 3.74),
        off=(1.84, 2.52, 2.93, 3.41, 3.59, 3.57, 3.85, 4.06),
    ),
    *_pair(
        "MiniMax-M3 EAGLE-3 GQA",
        _EAGLE_MINIMAX_GQA,
        "minimaxm3_eagle3_gqa.yaml",
        _MINIMAX_GQA,
        on=(1.79, 2.39, 2.78, 3.02, 3.21, 3.30, 3.52, 3.51),
        off=(1.83, 2.46, 2.97, 3.29, 3.72, 3.76, 3.75, 3.93),
    ),
    *_pair(
        "Kimi-K2.5 EAGLE-3",
        _EAGLE_KIMI,
        "kimik2.5_eagle3.yaml",
        _KIMI25,
        on=(1.83, 2.43, 2.88, 3.24, 3.46, 3.62, 3.71, 3.77),
        off=(1.80, 2.33, 2.75, 3.06, 3.25, 3.43, 3.46, 3.51),
        temperatures=(1.0, 0.6),
    ),
    *_pair(
        "Qwen3.5-397B-A17B MTP",
        "MTP",
        "qwen3.5_mtp.yaml",
        _QWEN35,
        on=(1.93, 2.73, 3.39, 3.97, 4.41, 4.80, 5.04, 5.21),
        off=(1.92, 2.70, 3.33, 3.83, 4.20, 4.48, 4.73, 4.71),
        temperatures=(0.6, 0.7),
    ),
    *_pair(
        "DeepSeek-V4-Pro MTP",
        "MTP",
        "dsv4_mtp.yaml",
        _DSV4,
        on=(1.79, 2.27, 2.49, 2.54, 2.55, 2.55, 2.54, 2.58),
        off=(1.92, 2.61, 2.97, 3.00, 3.10, 3.16, 3.00, 3.11),
    ),
    _golden(
        "DeepSeek-V4-Pro-0813 DSpark (thinking on)",
        "deepseek-v4-pro-0813",
        "DSpark, probabilistic draft sampling",
        "dsv4-pro-0813-dspark.yaml",
        "b9c9f925f10a39525b8f08ef0be87996c09f0939",
        "31742838308",
        True,
        1.0,
        (1.84, 2.51, 3.01, 3.36, 3.61, 3.77, 3.73, 3.47),
    ),
    _golden(
        "GLM-5.2 MTP (thinking on)",
        "glm-5.2-fp8",
        "MTP",
        "glm5.2_mtp.yaml",
        "79aa5d83ee65c5b259cd3cb711f94f6ec7cd8322",
        "28058352479",
        True,
        1.0,
        (1.84, 2.50, 2.99, 3.33, 3.61, 3.78, 3.91, 4.06),
    ),
    _golden(
        "Kimi-K3 DSpark (thinking on)",
        "kimi-k3",
        "DSpark (Inferact/Kimi-K3-DSpark)",
        "kimik3_dspark.yaml",
        "ccbb522994ab475c8c54cb37ad965fdf77b8e7c5",
        "30304797750",
        True,
        1.0,
        (1.84, 2.45, 2.87, 3.22, 3.44, 3.54, 3.78, 3.88),
    ),
    _golden(
        "Kimi-K3 DSpark, probabilistic draft, block verify (thinking on)",
        "kimi-k3",
        "DSpark (Inferact/Kimi-K3-DSpark), probabilistic draft sampling, block rejection sampling",
        "kimik3_dspark_probabilistic_sample_method_block_rejection_sample_method.yaml",
        "fa3f2a2141c2d8c91c476c9256779eda27b68090",
        "30316471205",
        True,
        1.0,
        (1.85, 2.51, 3.00, 3.36, 3.62, 3.75, 3.84, 4.00),
    ),
]

_PR32030 = (
    "vllm-project/vllm PR #32030 (Test: added acceptance length tests), description by rahul-tuli, "
    "2026-01-09: the table of models tested and its test design, as the stored copy of the description gives them"
)


def _redhat(name, model, head, length, per_position):
    """One row of vLLM PR #32030's table: vLLM, MT-Bench, 3 speculative tokens; temperature and GPU not stated."""
    return AcceptancePreset(
        name=name,
        model=model,
        head=head,
        engine="vLLM",
        hardware=None,
        dataset="MT-Bench (philschmid/mt-bench, 80 prompts)",
        temperature=None,
        thinking=None,
        lengths=((3, length),),
        per_position=per_position,
        source=_PR32030,
    )


# The three EAGLE-3 heads vLLM's acceptance-length regression test pins (its table heads the
# rates "Per-Position AL"; they are vLLM's per-position acceptance rates, summing to AL - 1).
VLLM_TEST_CURVES = [
    _redhat(
        "Llama-3.1-8B-Instruct EAGLE-3 (RedHatAI), k = 3",
        "meta-llama/Llama-3.1-8B-Instruct",
        "EAGLE-3 (RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3)",
        2.60,
        (0.73, 0.52, 0.35),
    ),
    _redhat(
        "Qwen3-8B EAGLE-3 (RedHatAI), k = 3",
        "Qwen/Qwen3-8B",
        "EAGLE-3 (RedHatAI/Qwen3-8B-speculator.eagle3)",
        2.26,
        (0.65, 0.40, 0.20),
    ),
    _redhat(
        "gpt-oss-20b EAGLE-3 (RedHatAI), k = 3",
        "openai/gpt-oss-20b",
        "EAGLE-3 (RedHatAI/gpt-oss-20b-speculator.eagle3)",
        2.56,
        (0.72, 0.51, 0.32),
    ),
]

#: Every acceptance preset, in registry order: InferenceX's golden curves, then vLLM's test's heads.
ACCEPTANCE_CURVES = [*INFERENCEX_CURVES, *VLLM_TEST_CURVES]


@dataclass(frozen=True)
class ContextMeasurement:
    """Acceptance measured at several context lengths with one head and one setup, and where.

    Attributes
    ----------
    name, model, head, engine, hardware, dataset, temperature, source
        As for :class:`AcceptancePreset`.
    k : int or None
        The draft length measured at, None where the source does not say.
    kind : str
        ``"length"``: the values are acceptance lengths (bonus token included); ``"rate"``: draft
        acceptance rates (accepted / drafted).
    points : tuple of (float, float)
        (context in tokens, value) pairs, context ascending.
    reading : str
        How the source's text was read into numbers (its "2k", a range), where it needed reading.
    """

    name: str
    model: str
    head: str
    engine: str | None
    hardware: str | None
    dataset: str | None
    temperature: float | None
    k: int | None
    kind: str
    points: tuple[tuple[float, float], ...]
    source: str
    reading: str = ""

    @property
    def contexts(self) -> tuple[float, ...]:
        return tuple(c for c, _ in self.points)

    @property
    def values(self) -> tuple[float, ...]:
        return tuple(v for _, v in self.points)

    @property
    def baseline(self) -> float:
        """What the values fall to when no draft token is accepted: 1 for a length, 0 for a rate."""
        return 1.0 if self.kind == "length" else 0.0

    @property
    def ceiling(self) -> float | None:
        """The most a value can be: 1 for a rate, k + 1 for a length at a known k, else None."""
        if self.kind == "rate":
            return 1.0
        return None if self.k is None else self.k + 1.0


CONTEXT_POINTS = [
    ContextMeasurement(
        name="Qwen3-8B EAGLE-3, LongBench-v2",
        model="Qwen3-8B",
        head="EAGLE-3, full attention (trained with vllm-project/speculators)",
        engine="vLLM",
        hardware=None,
        dataset="LongBench-v2 (recursal/longbench-v2) truncated to each context; 10 prompts each, max_tokens=128",
        temperature=0.0,
        k=None,
        kind="length",
        points=tuple(
            zip(
                range(2_000, 20_001, 2_000),
                (2.295, 2.040, 1.863, 1.687, 1.400, 1.289, 1.161, 1.090, 1.092, 1.084),
                strict=True,
            )
        ),
        source=(
            "vllm-project/speculators PR #684 (Added sliding window attention for p-eagle and eagle3 models), "
            "comment by shanjiaz, 2026-07-02: the setup and the Eagle3 table; the stored copy of the comment ends "
            'at "Eagle3 ("'
        ),
        reading='"2k" read as 2,000 tokens (2,048 would move every context by 2.4 %); the "Eagle3" column',
    ),
    ContextMeasurement(
        name="Kimi-K3 DSpark, random tokens",
        model="Kimi-K3",
        head="DSpark (Inferact/Kimi-K3-DSpark)",
        engine="TokenSpeed",
        hardware="8×MI355X",
        dataset="random-token prompts, output 512, concurrency 1, median of three runs",
        temperature=0.0,
        k=None,
        kind="length",
        points=((8_192, 2.00), (32_768, 1.69), (131_072, 1.00)),
        source=(
            "lightseekorg/tokenspeed PR #905 (feat(dspark): Kimi-K3 DSpark speculative decoding on FlatKV), "
            'comment by jhinpan, 2026-08-04: "Comprehensive Kimi-K3 DSpark A/B validation", its setup and the '
            "input-length sweep"
        ),
        reading='"8K", "32K", "128K" read as 8,192, 32,768 and 131,072 tokens (the ISLs of tokenspeed issue #1132)',
    ),
    ContextMeasurement(
        name="Qwen3.8-27B MTP, llama.cpp",
        model="Qwen3.8-27B (target IQ4_XS, head Q4_0)",
        head="MTP (the model's own head)",
        engine="llama.cpp (--spec-type draft-mtp, --spec-draft-n-max 4)",
        hardware="AMD Radeon 780M iGPU (Vulkan/RADV)",
        dataset=None,
        temperature=None,
        k=4,
        kind="rate",
        points=((100, 0.855), (34_000, 0.53), (86_000, 0.475)),
        source=(
            "vllm-project/vllm issue #47602 ([Performance]: Native MTP draft acceptance rate decays with total "
            "context length (Qwen3.6-27B, in-range context, no --hf-overrides)), comment by dondetir, 2026-08-15: "
            "a llama.cpp data point"
        ),
        reading='"~100 tok", "~34K", "~86K" read as 100, 34,000 and 86,000 tokens; the ranges 80-91 % and 40-55 % at '
        "their midpoints; 1-2 runs per point",
    ),
]
