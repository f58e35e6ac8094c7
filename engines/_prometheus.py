"""What the Prometheus scrape readers share: the latest sample of each series, summed over label sets.

Private to :mod:`engines`. A :class:`Scheme` names one engine's counters; :func:`parse`
reads them as :mod:`engines.vllm_prometheus` describes (vLLM's scrape, and llama-server's,
which copies vLLM's counter names under its own prefix).

The sample lines are found here, in a paste that may hold log lines, several scrapes and a cut
last line; each one found is read by prometheus_client's own text parser
(:func:`read_sample`), which would refuse the whole paste for one such line.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from prometheus_client.parser import text_string_to_metric_families

from ._text import MAX_REPORTS, Doc, Found, ReportError, check_accepted, in_comment
from .record import EngineMetrics


class Scheme(NamedTuple):
    """One engine's speculative decoding counters in a scrape."""

    format: str
    engine: str
    #: A sample line of a counter: group 1 the short name (a key of ``names``), 2 the labels, 3 the value.
    sample: re.Pattern
    #: Short name -> the name the messages use.
    names: dict[str, str]
    #: What every counter's sample name holds, to find the last samples quickly.
    needle: str
    #: Where an OpenMetrics scrape's sample name has "_" for the prefix's ":" (None: no such scrape).
    colon_at: int | None
    #: Whether counters that are all 0 mean "no speculative decoding" (they are written regardless).
    zero_is_off: bool = False
    #: Why a count printed with an exponent is rounded, when the engine prints counts that way.
    rounding: str | None = None
    #: The significant digits such a count keeps (with ``rounding``): it is off by at most half a
    #: unit of the last one.
    digits: int = 0


def rounding_error(count: int, digits: int) -> float:
    """The most a whole ``count`` printed at ``digits`` significant digits differs from the count
    counted: half a unit in the last digit kept, ``0.5 * 10 ** (floor(log10(count)) - digits + 1)``."""
    return 0.5 * 10.0 ** (math.floor(math.log10(count)) - digits + 1) if count > 0 else 0.0


def read_sample(doc: Doc, start: int, end: int) -> tuple[tuple[tuple[str, str], ...], float]:
    """The labels (sorted) and the value of the sample line at ``doc.text[start:end]``, as
    prometheus_client's text parser reads it (timestamps and exemplars are read past, not used)."""
    try:
        (family,) = text_string_to_metric_families(doc.text[start:end] + "\n")
        (sample,) = family.samples
    except ValueError as exc:
        raise ReportError(f"line {doc.line_of(start)} is not a Prometheus sample: {exc}", start) from None
    return tuple(sorted(sample.labels.items())), float(sample.value)


def _prom_count(value: float, raw: str, name: str, line: int, pos: int) -> int:
    if not math.isfinite(value) or value < 0 or not value.is_integer() or value >= 2**53:
        raise ReportError(f"{name} must be a non-negative whole count, got {raw} (line {line})", pos)
    return int(value)


def last_sample(latest: dict) -> int:
    return max(entry[1] for entry in latest.values())


