"""The parameters of the Verification rules page: the pair, the temperature, the lossy rules' settings."""

from __future__ import annotations

from dashboard import toy_language
from dashboard.params.base import Param

#: Where the page's pair comes from: a preset pair of logits, typed logits, or a row of the toy language.
VERIFICATION_PRESETS = ("binary", "close", "overconfident", "typed", "toy")

#: Shown only while the pair is the toy language's.
TOY_SOURCE = ("vr_preset", "toy")

PARAMS = (
    Param(
        "vr_preset",
        "Pair",
        "choice",
        "binary",
        "binary: Sun et al.'s p = (1/3, 2/3), q = (2/3, 1/3) at T = 1. close: a draft near the "
        "target. overconfident: a draft sharper than the target. typed: your own logits. toy: the "
        "Step through page's 21-word language after a word you choose.",
        options=VERIFICATION_PRESETS,
        widget="selectbox",
    ),
    Param(
        "vr_context",
        "Word before",
        "choice",
        "the",
        "The toy language's target and draft for the word after this one.",
        options=toy_language.WORDS,
        widget="selectbox",
        shown_when=TOY_SOURCE,
    ),
    Param(
        "vr_temperature",
        "Temperature T (both models)",
        "float",
        1.0,
        "Both models' logits are divided by T before the softmax; T = 0 is the argmax.",
        low=0.0,
        high=2.0,
        step=0.05,
    ),
    Param(
        "vr_epsilon",
        "Medusa ε (posterior_threshold)",
        "float",
        0.09,
        "Typical acceptance keeps the draft token when p(x) > min(ε, δ·exp(−H(p))). Medusa's default 0.09.",
        low=0.0,
        high=1.0,
        step=0.01,
    ),
    Param(
        "vr_delta",
        "Medusa δ (posterior_alpha)",
        "float",
        0.3,
        "The entropy-scaled threshold's factor. Medusa's default 0.3.",
        low=0.0,
        high=1.0,
        step=0.01,
    ),
    Param(
        "vr_threshold_single",
        "SGLang threshold_single",
        "float",
        1.0,
        "SGLang keeps the draft token outright when p(x) ≥ this (--speculative-accept-threshold-single, "
        "default 1: off).",
        low=0.0,
        high=1.0,
        step=0.01,
    ),
    Param(
        "vr_threshold_acc",
        "SGLang threshold_acc",
        "float",
        1.0,
        "Otherwise SGLang keeps it with probability min(1, p(x)/threshold_acc) "
        "(--speculative-accept-threshold-acc, default 1: lossless).",
        low=0.0,
        high=1.0,
        step=0.01,
    ),
    Param(
        "vr_relaxed_topk",
        "TensorRT-LLM relaxed_topk",
        "int",
        1,
        "Relaxed acceptance keeps the draft token when it is among the target's top K tokens and within "
        "relaxed_delta of the top one's probability (default 1: exact match with the target's argmax). "
        "At most the vocabulary size is used.",
        low=1,
        high=10,
        step=1,
    ),
    Param(
        "vr_relaxed_delta",
        "TensorRT-LLM relaxed_delta",
        "float",
        0.0,
        "The probability gap below the top token within which a top-K token still passes (default 0).",
        low=0.0,
        high=1.0,
        step=0.05,
    ),
)
