"""vLLM's Prometheus counters: the latest sample of each series, summed over engines and models.

Each sample line is read with prometheus_client's text parser (:func:`engines._prometheus.read_sample`);
the lines are found here, not by handing the paste to it, because its parsers refuse a whole paste
for one bad line: version 0.26.0 raised ValueError on a scrape cut mid-line, on a log line pasted
above it, and (the OpenMetrics parser) on a scrape without its ``# EOF``, where this reader keeps
the complete samples and says what was cut; its OpenMetrics parser also refuses the scrape it
writes itself of two engines' vLLM counters ("Clashing name", the HELP lines keeping the colon the
samples lose). Its text parser reads an OpenMetrics ``# EOF`` as a comment, and reads past a
sample's timestamp (Prometheus' milliseconds; OpenMetrics' seconds it divides by 1000 all the
same) and an OpenMetrics exemplar, neither of which the counts use.
tests/engines/test_prometheus_cross_check.py checks that the reader and prometheus_client's
parsers over the whole scrape read the same figures from every scrape those can read."""

from __future__ import annotations

import re

from ._prometheus import Scheme
from ._prometheus import parse as read_scrape
from ._text import PROM_SAMPLE_REST, Doc, Found, Needs

FORMAT = "vLLM Prometheus"
ENGINE = "vLLM"
#: The parts a whole report has, for the message on a paste no format reads (see ``Needs``).
NEEDS = Needs(
    "a vLLM /metrics scrape",
    (
        ("'vllm:spec_decode_num_drafts'", r"vllm[:_]spec_decode_num_drafts"),
        ("'vllm:spec_decode_num_draft_tokens'", r"vllm[:_]spec_decode_num_draft_tokens"),
        ("'vllm:spec_decode_num_accepted_tokens'", r"vllm[:_]spec_decode_num_accepted_tokens"),
    ),
)

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
# _num_emitted_tokens_total with V0's meanings (see :mod:`engines.vllm_v0`).
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


_SCHEME = Scheme(FORMAT, ENGINE, _PROM_SAMPLE, _PROM_NAMES, "spec_decode_num_", colon_at=4)


def parse(doc: Doc) -> Found | str | None:
    return read_scrape(doc, _SCHEME)
