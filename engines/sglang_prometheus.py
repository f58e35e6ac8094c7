"""SGLang's Prometheus gauges: the latest interval's accept length and rate, per label set.

The gauges hold what the last decode-batch log line printed (they are set from the same
interval's counts), not totals, so they give the mean acceptance length but no counts.
"""

from __future__ import annotations

import math
import re

from ._prometheus import read_sample
from ._text import (
    MAX_REPORTS,
    PROM_SAMPLE_REST,
    Doc,
    Found,
    Needs,
    ReportError,
    check_rate,
    eagle_topk,
    in_comment,
    tree_note,
)
from .definitions import accept_rate as converted_rate
from .record import EngineMetrics
from .sglang import printed_figures, rate_meaning

FORMAT = "SGLang Prometheus"
ENGINE = "SGLang"
#: The parts a whole report has, for the message on a paste no format reads (see ``Needs``).
NEEDS = Needs(
    "an SGLang /metrics scrape",
    (("an 'sglang:' metric", r"(?m)^sglang[:_]\w"), ("'sglang:spec_accept_length'", r"sglang[:_]spec_accept_length")),
)

# sgl-project/sglang 0.5.23, python/sglang/srt/observability/metrics_collector.py lines 511-522:
# Gauges "sglang:spec_accept_length" ("accepted drafts + bonus token per forward") and
# "sglang:spec_accept_rate" ("accepted drafts / proposed drafts"), multiprocess_mode
# "mostrecent", one label set per model and rank; set at lines 1674-1675 from the values the
# decode-batch log line prints (managers/scheduler_components/metrics_reporter.py lines
# 973-1005), so the rate means what that line's does in each release (0.5.3.post3
# srt/managers/scheduler_metrics_mixin.py:302 sets it from accept len ÷ (k + 1), though
# srt/metrics/collector.py:233 documents it as "accepted tokens / total draft tokens").
# An OpenMetrics scrape writes "sglang_spec_accept_length" (see vllm_prometheus).
_SAMPLE = re.compile(r"sglang[:_]spec_accept_(length|rate)" + PROM_SAMPLE_REST, re.MULTILINE)


def parse(doc: Doc) -> Found | str | None:
    text = doc.text
    first, dropped = doc.tail("spec_accept_")
    found: dict[tuple[str, str], tuple[int, int]] = {}  # (name, labels as written) -> (start, end)
    cut = 0
    for m in _SAMPLE.finditer(text, first):
        if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_:"):
            continue
        if in_comment(text, m.start()):
            continue
        if m.end() == len(text) and not doc.ends_with_newline and not re.search(r"[.eEIN]", m.group(3)):
            cut += 1
            continue
        found[(m.group(1), m.group(2) or "")] = (m.start(), m.end())
    latest: dict[tuple, tuple[float, int]] = {}  # (name, labels) -> (value, offset), prometheus_client's reading
    for (name, _), (start, end) in sorted(found.items(), key=lambda item: item[1][0]):
        labels, value = read_sample(doc, start, end)
        latest[(name, labels)] = (value, start)
    if not latest:
        return (
            "the only sglang:spec_accept sample is on a last line without a line break and may be cut off"
            if cut
            else None
        )
    lengths, rates, pairs = [], [], []
    for (name, labels), (value, pos) in sorted(latest.items(), key=lambda item: item[1][1]):
        line = doc.line_of(pos)
        if name == "rate":
            check_rate(value, "sglang:spec_accept_rate", line, pos)
            rates.append(value)
        elif math.isnan(value) or value == 0.0:
            continue  # an interval with no speculative step
        elif not 1.0 <= value < math.inf:
            raise ReportError(
                f"sglang:spec_accept_length must be at least 1 (it counts the bonus token), "
                f"got {value:g} (line {line})",
                pos,
            )
        else:
            lengths.append(value)
            paired = latest.get(("rate", labels))
            if paired is not None and not math.isnan(paired[0]):
                pairs.append((value, paired[0]))
    if not lengths:
        if any(name == "length" for name, _ in latest):
            return "sglang:spec_accept_length is 0: no speculative step in the last interval"
        return "an SGLang scrape needs sglang:spec_accept_length (the accept rate alone has no draft length)"
    last_pos = max(pos for _, pos in latest.values())
    notes = [
        "SGLang's gauges hold the last logging interval's accept length and rate, not totals: "
        "k, drafts and accepted unknown"
    ]
    if len(lengths) > 1:
        notes.append(f"averaged over {len(lengths)} label sets (ranks or models), unweighted")
    if cut:
        notes.append("skipped the last line: it has no line break and its value may be cut off")
    if dropped:
        notes.append(f"only the last {MAX_REPORTS:,} spec_accept samples were read")
    rates = [r for r in rates if not math.isnan(r)]
    topk = eagle_topk(doc)
    notes.extend(tree_note(topk))
    mean = sum(lengths) / len(lengths)
    rate = sum(rates) / len(rates) if rates else None
    key = None
    if rate is not None and pairs:  # the gauge is set from the log line's rate, with its meaning by version
        key, said = rate_meaning(pairs)
        notes.append(said)
    printed = printed_figures(mean, rate, key)
    record = EngineMetrics(
        ENGINE, FORMAT, None, None, None, None, None, mean, None, tuple(notes), converted_rate(printed, None), topk,
        printed=printed,
    )  # fmt: skip
    return Found(last_pos, record)
