"""llama-server's response ``timings``: the draft tokens of one request and those accepted, summed over
responses.

They count no verification steps, so the record has the share accepted but no mean acceptance
length and no k.
"""

from __future__ import annotations

import re

from ._text import MAX_REPORTS, Doc, Found, Needs, check_accepted, lines_list, read_int
from .record import EngineMetrics

FORMAT = "llama-server timings"
ENGINE = "llama.cpp"
NEEDS = Needs(
    "llama-server's response timings",
    (
        ("'\"draft_n\": N'", r'"draft_n"[ \t\r\n]*:[ \t\r\n]*\d'),
        ("'\"draft_n_accepted\": N'", r'"draft_n_accepted"[ \t\r\n]*:[ \t\r\n]*\d'),
    ),
)

# ggml-org/llama.cpp, the "timings" object of /completion and the OpenAI-compatible responses, added by
# PR #12603 (draft_n and draft_n_accepted, only when draft_n > 0):
# * tools/server/server-task.cpp lines 240-261 at f449e0553 (llama-cpp-python 0.3.31),
#   result_timings::to_json: draft_n = n_draft_total, draft_n_accepted = n_draft_accepted
#   (server-context.cpp lines 421-422), the same counts as the 'draft acceptance' log line;
# * tools/server/server-common.cpp lines 84-105 at 0c1e57098 (0.3.36), server_slot_stats::to_json.
# A streamed response carries the object on its last chunk, and on every chunk with
# "timings_per_token": true (server-context.cpp lines 2062-2065 at 0c1e57098), counts so far; those
# chunks say "stop": false (/completion) or "finish_reason": null (OpenAI-compatible), and are skipped.
# No version prints the verification steps (PR #27676, which would add draft_n_verif_steps, was closed).
_MARKER = '"draft_n_accepted"'
_FIELD = re.compile(r'"(draft_n|draft_n_accepted|predicted_n)"[ \t\r\n]*:[ \t\r\n]*([+-]?\d++(?:\.\d++)?)')
_PARTIAL = re.compile(r'"stop"[ \t]*:[ \t]*false|"finish_reason"[ \t]*:[ \t]*null')
_MOST = 4096  # the timings object is flat and short: look this far for its braces


def parse(doc: Doc) -> Found | str | None:
    text = doc.text
    first, dropped = doc.tail(_MARKER)
    used, partial, incomplete = [], [], []
    at = text.find(_MARKER, first)
    while at != -1:
        nxt = text.find(_MARKER, at + len(_MARKER))
        open_at = text.rfind("{", max(0, at - _MOST), at)
        close_at = text.find("}", at, at + _MOST)
        line = doc.line_of(at)
        if open_at == -1 or close_at == -1 or "}" in text[open_at:at] or (nxt != -1 and close_at > nxt):
            incomplete.append(line)
            at = nxt
            continue
        fields = dict(_FIELD.findall(text, open_at, close_at))
        if "draft_n" not in fields or "draft_n_accepted" not in fields:
            incomplete.append(line)
            at = nxt
            continue
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        if _PARTIAL.search(text, start, end if end != -1 else len(text)):
            partial.append(line)
            at = nxt
            continue
        drafted = read_int(fields["draft_n"], "draft_n", line, at)
        accepted = read_int(fields["draft_n_accepted"], "draft_n_accepted", line, at)
        check_accepted(accepted, drafted, ("draft_n_accepted", "draft_n"), line, at)
        predicted = read_int(fields["predicted_n"], "predicted_n", line, at) if "predicted_n" in fields else None
        used.append((at, line, drafted, accepted, predicted))
        at = nxt
    used = [u for u in used if u[2] > 0]
    if not used:
        if partial:
            return (
                f"the llama-server timings at line {lines_list(partial)} are of streamed chunks still under way "
                "('\"stop\": false' or '\"finish_reason\": null'); paste the last chunk of each response"
            )
        if incomplete:
            return (
                f"the llama-server timings at line {lines_list(incomplete)} are incomplete (a whole object holds "
                '"draft_n": N and "draft_n_accepted": N between its braces)'
            )
        return None
    drafted = sum(u[2] for u in used)
    accepted = sum(u[3] for u in used)
    notes = []
    if len(used) > 1:
        notes.append(f"{len(used)} responses found; their counts are summed (llama-server times each request)")
    if partial:
        notes.append(f"skipped {len(partial)} streamed chunk(s) still under way (line {lines_list(partial)})")
    if incomplete:
        notes.append(f"skipped {len(incomplete)} incomplete timings object(s)")
    if dropped:
        notes.append(f"only the last {MAX_REPORTS:,} timings objects were read")
    steps = ""
    if all(u[4] is not None for u in used):
        upper = sum(u[4] for u in used) - accepted
        steps = f"; predicted_n - draft_n_accepted = {upper:,} target steps, those without a draft included"
    notes.append(
        "llama-server's timings count draft tokens, not verification steps: no mean acceptance length and no k" + steps
    )
    return Found(
        used[-1][0],
        EngineMetrics(
            ENGINE, FORMAT, None, None, drafted, accepted, None, None, None, tuple(notes), accepted / drafted
        ),
    )
