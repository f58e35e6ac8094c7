"""What the engine configs share: the record they return, the schedule and name checks."""

from __future__ import annotations

import re
import shlex
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from specmath._validate import shown

#: The speculative methods the configs are written for, in vLLM's names (``method`` in
#: ``--speculative-config``), each with what drafts.
METHODS = {
    "draft_model": "a separate, smaller model",
    "eagle": "an EAGLE head",
    "eagle3": "an EAGLE-3 head",
    "mtp": "the target's own multi-token-prediction layers",
    "ngram": "n-grams looked up in the prompt",
    "suffix": "suffix trees of the prompt and earlier responses",
    "dflash": "a DFlash block drafter, all k tokens in one pass",
}

#: Longest model name taken: Hugging Face repo ids are at most 96 characters, a local path rarely passes 200.
MAX_NAME = 200

# ASCII only (a look-alike letter from another script would name another repository); no
# space, quote, backslash, ``$`` or backtick, which a shell reads, and no leading ``-``, which
# would read as a flag.
_NAME = re.compile(r"[A-Za-z0-9._/][A-Za-z0-9._/-]*")


def safe_name(name: str) -> bool:
    """Whether ``name`` reads the same unquoted in a shell, JSON, YAML and a Markdown code span:
    the shape of a Hugging Face repo id or a plain path."""
    return isinstance(name, str) and len(name) <= MAX_NAME and _NAME.fullmatch(name) is not None


def check_name(name, argument: str) -> str:
    """``name`` as given, if it is a model name the configs can write: 1 to :data:`MAX_NAME`
    characters, no control character, not starting with ``-``.

    Any other text is a name a path may have (spaces, quotes, ``$``, other scripts): the configs
    quote it where it goes (:func:`shell_word` in commands, JSON and YAML escapes in files).
    A control character is in no Hub id, and a NUL in no path or command argument; a leading ``-``
    would read as a flag (write ``./-name``).
    """
    if (
        not isinstance(name, str)
        or not 1 <= len(name) <= MAX_NAME
        or name.startswith("-")
        or any(unicodedata.category(char) == "Cc" for char in name)
    ):
        raise ValueError(
            f"{argument} must be a repo id or path of 1 to {MAX_NAME} characters, not starting with - and "
            f"without control characters, got {shown(name)[:100]}"
        )
    return name


#: The methods whose engines refuse to start without a draft checkpoint (vLLM 0.33.0
#: ``vllm/config/speculative.py`` line 1294; SGLang 0.5.23 ``speculative_hook.py`` lines 323-327).
NEEDS_MODEL = ("dflash",)


def check_model(model, method: str | None = None) -> str | None:
    """``model`` as given, if it is ``None`` or a name :func:`check_name` takes; not ``None`` for a
    ``method`` of :data:`NEEDS_MODEL`."""
    if model is None and method in NEEDS_MODEL:
        raise ValueError(f"model must name the draft checkpoint for method {method}, got None")
    return model if model is None else check_name(model, "model")


def shell_word(value) -> str:
    """``value`` as one shell word: as it is where the shell would read it so, else in single quotes
    (:func:`shlex.quote`; a single quote inside becomes ``'"'"'``)."""
    return shlex.quote(str(value))


def in_code(name: str, fallback: str) -> str:
    """``name`` as a Markdown code span for a message, or ``fallback`` where a span could not show
    it as it is (a backtick, or a ``:`` Streamlit may read as an icon): messages are Markdown."""
    return f"`{name}`" if safe_name(name) else fallback


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


def check_count(value, name: str, minimum: int = 0, cap: int = 1 << 20) -> int:
    """``value`` as an int: a Python or NumPy integer (not a bool) from ``minimum`` to ``cap``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not minimum <= value <= cap:
        raise ValueError(f"{name} must be an integer from {minimum} to {cap:,}, got {shown(value)}")
    return int(value)


def check_parallel(tensor_parallel_size, draft_tensor_parallel_size) -> tuple[int, int]:
    """The target's and the draft's tensor-parallel degrees as ints; the draft's ``None`` is the target's."""
    tp = check_count(tensor_parallel_size, "tensor_parallel_size", 1, 1024)
    if draft_tensor_parallel_size is None:
        return tp, tp
    return tp, check_count(draft_tensor_parallel_size, "draft_tensor_parallel_size", 1, 1024)


def command(program: str, flags: Sequence[tuple[str, object]]) -> str:
    """One command to paste: ``program`` (the program and its model, already shell words) on the
    first line, then each of ``flags`` on a line of its own (:func:`flag_lines`)."""
    return f"{program} \\\n{flag_lines(flags)}" if flags else program


#: Where a config names no target model: a placeholder that reads as one, never a command without a model.
TARGET_PLACEHOLDER = "YOUR-TARGET-MODEL"


def check_target(target) -> str:
    """The target model the commands serve (:func:`check_name`), :data:`TARGET_PLACEHOLDER` for ``None``."""
    return TARGET_PLACEHOLDER if target is None else check_name(target, "target")


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


def flag_lines(flags: Sequence[tuple[str, object]]) -> str:
    """Flags one a line, joined by shell line continuations: ``--a 1 \\`` newline ``--b``.

    Each value is one shell word (:func:`shell_word`); an empty value writes the flag alone.
    """
    return " \\\n".join(f"{flag} {shell_word(value)}" if str(value) else flag for flag, value in flags)


def read_flag_lines(text: str) -> dict[str, str]:
    """The ``{flag: value}`` of :func:`flag_lines`'s text, each value unquoted as a shell reads it
    (``""`` for a flag alone); where a line holds more than a flag and its value (a command's
    start, ``vllm bench serve --model M``), its last word is the value and the rest the key."""
    words = shlex.split(text)  # a continuation's newline stays at the start of the next word
    lines: list[list[str]] = [[]]
    for word in words:
        if word.startswith("\n"):
            lines.append([])
            word = word[1:]
        lines[-1].append(word)
    out = {}
    for line in lines:
        if len(line) > 1 and not line[-1].startswith("--"):
            out[" ".join(line[:-1])] = line[-1]
        else:
            out[" ".join(line)] = ""
    return out
