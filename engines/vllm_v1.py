"""vLLM V1 log lines: one per logging interval, so their counts are summed.

vLLM V1 counts accepted tokens in the accepted prefix only; its per-position rate is the
unconditional P(at least i + 1 accepted) and its mean acceptance length includes the bonus
token (1 + accepted / drafts).
"""

from __future__ import annotations

import itertools
import math
import re
from typing import NamedTuple

from ._text import (
    HALF_1DP,
    HALF_2DP,
    HALF_3DP,
    INT,
    MAX_REPORTS,
    NUM,
    Doc,
    Found,
    Needs,
    ReportError,
    check_accepted,
    check_rate,
    lines_list,
    read_float,
    read_int,
)
from .record import EngineMetrics

FORMAT = "vLLM V1 log"
ENGINE = "vLLM"
#: The parts a whole report has, for the message on a paste no format reads (see ``Needs``).
NEEDS = Needs(
    "a vLLM V1 log line",
    (
        ("'SpecDecoding metrics:'", r"SpecDecoding metrics:"),
        ("'Accepted: N tokens'", r"\bAccepted: \d+ tokens"),
        ("'Drafted: N tokens'", r"\bDrafted: \d+ tokens"),
    ),
)

# vllm-project/vllm, vllm/v1/spec_decode/metrics.py, SpecDecodingLogging.log: one line per
# logging interval (its counts are reset after each line), in three layouts over the releases:
#   "SpecDecoding metrics: Draft acceptance rate: X%, Accepted: N tokens, Drafted: N tokens"
#   "SpecDecoding metrics: Draft acceptance rate: X%, Mean acceptance length: X, Accepted: N
#    tokens, Drafted: N tokens, Per-position acceptance rate: a, b, …"
#   "SpecDecoding metrics: Mean acceptance length: X, Accepted throughput: …, Drafted
#    throughput: …, Accepted: N tokens, Drafted: N tokens, Per-position acceptance rate: a, b,
#    …, Avg Draft acceptance rate: X%"
# mean = 1 + accepted / drafts (%.2f), per-position = accepted at position i / drafts (%.3f).
# Builds and forks also print the last layout without its per-position list (closing with
# "Draft acceptance rate: X%"): such a line has no profile, and its k is not known.
_V1_MARKER = "SpecDecoding metrics:"
_V1_MEAN = re.compile(rf"Mean acceptance length: ({NUM})")
_V1_ACCEPTED = re.compile(rf"\bAccepted: ({INT}) tokens\b")
_V1_DRAFTED = re.compile(rf"\bDrafted: ({INT}) tokens\b")
_RATE = r"(?:\d{1,6}(?:\.\d{1,12})?|-?nan)"
_PER_POS_LABEL = "Per-position acceptance rate:"
_V1_PER_POS = re.compile(rf"{_PER_POS_LABEL} ({_RATE}(?:, {_RATE}){{0,1023}})")
_V1_AVG_RATE = re.compile(rf"Draft acceptance rate: ({NUM})%")
_FULL_RATE = re.compile(r"\d+\.\d{3}|-?nan")  # a rate as vLLM prints it (%.3f), not cut short
# Each engine's logger prints its "Engine 000: Avg prompt throughput: …" line and then its
# SpecDecoding line (vllm/v1/metrics/loggers.py:127-142@v0.11.0, LoggingStatLogger.log, prefix
# "Engine %03d: "; 276-340@v0.34.0, where the aggregating logger's prefix is "N Engines Aggregated: ").
# With data parallelism one interval prints one pair per engine, so lines are grouped into
# intervals by the engine line before each: an interval ends where an engine comes again.
_ENGINE = re.compile(r"\b(?:Engine (\d{1,6})|(\d{1,6}) Engines Aggregated): ")
# vLLM 0.8.5 printed the middle layout's mean without the bonus token, accepted / drafts
# (metrics.py:76@v0.8.5); 0.9.0 added it (metrics.py:79-80@v0.9.0). Such a mean equals the
# per-position rates' sum rather than 1 + it.