def parse(doc: Doc, scheme: Scheme) -> Found | str | None:
    text = doc.text
    first, dropped = doc.tail(scheme.needle)
    latest: dict[tuple[str, str], tuple[str, int, int]] = {}  # (name, labels as written) -> (value, start, end)
    cut = 0
    underscored = False
    for m in scheme.sample.finditer(text, first):
        if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_:"):
            continue
        if in_comment(text, m.start()):
            continue  # "# HELP vllm:spec_decode_num_drafts 12": a HELP text, not a sample
        raw = m.group(3)
        if m.end() == len(text) and not doc.ends_with_newline and not re.search(r"[.eEIN]", raw):
            cut += 1  # a last line without a line break whose value may be cut ("12" of "1234.0")
            continue
        latest[(m.group(1), m.group(2) or "")] = (raw, m.start(), m.end())
        underscored = underscored or (scheme.colon_at is not None and text[m.start() + scheme.colon_at] == "_")
    if not latest:
        if cut:
            return f"the only {scheme.needle} sample is on a last line without a line break and may be cut off"
        return None
    series: dict[tuple, tuple[str, int, float]] = {}  # (name, labels) -> latest (value as written, offset, value)
    for (short, _), (raw, pos, end) in sorted(latest.items(), key=lambda item: item[1][1]):
        labels, value = read_sample(doc, pos, end)
        series[(short, labels)] = (raw, pos, value)
    totals: dict[str, int] = {}
    per_pos: dict[int, int] = {}
    label_sets = set()
    last_pos = 0
    rounded = []
    error: dict[str, float] = {}  # short name -> how far its total may be from the count, as printed
    for (short, labels), (raw, pos, value) in sorted(series.items(), key=lambda item: item[1][1]):
        line = doc.line_of(pos)
        name = scheme.names[short]
        count = _prom_count(value, raw, name, line, pos)
        if scheme.rounding and ("e" in raw or "E" in raw):
            rounded.append(f"{name} = {raw}")
            error[short] = error.get(short, 0.0) + rounding_error(count, scheme.digits)
        last_pos = max(last_pos, pos)
        rest = tuple(kv for kv in labels if kv[0] != "position")
        label_sets.add(rest)
        if short == "num_accepted_tokens_per_pos":
            position = dict(labels).get("position")
            if position is None or not re.fullmatch(r"\d{1,4}", position):
                raise ReportError(
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
        notes.append(f"only the last {MAX_REPORTS:,} {scheme.needle} samples were read")
    if rounded:
        notes.append(f"{', '.join(rounded[:3])}{' …' if len(rounded) > 3 else ''}: {scheme.rounding}")
    if underscored and "# EOF" not in text[last_sample(latest) :]:
        notes.append(
            "the OpenMetrics scrape (names with '_' for ':') has no '# EOF' after its last sample: it may be cut off"
        )
    drafts = totals.get("num_drafts")
    draft_tokens = totals.get("num_draft_tokens")
    accepted = totals.get("num_accepted_tokens")
    emitted = totals.get("num_emitted_tokens")
    if accepted is not None and draft_tokens is not None:
        check_accepted(
            accepted,
            draft_tokens,
            (scheme.names["num_accepted_tokens"], scheme.names["num_draft_tokens"]),
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
            # A per-position count is written whole; the drafts total may be rounded, by up to error.
            for i in range(k):
                if per_pos[i] > drafts + error.get("num_drafts", 0.0):
                    raise ReportError(
                        f'{scheme.names["num_accepted_tokens_per_pos"]}{{position="{i}"}} ({per_pos[i]}) exceeds '
                        f"{scheme.names['num_drafts']} ({drafts}): a rate above 1",
                        last_pos,
                    )
            counted = max(drafts, *per_pos.values())
            if counted > drafts:
                notes.append(
                    f"the per-position rates are over {counted:,} drafts, the fewest the whole per-position counts "
                    f"allow: {scheme.names['num_drafts']} = {drafts:,} is rounded as printed"
                )
            per_position = tuple(per_pos[i] / counted for i in range(k))
        off = abs(sum(per_pos.values()) - accepted) if k and accepted is not None else 0
        if off > error.get("num_accepted_tokens", 0.0):
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
        room = error.get("num_draft_tokens", 0.0) + k * error.get("num_drafts", 0.0) if k else 0.0
        if k and draft_tokens is not None and draft_tokens > drafts * k + room:
            notes.append(f"more draft tokens ({draft_tokens}) than drafts × k ({drafts} × {k})")
    elif drafts == 0:
        if scheme.zero_is_off and not draft_tokens and not accepted:
            return (
                f"{scheme.names['num_drafts']} and the other counters are all 0: speculative decoding is off "
                "or nothing was drafted yet"
            )
        notes.append(f"nothing drafted yet ({scheme.names['num_drafts']} is 0)")
    if accepted is None and drafts is None and draft_tokens is None:
        return f"{scheme.needle} samples were found, but no drafts, draft tokens or accepted tokens counter"
    v0 = "num_emitted_tokens" in totals
    rate = accepted / draft_tokens if not v0 and accepted is not None and draft_tokens else None
    return Found(
        last_pos,
        EngineMetrics(
            scheme.engine,
            scheme.format,
            k,
            drafts,
            draft_tokens,
            accepted,
            emitted,
            mean,
            per_position,
            tuple(notes),
            rate,
        ),
    )
