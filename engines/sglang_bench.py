"""SGLang's ``scripts/playground/bench_speculative.py`` output: one JSON line per run of a sweep.

The script serves the model once per (batch size, steps, topk, num_draft_tokens), runs a batch of
prompts at that concurrency, and appends a record of the run's accept length and step time.
"""

from __future__ import annotations

import json
import math

from specmath.speedup import MAX_DRAFT_LENGTH

from ._text import MAX_REPORTS, clipped
from .record import EngineSweep

FORMAT = "SGLang bench_speculative"
ENGINE = "SGLang"

# sgl-project/sglang, scripts/playground/bench_speculative.py at 01d2a3d0d57bc35da92de3833d72412c0b448210:
# main() writes, per run, json.dumps({"batch_size", "steps", "topk", "num_draft_tokens",
# "acc_length", "step_time", "speed", "completion_tokens"}) + "\n" to --output (lines 226-238);
# acc_length is bench_serving's accept_length (output tokens per verification step, bonus token
# included) rounded to 3 decimals or 1.0 without speculation, step_time the 20th percentile of
# the server's step times at that batch size in seconds (SGLANG_RECORD_STEP_TIME=1, /get_server_info's
# step_time_dict), rounded to 5 decimals, speed = acc_length / step_time, and completion_tokens
# the mean output tokens per request (send_one_batch, lines 95-108). steps = topk =
# num_draft_tokens = 0 is the run without speculative decoding; a run needs
# steps * topk + 1 >= num_draft_tokens (lines 114-128). Each run is max(--num-prompts, batch)
# requests (16 by default), which the record does not say.
_FIELDS = ("batch_size", "steps", "topk", "num_draft_tokens", "acc_length", "step_time")
#: Largest value read for a count field: far above any batch size or draft setting.
MAX_FIELD = 1_000_000


def _whole(record: dict, name: str, line: int, least: int) -> int:
    value = record.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= MAX_FIELD:
        raise ValueError(
            f"{name} must be a whole number from {least} to {MAX_FIELD:,}, got {clipped(repr(value))} (line {line})"
        )
    return value


def _real(record: dict, name: str, line: int) -> float:
    value = record.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number above 0, got {clipped(repr(value))} (line {line})")
    return float(value)


def _run(record: dict, line: int) -> tuple:
    batch = _whole(record, "batch_size", line, 1)
    steps, topk, verified = (_whole(record, name, line, 0) for name in ("steps", "topk", "num_draft_tokens"))
    baseline = steps == topk == verified == 0
    if not baseline and (steps == 0 or topk == 0 or verified == 0 or steps * topk + 1 < verified):
        raise ValueError(
            f"steps = {steps}, topk = {topk}, num_draft_tokens = {verified} is not a run bench_speculative makes "
            f"(all 0, or all at least 1 with steps × topk + 1 >= num_draft_tokens) (line {line})"
        )
    k = 0 if baseline else (min(steps, verified - 1) if topk == 1 else steps)
    if k > MAX_DRAFT_LENGTH:
        raise ValueError(
            f"steps = {steps} is a draft longer than this library takes, {MAX_DRAFT_LENGTH:,} (line {line})"
        )
    length = _real(record, "acc_length", line)
    top = 1.0 if baseline else verified
    if not 1.0 - 5e-4 <= length <= top + 5e-4:
        raise ValueError(
            f"acc_length must be within [1, {top}] (1 + the draft tokens a step verifies), got {length:g} (line {line})"
        )
    step = _real(record, "step_time", line)
    tokens = record.get("completion_tokens")
    if tokens is not None:
        tokens = _real(record, "completion_tokens", line)
    return (batch, k, topk, verified), (length, step, tokens)


def parse_sweep(text: str) -> EngineSweep:
    """Read bench_speculative.py's JSON lines (see :func:`engines.parse_engine_sweep`)."""
    runs: dict[tuple, tuple] = {}
    bad, repeated, seen = [], 0, 0
    for number, raw in enumerate(text.split("\n"), start=1):
        if '"acc_length"' not in raw:
            continue
        seen += 1
        if seen > MAX_REPORTS:
            raise ValueError(f"more than {MAX_REPORTS:,} runs: a sweep is read up to that many")
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):
            bad.append(number)
            continue
        if not isinstance(record, dict) or any(name not in record for name in _FIELDS):
            missing = [name for name in _FIELDS if not isinstance(record, dict) or name not in record]
            raise ValueError(f"a run needs {', '.join(_FIELDS)}; line {number} lacks {', '.join(missing)}")
        key, values = _run(record, number)
        repeated += key in runs
        runs[key] = values
    if not runs:
        said = f" (line {bad[0]} is not whole JSON)" if bad else ""
        raise ValueError(
            f"no bench_speculative.py runs found: each line is a JSON object with {', '.join(_FIELDS)}{said}"
        )
    notes = []
    if bad:
        notes.append(
            f"skipped {len(bad)} line(s) that are not whole JSON (line {bad[0]}{' …' if len(bad) > 1 else ''})"
        )
    if repeated:
        notes.append(f"{repeated} run(s) repeat an earlier setting; the later one is used")
    order = sorted(runs)
    return EngineSweep(
        ENGINE,
        FORMAT,
        tuple(key[0] for key in order),
        tuple(key[1] for key in order),
        tuple(key[2] for key in order),
        tuple(key[3] for key in order),
        tuple(runs[key][0] for key in order),
        tuple(runs[key][1] for key in order),
        tuple(runs[key][2] for key in order),
        tuple(notes),
    )
