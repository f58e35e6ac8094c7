"""SGLang decode-batch log lines: the mean accept length, weighted by batch size.

SGLang's accept length is tokens per verification step including the bonus token, like vLLM
V1's mean acceptance length; it prints no counts. Its accept rate has meant two things: accept
len ÷ (k + 1) in 0.5.3.post2 – 0.5.10.post1, accepted ÷ drafted from 0.5.11 on
(:mod:`engines.definitions` cites both); :func:`rate_meaning` tells which a paste prints.
"""

from __future__ import annotations

import math
import re

from ._text import (
    HALF_2DP,
    INT,
    MAX_REPORTS,
    NUM,
    Doc,
    Found,
    Needs,
    ReportError,
    Segment,
    check_rate,
    eagle_topk,
    lines_list,
    read_float,
    read_int,
    tree_note,
)
from .definitions import accept_rate as converted_rate
from .record import EngineMetrics

FORMAT = "SGLang log"
ENGINE = "SGLang"
#: The parts a whole report has, for the message on a paste no format reads (see ``Needs``).
NEEDS = Needs(
    "an SGLang decode-batch log line",
    (("'Decode batch'", r"Decode batch"), ("'accept len: X,'", r"accept len: \d")),
)

# sgl-project/sglang at 00df707e, python/sglang/srt/managers/scheduler_components/metrics_reporter.py,
# MetricsReporter.report_decode_stats, every decode_log_interval decode steps:
#   "Decode batch, #running-req: N, #cached-token: N, #token: N, token usage: X, accept len: X.XX,
#    accept rate: X.XX, cuda graph: …, gen throughput (token/s): …, #queue-req: N"
# with accept len = spec_num_accept_tokens / spec_num_forward_ct, where each verification adds its
# accepted drafts + 1 (update_spec_metrics), so it includes the bonus token and is 1 + accepted /
# drafts; accept rate = (accept tokens - forward ct) / (forward ct x (speculative_num_draft_tokens
# - 1)), accepted / drafted for a chain. No k is printed, nor the counts (reset after each line).
# Earlier, read in the PyPI wheels: 0.5.3.post1 and before print no accept rate (0.5.1
# srt/managers/scheduler_metrics_mixin.py:181, 0.4.9 srt/managers/scheduler.py:1372); 0.5.3.post2
# to 0.5.5 print accept rate = accept len / (speculative_num_steps + 1) (0.5.3.post3
# scheduler_metrics_mixin.py:260-268), 0.5.6 to 0.5.10.post1 accept len /
# speculative_num_draft_tokens (0.5.6 scheduler_metrics_mixin.py:280-288), both accept len ÷ (k + 1)
# for a chain; 0.5.11 on (0.5.11 srt/observability/scheduler_metrics_mixin.py:531-543) accepted
# drafts / (steps × (speculative_num_draft_tokens − 1)). The line's head was "Decode batch. #running-req"
# to 0.5.3.post3 (line 251), "Decode batch [N], #running-req" in 0.5.4 and "Decode batch, #running-req"
# from 0.5.5 on (" [N]" with SGLANG_LOG_FORWARD_ITERS; 0.5.5 line 266), so a rate on a "Decode batch."
# line is accept len ÷ (k + 1).
_SGL_MARKER = "accept len: "
_SGL_LEN = re.compile(rf"accept len: ({NUM})")
_SGL_RATE = re.compile(rf"accept rate: ({NUM})")
_SGL_RUNNING = re.compile(rf"#running-req: ({INT})\b")
_OLD_HEAD = "Decode batch. "  # the head of 0.5.3.post3 and before: a rate there is accept len ÷ (k + 1)