def _v1_drafts(accepted: int, drafted: int, mean: float | None, rates: tuple[float, ...] | None):
    """The number of drafts behind one interval's line, or None; whether the line is consistent; and
    the whole numbers of drafts its printed values fit, (fewest, most), or None where none does.

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
        bounds.append((mean - 1.0, HALF_2DP))
    if rates and all(math.isfinite(r) for r in rates):
        bounds.append((sum(rates), k * HALF_3DP))
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
        return full, False, None
    if full is not None and lo_int <= full <= hi_int:
        return full, True, (full, full)
    return (lo_int if lo_int == hi_int else None), True, (lo_int, hi_int)


def uncounted_note(what: str, open_lines: list[tuple[int, tuple[int, int], bool]]) -> str:
    """What lines lack that print no count of ``what`` (drafts, verification steps) and whose rounded
    values fit several: ``open_lines`` holds (line, (fewest, most), whether it printed rates)."""
    fits = [f"{lo:,} to {hi:,}" for _, (lo, hi), _ in open_lines]
    if len(open_lines) == 1:
        ((line, _, rates),) = open_lines
        printed = "mean and per-position rates it prints fit" if rates else "mean it prints fits"
        return f"line {line} does not print its number of {what}; the rounded {printed} any of {fits[0]}"
    lines = [line for line, _, _ in open_lines]
    each = ", ".join(f"{fit} (line {line})" for fit, line in zip(fits[:5], lines, strict=False))
    more = f" and {len(lines) - 5} more" if len(lines) > 5 else ""
    return (
        f"lines {lines_list(lines)} do not print their number of {what}; the rounded values they print "
        f"fit any of {each}{more}"
    )


def _cut_list(rates: str, mean: float) -> str | None:
    """Why a per-position list at the end of a paste, with no line break after it, may be cut; or None.

    The list closes its line, so only its own numbers can tell: the last rate must have all three
    decimals and the rates must add up to the printed mean acceptance length minus 1.
    """
    values = rates.split(", ")
    if not _FULL_RATE.fullmatch(values[-1]):
        return f"its per-position list ends in {values[-1]!r}, not a rate printed to three decimals"
    total = sum(read_float(v) for v in values)
    if math.isfinite(total) and math.isfinite(mean) and abs(total - (mean - 1.0)) > len(values) * HALF_3DP + HALF_2DP:
        return (
            f"its per-position rates add up to {total:.3f}, not the mean acceptance length minus 1 "
            f"({mean - 1.0:.2f}), as a whole list must"
        )
    return None


def _why_incomplete(seg, acc, dr, mean_m, pp_m, rate_m) -> str | None:
    """What a 'SpecDecoding metrics' line lacks to be read, in words naming it; None if complete."""
    body = seg.text
    head = body[len(_V1_MARKER) :].lstrip()
    missing = [field for field, m in (("'Accepted: N tokens'", acc), ("'Drafted: N tokens'", dr)) if not m]
    if _PER_POS_LABEL in body and not pp_m:
        missing.append(f"readable rates after '{_PER_POS_LABEL}'")
    if head.startswith("Mean acceptance length"):  # the current layout closes with the acceptance rate
        if not mean_m:
            missing.append("a number after 'Mean acceptance length:'")
        if not rate_m:
            missing.append("the closing 'Avg Draft acceptance rate: X%'")
    if missing:
        return "it lacks " + ", ".join(missing)
    if head.startswith("Mean acceptance length") or not mean_m or seg.line_ended:
        return None
    # The middle layout closes with its per-position list, which a cut leaves looking valid.
    if not pp_m:
        return f"it ends, with no line break, where its '{_PER_POS_LABEL} …' list would begin"
    return _cut_list(pp_m.group(1), read_float(mean_m.group(1)))


class _V1Line(NamedTuple):
    pos: int
    line: int
    accepted: int
    drafted: int
    mean: float | None
    rates: tuple[float, ...] | None
    avg: float | None
    engine: str | None  # "000", "3 aggregated", or None where no engine line precedes it


def _with_engines(doc: Doc, used: list[_V1Line]) -> list[_V1Line]:
    """The lines with the engine of the "Engine NNN:" line before each (none between it and the line before)."""
    text, out, prev = doc.text, [], 0
    for u in used:
        found = None
        for m in _ENGINE.finditer(text, prev, u.pos):
            found = m.group(1) or f"{m.group(2)} aggregated"
        out.append(u._replace(engine=found))
        prev = u.pos
    return out


def _intervals(used: list[_V1Line]) -> list[int]:
    """Offsets where each logging interval starts: a new one wherever a line's engine is unknown or comes again."""
    starts, seen = [], set()
    for u in used:
        if u.engine is None or u.engine in seen or not starts:
            starts.append(u.pos)
            seen = set()
        if u.engine is not None:
            seen.add(u.engine)
    return starts


