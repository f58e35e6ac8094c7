"""llama.cpp's per-drafter statistics line: cumulative since the server started, so the latest line of
each drafter is its total, and the drafters' totals are summed.

llama-server prints it after each request's 'draft acceptance' line (common_speculative_print_stats),
one line per speculative implementation (draft model, EAGLE-3, MTP, n-gram …).
"""

from __future__ import annotations

import math
import re

from ._text import (
    HALF_2DP,
    HALF_3DP,
    NUM,
    Doc,
    Found,
    Needs,
    check_accepted,
    check_rate,
    lines_list,
    read_float,
    read_int,
)
from .record import EngineMetrics

FORMAT = "llama.cpp speculative statistics"
ENGINE = "llama.cpp"
NEEDS = Needs(
    "a llama.cpp 'statistics' line",
    (
        ("'statistics NAME:'", r"statistics +[A-Za-z0-9_.+-]{1,64}:"),
        ("'#calls(b,g,a) = N N N'", r"#calls\(b,g,a\) = *\d+ +\d+ +\d+"),
        ("'#gen tokens = N'", r"#gen tokens = *\d"),
        ("'#acc tokens = N'", r"#acc tokens = *\d"),
    ),
)

# ggml-org/llama.cpp common/speculative.cpp, common_speculative_print_stats, read in the llama.cpp that
# llama-cpp-python's sdists vendor (its CHANGELOG names the commit):
# * line 1239 at 63d93d173 (llama-cpp-python 0.3.22), unpadded:
#     "statistics %s: #calls(b,g,a) = %zu %zu %zu, #gen drafts = %zu, #acc drafts = %zu, #gen tokens = %zu,
#      #acc tokens = %zu%s\n"  (%s: ", dur(b,g,a) = … ms" with timing on)
#   common_speculative_accept returns early when nothing was accepted (lines 1175-1193), so #calls a
#   counts only the steps that accepted a token, as #acc drafts does;
# * line 1687 at 9e3b928fd (0.3.28) and 2096 at e3a74b299 (0.3.30): the same fields padded
#   ("statistics %16s: #calls(b,g,a) = %4zu %6zu %6zu, #gen drafts = %6zu, …"); #calls a counts every
#   verification step (e3a74b299 lines 2055-2068);
# * line 2227 at f449e0553 (0.3.31), after PR #24536, at info level: ", #mean acc len = %.2f, #acc rate/pos =
#   (%.3f, …)" added, mean = 1 + #acc tokens / #calls a and rate i = n_acc_tokens_per_pos[i] / #calls a, the
#   list as long as the longest run accepted so far (lines 2143-2148: resized to n_accepted, not to the draft
#   length), each verification adding 1 to positions 0 … accepted - 1: P(at least i + 1 accepted);
# * lines 2600 at b3fed31b9 (0.3.32) and 2967 at 0c1e57098 (0.3.36): the same at trace level (SPC_TRC,
#   "spec print_stats: " before it).
# The counters are never reset: each line covers every request since the server started.
# #gen tokens counts every draft token an implementation produced; llama-server verifies each draft, but
# from e3a74b299 on a step that restores a checkpoint (a target that cannot drop a partly accepted draft)
# skips the accept call, so #calls a and #acc tokens leave it out while #gen drafts keeps it.
_MARKER = "#calls(b,g,a) ="
_NAME = re.compile(r"statistics +([A-Za-z0-9_.+-]{1,64}): *$")
_COUNT = r"(\d{1,19})"
_LINE = re.compile(
    rf"#calls\(b,g,a\) = +{_COUNT} +{_COUNT} +{_COUNT}, #gen drafts = +{_COUNT}, #acc drafts = +{_COUNT}, "
    rf"#gen tokens = +{_COUNT}, #acc tokens = +{_COUNT}"
    rf"(?:, #mean acc len = ({NUM}), #acc rate/pos = \(((?:\d{{1,6}}\.\d{{1,12}}|-?nan)"
    rf"(?:, (?:\d{{1,6}}\.\d{{1,12}}|-?nan)){{0,1023}})?\))?"
)
_FIELDS = ("#calls b", "#calls g", "#calls a", "#gen drafts", "#acc drafts", "#gen tokens", "#acc tokens")


def _read(seg, m: re.Match, line: int) -> dict:
    counts = {f: read_int(m.group(i + 1), f, line, seg.start) for i, f in enumerate(_FIELDS)}
    check_accepted(counts["#acc tokens"], counts["#gen tokens"], ("#acc tokens", "#gen tokens"), line, seg.start)
    rates = tuple(read_float(r) for r in m.group(9).split(", ")) if m.group(9) else None
    for i, r in enumerate(rates or ()):
        check_rate(r, f"#acc rate/pos {i}", line, seg.start)
    mean = read_float(m.group(8)) if m.group(8) is not None else None
    return {**counts, "mean": mean, "rates": rates, "line": line, "pos": seg.start}


