"""llama-server's Prometheus counters (``--metrics``, ``GET /metrics``): vLLM's names under ``llamacpp:``.

One llama-server has one label set (no engine or model labels), and its counters are cumulative
since start, so the latest sample of each is used, as for vLLM's scrape
(:mod:`specmath.engines.vllm_prometheus`, whose reader this is). The per-position counter means
what vLLM's does: drafts whose first i + 1 tokens were accepted (llama.cpp PR #24536 took vLLM's
definitions). llama-server drafts fewer tokens than its maximum when the draft model is unsure or
a request nears its end, so draft tokens / drafts is often below k; :func:`specmath.fit_alpha`
fits such a mix from the positions every draft reached.
"""

from __future__ import annotations

import re

from ._prometheus import Scheme
from ._prometheus import parse as read_scrape
from ._text import PROM_SAMPLE_REST, Doc, Found

FORMAT = "llama-server /metrics"
ENGINE = "llama.cpp"
#: What the dispatcher's error message says it looked for.
LOOKED_FOR = (
    "llama-server /metrics counters 'llamacpp:spec_decode_num_drafts_total' / '_num_draft_tokens_total' / "
    "'_num_accepted_tokens_total'"
)

# ggml-org/llama.cpp, tools/server/server-task.cpp, server_task_result_metrics::to_metrics, added
# by PR #26389 (merged August 2026): the counters "spec_decode_num_draft_tokens_total" ("Total
# draft tokens generated"), "spec_decode_num_accepted_tokens_total" ("Total draft tokens accepted
# by the target model") and "spec_decode_num_drafts_total" ("Total speculative decoding
# verification steps"), each written as "llamacpp:<name> <value>" with no labels, whether or not
# the server speculates (all 0 then); after the gauges, and only once a speculative request has
# finished, "llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="i"} <count>" for
# i = 0, 1, …. Values go through a std::stringstream at its default precision, 6 significant
# digits: 1234567 is written "1.23457e+06". Read from the stored text of that function; its
# line numbers at a commit could not be read (see the report of issue 33).
_SAMPLE = re.compile(
    r"llamacpp:spec_decode_(num_drafts|num_draft_tokens|num_accepted_tokens_per_pos|num_accepted_tokens)_total"
    + PROM_SAMPLE_REST,
    re.MULTILINE,
)
_NAMES = {
    "num_drafts": "llamacpp:spec_decode_num_drafts_total",
    "num_draft_tokens": "llamacpp:spec_decode_num_draft_tokens_total",
    "num_accepted_tokens": "llamacpp:spec_decode_num_accepted_tokens_total",
    "num_accepted_tokens_per_pos": "llamacpp:spec_decode_num_accepted_tokens_per_pos_total",
}
_SCHEME = Scheme(
    FORMAT,
    ENGINE,
    _SAMPLE,
    _NAMES,
    "llamacpp:spec_decode_num_",
    colon_at=None,
    zero_is_off=True,
    rounding=(
        "llama-server writes its counters at 6 significant digits (a C++ stream's default), so a count of "
        "a million or more is rounded as printed, and counts that should add up may not"
    ),
)


def parse(doc: Doc) -> Found | str | None:
    return read_scrape(doc, _SCHEME)
