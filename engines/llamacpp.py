"""llama.cpp's speculative examples' closing summary: the latest one is used.

llama.cpp's examples count emitted tokens (n_predict) and accepted draft tokens (n_accept);
each target step emits its accepted tokens plus one, so steps = n_predict - n_accept.
"""

from __future__ import annotations

import math
import re
from collections import deque

from ._text import (
    HALF_3DP,
    MAX_REPORTS,
    NUM,
    Doc,
    Found,
    Needs,
    ReportError,
    check_accepted,
    check_rate,
    read_float,
    read_int,
)
from .record import EngineMetrics

FORMAT = "llama.cpp summary"
ENGINE = "llama.cpp"
#: The parts a whole report has, for the message on a paste no format reads (see ``Needs``).
NEEDS = Needs(
    "a llama.cpp speculative example's summary",
    (
        ("'n_draft = N'", r"(?m)^n_draft[ \t]*="),
        ("'n_drafted = N'", r"(?m)^n_drafted[ \t]*="),
        ("'n_accept = N'", r"(?m)^n_accept[ \t]*="),
    ),
)

# ggml-org/llama.cpp, examples/speculative/speculative.cpp and
# examples/speculative-simple/speculative-simple.cpp, main(), at the end of a run:
#   "n_draft   = 8" / "n_predict = 258" / "n_drafted = 296" / "n_accept  = 198" / "accept    = 66.892%"
# n_draft is the maximum draft length; n_predict counts every emitted token; each target step
# emits its accepted draft tokens plus one, so steps = n_predict - n_accept.
_LLAMA_FIELD = re.compile(
    rf"(n_drafted|n_draft|n_predict|n_accept|accept)[ \t]*=[ \t]*({NUM})(%?)[ \t]*$",
    re.MULTILINE,
)
_LLAMA_KEYS = ("n_draft", "n_predict", "n_drafted", "n_accept", "accept")


def parse(doc: Doc) -> Found | str | None:
    text = doc.text
    first, dropped = doc.tail("= ")
    first = max(text.rfind("\n", max(0, first - 64), first) + 1, first - 64, 0)  # the key before the "="
    blocks: deque[dict] = deque(maxlen=MAX_REPORTS)
    current: dict = {}
    prev_pos, cut = first, 0
    for m in _LLAMA_FIELD.finditer(text, first):
        start = m.start()
        if start and (text[start - 1].isalnum() or text[start - 1] in "_."):
            continue
        key, raw, percent = m.group(1), m.group(2), m.group(3)
        if (key == "accept") != bool(percent):
            continue  # "accept" is printed as a percentage, the counts are not
        if m.end() == len(text) and not doc.ends_with_newline and key != "accept":
            cut += 1  # a last line without a line break: "n_accept = 9" may be "n_accept = 92"
            continue
        if current and (key in current or key == "n_draft" or text.count("\n", prev_pos, start) > 8):
            blocks.append(current)
            current = {}
        current[key] = (raw, start)
        prev_pos = start
        if key == "accept":
            blocks.append(current)
            current = {}
    if current:
        blocks.append(current)
    usable = [b for b in blocks if "n_drafted" in b and "n_accept" in b]
    if not usable:
        if not blocks:
            return None
        if cut:
            return (
                "the llama.cpp summary's last line has no line break and may be cut off; "
                "paste it through the 'accept = …%' line"
            )
        return "a llama.cpp summary needs both 'n_drafted = N' and 'n_accept = N'"
    block = usable[-1]
    pos = max(p for _, p in block.values())
    notes = []
    if len(usable) > 1:
        notes.append(f"{len(usable)} summaries found; used the latest")
    if blocks[-1] is not block:
        notes.append("the last llama.cpp summary is incomplete or cut off; used the one before it")
    if dropped:
        notes.append(f"only the last {MAX_REPORTS:,} occurrences of '= ' were read")
    values = {}
    for key in _LLAMA_KEYS[:4]:
        if key in block:
            raw, p = block[key]
            values[key] = read_int(raw, key, doc.line_of(p), p)
    drafted, accepted = values["n_drafted"], values["n_accept"]
    line = doc.line_of(block["n_accept"][1])
    check_accepted(accepted, drafted, ("n_accept", "n_drafted"), line, pos)
    shown = ()
    if "accept" in block:
        raw, p = block["accept"]
        printed = read_float(raw)
        shown = (("llamacpp.summary.accept", printed),) if not math.isnan(printed) else ()
        check_rate(printed, "accept", doc.line_of(p), p, top=100.0)
        if drafted and not math.isnan(printed) and abs(100.0 * accepted / drafted - printed) > 10 * HALF_3DP:
            notes.append(f"the printed accept = {printed:.3f}% differs from n_accept / n_drafted")
    k = values.get("n_draft") or None
    emitted = values.get("n_predict")
    drafts = mean = None
    if emitted is not None:
        if emitted < accepted:
            raise ReportError(
                f"n_predict ({emitted}) is below n_accept ({accepted}) (line {doc.line_of(block['n_predict'][1])}): "
                "every accepted token is a predicted one",
                pos,
            )
        drafts = emitted - accepted
        mean = emitted / drafts if drafts else None
        notes.append("drafts = n_predict - n_accept: every target step, including any that had no draft")
        if k and drafted > drafts * k:
            notes.append(f"n_drafted ({drafted}) exceeds steps × n_draft ({drafts} × {k})")
    if k:
        notes.append("k is n_draft, the longest draft allowed; drafts can be shorter")
    rate = accepted / drafted if drafted else None
    return Found(
        pos,
        EngineMetrics(
            ENGINE, FORMAT, k, drafts, drafted, accepted, emitted, mean, None, tuple(notes), rate, printed=shown
        ),
    )