def _steps(s: dict) -> tuple[int, bool]:
    """The verification steps of one drafter, and whether #calls a had to be passed over.

    Builds like 63d93d173 count in #calls a only the steps that accepted something: there it equals
    #acc drafts and falls short of #gen drafts, every one of which was verified.
    """
    a = s["#calls a"]
    if a == s["#acc drafts"] < s["#gen drafts"] and s["mean"] is None:
        return s["#gen drafts"], True
    return a, False


def parse(doc: Doc) -> Found | str | None:
    segments, dropped = doc.segments(_MARKER)
    if not segments:
        return None
    latest: dict[str, dict] = {}
    incomplete, restarted = [], []
    for seg in segments:
        name = _NAME.search(seg.before)
        m = _LINE.match(seg.text)
        rest = seg.text[m.end() :] if m else ""
        if not name or not m or (not rest and not seg.line_ended) or (rest and rest[0] not in ",\t "):
            incomplete.append(seg)
            continue
        line = doc.line_of(seg.start)
        stats = _read(seg, m, line)
        before = latest.get(name.group(1))
        if before is not None and stats["#calls a"] < before["#calls a"]:
            restarted.append(line)
        latest[name.group(1)] = stats
    used = {n: s for n, s in latest.items() if s["#gen tokens"] > 0}
    if not used:
        if latest:
            lines = lines_list(sorted(s["line"] for s in latest.values()))
            return f"the llama.cpp speculative statistics show no draft tokens (line {lines})"
        return (
            f"the llama.cpp 'statistics' line at line {doc.line_of(incomplete[-1].start)} is incomplete (a whole one "
            "reads 'statistics NAME: #calls(b,g,a) = N N N, #gen drafts = N, #acc drafts = N, #gen tokens = N, "
            "#acc tokens = N')"
        )
    notes = [
        "llama.cpp's statistics count every request since the server started: the latest line of each drafter is used"
    ]
    if len(used) > 1:
        notes.append(f"{len(used)} drafters ({', '.join(used)}); their counts are summed")
    if incomplete:
        notes.append(f"skipped {len(incomplete)} incomplete or cut-off 'statistics' line(s)")
    if restarted:
        notes.append(f"the counts fall at line {lines_list(restarted)}: the server restarted; the latest are used")
    if dropped:
        notes.append("only the last 10,000 'statistics' lines were read")
    steps_each = {n: _steps(s) for n, s in used.items()}
    passed = [n for n, (_, over) in steps_each.items() if over]
    if passed:
        notes.append(
            f"#calls a equals #acc drafts for {', '.join(passed)} (builds like 63d93d173 count only the steps that "
            "accepted a token there): the verification steps are taken as #gen drafts"
        )
    drafts = sum(d for d, _ in steps_each.values())
    draft_tokens = sum(s["#gen tokens"] for s in used.values())
    accepted = sum(s["#acc tokens"] for s in used.values())
    skipped = [n for n, s in used.items() if s["#gen drafts"] > steps_each[n][0]]
    if skipped:
        notes.append(
            f"#gen drafts exceeds the steps verified for {', '.join(skipped)}: drafts whose step restored a checkpoint "
            "are in the draft tokens but not in the accepted ones"
        )
    mean = 1.0 + accepted / drafts if drafts else None
    off = [
        s["line"]
        for n, s in used.items()
        if s["mean"] is not None
        and not math.isnan(s["mean"])
        and abs(1.0 + s["#acc tokens"] / steps_each[n][0] - s["mean"]) > HALF_2DP
    ]
    if off:
        notes.append(f"the printed #mean acc len differs from 1 + #acc tokens / #calls a (line {lines_list(off)})")
    per_position = _rates(used, steps_each, notes)
    return Found(
        max(s["pos"] for s in used.values()),
        EngineMetrics(
            ENGINE,
            FORMAT,
            None,
            drafts or None,
            draft_tokens,
            accepted,
            accepted + drafts if drafts else None,
            mean,
            per_position,
            tuple(notes),
            accepted / draft_tokens,
        ),
    )


def _rates(used: dict, steps_each: dict, notes: list[str]) -> tuple[float, ...] | None:
    """Each drafter's rates weighted by its steps, positions past a drafter's list counting 0."""
    if not all(s["rates"] for s in used.values()):
        return None
    drafts = sum(d for d, _ in steps_each.values())
    length = max(len(s["rates"]) for s in used.values())
    rates = (
        next(iter(used.values()))["rates"]
        if len(used) == 1
        else tuple(
            sum((s["rates"][i] if i < len(s["rates"]) else 0.0) * steps_each[n][0] for n, s in used.items()) / drafts
            for i in range(length)
        )
    )
    off = [
        n
        for n, s in used.items()
        if abs(sum(s["rates"]) - s["#acc tokens"] / steps_each[n][0]) > len(s["rates"]) * HALF_3DP
    ]
    if off:
        notes.append(f"the printed #acc rate/pos of {', '.join(off)} do not add up to #acc tokens / #calls a")
    notes.append(
        f"the {length} per-position rates stop at the longest run accepted so far (llama.cpp sizes the list so), "
        "not at the draft length: k is not printed, and positions past the list have rate 0"
    )
    return rates
