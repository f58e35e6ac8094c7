"""vLLM's Prometheus counters: the latest sample of each series, summed over engines and models.

Read here rather than with prometheus_client's parsers, which are not a dependency of this
NumPy-only package and refuse a whole paste for one bad line: version 0.26.0 raised ValueError on
a scrape cut mid-line, on a log line pasted above it, and on an OpenMetrics scrape without its
``# EOF``, where this reader keeps the complete samples and says what was cut; its OpenMetrics
parser also refuses the scrape it writes itself of two engines' vLLM counters ("Clashing name",
the HELP lines keeping the colon the samples lose). tests/specmath/test_prometheus_cross_check.py
checks that both read the same figures from every scrape prometheus_client can read.
"""

from __future__ import annotations

import math
import re

from ._text import MAX_REPORTS, PROM_LABEL, PROM_SAMPLE_REST, Doc, Found, ReportError, check_accepted, in_comment
from .record import EngineMetrics

FORMAT = "vLLM Prometheus"
ENGINE = "vLLM"
#: What the dispatcher's error message says it looked for.
LOOKED_FOR = "vLLM Prometheus counters 'vllm:spec_decode_num_drafts' / '_num_draft_tokens' / '_num_accepted_tokens'"

# vllm-project/vllm, vllm/v1/spec_decode/metrics.py, SpecDecodingProm: counters
# vllm:spec_decode_num_drafts, _num_draft_tokens, _num_accepted_tokens and
# _num_accepted_tokens_per_pos{position="i"}, one label set per engine; prometheus_client
# exposes them with "_total" and prints values as floats ("1234.0", "1.2345678e+07").
# In an OpenMetrics scrape prometheus_client writes the sample names with "_" for ":"
# (prometheus_client 0.26.0, openmetrics/exposition.py, generate_latest, line 152: sample names
# escaped with the label-name runes, which exclude ":"; "# HELP" and "# TYPE" keep the colon)
# and closes with "# EOF" (line 169), so both spellings are read, and an OpenMetrics scrape
# whose "# EOF" is missing is noted as possibly cut off.
# vllm/engine/metrics.py (V0) had _num_draft_tokens_total, _num_accepted_tokens_total and
# _num_emitted_tokens_total with V0's meanings (see :mod:`specmath.engines.vllm_v0`).
_PROM_SAMPLE = re.compile(
    r"vllm[:_]spec_decode_(num_drafts|num_draft_tokens|num_accepted_tokens_per_pos|num_accepted_tokens|num_emitted_tokens)"
    r"(?:_total)?" + PROM_SAMPLE_REST,
    re.MULTILINE,
)
_PROM_NAMES = {
    "num_drafts": "vllm:spec_decode_num_drafts",
    "num_draft_tokens": "vllm:spec_decode_num_draft_tokens",
    "num_accepted_tokens": "vllm:spec_decode_num_accepted_tokens",
    "num_accepted_tokens_per_pos": "vllm:spec_decode_num_accepted_tokens_per_pos",
    "num_emitted_tokens": "vllm:spec_decode_num_emitted_tokens",
}


def _prom_count(raw: str, name: str, line: int, pos: int) -> int:
    value = float(raw)
    if not math.isfinite(value) or value < 0 or not value.is_integer() or value >= 2**53:
        raise ReportError(f"{name} must be a non-negative whole count, got {raw} (line {line})", pos)
    return int(value)


def last_sample(latest: dict) -> int:
    return max(pos for _, pos in latest.values())


def parse(doc: Doc) -> Found | str | None:
    text = doc.text
    first, dropped = doc.tail("spec_decode_num_")
    latest: dict[tuple[str, str], tuple[str, int]] = {}  # (name, labels as written) -> (value, offset)
    cut = 0
    underscored = False
    for m in _PROM_SAMPLE.finditer(text, first):
        if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_:"):
            continue
        if in_comment(text, m.start()):
            continue  # "# HELP vllm:spec_decode_num_drafts 12": a HELP text, not a sample
        raw = m.group(3)
        if m.end() == len(text) and not doc.ends_with_newline and not re.search(r"[.eEIN]", raw):
            cut += 1  # a last line without a line break whose value may be cut ("12" of "1234.0")
            continue
        latest[(m.group(1), m.group(2) or "")] = (raw, m.start())
        underscored = underscored or text[m.start() + 4] == "_"
    if not latest:
        if cut:
            return "the only vllm:spec_decode sample is on a last line without a line break and may be cut off"
        return None
    series: dict[tuple, tuple[str, int]] = {}  # (name, parsed labels) -> latest (value, offset)
    for (short, label_text), (raw, pos) in sorted(latest.items(), key=lambda item: item[1][1]):
        series[(short, tuple(sorted(PROM_LABEL.findall(label_text))))] = (raw, pos)
    totals: dict[str, int] = {}
    per_pos: dict[int, int] = {}
    label_sets = set()
    last_pos = 0
    for (short, labels), (raw, pos) in sorted(series.items(), key=lambda item: item[1][1]):
        line = doc.line_of(pos)
        name = _PROM_NAMES[short]
        count = _prom_count(raw, name, line, pos)
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
        notes.append(f"only the last {MAX_REPORTS:,} vllm:spec_decode samples were read")
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
            (_PROM_NAMES["num_accepted_tokens"], _PROM_NAMES["num_draft_tokens"]),
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
            for i in range(k):
                if per_pos[i] > drafts:
                    raise ReportError(
                        f'{_PROM_NAMES["num_accepted_tokens_per_pos"]}{{position="{i}"}} ({per_pos[i]}) exceeds '
                        f"{_PROM_NAMES['num_drafts']} ({drafts}): a rate above 1",
                        last_pos,
                    )
            per_position = tuple(per_pos[i] / drafts for i in range(k))
        if k and accepted is not None and sum(per_pos.values()) != accepted:
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
        if k and draft_tokens is not None and draft_tokens > drafts * k:
            notes.append(f"more draft tokens ({draft_tokens}) than drafts × k ({drafts} × {k})")
    elif drafts == 0:
        notes.append("nothing drafted yet (vllm:spec_decode_num_drafts is 0)")
    if accepted is None and drafts is None and draft_tokens is None:
        return "vllm:spec_decode samples were found, but no drafts, draft tokens or accepted tokens counter"
    v0 = "num_emitted_tokens" in totals
    rate = accepted / draft_tokens if not v0 and accepted is not None and draft_tokens else None
    return Found(
        last_pos,
        EngineMetrics(
            ENGINE, FORMAT, k, drafts, draft_tokens, accepted, emitted, mean, per_position, tuple(notes), rate
        ),
    )
