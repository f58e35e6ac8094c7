"""trtllm-bench's acceptance report: statistics over the requests of one benchmark run, printed as its
``DECODING STATISTICS`` block or written to ``--report_json`` as ``"decoding_stats"``.

trtllm-bench gives, per request, the draft tokens [DT], the accepted draft tokens [ADT], their ratio [DAR]
and the acceptance length [AL], and reports each one's minimum, maximum, average and percentiles over the
requests, not totals. The [DT] and [ADT] averages are plain means over the same requests, so their ratios
are ratios of totals; with the mean output length printed beside them they give k and the mean acceptance
length per verification step. The JSON's full-precision averages times its number of requests give the
totals themselves.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace

from ._text import HALF_2DP, MAX_REPORTS, NUM, Doc, Found, Needs, ReportError, clipped, read_float
from .record import EngineMetrics

FORMAT = "trtllm-bench report"
ENGINE = "TensorRT-LLM"
NEEDS = Needs(
    "trtllm-bench's decoding statistics (printed, or its --report_json)",
    (
        ("'= DECODING STATISTICS (…)' or '\"decoding_stats\"'", r'DECODING STATISTICS \(|"decoding_stats"'),
        ("'[DT] AVERAGE: X' or 'num_draft_tokens_percentiles'", r'\[DT\] AVERAGE *:|"num_draft_tokens_percentiles"'),
        (
            "'[ADT] AVERAGE: X' or 'num_accepted_draft_tokens_percentiles'",
            r'\[ADT\] AVERAGE *:|"num_accepted_draft_tokens_percentiles"',
        ),
        ("'[AL] AVERAGE: X' or 'acceptance_length_percentiles'", r'\[AL\] AVERAGE *:|"acceptance_length_percentiles"'),
    ),
)

# NVIDIA/TensorRT-LLM tensorrt_llm/bench/dataclasses/reporting.py at 0249976 (the same at 2787769):
# * StatsKeeper.generate_statistics_summary, when max_draft_tokens > 0, per request:
#   DT = max_draft_tokens * (decode_iteration + 1), ADT = output tokens - decode_iteration - 1,
#   DAR = ADT / DT, AL = output tokens / (decode_iteration + 1); each list is summarised by
#   PercentileStats.from_iterable (statistics.py at 77d7fe1: average = sum / n, a plain mean over
#   requests; p50 … p99 = sorted[int(n * q)]).
# * decode_iteration counts a request's generation steps; its first token comes from the context step
#   (reporting.py at 385626572 took (output - 1) / decode_iteration per request), hence "+ 1". Each
#   generation step verified one draft and emitted its accepted tokens plus one, so a request's
#   accepted draft tokens are ADT and its verification steps decode_iteration = output - ADT - 1.
#   DT counts max_draft_len tokens for every iteration, the context step's and the last one's too.
# * ReportUtility.report_statistics prints, when get_max_draft_len() > 0, after its REQUEST DETAILS
#   ("Number of requests:             N", "Average Output Length (tokens): %.4f", the total output tokens /
#   N) the block "= DECODING STATISTICS ({mode})" with lines f"[DT] {key.upper():<7}: {value:.2f}" for
#   minimum, maximum, average, p50, p90, p95, p99, then [ADT], [DAR] and [AL] alike.
# * ReportUtility.get_statistics_dict writes the same numbers unrounded: "request_info" {"num_requests",
#   "avg_output_length", …} and "decoding_stats" {"mode", "num_draft_tokens_percentiles",
#   "num_accepted_draft_tokens_percentiles", "draft_acceptance_rate_percentiles",
#   "acceptance_length_percentiles"}, each {"p50", …, "average"}; --report_json dumps it.
# NVIDIA/TensorRT-LLM PR #14998 (merged 2026-06) weights the [DAR] and [AL] averages: by output length
# when the requests' lengths differ, its description says; a later tensorrt_llm/evaluate/lm_eval.py calls
# reporting.py's AL iteration-weighted. The [DT] and [ADT] averages, read here, stay plain means.
# Earlier trtllm-bench printed no such block: reporting.py at 385626572 prints no acceptance figure, and an
# earlier report_latency_statistics printed "Acceptance Rate (Speculative):" (output tokens / decoding
# iterations) and an "= ACCEPTANCE BREAKDOWN" of MIN … P99; those layouts are not read here.
_HEADER = re.compile(r"= DECODING STATISTICS \(([^()\n]{0,64})\)")
_VALUE = re.compile(rf"\[(DT|ADT|DAR|AL)\] (MINIMUM|MAXIMUM|AVERAGE|P50|P90|P95|P99) *: *({NUM})")
_OUTPUT = re.compile(rf"Average Output Length \(tokens\): *({NUM})")
_REQUESTS = re.compile(r"Number of requests: *(\d{1,15})\b")
_JSON_MARKER = '"decoding_stats"'
_JSON_KEYS = {
    "DT": "num_draft_tokens_percentiles",
    "ADT": "num_accepted_draft_tokens_percentiles",
    "DAR": "draft_acceptance_rate_percentiles",
    "AL": "acceptance_length_percentiles",
}
_BLOCK_MOST = 8_192  # the printed block is about 1,500 characters
_BEFORE_MOST = 16_384  # how far back its REQUEST DETAILS are looked for
_OBJECT_MOST = 65_536  # a report JSON is about 4,000 characters
_COLON = re.compile(r"[ \t\r\n]*:[ \t\r\n]*")


def _object(text: str, at: int, end: int) -> dict | None:
    """The JSON object of the key whose quoted name starts at ``at`` (``"key": {…}``), read before ``end``."""
    colon = _COLON.match(text, text.find('"', at + 1) + 1)
    if colon is None or colon.end() >= end:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[colon.end() : min(end, colon.end() + _OBJECT_MOST)])
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _json_reports(doc: Doc) -> tuple[list[tuple[int, dict]], list[int]]:
    """Each report JSON's averages and request info, at the offset of its "decoding_stats"."""
    text = doc.text
    first, _ = doc.tail(_JSON_MARKER, keep=MAX_REPORTS)
    found, incomplete = [], []
    at, previous = text.find(_JSON_MARKER, first), first
    while at != -1:
        nxt = text.find(_JSON_MARKER, at + len(_JSON_MARKER))
        if not _COLON.match(text, at + len(_JSON_MARKER)):  # the name in prose, not a key
            at = nxt
            continue
        stats = _object(text, at, nxt if nxt != -1 else len(text))
        if stats is None or not all(isinstance(stats.get(key), dict) for key in _JSON_KEYS.values()):
            incomplete.append(at)
        else:
            averages = {tag: stats[key].get("average") for tag, key in _JSON_KEYS.items()}
            request = text.rfind('"request_info"', previous, at)
            info = _object(text, request, at) if request != -1 else None
            info = info or {}
            found.append(
                (
                    at,
                    {
                        "averages": averages,
                        "mode": stats.get("mode"),
                        "output": info.get("avg_output_length"),
                        "requests": info.get("num_requests"),
                        "exact": True,
                    },
                )
            )
        previous, at = at, nxt
    return found, incomplete


