"""Speculative decoding metrics pasted from serving engines, read into one record.

Serving engines report how their drafts fare in their own words: vLLM V1 and V0 in log lines
and Prometheus counters, SGLang in its decode-batch log line, llama.cpp's speculative examples
in a closing summary. :func:`parse_engine_metrics` finds them in pasted text (log noise,
timestamps, several reports, a cut-off last line) and returns one :class:`EngineMetrics` in
this library's terms: ``k`` draft tokens per step, ``drafts`` target verification steps,
accepted draft tokens *without* the bonus token, and a mean acceptance length *with* it.

The engines define their numbers differently; the record reconciles them:

* vLLM V1 counts accepted tokens in the accepted prefix only; its per-position rate is the
  unconditional P(at least i + 1 accepted) and its mean acceptance length includes the bonus
  token (1 + accepted / drafts).
* vLLM V0 counts every draft token the verifier accepted, including tokens after an earlier
  rejection, so its accepted count overstates the prefix; its emitted count does not, and the
  record's accepted is emitted - drafts.
* SGLang's accept length is tokens per verification step including the bonus token, like
  V1's mean acceptance length; it prints no counts.
* llama.cpp's examples count emitted tokens (n_predict) and accepted draft tokens (n_accept);
  each target step emits its accepted tokens plus one, so steps = n_predict - n_accept.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import deque
from dataclasses import dataclass, replace
from typing import NamedTuple

#: Only the last this many characters of a paste are read (bytes: the last four times as many
#: bytes are decoded first), which bounds time and memory whatever is pasted.
MAX_METRICS_CHARS = 2_000_000

# Reports of one format read at most (the latest ones); a real log that long would exceed the
# character cap anyway, so this only bounds the work hostile input can cause.
_MAX_REPORTS = 10_000
# Longest stretch of a line read after a marker, and before it for SGLang's batch size.
_MAX_SEGMENT = 16_384
_MAX_LOOKBACK = 2_048

_V1, _V0, _PROM, _SGL, _LLAMA = "vLLM V1 log", "vLLM V0 log", "vLLM Prometheus", "SGLang log", "llama.cpp summary"
_ENGINE = {_V1: "vLLM", _V0: "vLLM", _PROM: "vLLM", _SGL: "SGLang", _LLAMA: "llama.cpp"}
_LOOKED_FOR = (
    "vLLM V1 log lines 'SpecDecoding metrics: … Accepted: N tokens, Drafted: N tokens …', "
    "vLLM V0 log lines 'Speculative metrics: … Number of emitted tokens: N.', "
    "vLLM Prometheus counters 'vllm:spec_decode_num_drafts' / '_num_draft_tokens' / '_num_accepted_tokens', "
    "SGLang 'Decode batch' lines with 'accept len: X,', "
    "llama.cpp summaries with 'n_drafted = N' and 'n_accept = N'"
)

# Half a unit in the last printed decimal, plus float slack: the tolerance of a printed value.
_HALF_2DP, _HALF_3DP, _HALF_1DP = 0.005 + 1e-9, 0.0005 + 1e-9, 0.05 + 1e-9

# A printed number: bounded digit runs (no huge-int conversions, no backtracking blow-up) or
# the NaN / inf that NumPy, Python and printf print for 0/0.
_NUM = r"(?:\d{1,18}(?:\.\d{1,18})?|-?nan|-?inf)"
_INT = r"\d{1,18}"


@dataclass(frozen=True)
class EngineMetrics:
    """Speculative decoding metrics of one serving engine, in this library's terms.

    Attributes
    ----------
    engine : str
        ``"vLLM"``, ``"SGLang"`` or ``"llama.cpp"``.
    format : str
        ``"vLLM V1 log"``, ``"vLLM V0 log"``, ``"vLLM Prometheus"``, ``"SGLang log"`` or
        ``"llama.cpp summary"``.
    k : int or None
        Draft length (speculative tokens per step), when printed or derivable: the number of
        per-position rates, V0's "Number of speculative tokens", llama.cpp's ``n_draft``, or
        draft tokens / drafts when that divides exactly.
    drafts : int or None
        Drafting iterations: target verification steps that checked a draft.
    draft_tokens : int or None
        Draft tokens proposed.
    accepted : int or None
        Accepted draft tokens in the accepted prefixes, bonus token not included, so that
        1 + accepted / drafts is the mean acceptance length. For V0 this is emitted - drafts;
        V0's own count, which includes tokens after an earlier rejection, is in ``notes``.
    emitted : int or None
        Tokens emitted by those steps, where the engine reports it (V0, llama.cpp) or it
        follows as accepted + drafts.
    mean_acceptance_length : float or None
        Tokens per iteration including the bonus or corrected token, 1 + accepted / drafts,
        as vLLM V1 and SGLang define it.
    per_position : tuple of float or None
        Unconditional P(at least i + 1 draft tokens accepted), i = 0 … k - 1.
    notes : tuple of str
        Human-readable caveats: how several reports were combined, definitions that differ,
        printed values that disagree with the counts, lines skipped.
    """

    engine: str
    format: str
    k: int | None
    drafts: int | None
    draft_tokens: int | None
    accepted: int | None
    emitted: int | None
    mean_acceptance_length: float | None
    per_position: tuple[float, ...] | None
    notes: tuple[str, ...] = ()


class _ReportError(ValueError):
    """A report that is there but wrong; ``pos`` places it against the other formats."""

    def __init__(self, message: str, pos: int):
        super().__init__(message)
        self.pos = pos


@dataclass(frozen=True)
class _Found:
    pos: int  # offset of the last report used, to pick the format that comes last
    metrics: EngineMetrics


@dataclass(frozen=True)
class _Segment:
    start: int  # offset of the marker
    text: str  # from the marker to the next marker or the end of its line
    before: str  # the same line before the marker (bounded)
    line_ended: bool  # False only at the end of a paste without a final line break


class _Doc:
    """The text read, with the line lookups the parsers share."""

    def __init__(self, text: str):
        self.text = text
        self.ends_with_newline = text.endswith("\n")
        self._mark = (0, 1)  # (offset, its line): parsers ask in increasing order, so count on from there

    def line_of(self, pos: int) -> int:
        """1-based line number of offset ``pos``; amortized linear over a parser's pass."""
        at, line = self._mark
        if pos >= at:
            line += self.text.count("\n", at, pos)
        else:
            line -= self.text.count("\n", pos, at)
        self._mark = (pos, line)
        return line

    def tail(self, needle: str, keep: int = _MAX_REPORTS) -> tuple[int, int]:
        """Offset of the first of the last ``keep`` occurrences of ``needle``, and how many come before.

        Counting and searching run in C, so a paste dense with markers costs Python work for
        ``keep`` reports at most.
        """
        text = self.text
        total = text.count(needle)
        if total <= keep:
            return 0, 0
        pos = len(text)
        for _ in range(keep):
            pos = text.rfind(needle, 0, pos)
        return pos, total - keep

    def segments(self, marker: str) -> tuple[list[_Segment], int]:
        """The last :data:`_MAX_REPORTS` occurrences of ``marker``, each up to the next one or
        the end of its line, and how many earlier ones were left unread.

        Linear in the text: line ends are searched once per line, not once per marker.
        """
        text = self.text
        first, dropped = self.tail(marker)
        starts = []
        at = text.find(marker, first)
        while at != -1:
            starts.append(at)
            at = text.find(marker, at + len(marker))
        out = []
        line_start, line_end, prev_end = 0, -1, 0
        for i, start in enumerate(starts):
            if start > line_end:  # the first marker of a line: find where the line starts and ends
                window = max(prev_end, start - _MAX_LOOKBACK)
                newline = text.rfind("\n", window, start)
                line_start = newline + 1 if newline != -1 else window
                line_end = text.find("\n", start)
                if line_end == -1:
                    line_end = len(text)
            end = min(line_end, starts[i + 1] if i + 1 < len(starts) else line_end, start + _MAX_SEGMENT)
            lookback = max(line_start, prev_end, start - _MAX_LOOKBACK)
            out.append(_Segment(start, text[start:end], text[lookback:start], end < len(text)))
            prev_end = end
        return out, dropped