def _summed_note(used: list[_V1Line], intervals: list[int]) -> str:
    engines = sorted({u.engine for u in used if u.engine is not None})
    n = len(intervals)
    spans = f"{n} logging interval{'s' if n > 1 else ''}"
    if len(engines) > 1:
        named = ", ".join(engines[:8]) + (f" and {len(engines) - 8} more" if len(engines) > 8 else "")
        return (
            f"{len(used)} lines from {len(engines)} engines ({named}) over {spans}; their counts are summed "
            "(vLLM V1 logs each engine's counts per interval)"
        )
    return f"{n} logging intervals found; their counts are summed (vLLM V1 logs per interval)"


def _bonus_added(used: list[_V1Line]) -> tuple[list[_V1Line], list[int]]:
    """The lines with a mean printed without the bonus token (v0.8.5) read as 1 + it, and those lines."""
    out, lines = [], []
    for u in used:
        rates, mean = u.rates, u.mean
        if rates and mean is not None and all(math.isfinite(r) for r in rates) and math.isfinite(mean):
            tol = len(rates) * HALF_3DP + HALF_2DP
            if abs(sum(rates) - mean) <= tol < abs(1.0 + sum(rates) - mean):
                out.append(u._replace(mean=1.0 + mean))
                lines.append(u.line)
                continue
        out.append(u)
    return out, lines


