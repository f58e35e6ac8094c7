"""TensorRT-LLM's iteration statistics: one JSON object per iteration, so the counts are summed.

Each iteration's ``specDecodingStats`` counts the draft tokens proposed and accepted over the
requests that had a draft in that iteration; each such request is one verification step, so
``numRequestsWithDraftTokens`` summed over iterations is the number of drafts.
"""

from __future__ import annotations

import math
import re

from ._text import MAX_COUNT_DIGITS, MAX_REPORTS, Doc, Found, Needs, ReportError, check_accepted, clipped, lines_list
from .record import EngineMetrics

FORMAT = "TensorRT-LLM iteration stats"
ENGINE = "TensorRT-LLM"
#: The parts a whole report has, for the message on a paste no format reads (see ``Needs``).
NEEDS = Needs(
    "TensorRT-LLM iteration stats",
    (
        ("'\"specDecodingStats\"'", r"specDecodingStats"),
        ("'\"numDraftTokens\"'", r"numDraftTokens"),
        ("'\"numAcceptedTokens\"'", r"numAcceptedTokens"),
        ("'\"numRequestsWithDraftTokens\"'", r"numRequestsWithDraftTokens"),
    ),
)

# NVIDIA/TensorRT-LLM, cpp/tensorrt_llm/executor/jsonSerialization.cpp lines 34-40 at 092229bb:
# IterationStats serialized with nlohmann::json (keys sorted, "j.dump()" without spaces), its
# "specDecodingStats" holding numDraftTokens, numAcceptedTokens, numRequestsWithDraftTokens,
# acceptanceLength, iterLatencyMS and draftOverhead; trtllm-serve's /metrics returns a JSON
# list of them and LLM.get_stats() the same as dicts (printed by Python with single quotes).
# tensorrt_llm/_torch/pyexecutor/py_executor.py (9521caf4), PyExecutor._update_iter_stats:
# acceptanceLength = (numAcceptedTokens + numRequestsWithDraftTokens) / numRequestsWithDraftTokens,
# set to 0.0 (or 1.0) for an iteration with no draft.
_MARKER = "specDecodingStats"
_OBJECT = re.compile(r"""specDecodingStats['"][ \t\r\n]*:[ \t\r\n]*\{([^{}]{0,2048})\}""")
_FIELD = re.compile(
    r"""['"](numDraftTokens|numAcceptedTokens|numRequestsWithDraftTokens|acceptanceLength)['"][ \t\r\n]*:"""
    r"""[ \t\r\n]*([+-]?\d++(?:\.\d++)?(?:[eE][+-]?\d++)?|NaN|-?Infinity)"""
)
_COUNTS = ("numDraftTokens", "numAcceptedTokens", "numRequestsWithDraftTokens")


def _count(raw: str, name: str, line: int, pos: int) -> int:
    if re.fullmatch(rf"\+?\d{{1,{MAX_COUNT_DIGITS}}}", raw):
        return int(raw)
    value = float(raw)  # "6.0" or "6e2": whole below 2^53, where a float holds every integer
    if math.isfinite(value) and value.is_integer() and 0 <= value < 2**53:
        return int(value)
    whole = math.isinf(value) or value.is_integer()
    raise ReportError(
        f"{name} = {clipped(raw)} is {'out of range' if whole else 'not a whole number'}: a count is a whole "
        f"number from 0 to 10^{MAX_COUNT_DIGITS} − 1 (line {line})",
        pos,
    )


def parse(doc: Doc) -> Found | str | None:
    text = doc.text
    first, dropped = doc.tail(_MARKER)
    used, incomplete, empty = [], [], []
    at = text.find(_MARKER, first)
    while at != -1:
        m = _OBJECT.match(text, at)
        nxt = text.find(_MARKER, at + len(_MARKER))
        if not m or (nxt != -1 and m.end() > nxt):
            incomplete.append(at)
            at = nxt
            continue
        fields = {name: raw for name, raw in _FIELD.findall(m.group(1))}
        missing = [name for name in _COUNTS if name not in fields]
        if missing:
            incomplete.append(at)
            at = nxt
            continue
        line = doc.line_of(at)
        draft, accepted, requests = (_count(fields[n], n, line, at) for n in _COUNTS)
        if draft == 0:
            empty.append(line)
        else:
            check_accepted(accepted, draft, ("numAcceptedTokens", "numDraftTokens"), line, at)
            if requests == 0 or requests > draft:
                raise ReportError(
                    f"numRequestsWithDraftTokens ({requests}) must be within [1, numDraftTokens] = [1, {draft}] "
                    f"when numDraftTokens is {draft}: each request with a draft has at least one draft token "
                    f"(line {line})",
                    at,
                )
            length = float(fields["acceptanceLength"]) if "acceptanceLength" in fields else None
            used.append((at, line, draft, accepted, requests, length))
        at = nxt
    if not used:
        if empty and not incomplete:
            return f"TensorRT-LLM specDecodingStats drafted nothing (numDraftTokens 0, line {lines_list(empty)})"
        if incomplete:
            return (
                f"the TensorRT-LLM specDecodingStats at line {doc.line_of(incomplete[-1])} is incomplete (a whole "
                "one is a {…} object with numDraftTokens, numAcceptedTokens and numRequestsWithDraftTokens)"
            )
        return None
    notes = []
    if len(used) > 1:
        notes.append(f"{len(used)} iterations found; their counts are summed (TensorRT-LLM reports each iteration)")
    if empty:
        notes.append(f"skipped {len(empty)} iteration(s) with no draft tokens")
    if incomplete:
        notes.append(f"skipped {len(incomplete)} incomplete or cut-off specDecodingStats object(s)")
    if dropped:
        notes.append(f"only the last {MAX_REPORTS:,} specDecodingStats objects were read")
    off = [u[1] for u in used if u[5] is not None and math.isfinite(u[5]) and abs(u[5] - (u[3] + u[4]) / u[4]) > 1e-9]
    if off:
        notes.append(
            "acceptanceLength differs from (numAcceptedTokens + numRequestsWithDraftTokens) / "
            f"numRequestsWithDraftTokens (line {lines_list(off)})"
        )
    draft_tokens = sum(u[2] for u in used)
    accepted = sum(u[3] for u in used)
    drafts = sum(u[4] for u in used)
    k = draft_tokens // drafts if draft_tokens % drafts == 0 else None
    if k is None:
        notes.append(f"draft tokens ({draft_tokens}) are not a multiple of the drafts ({drafts}): k unknown")
    return Found(
        used[-1][0],
        EngineMetrics(
            ENGINE,
            FORMAT,
            k,
            drafts,
            draft_tokens,
            accepted,
            accepted + drafts,
            1.0 + accepted / drafts,
            None,
            tuple(notes),
            accepted / draft_tokens,
        ),
    )
