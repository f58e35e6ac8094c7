"""vLLM's per-request acceptance statistics (``--per-request-spec-decode-metrics``), summed over requests.

With the flag, each OpenAI-API response carries ``"metrics": {"speculative_decoding": {…}}``: the
request's histogram of verification steps by accepted draft tokens, so the per-position counts
are exact (drafts with at least i accepted = the histogram's tail from i), with the steps, the
accepted and the drafted tokens. ``detailed`` adds each step's accepted and drafted tokens, which
say how long every draft was. Only a finished request of one sequence carries it; read from vLLM
0.34.0's source, file and line below.
"""

from __future__ import annotations

import json
import re

from ._text import MAX_REPORTS, Doc, Found, Needs, ReportError, clipped, lines_list
from .record import EngineMetrics

FORMAT = "vLLM per-request metrics"
ENGINE = "vLLM"
#: The parts a whole report has, for the message on a paste no format reads (see ``Needs``).
NEEDS = Needs(
    "vLLM per-request metrics",
    (
        ("'\"speculative_decoding\"'", r'"speculative_decoding"'),
        ("'\"acceptance_histogram\"'", r'"acceptance_histogram"'),
    ),
)

# Read from vLLM 0.34.0's wheel (vllm/_version.py: commit 62d4bc3c7); "line N" is a line of that
# release's file. The feature came with vllm-project/vllm PR #48915; the first release wheel that
# has it is 0.29.0 (0.27.1 and 0.28.0 have neither the flag nor the class).
# * vllm/engine/arg_utils.py:1713 adds `--per-request-spec-decode-metrics`, one of none (the
#   default), summary or detailed (vllm/config/observability.py:52); vllm/config/vllm.py:1665-1672
#   refuses it without --speculative-config.
# * vllm/v1/metrics/stats.py:350 RequestSpecDecodeMetrics: one a request, its histogram
#   num_speculative_tokens + 1 long (vllm/v1/core/sched/scheduler.py:3087-3090 and 299). Each
#   verify step adds 1 to histogram[j] for its j accepted draft tokens and its drafted tokens,
#   less those the grammar invalidated, to num_draft_tokens; "detailed" appends both to
#   per_step_accepted and per_step_drafted (stats.py:388-395, called at scheduler.py:2418-2431).
# * stats.py:397-422 to_dict writes mean_acceptance_length, draft_acceptance_rate,
#   acceptance_histogram, num_spec_steps (the histogram's sum), num_accepted_draft_tokens
#   (sum of j × histogram[j]), num_draft_tokens and num_spec_tokens, and the per-step arrays only
#   when they are not empty (line 419), so never for "summary" nor for a request with no step.
# * vllm/entrypoints/generate/base/protocol.py:100-119 SpeculativeDecodingMetrics gives the
#   per-step arrays a default of None, and a response is written with model_dump()
#   (vllm/entrypoints/openai/chat_completion/api_router.py:75-76, completion/api_router.py:67-68),
#   so a whole response has "per_step_accepted": null, "per_step_drafted": null where they are
#   missing; a stream's last chunk, the only one with metrics and only with
#   stream_options.include_usage (chat_completion/serving.py:894-923), leaves them out (its
#   model_dump_json(exclude_none=True) for a chunk with no choices, serving.py:498-501).
# * The object sits under the response's "metrics" (protocol.py:122-129), for a request of one
#   sequence only, n == 1 (chat_completion/serving.py:1136; completions of one prompt,
#   completion/serving.py:752), once the request has finished (vllm/v1/engine/output_processor.py:530).
# The "acceptance_histogram_by_draft_length" (PR #56278) is not in 0.34.0: not read here.
_MARKER = '"speculative_decoding"'
_OBJECT = re.compile(r'"speculative_decoding"[ \t\r\n]*:[ \t\r\n]*(\{[^{}]{0,262144}+\})')
#: Longest draft length read: the per-position rates are the histogram's, one a position.
MAX_SPEC_TOKENS = 1024


