"""vLLM's offline speculative decoding example printout: one run's totals, so the last printout is used.

``examples/offline_inference/spec_decode.py`` (``eagle.py`` before v0.10.0) sums the engine's
counters over the run and prints them with V1's definitions: the mean acceptance length
includes the bonus token and "acceptance at token i" is the unconditional share of drafts that
reached position i.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

from ._text import HALF_2DP, NUM, Doc, Found, Needs, ReportError, check_accepted, check_rate, read_float, read_int
from .record import EngineMetrics

FORMAT = "vLLM offline example"
ENGINE = "vLLM"
#: Only the mean is in every layout: the printout of vLLM 0.8.0-0.8.4 has no counts.
NEEDS = Needs("vLLM's offline example printout", (("'mean acceptance length: X'", r"mean acceptance length:"),))

# vllm-project/vllm, examples/offline_inference/, over the releases:
#   eagle.py:92-93@v0.8.0 (to 103-104@v0.8.4) prints only "mean acceptance length:" with the
#     continued f-string's indentation before the value, sum(counts) / counts[0] of V0's
#     spec_token_acceptance_counts (counts[0] = steps, so the bonus token is included).
#   eagle.py:111-118@v0.8.5 would add "acceptance at token i:X" for i = 0 … k with token 0 = 1.00,
#     but returns before printing (line 98 tests hasattr(outputs, "metrics") on a list).
#   eagle.py:129-135@v0.9.0: "mean acceptance length: X" = 1 + accepted / drafts and
#     "acceptance at token i:X" = accepted at position i / drafts, i = 0 … k - 1 (no space).
#   spec_decode.py:129-141@v0.10.0 (189-200@v0.14.0; features/speculative_decoding/
#     spec_decode_offline.py:202-214@v0.34.0) adds the counts from llm.get_metrics() (the
#     vllm:spec_decode_* counters, summed over engines) and a space after the colon:
#       total_num_output_tokens: N     (every request's output tokens, prefill token included)
#       num_drafts: N
#       num_draft_tokens: N
#       num_accepted_tokens: N
#       mean acceptance length: X      (%.2f)
#       acceptance at token i: X       (%.2f)
_LINE = re.compile(
    rf"^[ \t]*+(?:(?P<key>total_num_output_tokens|num_drafts|num_draft_tokens|num_accepted_tokens"
    rf"|mean acceptance length):[ \t]*+(?P<value>{NUM})|acceptance at token (?P<pos>\d{{1,4}}):[ \t]*+(?P<rate>{NUM}))"
    r"[ \t]*+$",
    re.MULTILINE,
)
_COUNTS = ("total_num_output_tokens", "num_drafts", "num_draft_tokens", "num_accepted_tokens")
# Half a unit in the last decimal of a rate printed with %.2f.
_HALF = HALF_2DP


def _printouts(doc: Doc) -> list[list[re.Match]]:
    """The lines of each printout in order; one ends where a field comes again or a count follows the rates."""
    text = doc.text
    if "mean acceptance length:" not in text and "num_accepted_tokens:" not in text:
        return []
    groups: list[list[re.Match]] = []
    seen: set[str] = set()
    last_pos = -1
    for m in _LINE.finditer(text):
        key = m.group("key") or "pos"
        if key == "pos":
            new = not groups or int(m.group("pos")) <= last_pos
        else:
            new = not groups or key in seen or last_pos >= 0
        if new:
            groups.append([])
            seen, last_pos = set(), -1
        groups[-1].append(m)
        seen.add(key)
        if key == "pos":
            last_pos = int(m.group("pos"))
    return [g for g in groups if any(m.group("key") in ("mean acceptance length", "num_accepted_tokens") for m in g)]


def _record(doc: Doc, group: list[re.Match]) -> EngineMetrics:
    line, pos = doc.line_of(group[0].start()), group[0].start()
    values: dict[str, float | int] = {}
    by_pos: dict[int, float] = {}
    for m in group:
        where = doc.line_of(m.start())
        if m.group("key") in _COUNTS:
            values[m.group("key")] = read_int(m.group("value"), m.group("key"), where, m.start())
        elif m.group("key"):
            values[m.group("key")] = read_float(m.group("value"))
        else:
            rate = read_float(m.group("rate"))
            check_rate(rate, f"acceptance at token {m.group('pos')}", where, m.start())
            by_pos[int(m.group("pos"))] = rate
    notes = []
    drafts, tokens, accepted = (values.get(k) for k in ("num_drafts", "num_draft_tokens", "num_accepted_tokens"))
    printed = values.get("mean acceptance length")
    k = max(by_pos) + 1 if by_pos else None
    rates = tuple(by_pos[i] for i in range(k)) if k and len(by_pos) == k else None
    if by_pos and rates is None:
        notes.append("some 'acceptance at token i' lines are missing, so there is no per-position profile")
    if rates and printed is not None and len(rates) > 1 and rates[0] >= 1.0 - _HALF:
        # v0.8.5's list (never printed by the released script) starts with the always-accepted token 0.
        tol = len(rates) * _HALF + HALF_2DP
        if abs(sum(rates) - printed) <= tol < abs(1.0 + sum(rates) - printed):
            rates, k = rates[1:], k - 1
            notes.append("the list starts with token 0 at 1.00, the target's own token (eagle.py of v0.8.5); dropped")
    if accepted is not None and tokens is not None:
        check_accepted(accepted, tokens, ("num_accepted_tokens", "num_draft_tokens"), line, pos)
    if drafts is not None and tokens is not None and drafts > tokens:
        raise ReportError(
            f"num_drafts ({drafts}) exceeds num_draft_tokens ({tokens}) (line {line}): every draft has at least one "
            "token",
            pos,
        )
    if drafts and k and tokens is not None and tokens > drafts * k:
        raise ReportError(
            f"num_draft_tokens ({tokens}) exceeds num_drafts × k = {drafts} × {k} (line {line}): no draft is longer "
            "than k",
            pos,
        )
    top = (k or math.inf) + 1.0
    if printed is not None and math.isfinite(printed) and not 1.0 - HALF_2DP <= printed <= top + HALF_2DP:
        raise ReportError(
            f"mean acceptance length must be within [1, k + 1] (it counts the bonus token), got {printed:g} "
            f"(line {line})",
            pos,
        )
    mean = printed
    emitted = None
    if drafts and accepted is not None:
        mean = 1.0 + accepted / drafts
        emitted = accepted + drafts
        if printed is not None and abs(printed - mean) > HALF_2DP:
            notes.append(f"the printed mean acceptance length {printed:.2f} differs from 1 + accepted / drafts")
        if rates and abs(sum(rates) - accepted / drafts) > len(rates) * _HALF:
            notes.append("the 'acceptance at token i' rates do not add up to accepted / drafts")
        output = values.get("total_num_output_tokens")
        if output is not None:
            notes.append(
                f"total_num_output_tokens ({output:,}) counts the requests' output apart from the drafting steps (each "
                f"request's first token in, tokens past a stop out); emitted here is accepted + drafts = {emitted:,}"
            )
    elif drafts == 0:
        notes.append("num_drafts is 0: nothing was drafted")
    if k and drafts and tokens is not None and tokens != k * drafts:
        notes.append(f"num_draft_tokens ({tokens:,}) is not k × num_drafts: some drafts were shorter than k = {k}")
    if printed is not None and drafts is None and accepted is None and not rates:
        notes.append("the printout has only the mean acceptance length (eagle.py of vLLM 0.8.0-0.8.4): no counts, no k")
    accept_rate = accepted / tokens if accepted is not None and tokens else None
    return EngineMetrics(ENGINE, FORMAT, k, drafts or None, tokens, accepted, emitted, mean, rates, tuple(notes),
                         accept_rate)  # fmt: skip


def parse(doc: Doc) -> Found | str | None:
    groups = _printouts(doc)
    if not groups:
        return None
    group = groups[-1]
    record = _record(doc, group)
    if record.mean_acceptance_length is None and record.accepted is None:
        return f"the vLLM offline example printout at line {doc.line_of(group[0].start())} has no readable values"
    if len(groups) > 1:
        first = (
            f"{len(groups)} offline example printouts found; used the last, at line {doc.line_of(group[0].start())} "
            "(each is a separate run)"
        )
        record = replace(record, notes=(first, *record.notes))
    return Found(group[-1].start(), record)
