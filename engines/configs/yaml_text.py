"""The YAML the configs write, and its reading back: nested mappings of plain scalars only.

Enough for TensorRT-LLM's ``--extra_llm_api_options`` file, written with the standard library
(no YAML package is a dependency). Block style, two spaces a level; a string is written plain
when YAML 1.1 and 1.2 both read it back as that string (letters, digits, ``. _ / -``, starting
with a letter), otherwise as a JSON string, which is a YAML double-quoted scalar. :func:`read`
takes exactly what :func:`write` writes, so each round trip can be tested; it is not a YAML parser.
"""

from __future__ import annotations

import json
import math
import re

# Plain strings that no YAML reader takes for a number, a boolean, null or a date.
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9._/-]*")
_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}
# What repr writes for a finite float: 0.25, -3.0, 1e-07, 1.5e+16.
_FLOAT = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]\d+)?")


def _scalar(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"value must be a finite number, got {value!r}")
        return repr(value)
    if isinstance(value, str):
        plain = _PLAIN.fullmatch(value) and value.lower() not in _WORDS
        return value if plain else json.dumps(value)
    raise ValueError(f"value must be a mapping or a plain scalar, got {type(value).__name__}")


def write(mapping: dict, indent: int = 0) -> str:
    """``mapping`` (string or integer keys; values scalars or mappings) as block-style YAML."""
    lines = []
    pad = " " * indent
    for key, value in mapping.items():
        if not isinstance(key, (str, int)) or isinstance(key, bool):
            raise ValueError(f"keys must be strings or integers, got {key!r}")
        name = _scalar(key)
        if isinstance(value, dict):
            lines.append(f"{pad}{name}:")
            lines.append(write(value, indent + 2).rstrip("\n"))
        else:
            lines.append(f"{pad}{name}: {_scalar(value)}")
    return "\n".join(lines) + "\n"


def _read_scalar(text: str):
    if text.startswith('"'):
        return json.loads(text)
    if text in ("true", "false"):
        return text == "true"
    if text == "null":
        return None
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    return text


def read(text: str) -> dict:
    """The mapping :func:`write` wrote (not a YAML parser: other YAML raises ``ValueError``)."""
    root: dict = {}
    stack = [(-1, root)]
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        found = re.fullmatch(r"(\"(?:[^\"\\]|\\.)*\"|[^:\s][^:]*):(?: (.*))?", line.strip())
        if found is None or indent % 2:
            raise ValueError(f"text line {number} is not a line this writer writes: {line[:80]!r}")
        while stack[-1][0] >= indent:
            stack.pop()
        key, value = _read_scalar(found.group(1)), found.group(2)
        if value is None:
            child: dict = {}
            stack[-1][1][key] = child
            stack.append((indent, child))
        else:
            stack[-1][1][key] = _read_scalar(value)
    return root
