"""vLLM V0 log lines: cumulative counters, so the latest line is used.

vLLM V0 counts every draft token the verifier accepted, including tokens after an earlier
rejection, so its accepted count overstates the prefix; its emitted count does not, and the
record's accepted is emitted - drafts.
"""

from __future__ import annotations

import math
import re

from ._text import HALF_3DP, INT, NUM, Doc, Found, Needs, ReportError, check_accepted, check_rate, read_float, read_int
from .record import EngineMetrics

FORMAT = "vLLM V0 log"
ENGINE = "vLLM"
#: The parts a whole report has, for the message on a paste no format reads (see ``Needs``).
NEEDS = Needs(
    "a vLLM V0 log line",
    (
        ("'Speculative metrics:'", r"Speculative metrics:"),
        ("'Number of accepted tokens: N'", r"Number of accepted tokens(?: tokens)?: \d"),
        ("'Number of draft tokens: N'", r"Number of draft tokens(?: tokens)?: \d"),
        ("'Number of emitted tokens: N.'", r"Number of emitted tokens(?: tokens)?: \d+\."),
    ),
)

# vllm-project/vllm, vllm/engine/metrics.py, LoggingStatLogger._format_spec_decode_metrics_str
# (some releases print "Number of draft tokens tokens:"), from the counters of
# vllm/spec_decode/metrics.py, AsyncMetricsCollector._collect_rejsample_metrics:
#   "Speculative metrics: Draft acceptance rate: 0.652, System efficiency: 0.570, Number of
#    speculative tokens: 4, Number of accepted tokens: N, Number of draft tokens: N, Number of
#    emitted tokens: N."
# The counters are cumulative since start-up. draft tokens = k × speculated sequences; accepted
# counts every token the verifier accepted, also after an earlier rejection; emitted = the tokens
# actually emitted (accepted prefix + one per sequence); efficiency = emitted / (drafts (k + 1)).
_V0_MARKER = "Speculative metrics:"
_V0_RATE = re.compile(rf"Draft acceptance rate: ({NUM})(%?)")
_V0_EFFICIENCY = re.compile(rf"System efficiency: ({NUM})(%?)")
_V0_K = re.compile(rf"Number of speculative tokens: ({INT})\b")
_V0_ACCEPTED = re.compile(rf"Number of accepted tokens(?: tokens)?: ({INT})\b")
_V0_DRAFT = re.compile(rf"Number of draft tokens(?: tokens)?: ({INT})\b")
_V0_EMITTED = re.compile(rf"Number of emitted tokens(?: tokens)?: ({INT})\.")


def parse(doc: Doc) -> Found | str | None:
    segments, _ = doc.segments(_V0_MARKER)
    if not segments:
        return None
    complete = [
        s for s in segments if _V0_ACCEPTED.search(s.text) and _V0_DRAFT.search(s.text) and _V0_EMITTED.search(s.text)
    ]
    if not complete:
        return (
            f"a vLLM V0 'Speculative metrics' line at line {doc.line_of(segments[-1].start)} is incomplete "
            "(it needs the accepted, draft and emitted token counts, closed by 'Number of emitted tokens: N.')"
        )
    seg = complete[-1]
    line, pos, body = doc.line_of(seg.start), seg.start, seg.text
    accepted = read_int(_V0_ACCEPTED.search(body).group(1), "Number of accepted tokens", line, pos)
    draft_tokens = read_int(_V0_DRAFT.search(body).group(1), "Number of draft tokens", line, pos)
    emitted = read_int(_V0_EMITTED.search(body).group(1), "Number of emitted tokens", line, pos)
    k_m = _V0_K.search(body)
    k = read_int(k_m.group(1), "Number of speculative tokens", line, pos) if k_m else None
    notes = []
    if len(complete) > 1:
        notes.append(f"{len(complete)} reports found; used the latest (vLLM V0 counters are cumulative)")
    if len(segments) > len(complete):
        notes.append(f"skipped {len(segments) - len(complete)} incomplete or cut-off 'Speculative metrics' line(s)")
    if k == 0:
        raise ReportError(f"Number of speculative tokens must be >= 1, got 0 (line {line})", pos)
    check_accepted(accepted, draft_tokens, ("Number of accepted tokens", "Number of draft tokens"), line, pos)
    printed = {}
    for name, pattern in (("Draft acceptance rate", _V0_RATE), ("System efficiency", _V0_EFFICIENCY)):
        m = pattern.search(body)
        if m:
            value = read_float(m.group(1)) / (100.0 if m.group(2) else 1.0)
            check_rate(value, name, line, pos)
            printed[name] = value
    rate = printed.get("Draft acceptance rate")
    if rate is not None and not math.isnan(rate) and draft_tokens and abs(accepted / draft_tokens - rate) > HALF_3DP:
        notes.append(f"the printed draft acceptance rate {rate:.3f} differs from accepted / draft tokens")
    drafts = mean = None
    if k and draft_tokens % k == 0:
        drafts = draft_tokens // k
    elif k:
        notes.append(f"draft tokens ({draft_tokens}) are not a multiple of k = {k}; drafts unknown")
    if drafts:
        if not drafts <= emitted <= drafts * (k + 1):
            raise ReportError(
                f"Number of emitted tokens ({emitted}) must be within [drafts, drafts × (k + 1)] = "
                f"[{drafts}, {drafts * (k + 1)}] for {drafts} drafts of k = {k} (line {line})",
                pos,
            )
        mean = emitted / drafts
        prefix = emitted - drafts  # each draft emits its accepted prefix plus one token
        notes.append(
            f"V0's 'Number of accepted tokens' ({accepted}) includes tokens accepted after an earlier "
            f"rejection; accepted here is emitted - drafts = {prefix}, the accepted prefixes, so that "
            "1 + accepted / drafts is the mean acceptance length"
        )
        if prefix > accepted:
            notes.append(
                f"the accepted prefixes ({prefix}) exceed V0's accepted count ({accepted}), which includes them"
            )
        accepted = prefix
        eff = printed.get("System efficiency")
        if eff is not None and not math.isnan(eff) and abs(emitted / (drafts * (k + 1)) - eff) > HALF_3DP:
            notes.append(f"the printed system efficiency {eff:.3f} differs from emitted / (drafts × (k + 1))")
    else:
        notes.append(
            "V0's accepted count includes tokens accepted after an earlier rejection; without drafts the "
            "accepted prefixes and the mean acceptance length are unknown"
        )
    keys = {"Draft acceptance rate": "vllm.v0.accept_rate", "System efficiency": "vllm.v0.system_efficiency"}
    shown = tuple((keys[name], v) for name, v in printed.items() if not math.isnan(v))
    return Found(
        pos,
        EngineMetrics(
            ENGINE, FORMAT, k, drafts, draft_tokens, accepted, emitted, mean, None, tuple(notes), printed=shown
        ),
    )
