"""SGLang decode-batch log lines: the mean accept length, weighted by batch size.

SGLang's accept length is tokens per verification step including the bonus token, like vLLM
V1's mean acceptance length; it prints no counts.
"""

from __future__ import annotations

import math
import re

from ._text import (
    INT,
    MAX_REPORTS,
    NUM,
    Doc,
    Found,
    ReportError,
    Segment,
    check_rate,
    eagle_topk,
    lines_list,
    read_float,
    read_int,
    tree_note,
)
from .record import EngineMetrics

FORMAT = "SGLang log"
ENGINE = "SGLang"
#: What the dispatcher's error message says it looked for.
LOOKED_FOR = "SGLang 'Decode batch' lines with 'accept len: X,'"

# sgl-project/sglang at 00df707e, python/sglang/srt/managers/scheduler_components/metrics_reporter.py,
# MetricsReporter.report_decode_stats, every decode_log_interval decode steps:
#   "Decode batch, #running-req: N, #cached-token: N, #token: N, token usage: X, accept len: X.XX,
#    accept rate: X.XX, cuda graph: …, gen throughput (token/s): …, #queue-req: N"
# with accept len = spec_num_accept_tokens / spec_num_forward_ct, where each verification adds its
# accepted drafts + 1 (update_spec_metrics), so it includes the bonus token and is 1 + accepted /
# drafts; accept rate = (accept tokens - forward ct) / (forward ct x (speculative_num_draft_tokens
# - 1)), accepted / drafted for a chain. No k is printed, nor the counts (reset after each line).
# Earlier, python/sglang/srt/managers/scheduler_metrics_mixin.py at 01bb3c80,
# SchedulerMetricsMixin.log_decode_stats lines 273-289 (earlier still managers/scheduler.py):
# the same accept len, but accept rate = accept len / speculative_num_draft_tokens.
_SGL_MARKER = "accept len: "
_SGL_LEN = re.compile(rf"accept len: ({NUM})")
_SGL_RATE = re.compile(rf"accept rate: ({NUM})")
_SGL_RUNNING = re.compile(rf"#running-req: ({INT})\b")


def _closed(body: str, m: re.Match, seg: Segment) -> bool:
    """A value is whole if a comma follows it, or the line ends right after it with a line break."""
    rest = body[m.end() :]
    return rest.startswith(",") or (not rest.strip(" \t") and seg.line_ended)


def parse(doc: Doc) -> Found | str | None:
    segments, dropped = doc.segments(_SGL_MARKER)
    if not segments:
        return None
    used, incomplete, idle = [], [], []
    for seg in segments:
        if doc.text.endswith("block ", max(0, seg.start - 6), seg.start):
            continue  # "block accept len: X," of DSpark's cap-accept mode, not the accept length
        len_m = _SGL_LEN.match(seg.text)
        rate_m = _SGL_RATE.search(seg.text)
        if not len_m or not _closed(seg.text, len_m, seg) or (rate_m and not _closed(seg.text, rate_m, seg)):
            incomplete.append(seg)
            continue
        line = doc.line_of(seg.start)
        length = read_float(len_m.group(1))
        rate = read_float(rate_m.group(1)) if rate_m else None
        if rate is not None:
            check_rate(rate, "accept rate", line, seg.start)
        if length == 0.0 or math.isnan(length):
            idle.append(line)  # printed when an interval had no speculative step
            continue
        if length < 1.0:
            raise ReportError(
                f"accept len must be at least 1 (it counts the bonus token), got {length:g} (line {line})", seg.start
            )
        if math.isinf(length):
            raise ReportError(f"accept len must be finite, got {length:g} (line {line})", seg.start)
        running = list(_SGL_RUNNING.finditer(seg.before))
        batch = read_int(running[-1].group(1), "#running-req", line, seg.start) if running else None
        used.append((seg.start, length, batch, rate))
    if not used:
        where = (incomplete or segments)[-1]
        return (
            f"an SGLang 'accept len:' value at line {doc.line_of(where.start)} is incomplete "
            "(a whole value is followed by a comma or ends its line)"
            if incomplete
            else f"SGLang decode-batch lines report accept len 0 (line {lines_list(idle)})"
        )
    weights = [u[2] for u in used]
    notes = [
        "SGLang prints the mean accept length (bonus token included) but no counts: k, drafts and accepted unknown"
    ]
    rates = [u[3] for u in used]
    known_rates = all(r is not None and not math.isnan(r) for r in rates)
    accept_rate = None
    if all(w is not None for w in weights) and sum(weights) > 0:
        mean = sum(u[1] * u[2] for u in used) / sum(weights)
        if known_rates:
            accept_rate = sum(r * w for r, w in zip(rates, weights, strict=True)) / sum(weights)
        if len(used) > 1:
            notes.append(
                f"averaged {len(used)} decode-batch lines weighted by #running-req (each line covers the same "
                "number of decode steps, so its batch size stands in for its verification count)"
            )
    else:
        mean = sum(u[1] for u in used) / len(used)
        if known_rates:
            accept_rate = sum(rates) / len(rates)
        if len(used) > 1:
            notes.append(f"averaged {len(used)} decode-batch lines unweighted (no #running-req on every line)")
    if dropped:
        notes.append(f"only the last {MAX_REPORTS:,} 'accept len' values were read")
    if incomplete:
        notes.append(f"skipped {len(incomplete)} incomplete or cut-off 'accept len' value(s)")
    if idle:
        notes.append(f"skipped {len(idle)} line(s) with accept len 0 (no speculative step in the interval)")
    topk = eagle_topk(doc)
    notes.extend(tree_note(topk))
    return Found(
        used[-1][0],
        EngineMetrics(ENGINE, FORMAT, None, None, None, None, None, mean, None, tuple(notes), accept_rate, topk),
    )
