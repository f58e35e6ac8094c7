"""llama-server's per-request line: one per finished request, so its counts are summed.

llama-server counts draft tokens generated and accepted per request; builds after llama.cpp PR
#24536 also print the mean acceptance length (1 + accepted / verification steps, bonus token included) and
the per-position rates P(at least i + 1 accepted), like vLLM V1's: for a while on the same line,
later with the rates on a trace line of their own.
"""

from __future__ import annotations

import math
import re

from ._text import (
    HALF_2DP,
    INT,
    MAX_REPORTS,
    MAX_SEGMENT,
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
from .vllm_v1 import _v1_drafts, uncounted_note

FORMAT = "llama-server log"
ENGINE = "llama.cpp"
#: The parts a whole report has, for the message on a paste no format reads (see ``Needs``).
NEEDS = Needs(
    "a llama-server log",
    (
        ("'print_timing'", r"print_timing"),
        (
            "'draft acceptance [rate] = X (N accepted / N generated)'",
            r"draft acceptance(?: rate)? = [\d.]+ \( *\d+ accepted",
        ),
    ),
)

# ggml-org/llama.cpp, server_slot::print_timings, once per finished request (the slot's
# counts are reset with each task). Four layouts, read from the llama.cpp that llama-cpp-python's
# sdists vendor (its CHANGELOG names the commit):
# * tools/server/server.cpp lines 1552-1556 at 4227c9be (llama-cpp-python 0.3.16),
#   after a line break, so the line stands alone:
#     "draft acceptance rate = %0.5f (%5d accepted / %5d generated)\n"
# * tools/server/server-context.cpp line 514 at e3a74b299 (0.3.30), behind the slot prefix
#   "slot print_timing: id %2d | task %d | ":
#     "draft acceptance = %0.5f (%5d accepted / %5d generated)\n"
# * line 529 at f449e0553 (0.3.31), after PR #24536 ("spec: add spec metrics mean acceptance
#   length and acceptance rate per position"), the rates on the same line:
#     "draft acceptance = %0.5f (%5d accepted / %5d generated), mean acceptance length = %5.2f,
#      acceptance rate per position = (%s)\n"
# * lines 629-632 at b3fed31b9 (0.3.32) and 646-650 at 0c1e57098 (0.3.36), still so at 001d906a:
#     "draft acceptance = %0.5f (%5d accepted / %5d generated), mean len = %5.2f\n"
#   and at trace verbosity (SLT_TRC) "     acc per pos = (%s)\n".
# In both newer layouts each rate is "%.3f" of n_accepted_per_pos[i] / n_draft_verif_steps, where
# every verification step adds 1 to positions 0 … accepted - 1 (f449e0553 server-context.cpp lines
# 3578-3586): P(at least i + 1 accepted), unconditional. mean = 1 + accepted / verification steps
# (line 516). With a target that cannot drop a partly accepted draft (SWA or recurrent caches) the
# counts of these builds skip partial acceptances and count the replay as fully accepted (llama.cpp
# PR #25682, closed unmerged).
#: What k is where the per-position rates give it. At 0c1e57098 the server sizes the per-position
#: counts by ``common_speculative_n_max`` (tools/server/server-context.cpp line 3966), the largest
#: ``n_max`` of its drafters (common/speculative.cpp lines 2351-2359): ``--spec-draft-n-max`` for a
#: draft model, EAGLE-3 head or MTP (common/arg.cpp line 4140). ``--draft-max`` is removed there
#: (``arg_removed``, lines 343-344; lines 4386-4392: "use --spec-draft-n-max or --spec-ngram-mod-n-max").
K_NOTE = (
    "k is the number of per-position rates: llama-server's largest draft length, --spec-draft-n-max for a draft "
    "model (an n-gram drafter's own, such as --spec-ngram-mod-n-max); drafts can be shorter"
)
_MARKER = "draft acceptance"
_RATES = r"(?:\d{1,6}\.\d{1,12}|-?nan)(?:, (?:\d{1,6}\.\d{1,12}|-?nan)){0,1023}"
_LINE = re.compile(
    rf"draft acceptance(?: rate)? = ({NUM}) \( *({INT}) accepted / *({INT}) generated\)"
    rf"(?:, mean len = *({NUM})|, mean acceptance length = *({NUM}), acceptance rate per position = \(({_RATES})?\))?"
)
_PER_POS = re.compile(rf"acc per pos = \(({_RATES})\)")
_SLOT = re.compile(r"id +(\d{1,6}) \| task +(-?\d{1,12}) \|")


def _whole(seg, m: re.Match | None) -> bool:
    """A line is whole up to its closing ')', or with its mean's two decimals and what ends them."""
    if m is None:
        return False
    rest = seg.text[m.end() :]
    if m.group(5) is not None:  # f449e0553's layout closes with the rates' ')'
        return bool(re.fullmatch(r"\d+\.\d\d", m.group(5)))
    if m.group(4) is None:
        return not rest.startswith(",")  # a comma starts ", mean len = X": cut inside it
    return bool(re.fullmatch(r"\d+\.\d\d", m.group(4))) and (bool(rest.strip(" \t")) or seg.line_ended)


def parse(doc: Doc) -> Found | str | None:
    segments, dropped = doc.segments(_MARKER)
    if not segments:
        return None
    text = doc.text
    used, incomplete, empty = [], [], []
    for seg in segments:
        m = _LINE.match(seg.text)
        if not _whole(seg, m):
            incomplete.append(seg)
            continue
        line = doc.line_of(seg.start)
        printed = read_float(m.group(1))
        accepted = read_int(m.group(2), "accepted", line, seg.start)
        generated = read_int(m.group(3), "generated", line, seg.start)
        if generated == 0:
            empty.append(line)
            continue
        check_accepted(accepted, generated, ("accepted", "generated"), line, seg.start)
        check_rate(printed, "draft acceptance rate", line, seg.start)
        printed_mean = m.group(4) if m.group(4) is not None else m.group(5)
        mean = read_float(printed_mean) if printed_mean is not None else None
        if mean is not None and not math.isnan(mean) and mean < 1.0 - HALF_2DP:
            raise ReportError(
                f"mean len must be at least 1 (it counts the bonus token), got {mean:g} (line {line})", seg.start
            )
        # The rates are on the line (f449e0553) or on the trace line after it, of the same slot and task.
        rates = tuple(read_float(r) for r in m.group(6).split(", ")) if m.group(6) else None
        for i, r in enumerate(rates or ()):
            check_rate(r, f"acceptance rate per position {i}", line, seg.start)
        nxt = seg.start + len(seg.text)  # the line's end, if this is its last marker
        if m.group(5) is None and nxt < len(text) and text[nxt] == "\n":
            end = text.find("\n", nxt + 1, nxt + 1 + MAX_SEGMENT)
            after = text[nxt + 1 : end if end != -1 else min(len(text), nxt + 1 + MAX_SEGMENT)]
            pp = _PER_POS.search(after)
            same = _SLOT.search(seg.before), _SLOT.search(after)
            if pp and (same[0] is None or same[1] is None or same[0].groups() == same[1].groups()):
                rates = tuple(read_float(r) for r in pp.group(1).split(", "))
                for i, r in enumerate(rates):
                    check_rate(r, f"acc per pos {i}", line + 1, seg.start)
        used.append((seg.start, line, accepted, generated, printed, mean, rates))
    if not used:
        if empty:
            return f"llama-server draft acceptance lines generated no draft tokens (line {lines_list(empty)})"
        return (
            f"the llama-server 'draft acceptance' line at line {doc.line_of(incomplete[-1].start)} is incomplete "
            "(a whole line reads 'draft acceptance = X (N accepted / N generated)', 'draft acceptance rate = …' "
            "in older builds; builds after llama.cpp PR #24536 go on with ', mean len = X.XX' or, for a while, "
            "', mean acceptance length = X.XX, acceptance rate per position = (…)')"
        )
    notes = []
    if len(used) > 1:
        notes.append(f"{len(used)} requests found; their counts are summed (llama-server logs each request)")
    if incomplete:
        notes.append(f"skipped {len(incomplete)} incomplete or cut-off 'draft acceptance' line(s)")
    if dropped:
        notes.append(f"only the last {MAX_REPORTS:,} 'draft acceptance' lines were read")
    off = [u[1] for u in used if not math.isnan(u[4]) and abs(u[2] / u[3] - u[4]) > 0.000005 + 1e-9]
    if off:
        notes.append(f"the printed draft acceptance rate differs from accepted / generated (line {lines_list(off)})")
    accepted = sum(u[2] for u in used)
    generated = sum(u[3] for u in used)
    solved = [_v1_drafts(u[2], u[3], u[5], u[6]) if (u[5] is not None or u[6]) and u[2] else None for u in used]
    drafts_each = [None if s is None else s[0] for s in solved]
    allowed = [None if s is None else s[2] for s in solved]  # the steps each line's printed values fit
    latest = used[-1]
    k = len(latest[6]) if latest[6] else None
    per_position = latest[6]
    drafts = emitted = None
    if all(d is not None for d in drafts_each):
        drafts = sum(drafts_each)
        mean = 1.0 + accepted / drafts
        emitted = accepted + drafts
        ks = {len(u[6]) for u in used if u[6]}
        if len(used) > 1 and len(ks) == 1 and all(u[6] for u in used):
            per_position = tuple(
                sum(u[6][i] * d for u, d in zip(used, drafts_each, strict=True)) / drafts for i in range(k)
            )
            notes.append("per-position rates combined weighted by each request's verification steps")
    elif all(u[5] is not None and math.isfinite(u[5]) for u in used):
        mean = sum(u[5] * u[3] for u in used) / generated
        if len(used) > 1:
            notes.append("mean acceptance length: the printed values weighted by generated draft tokens")
        open_lines = [
            (u[1], fits, bool(u[6]))
            for u, d, fits in zip(used, drafts_each, allowed, strict=True)
            if d is None and fits
        ]
        if open_lines:
            notes.append(uncounted_note("verification steps", open_lines))
    else:
        mean = None
        notes.append(
            "this llama-server prints no mean acceptance length: k and the verification steps are unknown "
            "(builds after llama.cpp PR #24536 print it, ', mean len = X' or ', mean acceptance length = X')"
        )
    fits = None  # the steps the lines' printed values fit, summed, where they do not fix them
    if drafts is None and mean is not None and all(f is not None for f in allowed):
        fits = (sum(lo for lo, _ in allowed), sum(hi for _, hi in allowed))
    if k:
        notes.append(K_NOTE)
    return Found(
        latest[0],
        EngineMetrics(
            ENGINE,
            FORMAT,
            k,
            drafts,
            generated,
            accepted,
            emitted,
            mean,
            per_position,
            tuple(notes),
            accepted / generated,
            drafts_allowed=fits,
            printed=tuple(
                (key, v)
                for key, v in (("llamacpp.server.accept_rate", latest[4]), ("llamacpp.server.mean_len", latest[5]))
                if v is not None and math.isfinite(v)
            ),
        ),
    )
