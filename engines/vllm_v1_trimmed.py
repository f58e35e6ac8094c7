"""vLLM V1 log fields kept without their ``SpecDecoding metrics:`` line: the latest mean and per-position list.

Users quote only "Mean acceptance length: X" and "Per-position acceptance rate: a, b, …" of a
V1 line. Without counts the intervals cannot be weighted, so the latest values are used.
"""

from __future__ import annotations

import math
import re

from ._text import HALF_2DP, HALF_3DP, Doc, Found, Needs, ReportError, check_rate, read_float
from .record import EngineMetrics
from .vllm_v1 import _FULL_RATE, _PER_POS_LABEL, _V1_MARKER, _V1_MEAN, _V1_PER_POS

FORMAT = "vLLM V1 log (trimmed)"
ENGINE = "vLLM"
NEEDS = Needs(
    "vLLM V1's fields on their own",
    (
        ("'Mean acceptance length: X'", r"Mean acceptance length: [\d.]+"),
        ("'Per-position acceptance rate: a, b, …'", r"Per-position acceptance rate: [\d.]+"),
    ),
)

# The two fields of vLLM V1's line (engines/vllm_v1.py cites vllm/v1/spec_decode/metrics.py:
# mean = 1 + accepted / drafts with %.2f, rates = accepted at position i / drafts with %.3f,
# metrics.py:114-118@v0.34.0) on lines without the "SpecDecoding metrics:" marker; lines with it
# are vllm_v1's. vLLM 0.8.5 printed the mean without the bonus token (accepted / drafts,
# metrics.py:76@v0.8.5); such a mean equals the rates' sum, not 1 + it.
_LABEL = "Mean acceptance length:"


def _fields(doc: Doc) -> list[tuple[str, re.Match]]:
    """Each mean or per-position list (the last MAX_REPORTS of each) on a line without the V1 marker."""
    text = doc.text
    if _LABEL not in text and _PER_POS_LABEL not in text:
        return []
    out = []
    for pattern, field, label in ((_V1_MEAN, "mean", _LABEL), (_V1_PER_POS, "rates", _PER_POS_LABEL)):
        first, _ = doc.tail(label)
        end, marked = -1, False  # the current line's end and whether it holds the marker
        for m in pattern.finditer(text, first):
            if m.start() > end:  # a new line: its bounds are searched once, so the pass stays linear
                start = text.rfind("\n", max(end, 0), m.start()) + 1
                end = text.find("\n", m.start())
                end = len(text) if end == -1 else end
                marked = _V1_MARKER in text[start:end]
            if not marked:
                out.append((field, m))
    return sorted(out, key=lambda f: f[1].start())


def parse(doc: Doc) -> Found | str | None:
    fields = _fields(doc)
    if not fields:
        return None
    # The latest pair: the last field and, if the other kind sits on the same line or the line just before, it.
    field, m = fields[-1]
    found = {field: m}
    if len(fields) > 1 and fields[-2][0] != field:
        other, om = fields[-2]
        between = doc.text[om.end() : m.start()]
        if between.count("\n") <= 1:
            found[other] = om
    last = max(x.start() for x in found.values())
    line = doc.line_of(min(x.start() for x in found.values()))
    pos = min(x.start() for x in found.values())
    mean = read_float(found["mean"].group(1)) if "mean" in found else None
    rates = None
    notes = []
    if "rates" in found:
        raw = found["rates"].group(1).split(", ")
        end = found["rates"].end()
        if end == len(doc.text) and not _FULL_RATE.fullmatch(raw[-1]):
            return f"the per-position list at line {line} ends the paste in {raw[-1]!r}, cut off"
        rates = tuple(read_float(r) for r in raw)
        for i, r in enumerate(rates):
            check_rate(r, f"Per-position acceptance rate {i}", line, pos)
    k = len(rates) if rates else None
    if mean is not None and not math.isfinite(mean):
        mean = None
    if mean is not None and not 1.0 - HALF_2DP <= mean <= (k or math.inf) + 1 + HALF_2DP:
        if not (rates and abs(sum(rates) - mean) <= len(rates) * HALF_3DP + HALF_2DP):
            raise ReportError(
                f"Mean acceptance length must be within [1, k + 1] (it counts the bonus token), got {mean:g} "
                f"(line {line})",
                pos,
            )
    if mean is not None and rates and all(math.isfinite(r) for r in rates):
        tol = len(rates) * HALF_3DP + HALF_2DP
        if abs(sum(rates) - mean) <= tol < abs(1.0 + sum(rates) - mean):
            notes.append(
                f"the mean {mean:.2f} equals the rates' sum, not 1 + it: vLLM 0.8.5's mean without the bonus token; "
                f"read as {1 + mean:.2f}"
            )
            mean = 1.0 + mean
        elif abs(1.0 + sum(rates) - mean) > tol:
            notes.append("the per-position rates do not add up to the mean acceptance length minus 1")
    if mean is None and rates and all(math.isfinite(r) for r in rates):
        mean = 1.0 + sum(rates)
        notes.append("mean acceptance length taken as 1 + the per-position rates' sum")
    if rates and all(math.isnan(r) for r in rates) and mean is None:
        return f"the V1 fields at line {line} are nan: that interval drafted nothing"
    count = sum(1 for f, _ in fields if f == field)
    if count > 1:
        notes.append(f"{count} such lines found; used the latest (they print no counts to weight intervals by)")
    notes.append("only the mean and per-position rates were pasted: no counts of drafts or tokens")
    record = EngineMetrics(ENGINE, FORMAT, k, None, None, None, None, mean, rates, tuple(notes))
    return Found(last, record)