def _count(value, name: str, line: int, pos: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 10**15:
        raise ReportError(
            f"{name} must be a whole count from 0 to 10^15 − 1, got {clipped(repr(value))} (line {line})", pos
        )
    return value


def _counts(value, name: str, line: int, pos: int, most: int) -> list[int]:
    if not isinstance(value, list) or not value or len(value) > most:
        raise ReportError(
            f"{name} must be a list of 1 to {most:,} counts, got {clipped(repr(value))} (line {line})", pos
        )
    return [_count(v, f"{name}[{i}]", line, pos) for i, v in enumerate(value)]


def _request(stats: dict, line: int, pos: int) -> tuple[list[int], int, int, tuple[list[int], list[int]] | None]:
    """One request's histogram, its drafted tokens and k, and each step's drafted and accepted tokens (detailed)."""
    k = _count(stats.get("num_spec_tokens"), "num_spec_tokens", line, pos)
    if not 1 <= k <= MAX_SPEC_TOKENS:
        raise ReportError(f"num_spec_tokens must be within 1 to {MAX_SPEC_TOKENS}, got {k} (line {line})", pos)
    hist = _counts(stats.get("acceptance_histogram"), "acceptance_histogram", line, pos, MAX_SPEC_TOKENS + 1)
    if len(hist) != k + 1:
        raise ReportError(
            f"acceptance_histogram has {len(hist)} entries; num_spec_tokens = {k} needs {k + 1} (0 to {k} accepted) "
            f"(line {line})",
            pos,
        )
    steps = sum(hist)
    accepted = sum(j * n for j, n in enumerate(hist))
    drafted = _count(stats.get("num_draft_tokens"), "num_draft_tokens", line, pos)
    for name, counted in (("num_spec_steps", steps), ("num_accepted_draft_tokens", accepted)):
        value = stats.get(name)
        if value is not None and _count(value, name, line, pos) != counted:
            raise ReportError(f"{name} = {value} is not what acceptance_histogram counts, {counted} (line {line})", pos)
    if not accepted <= drafted <= steps * k:
        raise ReportError(
            f"num_draft_tokens = {drafted} must be within [accepted, steps × k] = [{accepted}, {steps * k}] "
            f"(line {line})",
            pos,
        )
    if stats.get("per_step_drafted") is None and stats.get("per_step_accepted") is None:
        # "summary" writes no per-step arrays (null in a whole response), nor does "detailed" for a
        # request with no step, which has none to give.
        return hist, drafted, k, (([], []) if steps == 0 else None)
    per_step = _counts(stats.get("per_step_drafted"), "per_step_drafted", line, pos, 10**7)
    done = _counts(stats.get("per_step_accepted"), "per_step_accepted", line, pos, 10**7)
    if len(per_step) != steps or len(done) != steps or sum(per_step) != drafted:
        raise ReportError(
            f"per_step_drafted and per_step_accepted must have num_spec_steps = {steps} entries adding up to "
            f"num_draft_tokens and the histogram (line {line})",
            pos,
        )
    if any(not a <= d <= k for a, d in zip(done, per_step, strict=True)):
        raise ReportError(f"a step accepted more than it drafted, or drafted more than k = {k} (line {line})", pos)
    tally = [0] * (k + 1)
    for a in done:
        tally[a] += 1
    if tally != hist:  # vLLM adds each step to both (vllm/v1/metrics/stats.py:391 and 394)
        raise ReportError(
            f"per_step_accepted counts {clipped(repr(tally))} steps by accepted tokens, not acceptance_histogram's "
            f"{clipped(repr(hist))} (line {line})",
            pos,
        )
    return hist, drafted, k, (per_step, done)


def parse(doc: Doc) -> Found | str | None:
    text = doc.text
    first, dropped = doc.tail(_MARKER)
    at = text.find(_MARKER, first)
    if at == -1:
        return None
    used, bad = [], []
    while at != -1:
        m = _OBJECT.match(text, at)
        line = doc.line_of(at)
        try:
            stats = json.loads(m.group(1)) if m else None
        except (ValueError, RecursionError):
            stats = None
        if isinstance(stats, dict) and "acceptance_histogram" in stats:
            used.append((at, line, _request(stats, line, at)))
        else:
            bad.append(line)
        at = text.find(_MARKER, at + len(_MARKER))
    if not used:
        return (
            f'the "speculative_decoding" object at line {lines_list(bad)} is not a whole JSON object with an '
            '"acceptance_histogram" (cut off, longer than 256 KiB, or not vLLM\'s per-request metrics)'
        )
    notes = []
    if len(used) > 1:
        notes.append(f"{len(used)} requests found; their histograms are summed")
    if bad:
        notes.append(
            f'skipped {len(bad)} unreadable or cut-off "speculative_decoding" object(s) (line {lines_list(bad)})'
        )
    if dropped:
        notes.append(f"only the last {MAX_REPORTS:,} requests were read")
    ks = sorted({req[2] for _, _, req in used})
    k = ks[-1]
    if len(ks) > 1:
        notes.append(f"the requests report different draft lengths {ks}; k is the longest")
    hist = [0] * (k + 1)
    for _, _, (h, _, _, _) in used:
        for j, n in enumerate(h):
            hist[j] += n
    drafts = sum(hist)
    if drafts == 0:
        return "vLLM's per-request metrics show no verification steps (num_spec_steps is 0 in every request)"
    accepted = sum(j * n for j, n in enumerate(hist))
    draft_tokens = sum(req[1] for _, _, req in used)
    tail = [sum(hist[i:]) for i in range(1, k + 1)]  # drafts with at least i accepted
    reached = by_length = None
    if all(req[3] is not None for _, _, req in used):
        lengths = [d for _, _, req in used for d in req[3][0]]
        done = [a for _, _, req in used for a in req[3][1]]
        reached = tuple(sum(1 for d in lengths if d >= i) for i in range(1, k + 1))
        by_length = tuple(
            (d, lengths.count(d), sum(a for a, n in zip(done, lengths, strict=True) if n == d))
            for d in sorted(set(lengths))
        )
        notes.append(f"each step's drafted tokens (detailed): drafts of {min(lengths)} to {max(lengths)} tokens")
    return Found(
        used[-1][0],
        EngineMetrics(
            ENGINE,
            FORMAT,
            k,
            drafts,
            draft_tokens,
            accepted,
            accepted + drafts,
            1.0 + accepted / drafts,
            tuple(t / drafts for t in tail),
            tuple(notes),
            accepted / draft_tokens if draft_tokens else None,
            position_drafts=reached,
            by_draft_length=by_length,
        ),
    )