def _float(s: str) -> float:
    return float(s)  # _NUM only admits what float() reads


def _int(s: str, field: str, line: int, pos: int) -> int:
    if not re.fullmatch(_INT, s):
        raise _ReportError(f"{field} must be a non-negative whole number, got {s!r} (line {line})", pos)
    return int(s)


def _check_rate(value: float, field: str, line: int, pos: int, top: float = 1.0) -> None:
    if not math.isnan(value) and not 0.0 <= value <= top:
        span = "[0, 1]" if top == 1.0 else "[0, 100]%"
        raise _ReportError(f"{field} must be within {span}, got {value:g} (line {line})", pos)


def _check_accepted(accepted: int, drafted: int, names: tuple[str, str], line: int, pos: int) -> None:
    if accepted > drafted:
        raise _ReportError(
            f"{names[0]} ({accepted}) exceeds {names[1]} ({drafted}) (line {line}): "
            "no more draft tokens can be accepted than were drafted",
            pos,
        )


def _lines_list(lines: list[int], most: int = 5) -> str:
    shown = ", ".join(str(n) for n in lines[:most])
    return shown + (f" and {len(lines) - most} more" if len(lines) > most else "")


# --- vLLM V1 log ------------------------------------------------------------------------------
# vllm-project/vllm, vllm/v1/spec_decode/metrics.py, SpecDecodingLogging.log: one line per
# logging interval (its counts are reset after each line), in three layouts over the releases:
#   "SpecDecoding metrics: Draft acceptance rate: X%, Accepted: N tokens, Drafted: N tokens"
#   "SpecDecoding metrics: Draft acceptance rate: X%, Mean acceptance length: X, Accepted: N
#    tokens, Drafted: N tokens, Per-position acceptance rate: a, b, …"
#   "SpecDecoding metrics: Mean acceptance length: X, Accepted throughput: …, Drafted
#    throughput: …, Accepted: N tokens, Drafted: N tokens, Per-position acceptance rate: a, b,
#    …, Avg Draft acceptance rate: X%"
# mean = 1 + accepted / drafts (%.2f), per-position = accepted at position i / drafts (%.3f).
_V1_MARKER = "SpecDecoding metrics:"
_V1_MEAN = re.compile(rf"Mean acceptance length: ({_NUM})")
_V1_ACCEPTED = re.compile(rf"\bAccepted: ({_INT}) tokens\b")
_V1_DRAFTED = re.compile(rf"\bDrafted: ({_INT}) tokens\b")
_RATE = r"(?:\d{1,6}(?:\.\d{1,12})?|-?nan)"
_V1_PER_POS = re.compile(rf"Per-position acceptance rate: ({_RATE}(?:, {_RATE}){{0,1023}})")
_V1_AVG_RATE = re.compile(rf"Draft acceptance rate: ({_NUM})%")


