"""SGLang's ``bench_serving`` result: the server's mean accept length, printed among the run's figures.

``python -m sglang.bench_serving`` ends with a "Serving Benchmark Result" block; against an SGLang
server that decodes speculatively it holds an "Accept length:" line. The figure is the server's
since its counters were last reset, not the run's alone, and it comes without k or counts.
"""

from __future__ import annotations

import math
import re

from ._text import MAX_REPORTS, NUM, Doc, Found, Needs, ReportError, clipped, eagle_topk, read_float, tree_note
from .record import EngineMetrics

FORMAT = "SGLang bench_serving"
ENGINE = "SGLang"
# vLLM's `vllm bench serve` prints the same head ("Serving Benchmark Result"): the parts are
# SGLang's own lines.
NEEDS = Needs(
    "an SGLang bench_serving result",
    (
        ("'Backend: sglang…'", r"(?m)^[ \t]*Backend:[ \t]*\S*sglang"),
        ("'Accept length: X'", r"(?m)^[ \t]*Accept length:[ \t]*\d"),
    ),
)

# sgl-project/sglang 0.5.23 (PyPI wheel), python/sglang/benchmark/serving.py (sglang.bench_serving
# forwards to it): for a backend whose name has "sglang", lines 1642-1662 read GET /server_info's
# internal_states[0]["avg_spec_accept_length"] (the first decode server's under disaggregation);
# line 1681 prints the head, " Serving Benchmark Result " centred in 50 '='; lines 1746-1748 print
# "Accept length:" after "Concurrency:", as "{:<40} {:<10.2f}", only when the figure is there.
# The figure (srt/managers/scheduler_components/internal_state.py lines 119-125 and 243-253) is
# spec_total_num_accept_tokens / spec_total_num_forward_ct: tokens emitted per sequence per
# verification step, the bonus token included (update_spec_metrics, metrics_reporter.py lines
# 543-553, called from batch_result_processor.py lines 982-991 with the step's generated tokens),
# added to those lifetime totals at each decode log line (metrics_reporter.py lines 999-1000) and
# cleared by reset_metrics (lines 708-716). PR #13376's description shows the same line (NGRAM).
_HEAD = "Serving Benchmark Result"
_HEADS = re.compile(re.escape(_HEAD))
_LENGTH = re.compile(rf"(?m)^[ \t]*Accept length:[ \t]*({NUM})[ \t]*$")
_BACKEND = re.compile(r"(?m)^[ \t]*Backend:[ \t]*(\S+)")


def parse(doc: Doc) -> Found | str | None:
    text = doc.text
    first, dropped = doc.tail(_HEAD)
    heads = [m.start() for m in _HEADS.finditer(text, first)]
    if not heads:
        return None
    found = []  # (offset, line, accept length) of each result that has one
    sglang = False  # a result of an SGLang backend, whose server may not have decoded speculatively
    cut = False
    for at, end in zip(heads, [*heads[1:], len(text)], strict=True):
        backend = _BACKEND.search(text, at, end)
        sglang = sglang or (backend is not None and "sglang" in backend.group(1))
        m = _LENGTH.search(text, at, end)
        if m is None:
            continue
        if m.end() == len(text) and not doc.ends_with_newline and not re.search(r"\.\d\d$", m.group(1)):
            cut = True  # printed with two decimals: a last line with fewer may be cut off
            continue
        line = doc.line_of(m.start())
        value = read_float(m.group(1))
        if not 1.0 <= value < math.inf:
            said = f"got {clipped(m.group(1))} (line {line})"
            raise ReportError(f"Accept length must be at least 1 (it counts the bonus token), {said}", m.start())
        found.append((m.start(), line, value))
    if not found:
        if cut:
            return "the only 'Accept length:' is on a last line without a line break and may be cut off"
        if not sglang:
            return None  # vLLM's bench serve, or another backend's: not this format's
        return (
            "the bench_serving result has no 'Accept length:' line: bench_serving prints it only when the "
            "server is SGLang's and has decoded speculatively"
        )
    pos, line, mean = found[-1]
    notes = [
        "bench_serving prints the server's accept length since its counters were last reset (earlier "
        "requests, a warm-up's too, included), up to its last decode log line: k, drafts and accepted unknown"
    ]
    if len(found) > 1:
        notes.append(f"{len(found)} results with an accept length; used the last (line {line})")
    if dropped:
        notes.append(f"only the last {MAX_REPORTS:,} results were read")
    topk = eagle_topk(doc)
    notes.extend(tree_note(topk))
    record = EngineMetrics(
        ENGINE, FORMAT, None, None, None, None, None, mean, None, tuple(notes), None, topk,
        printed=(("sglang.bench_serving.accept_length", mean),),
    )  # fmt: skip
    return Found(pos, record)
