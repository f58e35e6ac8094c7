"""What the engine configs share: the record they return, the schedule and name checks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..._validate import shown

#: The speculative methods the configs are written for, in vLLM's names (``method`` in
#: ``--speculative-config``), each with what drafts.
METHODS = {
    "draft_model": "a separate, smaller model",
    "eagle": "an EAGLE head",
    "eagle3": "an EAGLE-3 head",
    "mtp": "the target's own multi-token-prediction layers",
    "ngram": "n-grams looked up in the prompt",
    "suffix": "suffix trees of the prompt and earlier responses",
}

#: Longest drafter name taken: Hugging Face repo ids are at most 96 characters, a local path rarely passes 200.
MAX_NAME = 200

# ASCII only (a look-alike letter from another script would name another repository); no
# space, quote, backslash, ``$`` or backtick, which would change a pasted shell command, and
# no leading ``-``, which would read as a flag.
_NAME = re.compile(r"[A-Za-z0-9._/][A-Za-z0-9._/-]*")


def safe_name(name: str) -> bool:
    """Whether ``name`` can go into a pasted shell command unquoted: a Hugging Face repo id or a path."""
    return isinstance(name, str) and len(name) <= MAX_NAME and _NAME.fullmatch(name) is not None


@dataclass(frozen=True)
class ConfigBlock:
    """One thing to paste: launch flags, a JSON value or a file's text.

    ``filename`` names the file the text goes in (SGLang's adaptive config, TensorRT-LLM's
    YAML), ``None`` for flags typed on the command line.
    """

    title: str
    text: str
    language: str  # "bash", "json" or "yaml": how a page highlights it
    filename: str | None = None


@dataclass(frozen=True)
class EngineConfig:
    """An engine's settings for a schedule, and what of it the engine's rules change or drop.

    ``warnings`` say where the engine would not do what the schedule says (a rule that drops
    or caps part of it, with what was written instead); ``notes`` are facts about the engine
    worth knowing beside the config. ``settings`` is the structured value of the main block
    (a JSON object, a flag dictionary), ``None`` where there is nothing to paste.
    """

    engine: str
    source: str
    blocks: tuple[ConfigBlock, ...]
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    settings: dict | None = None


def check_method(method) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {shown(method)}")
    return method


def check_model(model) -> str | None:
    """``model`` as given, if it is ``None`` or a name :func:`safe_name` takes."""
    if model is not None and not safe_name(model):
        raise ValueError(f"model must be a repo id or path of letters, digits, . _ - /, got {shown(model)}")
    return model


def check_count(value, name: str, minimum: int = 0, cap: int = 1 << 20) -> int:
    """``value`` as an int: a Python or NumPy integer (not a bool) from ``minimum`` to ``cap``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not minimum <= value <= cap:
        raise ValueError(f"{name} must be an integer from {minimum} to {cap:,}, got {shown(value)}")
    return int(value)


def check_schedule(schedule) -> tuple[tuple[int, int, int], ...]:
    """The ``(lo, hi, k)`` ranges of :func:`specmath.batch_k_schedule`: contiguous from batch 1.

    Each range is inclusive, ``lo <= hi``, ``k >= 0``, and each ``lo`` is the previous ``hi + 1``.
    """
    if not isinstance(schedule, Sequence) or isinstance(schedule, str) or not schedule:
        raise ValueError(f"schedule must be a non-empty list of (lo, hi, k) ranges, got {shown(schedule)}")
    out = []
    expected = 1
    for entry in schedule:
        if not isinstance(entry, Sequence) or len(entry) != 3:
            raise ValueError(f"schedule entries must be (lo, hi, k), got {shown(entry)}")
        lo, hi, k = (check_count(v, "schedule entries", 0) for v in entry)
        if lo != expected or hi < lo:
            raise ValueError(
                f"schedule ranges must run on from batch 1 without gaps (next expected to start at {expected}), "
                f"got {shown(entry)}"
            )
        out.append((lo, hi, k))
        expected = hi + 1
    return tuple(out)


def k_at(schedule: Sequence[tuple[int, int, int]], batch: int) -> int:
    """The scheduled k at ``batch``; past the last range, the last range's k."""
    for lo, hi, k in schedule:
        if lo <= batch <= hi:
            return k
    return schedule[-1][2]


def flag_lines(flags: Sequence[tuple[str, object]]) -> str:
    """Flags one a line, joined by shell line continuations: ``--a 1 \\`` newline ``--b``."""
    return " \\\n".join(f"{flag} {value}".rstrip() for flag, value in flags)