def _printed_reports(doc: Doc) -> tuple[list[tuple[int, dict]], list[int]]:
    """Each printed block's averages, with the request details printed before it."""
    text = doc.text
    first, _ = doc.tail("= DECODING STATISTICS (", keep=MAX_REPORTS)
    headers = list(_HEADER.finditer(text, first))
    found, incomplete = [], []
    for i, header in enumerate(headers):
        end = min(headers[i + 1].start() if i + 1 < len(headers) else len(text), header.end() + _BLOCK_MOST)
        averages = {tag: raw for tag, key, raw in _VALUE.findall(text, header.end(), end) if key == "AVERAGE"}
        if set(averages) != set(_JSON_KEYS):
            incomplete.append(header.start())
            continue
        begin = max(headers[i - 1].end() if i else 0, header.start() - _BEFORE_MOST)
        outputs = _OUTPUT.findall(text, begin, header.start())
        requests = _REQUESTS.findall(text, begin, header.start())
        found.append(
            (
                header.start(),
                {
                    "averages": {tag: read_float(raw) for tag, raw in averages.items()},
                    "mode": header.group(1),
                    "output": read_float(outputs[-1]) if outputs else None,
                    "requests": int(requests[-1]) if requests else None,
                    "exact": False,
                },
            )
        )
    return found, incomplete


def _checked(report: dict, line: int, pos: int) -> dict:
    """The averages as floats, refused where trtllm-bench could not have printed them."""
    values = {}
    for tag, value in report["averages"].items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ReportError(
                f"the [{tag}] average must be a number of at least 0, got {clipped(repr(value))} (line {line})", pos
            )
        values[tag] = float(value)
    if values["ADT"] > values["DT"]:
        raise ReportError(
            f"the [ADT] average ({values['ADT']:g}) exceeds the [DT] average ({values['DT']:g}) (line {line}): "
            "no request accepts more draft tokens than it drafted",
            pos,
        )
    slack = 0.0 if report["exact"] else HALF_2DP
    if values["DAR"] > 1.0 + slack or values["AL"] < 1.0 - slack:
        raise ReportError(
            f"the [DAR] average must be within [0, 1] and the [AL] average at least 1, got {values['DAR']:g} and "
            f"{values['AL']:g} (line {line})",
            pos,
        )
    return values


def _draft_length(drafted: float, iterations: float, exact: bool) -> int | None:
    """max_draft_len: [DT] / iterations per request, when one whole number fits the printed rounding."""
    ratio = drafted / iterations
    slack = 1e-6 * ratio if exact else (0.005 + ratio * (0.005 + 0.00005)) / iterations + 1e-9
    fits = range(max(1, math.ceil(ratio - slack)), math.floor(ratio + slack) + 1)
    return fits[0] if len(fits) == 1 else None


def _whole(value: float) -> int | None:
    """A total from an average times the requests: whole to float precision, or None."""
    near = round(value)
    return near if abs(value - near) <= 1e-6 * max(1.0, abs(value)) else None


