"""vLLM ``vllm bench serve``'s "Speculative Decoding" section: one benchmark run, so the last section is used.

The section is the difference of the server's Prometheus counters over the run, printed with
the same definitions as vLLM V1's log line: the mean acceptance length includes the bonus
token and each per-position rate is the unconditional share of drafts that reached it.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

from ._text import HALF_2DP, NUM, Doc, Found, Needs, ReportError, check_accepted, check_rate, read_float, read_int
from .record import EngineMetrics
from .vllm_v1 import _v1_drafts

FORMAT = "vLLM bench serve"
ENGINE = "vLLM"
NEEDS = Needs(
    "vllm bench serve's 'Speculative Decoding' section",
    (
        ("'Acceptance rate (%): X'", r"Acceptance rate \(%\):"),
        ("'Acceptance length: X'", r"Acceptance length:"),
        ("'Drafts: N'", r"(?m)^[ \t]*Drafts:"),
        ("'Draft tokens: N'", r"Draft tokens:"),
        ("'Accepted tokens: N'", r"Accepted tokens:"),
    ),
)

# vllm-project/vllm, vllm/benchmarks/serve.py, first released in v0.14.0 (v0.13.0 has no such
# section). The run's deltas of the server's /metrics counters (lines 869-877@v0.14.0,
# 1157-1171@v0.34.0): acceptance rate = 100 × accepted / draft tokens, acceptance length =
# 1 + accepted / drafts, position i = accepted at position i / drafts (unconditional, as V1's log).
# Printed (lines 1037-1064@v0.14.0, 1469-1496@v0.34.0) with "{:<40} {:<10.2f}" or "{:<10}", so
# every value line ends in spaces up to ten characters:
#   ---------------Speculative Decoding---------------
#   Acceptance rate (%):                     43.71
#   Acceptance length:                       4.50
#   Drafts:                                  11043
#   Draft tokens:                            88344
#   Accepted tokens:                         38611
#   Per-position acceptance (%):
#     Position 0:                            76.17
# Users trim it by hand: lines dropped, the indentation of "Position i:" lost.
_LINE = re.compile(
    rf"^[ \t]*+(?:(?P<key>Acceptance rate \(%\)|Acceptance length|Drafts|Draft tokens|Accepted tokens"
    rf"|Position (?P<pos>\d{{1,4}})):[ \t]*+(?P<value>{NUM})|(?P<head>Per-position acceptance \(%\):)"
    rf"|-*+(?P<section>Speculative Decoding)-*+)[ \t]*+$",
    re.MULTILINE,
)
_COUNTS = ("Drafts", "Draft tokens", "Accepted tokens")
#: What makes a group of lines this section rather than some other tool's "Acceptance length:".
_OWN = ("Acceptance rate (%)", "head", "section")
# A printed per-position percentage (%.2f) as a fraction: half a unit in its last decimal.
_HALF_PCT = 0.00005 + 1e-12


def _key(m: re.Match) -> str:
    if m.group("section"):
        return "section"
    if m.group("head"):
        return "head"
    return "Position" if m.group("pos") is not None else m.group("key")


def _sections(doc: Doc) -> list[list[re.Match]]:
    """The lines of each section in order.

    A section ends at the next header, where one of its fields comes again, where a field
    follows its positions (vLLM prints them last), or where a position does not follow the last.
    """
    text = doc.text
    if "Acceptance rate (%)" not in text and "Per-position acceptance (%)" not in text:
        return []
    groups: list[list[re.Match]] = []
    seen: set[str] = set()
    last_pos = -1
    for m in _LINE.finditer(text):
        key = _key(m)
        if key == "Position":
            new = not groups or int(m.group("pos")) <= last_pos
        else:
            new = not groups or key in seen or last_pos >= 0 or (key == "section" and bool(groups[-1]))
        if new:
            groups.append([])
            seen, last_pos = set(), -1
        groups[-1].append(m)
        seen.add(key)
        if key == "Position":
            last_pos = int(m.group("pos"))
    return [g for g in groups if any(_key(m) in _OWN for m in g)]


def _fields(doc: Doc, group: list[re.Match]) -> tuple[dict, dict[int, float], int]:
    """The section's printed values by name, its positions' rates (fractions), and its line."""
    values, rates = {}, {}
    line = doc.line_of(group[0].start())
    for m in group:
        key, raw = m.group("key"), m.group("value")
        if key is None:
            continue
        where = doc.line_of(m.start())
        if key in _COUNTS:
            values[key] = read_int(raw, key, where, m.start())
            continue
        value = read_float(raw)
        if key.startswith("Position "):
            check_rate(value, key, where, m.start(), top=100.0)
            rates[int(m.group("pos"))] = value / 100.0
        elif key == "Acceptance rate (%)":
            check_rate(value, key, where, m.start(), top=100.0)
            values[key] = value / 100.0
        else:
            values[key] = value
    return values, rates, line


def _accepted_from_rates(values: dict, drafts: int | None, rates: tuple[float, ...] | None) -> tuple[int, int] | None:
    """The whole numbers of accepted tokens the printed rate, length and positions allow, (fewest, most)."""
    lo, hi = 0.0, math.inf
    tokens, rate = values.get("Draft tokens"), values.get("Acceptance rate (%)")
    length = values.get("Acceptance length")
    if tokens is not None and rate is not None:
        lo, hi = max(lo, (rate - _HALF_PCT) * tokens), min(hi, (rate + _HALF_PCT) * tokens)
    if drafts is not None and length is not None:
        lo, hi = max(lo, (length - 1.0 - HALF_2DP) * drafts), min(hi, (length - 1.0 + HALF_2DP) * drafts)
    if drafts is not None and rates:
        total, tol = sum(rates), len(rates) * _HALF_PCT
        lo, hi = max(lo, (total - tol) * drafts), min(hi, (total + tol) * drafts)
    if math.isinf(hi):
        return None
    return math.ceil(lo - 1e-9), math.floor(hi + 1e-9)


def _record(doc: Doc, group: list[re.Match]) -> EngineMetrics:
    values, by_pos, line = _fields(doc, group)
    pos = group[0].start()
    notes = []
    drafts, tokens, accepted = (values.get(k) for k in _COUNTS)
    length, rate = values.get("Acceptance length"), values.get("Acceptance rate (%)")
    k = max(by_pos) + 1 if by_pos else None
    rates = tuple(by_pos[i] for i in range(k)) if k and len(by_pos) == k else None
    if by_pos and rates is None:
        missing = [str(i) for i in range(k) if i not in by_pos]
        notes.append(f"positions {', '.join(missing)} are missing from the list, so there is no per-position profile")
    if accepted is not None and tokens is not None:
        check_accepted(accepted, tokens, ("Accepted tokens", "Draft tokens"), line, pos)
    if drafts is not None and tokens is not None and drafts > tokens:
        raise ReportError(
            f"Drafts ({drafts}) exceeds Draft tokens ({tokens}) (line {line}): every draft has at least one token", pos
        )
    if drafts is not None and k and tokens is not None and tokens > drafts * k:
        raise ReportError(
            f"Draft tokens ({tokens}) exceed Drafts × k = {drafts} × {k} (line {line}): no draft is longer than k", pos
        )
    if length is not None and not (1.0 - HALF_2DP <= length <= (k or math.inf) + 1.0 + HALF_2DP):
        raise ReportError(
            f"Acceptance length must be within [1, k + 1] (it counts the bonus token), got {length:g} (line {line})",
            pos,
        )
    allowed = None
    if drafts is None and accepted is not None and tokens:
        drafts, _, allowed = _v1_drafts(accepted, tokens, length, rates)
        if drafts is not None:
            notes.append(f"Drafts is not in the paste; {drafts:,} is the only count the printed values fit")
            allowed = None
    elif drafts is None and accepted is None and tokens and k and tokens % k == 0:
        drafts = tokens // k
        notes.append(f"Drafts is not in the paste; taken as Draft tokens / k = {drafts:,}, every draft k long")
    if accepted is None and drafts:
        fits = _accepted_from_rates(values, drafts, rates)
        if fits and fits[0] == fits[1]:
            accepted = fits[0]
            notes.append(f"Accepted tokens is not in the paste; {accepted:,} is the only count the printed values fit")
        elif fits and fits[0] <= fits[1]:
            notes.append(
                f"Accepted tokens is not in the paste; the printed values fit any of {fits[0]:,} to {fits[1]:,}"
            )
    mean = length
    if drafts and accepted is not None:
        mean = 1.0 + accepted / drafts
        if length is not None and abs(mean - length) > HALF_2DP:
            notes.append(f"the printed acceptance length {length:.2f} differs from 1 + Accepted tokens / Drafts")
    accept_rate = rate
    if accepted is not None and tokens:
        accept_rate = accepted / tokens
        if rate is not None and abs(accept_rate - rate) > _HALF_PCT:
            notes.append(f"the printed acceptance rate {100 * rate:.2f}% differs from Accepted tokens / Draft tokens")
    if drafts and rates and accepted is not None and abs(sum(rates) - accepted / drafts) > len(rates) * _HALF_PCT:
        notes.append("the per-position rates do not add up to Accepted tokens / Drafts")
    if k and drafts and tokens is not None and tokens != k * drafts:
        notes.append(f"Draft tokens ({tokens:,}) is not k × Drafts: some drafts were shorter than k = {k}")
    notes.append(
        "vllm bench serve reports the server's /metrics counters over the run: other traffic on the server in that "
        "time is counted too"
    )
    emitted = accepted + drafts if drafts and accepted is not None else None
    return EngineMetrics(
        ENGINE, FORMAT, k, drafts, tokens, accepted, emitted, mean, rates, tuple(notes), accept_rate,
        drafts_allowed=allowed,
    )  # fmt: skip


def parse(doc: Doc) -> Found | str | None:
    sections = _sections(doc)
    if not sections:
        return None
    whole = [g for g in sections if any(m.group("value") for m in g)]
    if not whole:
        return f"the vllm bench serve section at line {doc.line_of(sections[-1][0].start())} has no values"
    group = whole[-1]
    record = _record(doc, group)
    if len(whole) > 1:
        lines = ", ".join(str(doc.line_of(g[0].start())) for g in whole[:-1][-5:])
        first = (
            f"{len(whole)} 'Speculative Decoding' sections found; used the last, at line "
            f"{doc.line_of(group[0].start())} (each is a separate run; earlier ones at line {lines})"
        )
        record = replace(record, notes=(first, *record.notes))
    return Found(group[-1].start(), record)