#: The registry keys of SGLang's printed figures (:mod:`engines.definitions`).
LENGTH_KEY, OVER_K1, DRAFTED = "sglang.accept_len", "sglang.accept_rate.over_k1", "sglang.accept_rate.drafted"
_WORDS = {
    DRAFTED: "accepted ÷ drafted (SGLang 0.5.11 on)",
    OVER_K1: "accept len ÷ (k + 1) (SGLang 0.5.3.post2 – 0.5.10.post1)",
}
#: Draft lengths tried when the printed values tell the rate's meaning.
MAX_FIT_K = 64


def _fits(length: float, rate: float, k: int, key: str) -> bool:
    """Whether accept len and accept rate, each printed to two decimals, agree at draft length k under ``key``."""
    low, high = length - HALF_2DP, length + HALF_2DP
    if high < 1.0 or low > k + 1:  # a chain of k verifies at most k + 1 tokens
        return False
    span = ((low - 1.0) / k, (high - 1.0) / k) if key == DRAFTED else (low / (k + 1), high / (k + 1))
    return span[0] - HALF_2DP <= rate <= span[1] + HALF_2DP


def fitting_k(pairs: list[tuple[float, float]], key: str) -> list[int]:
    """The draft lengths 1 to :data:`MAX_FIT_K` at which every (accept len, accept rate) pair fits ``key``."""
    return [k for k in range(1, MAX_FIT_K + 1) if all(_fits(length, rate, k, key) for length, rate in pairs)]


def _ks(ks: list[int]) -> str:
    return f"k = {ks[0]}" if len(ks) == 1 else f"k = {ks[0]} to {ks[-1]}"


def rate_meaning(pairs: list[tuple[float, float]], old_head: bool = False) -> tuple[str | None, str]:
    """Which of SGLang's two accept rates ``pairs`` of (accept len, accept rate) print, and a note saying why.

    A rate on a "Decode batch." line is accept len ÷ (k + 1) (only 0.5.3.post2 and 0.5.3.post3
    print a rate there). Otherwise the values tell when they fit one meaning at some whole k and
    not the other; they fit both only near 1/2, 1/3, … (where (L − 1)/k and L/(k + 1) can meet),
    and then the meaning, returned as None, is not guessed.
    """
    fits = {key: fitting_k(pairs, key) for key in (DRAFTED, OVER_K1)}
    if old_head:
        ks = fits[OVER_K1]
        fit = f"; the values fit {_ks(ks)}" if ks else ""
        return OVER_K1, f"SGLang's 'Decode batch.' lines print accept rate = {_WORDS[OVER_K1]}{fit}"
    found = [key for key, ks in fits.items() if ks]
    if len(found) == 1:
        (key,) = found
        other = DRAFTED if key == OVER_K1 else OVER_K1
        return key, (
            f"the printed accept len and accept rate fit {_WORDS[key]} at {_ks(fits[key])} and no k as "
            f"{_WORDS[other]}: the rate is read as the first"
        )
    if not found:
        return None, (
            f"the printed accept rate fits neither {_WORDS[DRAFTED]} nor {_WORDS[OVER_K1]} at any k from 1 to "
            f"{MAX_FIT_K} beside the printed accept len; it is not used"
        )
    return None, (
        f"the printed accept rate fits both {_WORDS[DRAFTED]} at {_ks(fits[DRAFTED])} and {_WORDS[OVER_K1]} at "
        f"{_ks(fits[OVER_K1])}; it is not used"
    )


#: The key of a printed accept rate whose meaning the values do not tell: kept, converted to nothing.
UNKNOWN_RATE = "sglang.accept_rate"


def printed_figures(mean: float, rate: float | None, key: str | None) -> tuple[tuple[str, float], ...]:
    """The record's printed figures: the accept length, and the accept rate under the meaning found."""
    return ((LENGTH_KEY, mean),) + (((key or UNKNOWN_RATE, rate),) if rate is not None else ())


def _closed(body: str, m: re.Match, seg: Segment) -> bool:
    """A value is whole if a comma follows it, or the line ends right after it with a line break."""
    rest = body[m.end() :]
    return rest.startswith(",") or (not rest.strip(" \t") and seg.line_ended)