def parse(doc: Doc) -> Found | str | None:
    segments, dropped = doc.segments(_V1_MARKER)
    if not segments:
        return None
    used, incomplete, empty = [], [], []  # incomplete: (segment, what it lacks)
    for seg in segments:
        body = seg.text
        acc, dr = _V1_ACCEPTED.search(body), _V1_DRAFTED.search(body)
        mean_m, pp_m, rate_m = _V1_MEAN.search(body), _V1_PER_POS.search(body), _V1_AVG_RATE.search(body)
        why = _why_incomplete(seg, acc, dr, mean_m, pp_m, rate_m)
        if why:
            incomplete.append((seg, why))
            continue
        line = doc.line_of(seg.start)
        accepted = read_int(acc.group(1), "Accepted", line, seg.start)
        drafted = read_int(dr.group(1), "Drafted", line, seg.start)
        if drafted == 0:
            empty.append(line)
            continue
        check_accepted(accepted, drafted, ("Accepted", "Drafted"), line, seg.start)
        mean = read_float(mean_m.group(1)) if mean_m else None
        rates = tuple(read_float(r) for r in pp_m.group(1).split(", ")) if pp_m else None
        for i, r in enumerate(rates or ()):
            check_rate(r, f"Per-position acceptance rate {i}", line, seg.start)
        if mean is not None and not math.isnan(mean):
            top = len(rates) + 1 if rates else math.inf
            # v0.8.5's middle layout printed accepted / drafts, which may be below 1.
            low = 0.0 if rates and seg.text[len(_V1_MARKER) :].lstrip().startswith("Draft acceptance") else 1.0
            if not low - HALF_2DP <= mean <= top + HALF_2DP:
                span = f"within [1, k + 1] = [1, {top}]" if rates else "at least 1"
                raise ReportError(
                    f"Mean acceptance length must be {span} (it counts the bonus token), got {mean:g} (line {line})",
                    seg.start,
                )
        avg = read_float(rate_m.group(1)) if rate_m else None
        if avg is not None:
            check_rate(avg, "Draft acceptance rate", line, seg.start, top=100.0)
        used.append(_V1Line(seg.start, line, accepted, drafted, mean, rates, avg, None))
    if not used:
        if empty:
            return f"vLLM V1 'SpecDecoding metrics' lines drafted nothing (line {lines_list(empty)})"
        last, why = incomplete[-1]
        return f"the vLLM V1 'SpecDecoding metrics' line at line {doc.line_of(last.start)} is incomplete: {why}"

    notes = []
    used = _with_engines(doc, used)
    used, bonusless = _bonus_added(used)
    intervals = _intervals(used)
    if len(used) > 1:
        notes.append(_summed_note(used, intervals))
    if bonusless:
        notes.append(
            f"the printed mean acceptance length equals the per-position rates' sum, not 1 + it: vLLM 0.8.5's mean "
            f"without the bonus token, read as 1 + it (line {lines_list(bonusless)})"
        )
    if dropped:
        notes.append(f"only the last {MAX_REPORTS:,} 'SpecDecoding metrics' lines were read")
    if incomplete:
        lines = [doc.line_of(s.start) for s, _ in incomplete[-5:]]
        notes.append(
            f"skipped {len(incomplete)} incomplete or cut-off 'SpecDecoding metrics' line(s) (line {lines_list(lines)})"
        )
    if empty:
        notes.append(f"skipped {len(empty)} interval(s) that drafted nothing (line {lines_list(empty)})")

    drafts_each, unknown, short, mismatched, rate_off, not_monotone = [], [], [], [], [], []
    allowed = []  # the fewest and most drafts each line fits
    for u in used:
        d, feasible, fits = _v1_drafts(u.accepted, u.drafted, u.mean, u.rates)
        drafts_each.append(d)
        allowed.append(fits)
        if not feasible:
            mismatched.append(u.line)
        elif d is None and (u.mean is not None or u.rates):
            unknown.append((u.line, fits, bool(u.rates)))
        elif d is not None and u.rates and d * len(u.rates) != u.drafted:
            short.append(u.line)
        if u.avg is not None and not math.isnan(u.avg) and abs(100.0 * u.accepted / u.drafted - u.avg) > HALF_1DP:
            rate_off.append(u.line)
        if u.rates and any(b > a + 2 * HALF_3DP for a, b in itertools.pairwise(u.rates)):
            not_monotone.append(u.line)
    if mismatched:
        notes.append(
            f"the printed mean acceptance length or per-position rates do not match Accepted / Drafted "
            f"for any whole number of drafts; the counts are used (line {lines_list(mismatched)})"
        )
    if unknown:
        notes.append(uncounted_note("drafts", unknown))
    if short:
        notes.append(
            f"drafts inferred from the printed mean and rates, not Drafted / k: some drafts were shorter than k "
            f"(line {lines_list(short)})"
        )
    if rate_off:
        notes.append(f"the printed draft acceptance rate differs from Accepted / Drafted (line {lines_list(rate_off)})")
    if not_monotone:
        notes.append(
            f"per-position rates increase with position, which P(at least i + 1 accepted) cannot "
            f"(line {lines_list(not_monotone)})"
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
            notes.append("per-position rates combined weighted by each line's drafts")
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
        last = [u for u in used if u.pos >= intervals[-1]]
        if len(last) > 1 and len(ks) == 1 and all(u.rates for u in last):
            per_position = tuple(sum(u.rates[i] * u.drafted for u in last) / sum(u.drafted for u in last)
                                 for i in range(k))  # fmt: skip
            notes.append(
                f"per-position rates: the latest interval's {len(last)} engines' lines weighted by Drafted "
                "(drafts per line unknown; exact if drafts are equally long)"
            )
        elif per_position and len(used) > 1:
            notes.append("per-position rates are the latest interval's (drafts per interval unknown)")
    fits = None  # the drafts the lines' printed values fit, summed, where they do not fix them
    if drafts is None and all(f is not None for f in allowed):
        fits = (sum(lo for lo, _ in allowed), sum(hi for _, hi in allowed))
    shown = (("vllm.v1.mean_length", latest.mean), ("vllm.v1.accept_rate", latest.avg))
    record = EngineMetrics(
        ENGINE, FORMAT, k, drafts, drafted, accepted, emitted, mean, per_position, tuple(notes), accepted / drafted,
        drafts_allowed=fits,
        printed=tuple((key, v) for key, v in shown if v is not None and math.isfinite(v)),
    )  # fmt: skip
    return Found(latest.pos, record)
