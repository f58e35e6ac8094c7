"""llama-server's Prometheus counters (``--metrics``, ``GET /metrics``): vLLM's names under ``llamacpp:``.

One llama-server has one label set (no engine or model labels), and its counters are cumulative
since start, so the latest sample of each is used, as for vLLM's scrape
(:mod:`engines.vllm_prometheus`, whose reader this is). The per-position counter means
what vLLM's does: drafts whose first i + 1 tokens were accepted (llama.cpp PR #24536 took vLLM's
definitions; tools/server/server-context.cpp:3968-3970 at llama.cpp 0c1e57098). llama-server
drafts fewer tokens than its maximum when the draft model is unsure or a request nears its end,
so draft tokens / drafts is often below k; :func:`engines.fit_alpha` fits such a mix from the
positions every draft reached. Sources with file and line below.
"""

from __future__ import annotations

import re

from ._prometheus import Scheme
from ._prometheus import parse as read_scrape
from ._text import PROM_SAMPLE_REST, Doc, Found, Needs

FORMAT = "llama-server /metrics"
ENGINE = "llama.cpp"
#: The parts a whole report has, for the message on a paste no format reads (see ``Needs``).
NEEDS = Needs(
    "a llama-server /metrics scrape",
    (
        ("an 'llamacpp:' metric", r"llamacpp[:_]\w"),
        ("'llamacpp:spec_decode_num_draft_tokens_total'", r"llamacpp[:_]spec_decode_num_draft_tokens"),
        ("'llamacpp:spec_decode_num_accepted_tokens_total'", r"llamacpp[:_]spec_decode_num_accepted_tokens"),
    ),
)

# Read from ggml-org/llama.cpp at commit 0c1e57098bba43ac29e6e3b677cdceebdd22334f, the one vendored
# in the llama-cpp-python 0.3.36 source package (vendor/llama.cpp, a clean checkout of that
# commit); "line N" is a line of that commit's file. The counters came with PR #26389.
# * tools/server/server-task.cpp:1523 server_task_result_metrics::to_metrics. Lines 1554-1564 name
#   the counters "spec_decode_num_draft_tokens_total" ("Speculative: Total draft tokens
#   generated"), "spec_decode_num_accepted_tokens_total" ("Speculative: Total draft tokens
#   accepted by the target model") and "spec_decode_num_drafts_total" ("Speculative: Total
#   speculative decoding verification steps"), each a (double) of a uint64_t
#   (tools/server/server-common.h:498-500). Lines 1592-1600 write every counter, then the gauges
#   (1602-1603), as "# HELP llamacpp:<name> …", "# TYPE llamacpp:<name> counter" and
#   "llamacpp:<name> <value>", with no labels and whether or not the server speculates (all 0
#   then), through a std::stringstream at its default precision, 6 significant digits: 1234567
#   is written "1.23457e+06".
# * Lines 1605-1614: only once the server's per-position vector is not empty, after the gauges,
#   "llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="i"} <count>" for i = 0, 1,
#   …, one a position up to the largest draft length the server may use (common/speculative.cpp:
#   2351-2363, --spec-draft-n-max, common/arg.cpp:4140). These counts are uint64_t
#   (server-common.h:501), written whole: never rounded.
# * tools/server/server-context.cpp:3961-3970: each verify step (of a non-empty draft, lines
#   3880-3888) adds its accepted draft tokens n to the accepted count, 1 to the drafts count and
#   1 to positions 0 … n − 1, so position i counts the drafts whose first i + 1 tokens were
#   accepted; line 3034 adds each draft's length to the draft tokens. A request's counts join
#   the server's totals when its slot is reset (lines 1287-1292 and 4110-4130), so a scrape moves
#   by whole requests.
# * Drafts shorter than --spec-draft-n-max: drafting stops at a token below --spec-draft-p-min
#   (common/speculative.cpp:365-371) or at the request's own limit (line 380-381; the room left
#   in the context and the tokens left to generate, server-context.cpp:453-471).
# * `--metrics` turns the endpoint on (common/arg.cpp:3592, off by default); GET /metrics
#   (tools/server/server.cpp:253) answers an error without it (server-context.cpp:4650-4651).
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
    digits=6,
)


def parse(doc: Doc) -> Found | str | None:
    return read_scrape(doc, _SCHEME)