def parse(doc: Doc) -> Found | str | None:
    segments, dropped = doc.segments(_SGL_MARKER)
    if not segments:
        return None
    used, incomplete, idle = [], [], []
    for seg in segments:
        if doc.text.endswith("block ", max(0, seg.start - 6), seg.start):
            continue  # "block accept len: X," of DSpark's cap-accept mode, not the accept length
        len_m = _SGL_LEN.match(seg.text)
        rate_m = _SGL_RATE.search(seg.text)
        if not len_m or not _closed(seg.text, len_m, seg) or (rate_m and not _closed(seg.text, rate_m, seg)):
            incomplete.append(seg)
            continue
        line = doc.line_of(seg.start)
        length = read_float(len_m.group(1))
        rate = read_float(rate_m.group(1)) if rate_m else None
        if rate is not None:
            check_rate(rate, "accept rate", line, seg.start)
        if length == 0.0 or math.isnan(length):
            idle.append(line)  # printed when an interval had no speculative step
            continue
        if length < 1.0:
            raise ReportError(
                f"accept len must be at least 1 (it counts the bonus token), got {length:g} (line {line})", seg.start
            )
        if math.isinf(length):
            raise ReportError(f"accept len must be finite, got {length:g} (line {line})", seg.start)
        running = list(_SGL_RUNNING.finditer(seg.before))
        batch = read_int(running[-1].group(1), "#running-req", line, seg.start) if running else None
        used.append((seg.start, length, batch, rate, _OLD_HEAD in seg.before))
    if not used:
        where = (incomplete or segments)[-1]
        return (
            f"an SGLang 'accept len:' value at line {doc.line_of(where.start)} is incomplete "
            "(a whole value is followed by a comma or ends its line)"
            if incomplete
            else f"SGLang decode-batch lines report accept len 0 (line {lines_list(idle)})"
        )
    weights = [u[2] for u in used]
    notes = [
        "SGLang prints the mean accept length (bonus token included) but no counts: k, drafts and accepted unknown"
    ]
    rates = [u[3] for u in used]
    known_rates = all(r is not None and not math.isnan(r) for r in rates)
    rate = None
    if all(w is not None for w in weights) and sum(weights) > 0:
        mean = sum(u[1] * u[2] for u in used) / sum(weights)
        if known_rates:
            rate = sum(r * w for r, w in zip(rates, weights, strict=True)) / sum(weights)
        if len(used) > 1:
            notes.append(
                f"averaged {len(used)} decode-batch lines weighted by #running-req (each line covers the same "
                "number of decode steps, so its batch size stands in for its verification count)"
            )
    else:
        mean = sum(u[1] for u in used) / len(used)
        if known_rates:
            rate = sum(rates) / len(rates)
        if len(used) > 1:
            notes.append(f"averaged {len(used)} decode-batch lines unweighted (no #running-req on every line)")
    if dropped:
        notes.append(f"only the last {MAX_REPORTS:,} 'accept len' values were read")
    if incomplete:
        notes.append(f"skipped {len(incomplete)} incomplete or cut-off 'accept len' value(s)")
    if idle:
        notes.append(f"skipped {len(idle)} line(s) with accept len 0 (no speculative step in the interval)")
    key = None
    if rate is not None:
        pairs = [(u[1], u[3]) for u in used]
        key, said = rate_meaning(pairs, any(u[4] for u in used if u[3] is not None))
        notes.append(said)
    printed = printed_figures(mean, rate, key)
    topk = eagle_topk(doc)
    notes.extend(tree_note(topk))
    record = EngineMetrics(
        ENGINE, FORMAT, None, None, None, None, None, mean, None, tuple(notes), converted_rate(printed, None), topk,
        printed=printed,
    )  # fmt: skip
    return Found(used[-1][0], record)