def _v1_drafts(accepted: int, drafted: int, mean: float | None, rates: tuple[float, ...] | None):
    """The number of drafts behind one interval's line, or None; and whether the line is consistent.

    Constraints: 1 <= drafts <= drafted (a draft has at least one token), drafts >= drafted / k
    (at most k), 1 + accepted / drafts within rounding of the printed mean, and the printed
    per-position rates summing to accepted / drafts within rounding. Drafted / k is preferred
    when allowed (every draft full length, the usual case); otherwise only a unique answer
    counts. If no whole number satisfies them all, the printed values contradict the counts:
    the counts win (Drafted / k when it divides) and the caller notes the mismatch.
    """
    lo, hi = 1.0, float(drafted)
    k = len(rates) if rates else None
    if k:
        lo = max(lo, -(-drafted // k))
    bounds = []
    if mean is not None and math.isfinite(mean):
        bounds.append((mean - 1.0, _HALF_2DP))
    if rates and all(math.isfinite(r) for r in rates):
        bounds.append((sum(rates), k * _HALF_3DP))
    consistent = True
    for ratio, tol in bounds:  # accepted / drafts lies within ratio ± tol
        if accepted == 0:
            consistent = consistent and ratio - tol <= 0
            continue
        lo = max(lo, accepted / (ratio + tol))
        if ratio - tol > 0:
            hi = min(hi, accepted / (ratio - tol))
    full = drafted // k if k and drafted % k == 0 else None
    lo_int, hi_int = math.ceil(lo - 1e-9), math.floor(hi + 1e-9)
    if not consistent or lo_int > hi_int:
        return full, False
    if full is not None and lo_int <= full <= hi_int:
        return full, True
    return (lo_int if lo_int == hi_int else None), True


class _V1Line(NamedTuple):
    pos: int
    line: int
    accepted: int
    drafted: int
    mean: float | None
    rates: tuple[float, ...] | None
    avg: float | None


def _parse_v1(doc: _Doc) -> _Found | str | None:
    segments, dropped = doc.segments(_V1_MARKER)
    if not segments:
        return None
    used, incomplete, empty = [], [], []
    for seg in segments:
        body = seg.text
        head = body[len(_V1_MARKER) :].lstrip()
        acc, dr = _V1_ACCEPTED.search(body), _V1_DRAFTED.search(body)
        mean_m, pp_m, rate_m = _V1_MEAN.search(body), _V1_PER_POS.search(body), _V1_AVG_RATE.search(body)
        if head.startswith("Mean acceptance length"):  # current layout: closes with the average rate
            complete = acc and dr and mean_m and pp_m and rate_m
        elif mean_m:  # middle layout: closes with the per-position list, which a cut leaves valid
            complete = acc and dr and pp_m and seg.line_ended
        else:  # first layout: closes with "Drafted: N tokens"
            complete = acc and dr
        if not complete:
            incomplete.append(seg)
            continue
        line = doc.line_of(seg.start)
        accepted, drafted = int(acc.group(1)), int(dr.group(1))
        if drafted == 0:
            empty.append(line)
            continue
        _check_accepted(accepted, drafted, ("Accepted", "Drafted"), line, seg.start)
        mean = _float(mean_m.group(1)) if mean_m else None
        rates = tuple(_float(r) for r in pp_m.group(1).split(", ")) if pp_m else None
        for i, r in enumerate(rates or ()):
            _check_rate(r, f"Per-position acceptance rate {i}", line, seg.start)
        if mean is not None and not math.isnan(mean):
            top = len(rates) + 1 if rates else math.inf
            if not 1.0 - _HALF_2DP <= mean <= top + _HALF_2DP:
                span = f"within [1, k + 1] = [1, {top}]" if rates else "at least 1"
                raise _ReportError(
                    f"Mean acceptance length must be {span} (it counts the bonus token), got {mean:g} (line {line})",
                    seg.start,
                )
        avg = _float(rate_m.group(1)) if rate_m else None
        if avg is not None:
            _check_rate(avg, "Draft acceptance rate", line, seg.start, top=100.0)
        used.append(_V1Line(seg.start, line, accepted, drafted, mean, rates, avg))
    if not used:
        if empty:
            return f"vLLM V1 'SpecDecoding metrics' lines drafted nothing (line {_lines_list(empty)})"
        last = incomplete[-1]
        return (
            f"a vLLM V1 'SpecDecoding metrics' line at line {doc.line_of(last.start)} is incomplete "
            "(it needs 'Accepted: N tokens' and 'Drafted: N tokens', and in current releases the "
            "closing 'Avg Draft acceptance rate: X%')"
        )

    notes = []
    if len(used) > 1:
        notes.append(f"{len(used)} logging intervals found; their counts are summed (vLLM V1 logs per interval)")
    if dropped:
        notes.append(f"only the last {_MAX_REPORTS:,} 'SpecDecoding metrics' lines were read")
    if incomplete:
        lines = [doc.line_of(s.start) for s in incomplete[-5:]]
        notes.append(
            f"skipped {len(incomplete)} incomplete or cut-off 'SpecDecoding metrics' line(s) "
            f"(line {_lines_list(lines)})"
        )
    if empty:
        notes.append(f"skipped {len(empty)} interval(s) that drafted nothing (line {_lines_list(empty)})")

    drafts_each, unknown, short, mismatched, rate_off, not_monotone = [], [], [], [], [], []
    for u in used:
        d, feasible = _v1_drafts(u.accepted, u.drafted, u.mean, u.rates)
        drafts_each.append(d)
        if not feasible:
            mismatched.append(u.line)
        elif d is None and (u.mean is not None or u.rates):
            unknown.append(u.line)
        elif d is not None and u.rates and d * len(u.rates) != u.drafted:
            short.append(u.line)
        if u.avg is not None and not math.isnan(u.avg) and abs(100.0 * u.accepted / u.drafted - u.avg) > _HALF_1DP:
            rate_off.append(u.line)
        if u.rates and any(b > a + 2 * _HALF_3DP for a, b in itertools.pairwise(u.rates)):
            not_monotone.append(u.line)
    if mismatched:
        notes.append(
            f"the printed mean acceptance length or per-position rates do not match Accepted / Drafted "
            f"for any whole number of drafts; the counts are used (line {_lines_list(mismatched)})"
        )
    if unknown:
        notes.append(f"the number of drafts could not be inferred from line {_lines_list(unknown)}")
    if short:
        notes.append(
            f"drafts inferred from the printed mean and rates, not Drafted / k: some drafts were shorter than k "
            f"(line {_lines_list(short)})"
        )
    if rate_off:
        notes.append(
            f"the printed draft acceptance rate differs from Accepted / Drafted (line {_lines_list(rate_off)})"
        )
    if not_monotone:
        notes.append(
            f"per-position rates increase with position, which P(at least i + 1 accepted) cannot "
            f"(line {_lines_list(not_monotone)})"
        )

    accepted = sum(u.accepted for u in used)
    drafted = sum(u.drafted for u in used)
    latest = used[-1]
    ks = {len(u.rates) for u in used if u.rates}
    k = len(latest.rates) if latest.rates else None
    if len(ks) > 1:
        notes.append(f"the intervals report different draft lengths {sorted(ks)}; k is the latest one's")
    drafts = sum(drafts_each) if all(d is not None for d in drafts_each) else None
    per_position = latest.rates
    if drafts is not None:
        mean = 1.0 + accepted / drafts
        emitted = accepted + drafts
        if len(used) > 1 and len(ks) == 1 and all(u.rates for u in used):
            per_position = tuple(
                sum(u.rates[i] * d for u, d in zip(used, drafts_each, strict=True)) / drafts for i in range(k)
            )
            notes.append("per-position rates combined weighted by each interval's drafts")
    else:
        emitted = None
        if all(u.mean is not None and math.isfinite(u.mean) for u in used):
            mean = sum(u.mean * u.drafted for u in used) / drafted
            if len(used) > 1:
                notes.append(
                    "mean acceptance length: the printed values weighted by Drafted (exact if drafts are equally long)"
                )
        else:
            mean = latest.mean if latest.mean is not None and math.isfinite(latest.mean) else None
        if per_position and len(used) > 1:
            notes.append("per-position rates are the latest interval's (drafts per interval unknown)")
    return _Found(
        latest.pos,
        EngineMetrics(_ENGINE[_V1], _V1, k, drafts, drafted, accepted, emitted, mean, per_position, tuple(notes)),
    )


# --- vLLM V0 log ------------------------------------------------------------------------------
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
_V0_RATE = re.compile(rf"Draft acceptance rate: ({_NUM})(%?)")
_V0_EFFICIENCY = re.compile(rf"System efficiency: ({_NUM})(%?)")
_V0_K = re.compile(rf"Number of speculative tokens: ({_INT})\b")
_V0_ACCEPTED = re.compile(rf"Number of accepted tokens(?: tokens)?: ({_INT})\b")
_V0_DRAFT = re.compile(rf"Number of draft tokens(?: tokens)?: ({_INT})\b")
_V0_EMITTED = re.compile(rf"Number of emitted tokens(?: tokens)?: ({_INT})\.")


def _parse_v0(doc: _Doc) -> _Found | str | None:
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
    accepted = int(_V0_ACCEPTED.search(body).group(1))
    draft_tokens = int(_V0_DRAFT.search(body).group(1))
    emitted = int(_V0_EMITTED.search(body).group(1))
    k_m = _V0_K.search(body)
    k = int(k_m.group(1)) if k_m else None
    notes = []
    if len(complete) > 1:
        notes.append(f"{len(complete)} reports found; used the latest (vLLM V0 counters are cumulative)")
    if len(segments) > len(complete):
        notes.append(f"skipped {len(segments) - len(complete)} incomplete or cut-off 'Speculative metrics' line(s)")
    if k == 0:
        raise _ReportError(f"Number of speculative tokens must be >= 1, got 0 (line {line})", pos)
    _check_accepted(accepted, draft_tokens, ("Number of accepted tokens", "Number of draft tokens"), line, pos)
    printed = {}
    for name, pattern in (("Draft acceptance rate", _V0_RATE), ("System efficiency", _V0_EFFICIENCY)):
        m = pattern.search(body)
        if m:
            value = _float(m.group(1)) / (100.0 if m.group(2) else 1.0)
            _check_rate(value, name, line, pos)
            printed[name] = value
    rate = printed.get("Draft acceptance rate")
    if rate is not None and not math.isnan(rate) and draft_tokens and abs(accepted / draft_tokens - rate) > _HALF_3DP:
        notes.append(f"the printed draft acceptance rate {rate:.3f} differs from accepted / draft tokens")
    drafts = mean = None
    if k and draft_tokens % k == 0:
        drafts = draft_tokens // k
    elif k:
        notes.append(f"draft tokens ({draft_tokens}) are not a multiple of k = {k}; drafts unknown")
    if drafts:
        if not drafts <= emitted <= drafts * (k + 1):
            raise _ReportError(
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
        if eff is not None and not math.isnan(eff) and abs(emitted / (drafts * (k + 1)) - eff) > _HALF_3DP:
            notes.append(f"the printed system efficiency {eff:.3f} differs from emitted / (drafts × (k + 1))")
    else:
        notes.append(
            "V0's accepted count includes tokens accepted after an earlier rejection; without drafts the "
            "accepted prefixes and the mean acceptance length are unknown"
        )
    return _Found(
        pos, EngineMetrics(_ENGINE[_V0], _V0, k, drafts, draft_tokens, accepted, emitted, mean, None, tuple(notes))
    )


# --- vLLM Prometheus ----------------------------------------------------------------------------
# vllm-project/vllm, vllm/v1/spec_decode/metrics.py, SpecDecodingProm: counters
# vllm:spec_decode_num_drafts, _num_draft_tokens, _num_accepted_tokens and
# _num_accepted_tokens_per_pos{position="i"}, one label set per engine; prometheus_client
# exposes them with "_total" and prints values as floats ("1234.0", "1.2345678e+07").
# vllm/engine/metrics.py (V0) had _num_draft_tokens_total, _num_accepted_tokens_total and
# _num_emitted_tokens_total with V0's meanings (see the V0 log above).
_PROM_SAMPLE = re.compile(
    r"vllm:spec_decode_(num_drafts|num_draft_tokens|num_accepted_tokens_per_pos|num_accepted_tokens|num_emitted_tokens)"
    r"(?:_total)?[ \t]*(\{[^{}\n]{0,4096}\})?[ \t]+"
    r"([+-]?(?:\d{1,20}(?:\.\d{0,20})?|\.\d{1,20})(?:[eE][+-]?\d{1,3})?|[+-]?Inf|NaN)"
    r"(?:[ \t]+-?\d{1,20})?[ \t]*$",
    re.MULTILINE,
)
_PROM_LABEL = re.compile(r'([A-Za-z_]\w{0,199})[ \t]*=[ \t]*"((?:[^"\\\n]|\\.){0,2048})"')
_PROM_NAMES = {
    "num_drafts": "vllm:spec_decode_num_drafts",
    "num_draft_tokens": "vllm:spec_decode_num_draft_tokens",
    "num_accepted_tokens": "vllm:spec_decode_num_accepted_tokens",
    "num_accepted_tokens_per_pos": "vllm:spec_decode_num_accepted_tokens_per_pos",
    "num_emitted_tokens": "vllm:spec_decode_num_emitted_tokens",
}


def _prom_count(raw: str, name: str, line: int, pos: int) -> int:
    value = float(raw)
    if not math.isfinite(value) or value < 0 or not value.is_integer() or value >= 2**53:
        raise _ReportError(f"{name} must be a non-negative whole count, got {raw} (line {line})", pos)
    return int(value)


def _parse_prometheus(doc: _Doc) -> _Found | str | None:
    text = doc.text
    first, dropped = doc.tail("vllm:spec_decode_")
    latest: dict[tuple[str, str], tuple[str, int]] = {}  # (name, labels as written) -> (value, offset)
    cut = 0
    for m in _PROM_SAMPLE.finditer(text, first):
        if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_:"):
            continue
        raw = m.group(3)
        if m.end() == len(text) and not doc.ends_with_newline and not re.search(r"[.eEIN]", raw):
            cut += 1  # a last line without a line break whose value may be cut ("12" of "1234.0")
            continue
        latest[(m.group(1), m.group(2) or "")] = (raw, m.start())
    if not latest:
        if cut:
            return "the only vllm:spec_decode sample is on a last line without a line break and may be cut off"
        return None
    series: dict[tuple, tuple[str, int]] = {}  # (name, parsed labels) -> latest (value, offset)
    for (short, label_text), (raw, pos) in sorted(latest.items(), key=lambda item: item[1][1]):
        series[(short, tuple(sorted(_PROM_LABEL.findall(label_text))))] = (raw, pos)
    totals: dict[str, int] = {}
    per_pos: dict[int, int] = {}
    label_sets = set()
    last_pos = 0
    for (short, labels), (raw, pos) in sorted(series.items(), key=lambda item: item[1][1]):
        line = doc.line_of(pos)
        name = _PROM_NAMES[short]
        count = _prom_count(raw, name, line, pos)
        last_pos = max(last_pos, pos)
        rest = tuple(kv for kv in labels if kv[0] != "position")
        label_sets.add(rest)
        if short == "num_accepted_tokens_per_pos":
            position = dict(labels).get("position")
            if position is None or not re.fullmatch(r"\d{1,4}", position):
                raise _ReportError(
                    f'{name} needs a label position="i" (i = 0, 1, …), got {position!r} (line {line})', pos
                )
            per_pos[int(position)] = per_pos.get(int(position), 0) + count
        else:
            totals[short] = totals.get(short, 0) + count
    notes = []
    if len(label_sets) > 1:
        notes.append(f"summed over {len(label_sets)} label sets (engines or models)")
    if cut:
        notes.append("skipped the last line: it has no line break and its value may be cut off")
    if dropped:
        notes.append(f"only the last {_MAX_REPORTS:,} vllm:spec_decode samples were read")
    drafts = totals.get("num_drafts")
    draft_tokens = totals.get("num_draft_tokens")
    accepted = totals.get("num_accepted_tokens")
    emitted = totals.get("num_emitted_tokens")
    if accepted is not None and draft_tokens is not None:
        _check_accepted(
            accepted,
            draft_tokens,
            (_PROM_NAMES["num_accepted_tokens"], _PROM_NAMES["num_draft_tokens"]),
            doc.line_of(last_pos),
            last_pos,
        )
    if emitted is not None:
        notes.append(
            "vllm:spec_decode_num_emitted_tokens is a V0 counter: V0's accepted count includes tokens "
            "accepted after an earlier rejection"
        )
    k = per_position = mean = None
    if per_pos:
        k = max(per_pos) + 1
        if sorted(per_pos) != list(range(k)):
            notes.append(f"per-position counters cover positions {sorted(per_pos)}, not 0 … {k - 1}; rates not given")
            k = None
        elif drafts:
            for i in range(k):
                if per_pos[i] > drafts:
                    raise _ReportError(
                        f'{_PROM_NAMES["num_accepted_tokens_per_pos"]}{{position="{i}"}} ({per_pos[i]}) exceeds '
                        f"{_PROM_NAMES['num_drafts']} ({drafts}): a rate above 1",
                        last_pos,
                    )
            per_position = tuple(per_pos[i] / drafts for i in range(k))
        if k and accepted is not None and sum(per_pos.values()) != accepted:
            notes.append(
                f"the per-position counts sum to {sum(per_pos.values())}, not to the accepted count {accepted} "
                "(a scrape taken while counting, or counters from different runs)"
            )
        if k and any(per_pos[i + 1] > per_pos[i] for i in range(k - 1)):
            notes.append("per-position counts increase with position, which accepted prefixes cannot")
    if drafts:
        if accepted is not None and emitted is None:
            mean = 1.0 + accepted / drafts
            emitted = accepted + drafts
        if k is None and draft_tokens is not None and draft_tokens % drafts == 0:
            k = draft_tokens // drafts
        if k and draft_tokens is not None and draft_tokens > drafts * k:
            notes.append(f"more draft tokens ({draft_tokens}) than drafts × k ({drafts} × {k})")
    elif drafts == 0:
        notes.append("nothing drafted yet (vllm:spec_decode_num_drafts is 0)")
    if accepted is None and drafts is None and draft_tokens is None:
        return "vllm:spec_decode samples were found, but no drafts, draft tokens or accepted tokens counter"
    return _Found(
        last_pos,
        EngineMetrics(
            _ENGINE[_PROM], _PROM, k, drafts, draft_tokens, accepted, emitted, mean, per_position, tuple(notes)
        ),
    )


# --- SGLang log ---------------------------------------------------------------------------------
# sgl-project/sglang, python/sglang/srt/managers/scheduler_metrics_mixin.py,
# SchedulerMetricsMixin.log_decode_stats (earlier python/sglang/srt/managers/scheduler.py,
# Scheduler.log_decode_stats), every decode_log_interval decode steps:
#   "Decode batch[.,] #running-req: N, #token: N, token usage: X, accept len: X.XX, accept rate:
#    X.XX, cuda graph: …, gen throughput (token/s): …, #queue-req: N, "
# accept len = (accepted + one per request-step) / request-steps over the interval, so it
# includes the bonus token; the counts are reset after each line and never printed. The
# "accept rate" divides by draft tokens per step, which changed between releases.
_SGL_MARKER = "accept len: "
_SGL_LEN = re.compile(rf"accept len: ({_NUM})")
_SGL_RATE = re.compile(rf"accept rate: ({_NUM})")
_SGL_RUNNING = re.compile(rf"#running-req: ({_INT})\b")


def _closed(body: str, m: re.Match, seg: _Segment) -> bool:
    """A value is whole if a comma follows it, or the line ends right after it with a line break."""
    rest = body[m.end() :]
    return rest.startswith(",") or (not rest.strip(" \t") and seg.line_ended)


def _parse_sglang(doc: _Doc) -> _Found | str | None:
    segments, dropped = doc.segments(_SGL_MARKER)
    if not segments:
        return None
    used, incomplete, idle = [], [], []
    for seg in segments:
        len_m = _SGL_LEN.match(seg.text)
        rate_m = _SGL_RATE.search(seg.text)
        if not len_m or not _closed(seg.text, len_m, seg) or (rate_m and not _closed(seg.text, rate_m, seg)):
            incomplete.append(seg)
            continue
        line = doc.line_of(seg.start)
        length = _float(len_m.group(1))
        if rate_m:
            _check_rate(_float(rate_m.group(1)), "accept rate", line, seg.start)
        if length == 0.0 or math.isnan(length):
            idle.append(line)  # printed when an interval had no speculative step
            continue
        if length < 1.0:
            raise _ReportError(
                f"accept len must be at least 1 (it counts the bonus token), got {length:g} (line {line})", seg.start
            )
        if math.isinf(length):
            raise _ReportError(f"accept len must be finite, got {length:g} (line {line})", seg.start)
        running = list(_SGL_RUNNING.finditer(seg.before))
        used.append((seg.start, length, int(running[-1].group(1)) if running else None))
    if not used:
        where = (incomplete or segments)[-1]
        return (
            f"an SGLang 'accept len:' value at line {doc.line_of(where.start)} is incomplete "
            "(a whole value is followed by a comma or ends its line)"
            if incomplete
            else f"SGLang decode-batch lines report accept len 0 (line {_lines_list(idle)})"
        )
    weights = [u[2] for u in used]
    notes = [
        "SGLang prints the mean accept length (bonus token included) but no counts: k, drafts and accepted unknown"
    ]
    if all(w is not None for w in weights) and sum(weights) > 0:
        mean = sum(u[1] * u[2] for u in used) / sum(weights)
        if len(used) > 1:
            notes.append(
                f"averaged {len(used)} decode-batch lines weighted by #running-req (each line covers the same "
                "number of decode steps, so its batch size stands in for its verification count)"
            )
    else:
        mean = sum(u[1] for u in used) / len(used)
        if len(used) > 1:
            notes.append(f"averaged {len(used)} decode-batch lines unweighted (no #running-req on every line)")
    if dropped:
        notes.append(f"only the last {_MAX_REPORTS:,} 'accept len' values were read")
    if incomplete:
        notes.append(f"skipped {len(incomplete)} incomplete or cut-off 'accept len' value(s)")
    if idle:
        notes.append(f"skipped {len(idle)} line(s) with accept len 0 (no speculative step in the interval)")
    return _Found(
        used[-1][0], EngineMetrics(_ENGINE[_SGL], _SGL, None, None, None, None, None, mean, None, tuple(notes))
    )


# --- llama.cpp summary ---------------------------------------------------------------------------
# ggml-org/llama.cpp, examples/speculative/speculative.cpp and
# examples/speculative-simple/speculative-simple.cpp, main(), at the end of a run:
#   "n_draft   = 8" / "n_predict = 258" / "n_drafted = 296" / "n_accept  = 198" / "accept    = 66.892%"
# n_draft is the maximum draft length; n_predict counts every emitted token; each target step
# emits its accepted draft tokens plus one, so steps = n_predict - n_accept.
_LLAMA_FIELD = re.compile(
    r"(n_drafted|n_draft|n_predict|n_accept|accept)[ \t]*=[ \t]*(-?(?:\d{1,18}(?:\.\d{1,18})?|nan|inf))(%?)[ \t]*$",
    re.MULTILINE,
)
_LLAMA_KEYS = ("n_draft", "n_predict", "n_drafted", "n_accept", "accept")


def _parse_llama(doc: _Doc) -> _Found | str | None:
    text = doc.text
    first, dropped = doc.tail("= ")
    first = max(text.rfind("\n", max(0, first - 64), first) + 1, first - 64, 0)  # the key before the "="
    blocks: deque[dict] = deque(maxlen=_MAX_REPORTS)
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
        notes.append(f"only the last {_MAX_REPORTS:,} occurrences of '= ' were read")
    values = {}
    for key in _LLAMA_KEYS[:4]:
        if key in block:
            raw, p = block[key]
            values[key] = _int(raw, key, doc.line_of(p), p)
    drafted, accepted = values["n_drafted"], values["n_accept"]
    line = doc.line_of(block["n_accept"][1])
    _check_accepted(accepted, drafted, ("n_accept", "n_drafted"), line, pos)
    if "accept" in block:
        raw, p = block["accept"]
        printed = _float(raw)
        _check_rate(printed, "accept", doc.line_of(p), p, top=100.0)
        if drafted and not math.isnan(printed) and abs(100.0 * accepted / drafted - printed) > 10 * _HALF_3DP:
            notes.append(f"the printed accept = {printed:.3f}% differs from n_accept / n_drafted")
    k = values.get("n_draft") or None
    emitted = values.get("n_predict")
    drafts = mean = None
    if emitted is not None:
        if emitted < accepted:
            raise _ReportError(
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
    return _Found(
        pos, EngineMetrics(_ENGINE[_LLAMA], _LLAMA, k, drafts, drafted, accepted, emitted, mean, None, tuple(notes))
    )


# --- entry point ---------------------------------------------------------------------------------
_PARSERS = (
    (_V1, _parse_v1),
    (_V0, _parse_v0),
    (_PROM, _parse_prometheus),
    (_SGL, _parse_sglang),
    (_LLAMA, _parse_llama),
)


def _read(text) -> tuple[str, list[str]]:
    notes = []
    if isinstance(text, (bytes, bytearray, memoryview)):
        raw = bytes(text)
        text = raw[-4 * MAX_METRICS_CHARS :].decode("utf-8", errors="replace")
    elif not isinstance(text, str):
        raise ValueError(f"text must be str or bytes, got {type(text).__name__}")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if len(text) > MAX_METRICS_CHARS:
        text = text[-MAX_METRICS_CHARS:]
        text = text[text.find("\n") + 1 :]  # drop the line the cut went through
        notes.append(f"only the last {MAX_METRICS_CHARS:,} characters were read; line numbers count from there")
    return text, notes


def parse_engine_metrics(text) -> EngineMetrics:
    """Read speculative decoding metrics pasted from a serving engine.

    Finds, anywhere in ``text`` (log noise, timestamps, several reports):

    * **vLLM V1 log** — ``SpecDecoding metrics: … Accepted: N tokens, Drafted: N tokens,
      Per-position acceptance rate: a, b, …`` (all three layouts vLLM has printed). Each line
      is one logging interval, so Accepted and Drafted are **summed** over lines. The drafts of
      a line are inferred: Drafted / k when that agrees with the printed mean and rates,
      otherwise the unique whole number they allow. When every line's drafts are known,
      per-position rates are combined weighted by drafts and the mean is 1 + ΣAccepted /
      Σdrafts; otherwise the rates are the latest line's and the mean is the Drafted-weighted
      mean of the printed ones. Lines that drafted nothing (``nan``) are skipped.
    * **vLLM V0 log** — ``Speculative metrics: … Number of emitted tokens: N.`` Cumulative
      counters, so the **latest** line is used. drafts = draft tokens / k, the mean is
      emitted / drafts and accepted is emitted - drafts: V0's own accepted count includes
      tokens after an earlier rejection (it is kept in the notes).
    * **vLLM Prometheus** — ``vllm:spec_decode_num_drafts``, ``…_num_draft_tokens``,
      ``…_num_accepted_tokens``, ``…_num_accepted_tokens_per_pos{position="i"}``, with or
      without ``_total``. Cumulative counters: the **latest** sample of each series is used
      (one snapshot), summed across label sets other than ``position`` (engines, models).
    * **SGLang log** — decode-batch lines with ``accept len: X,`` (and ``accept rate``). Each
      line covers the same number of decode steps; the mean is the average of the lines'
      accept lengths **weighted by** ``#running-req`` (unweighted if a line lacks it). SGLang
      prints no counts, so only the mean is known.
    * **llama.cpp summary** — ``n_draft``, ``n_predict``, ``n_drafted``, ``n_accept``,
      ``accept = X%`` of the speculative examples; the **latest** summary is used, with
      drafts = n_predict - n_accept target steps.

    If several formats occur, the one whose data comes last in the text is used, and the notes
    say so. A mean acceptance length is computed from counts where they allow (1 + accepted /
    drafts) and printed values that disagree with the counts are noted. A report missing its
    closing text (V1's ``Avg Draft acceptance rate: X%``, V0's final ``.``, SGLang's comma after
    the value, llama.cpp's ``accept = X%`` or line break) is treated as cut off and skipped, so a
    truncated last line leaves the earlier complete report in use.

    Parameters
    ----------
    text : str or bytes
        The pasted text; bytes are decoded as UTF-8 with undecodable bytes replaced. Only the
        last :data:`MAX_METRICS_CHARS` characters are read. Every pattern runs in time linear in
        the text, so any paste is answered quickly.

    Returns
    -------
    EngineMetrics
        One record; fields the format does not determine are None.

    Raises
    ------
    ValueError
        If no complete report is found (the message says what was looked for, or what was
        incomplete), or a report is impossible: a count that is not a non-negative whole number,
        a rate outside [0, 1] (percentages outside [0, 100]), more accepted than drafted tokens.
        The message names the field and the line.
    """
    text, read_notes = _read(text)
    doc = _Doc(text)
    found: list[tuple[int, str, _Found | _ReportError]] = []
    partial: list[str] = []
    for name, parse in _PARSERS:
        try:
            result = parse(doc)
        except _ReportError as exc:
            found.append((exc.pos, name, exc))
            continue
        if isinstance(result, _Found):
            found.append((result.pos, name, result))
        elif isinstance(result, str):
            partial.append(result)
    if not found:
        cap = f"; {read_notes[0]}" if read_notes else ""
        if partial:
            raise ValueError(
                f"no complete speculative decoding report found in the text: {'; '.join(partial)}{cap} "
                f"(looked for: {_LOOKED_FOR})"
            )
        raise ValueError(f"no speculative decoding metrics found in the text{cap} (looked for: {_LOOKED_FOR})")
    found.sort(key=lambda f: f[0])
    _, name, result = found[-1]
    if isinstance(result, _ReportError):
        raise ValueError(f"{name}: {result}") from None
    notes = list(result.metrics.notes)
    if found[:-1]:
        names = ", ".join(dict.fromkeys(n for _, n, _ in found[:-1]))
        notes.append(f"the text also holds {names} data; used the {name} data, which comes last")
        notes.extend(f"ignored {n} data: {r}" for _, n, r in found[:-1] if isinstance(r, _ReportError))
    return replace(result.metrics, notes=tuple(notes + read_notes))