def _record(report: dict, line: int, pos: int) -> EngineMetrics:
    v = _checked(report, line, pos)
    dt, adt, dar, al = v["DT"], v["ADT"], v["DAR"], v["AL"]
    output, n, exact = report["output"], report["requests"], report["exact"]
    mode = f" ({report['mode']})" if isinstance(report["mode"], str) and report["mode"] else ""
    notes = [
        f"trtllm-bench{mode} reports each request's draft tokens [DT], accepted draft tokens [ADT] and "
        "acceptance length [AL] as averages over its requests, not totals"
    ]
    dar_note = f"the printed [DAR] average, {dar:.4g}, is a mean over the requests of their rates"
    notes.append(
        f"accepted / drafted = [ADT] / [DT] averages = {adt:g} / {dt:g}; [DT] counts max_draft_len tokens for "
        f"every iteration, each request's first (context) and last too, so more than were verified; {dar_note}"
    )
    usable = isinstance(output, (int, float)) and not isinstance(output, bool) and math.isfinite(output)
    steps = output - adt - 1.0 if usable else 0.0  # mean verification steps per request
    if steps <= 0.0:
        notes.append(
            f"the mean acceptance length is the printed [AL] average, {al:g}: a mean over requests of output "
            "tokens / iterations, the first (context) step counted as one (a plain mean up to trtllm-bench "
            "0249976, weighted after its PR #14998); the average output length, which would give k and the mean per "
            "verification step, is not in the paste"
        )
        return EngineMetrics(
            ENGINE, FORMAT, None, None, None, None, None, al, None, tuple(notes), adt / dt if dt else None
        )
    k = _draft_length(dt, steps + 1.0, exact)
    if k is None:
        notes.append(
            f"[DT] / (output length − [ADT]) averages = {dt / (steps + 1.0):.4g} is not a whole max_draft_len: "
            "k unknown"
        )
    else:
        notes.append(f"k = {k}: [DT] = max_draft_len × iterations, so k = {dt:g} / ({output:g} − {adt:g})")
    mean = 1.0 + adt / steps
    notes.append(
        f"the mean acceptance length per verification step is 1 + [ADT] / (output length − [ADT] − 1) averages = "
        f"{mean:.4f}; the printed [AL] average, {al:g}, is a mean over requests of output tokens / iterations "
        "with the first (context) step counted"
    )
    counts = _totals(dt, adt, output, n) if exact and isinstance(n, int) and n > 0 else None
    if counts is None:
        if isinstance(n, int) and n > 0:
            notes.append(f"{n} requests: about {n * adt:,.0f} accepted draft tokens over {n * steps:,.0f} drafts")
        return EngineMetrics(ENGINE, FORMAT, k, None, None, None, None, mean, None, tuple(notes), adt / dt)
    drafted, accepted, drafts = counts
    notes.append(
        f"totals = the {n} requests × the report's unrounded averages: {accepted:,} accepted draft tokens over "
        f"{drafts:,} verification steps (the iterations less each request's context step)"
    )
    return EngineMetrics(
        ENGINE,
        FORMAT,
        k,
        drafts,
        drafted,
        accepted,
        accepted + drafts,
        1.0 + accepted / drafts,
        None,
        tuple(notes),
        accepted / drafted,
    )


def _totals(dt: float, adt: float, output: float, n: int) -> tuple[int, int, int] | None:
    """Draft tokens, accepted draft tokens and verification steps summed over the requests, when whole."""
    drafted, accepted, iterations = _whole(n * dt), _whole(n * adt), _whole(n * (output - adt))
    if drafted is None or accepted is None or iterations is None or iterations <= n:
        return None
    return drafted, accepted, iterations - n


def parse(doc: Doc) -> Found | str | None:
    printed, cut = _printed_reports(doc)
    dumped, broken = _json_reports(doc)
    reports = sorted(printed + dumped, key=lambda r: r[0])
    if not reports:
        if cut:
            return (
                f"the trtllm-bench DECODING STATISTICS block at line {doc.line_of(cut[-1])} is incomplete (a whole "
                "one has the [DT], [ADT], [DAR] and [AL] lines with their AVERAGE)"
            )
        if broken:
            return (
                f"the trtllm-bench report JSON at line {doc.line_of(broken[-1])} is incomplete (a whole "
                '"decoding_stats" object holds the four percentile objects)'
            )
        return None
    pos, report = reports[-1]
    line = doc.line_of(pos)
    if report["averages"]["DT"] == 0:
        return f"the trtllm-bench report at line {line} drafted nothing ([DT] average 0)"
    metrics = _record(report, line, pos)
    extra = []
    if len(reports) > 1:
        extra.append(f"{len(reports)} trtllm-bench reports found; the last one (line {line}) is used")
    if cut or broken:
        extra.append(f"skipped {len(cut) + len(broken)} incomplete trtllm-bench report(s)")
    return Found(pos, replace(metrics, notes=metrics.notes + tuple(extra)))
