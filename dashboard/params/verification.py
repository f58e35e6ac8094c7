"""The parameters of the Verification rules page: the pair, the temperature, the lossy rules' settings."""

from __future__ import annotations

import math

from dashboard import pq_input, toy_language
from dashboard.params.base import Param, format_number
from specmath.rules import RULES, RuleParam

#: Where the page's pair comes from: a preset pair of logits, typed logits, or a row of the toy language.
VERIFICATION_PRESETS = ("binary", "close", "overconfident", "typed", "toy")

#: Each preset's (target logits, draft logits); the binary one is Sun et al.'s pair at T = 1.
LOGIT_PRESETS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "binary": ((math.log(1 / 3), math.log(2 / 3)), (math.log(2 / 3), math.log(1 / 3))),
    "close": ((2.0, 1.5, 1.0, 0.2, -0.5), (1.8, 1.6, 0.9, 0.3, -0.4)),
    "overconfident": ((1.0, 0.8, 0.5, 0.0, -0.3), (3.0, 2.4, 1.5, 0.0, -0.9)),
}


def lossy_key(setting: RuleParam) -> str:
    """The page's parameter (URL key) of a lossy rule's setting: ``vr_`` and specmath's name."""
    return f"vr_{setting.name}"


def _lossy_param(setting: RuleParam) -> Param:
    """The widget of a lossy rule's setting, from ``specmath.rules.RULES``."""
    high, step = setting.shown
    return Param(
        lossy_key(setting),
        setting.label,
        "int" if setting.integer else "float",
        setting.default,
        f"{setting.help} Default {format_number(setting.default)}.",
        low=1 if setting.integer else 0.0,
        high=high,
        step=step,
    )


#: Each lossy rule's settings, once each (rules may share one, as both typical acceptances do).
LOSSY_PARAMS = tuple(
    _lossy_param(setting)
    for setting in {s.name: s for rule in RULES.values() if not rule.lossless for s in rule.params}.values()
)

#: Shown only while the pair is the toy language's.
TOY_SOURCE = ("vr_preset", "toy")
#: Shown only while the pair is typed.
TYPED_SOURCE = ("vr_preset", "typed")


def _typed_logits(key: str, name: str, default: tuple[float, ...]) -> Param:
    """A box for typed logits, the binary pair's to start with; the page reads and judges the text."""
    return Param(
        key,
        f"{name} (comma separated)",
        "text",
        pq_input.encode(default),
        f"The {name}, comma separated; the page says what it cannot read.",
        shown_when=TYPED_SOURCE,
    )


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
    _typed_logits("lp", "target logits", LOGIT_PRESETS["binary"][0]),
    _typed_logits("lq", "draft logits", LOGIT_PRESETS["binary"][1]),
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
    *LOSSY_PARAMS,
)
