"""vLLM V1's first log line, printed under V0's ``Speculative metrics:`` prefix: one per logging interval, summed.

V1 counts accepted tokens in the accepted prefix only. The line has no count of drafts and no
draft length, so neither the mean acceptance length nor a per-position profile follows.
"""

from __future__ import annotations

import math
import re

from ._text import (
    HALF_3DP,
    INT,
    MAX_REPORTS,
    NUM,
    Doc,
    Found,
    Needs,
    check_accepted,
    check_rate,
    lines_list,
    read_float,
    read_int,
)
from .record import EngineMetrics

FORMAT = "vLLM V1 log (early)"
ENGINE = "vLLM"
NEEDS = Needs(
    "an early vLLM V1 'Speculative metrics' line",
    (
        ("'Speculative metrics:'", r"Speculative metrics:"),
        ("'Draft acceptance rate: X,'", r"Draft acceptance rate: [\d.]+,"),
        ("'Number of accepted tokens: N,'", r"Number of accepted tokens: \d+,"),
        ("'Number of draft tokens: N,'", r"Number of draft tokens: \d+,"),
    ),
)

# vllm-project/vllm PR #15151 ([V1][Metrics] Initial speculative decoding metrics) added
# vllm/v1/spec_decode/metrics.py, whose SpecDecodingMetrics.log printed, once per logging
# interval (the counts are reset after each line), with a trailing ", ":
#   "Speculative metrics: Draft acceptance rate: %.3f, Number of accepted tokens: %d, Number of
#    draft tokens: %d, "
# as PR #15902 quotes it ("BEFORE:") when it renamed the line "SpecDecoding metrics:". No release
# printed it: v0.8.2 has no vllm/v1/spec_decode/metrics.py and v0.8.3's prints "SpecDecoding
# metrics:" (metrics.py:53-61@v0.8.3); builds of main between the two PRs did. V0's line has the
# same prefix but closes with "Number of emitted tokens: N." (engines/vllm_v0.py).
_MARKER = "Speculative metrics:"
_RATE = re.compile(rf"Draft acceptance rate: ({NUM}),")
_ACCEPTED = re.compile(rf"Number of accepted tokens: ({INT}),")
_DRAFT = re.compile(rf"Number of draft tokens: ({INT}),")


def parse(doc: Doc) -> Found | str | None:
    segments, dropped = doc.segments(_MARKER)
    v0 = ("Number of emitted tokens", "Number of speculative tokens", "System efficiency")  # vllm_v0's lines
    lines = [s for s in segments if not any(field in s.text for field in v0)]
    if not lines:
        return None
    used, incomplete, off = [], [], []
    accepted = drafted = 0
    for seg in lines:
        acc, dr = _ACCEPTED.search(seg.text), _DRAFT.search(seg.text)
        if not (acc and dr):
            incomplete.append(seg)
            continue
        line = doc.line_of(seg.start)
        a = read_int(acc.group(1), "Number of accepted tokens", line, seg.start)
        d = read_int(dr.group(1), "Number of draft tokens", line, seg.start)
        check_accepted(a, d, ("Number of accepted tokens", "Number of draft tokens"), line, seg.start)
        rate_m = _RATE.search(seg.text)
        if rate_m:
            rate = read_float(rate_m.group(1))
            check_rate(rate, "Draft acceptance rate", line, seg.start)
            if d and not math.isnan(rate) and abs(a / d - rate) > HALF_3DP:
                off.append(line)
        if d == 0:
            continue
        accepted, drafted = accepted + a, drafted + d
        used.append(seg)
    if not used:
        if incomplete and not drafted:
            last = incomplete[-1]
            return (
                f"the vLLM V1 'Speculative metrics' line at line {doc.line_of(last.start)} is incomplete: it needs "
                "'Number of accepted tokens: N,' and 'Number of draft tokens: N,'"
            )
        return None
    notes = []
    if len(used) > 1:
        notes.append(f"{len(used)} logging intervals found; their counts are summed (vLLM V1 logs per interval)")
    if dropped:
        notes.append(f"only the last {MAX_REPORTS:,} 'Speculative metrics' lines were read")
    if incomplete:
        where = [doc.line_of(s.start) for s in incomplete[-5:]]
        notes.append(f"skipped {len(incomplete)} incomplete 'Speculative metrics' line(s) (line {lines_list(where)})")
    if off:
        notes.append(f"the printed draft acceptance rate differs from accepted / draft tokens (line {lines_list(off)})")
    notes.append(
        "this early V1 line prints no number of drafts and no draft length: the mean acceptance length and the "
        "per-position profile are unknown"
    )
    record = EngineMetrics(
        ENGINE, FORMAT, None, None, drafted, accepted, None, None, None, tuple(notes), accepted / drafted
    )
    return Found(used[-1].start, record)
