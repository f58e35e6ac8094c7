"""What each engine's printed acceptance figures mean, in this library's terms: one registry.

Engines print an "acceptance rate" and an "acceptance length" that are not the same quantity from
one engine, or one version, to the next: the bonus token counted or not, tokens after a rejection
counted or not, a per-position rate conditional or not, a rate over k draft tokens or over k + 1.
:data:`DEFINITIONS` says, for each figure as the engine prints it, which versions print it, what it
is in this library's terms (k draft tokens per step, accepted draft tokens in the accepted prefix,
mean acceptance length L = 1 + accepted / drafts with the bonus token), how it converts to the
share accepted ÷ drafted and to L, and the source it was read from (file:line@version).

The parsers file the figures a paste prints under these keys (:attr:`EngineMetrics.printed`), the
record's ``accept_rate`` is converted through them (:func:`accept_rate`), and the Calibrate page's
translator table is drawn from them; the tests derive from the same rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

# A conversion takes the printed value and k (None when the paste does not say it) and returns the
# quantity, or None when it needs k and k is unknown, or the figure does not determine it.
Convert = Callable[[float, "int | None"], "float | None"]


def _same(value: float, k: int | None) -> float:
    return value


def _percent(value: float, k: int | None) -> float:
    return value / 100.0


def _length_to_rate(value: float, k: int | None) -> float | None:
    return None if k is None else (value - 1.0) / k


def _rate_to_length(value: float, k: int | None) -> float | None:
    return None if k is None else 1.0 + value * k


def _percent_to_length(value: float, k: int | None) -> float | None:
    return _rate_to_length(value / 100.0, k)


def _over_k1_to_length(value: float, k: int | None) -> float | None:
    return None if k is None else value * (k + 1)


def _over_k1_to_rate(value: float, k: int | None) -> float | None:
    return None if k is None else (value * (k + 1) - 1.0) / k


def _never(value: float, k: int | None) -> None:
    return None


@dataclass(frozen=True)
class Definition:
    """One figure as an engine prints it, and what it is in this library's terms.

    Attributes
    ----------
    key : str
        The registry key the parsers file a printed value under.
    engine : str
        ``"vLLM"``, ``"SGLang"``, ``"llama.cpp"`` or ``"TensorRT-LLM"``.
    metric : str
        The figure as printed (log words, Prometheus name or JSON key).
    versions : str
        The versions or builds that print it with this meaning.
    meaning : str
        What it is, in this library's terms: bonus token counted or not, accepted prefix or every
        accepted token, conditional or unconditional per position.
    to_alpha : str
        How it converts to accepted ÷ drafted and to the mean acceptance length L, as a formula.
    source : str
        Where the definition was read: repository file:line@version or commit.
    rate : callable
        ``rate(value, k)``: accepted ÷ drafted from the printed value, None where it needs k and
        k is unknown or the figure does not determine it.
    length : callable
        ``length(value, k)``: the mean acceptance length L from the printed value, likewise.
    """

    key: str
    engine: str
    metric: str
    versions: str
    meaning: str
    to_alpha: str
    source: str
    rate: Convert = _never
    length: Convert = _never


_SGL = "sgl-project/sglang (PyPI wheels)"

#: Every figure the Calibrate page reads or explains, by engine.
DEFINITIONS: tuple[Definition, ...] = (
    Definition(
        "vllm.v1.accept_rate",
        "vLLM",
        "Avg Draft acceptance rate: X% (earlier 'Draft acceptance rate: X%')",
        "V1 engine (0.8 on)",
        "accepted ÷ drafted draft tokens over the logging interval; accepted counts the accepted prefix only, "
        "the bonus token is not counted",
        "accepted ÷ drafted = X / 100; L = 1 + k · X / 100 when every draft has k tokens",
        "vllm-project/vllm vllm/v1/spec_decode/metrics.py:87-88@016a8587",
        _percent,
        _percent_to_length,
    ),
    Definition(
        "vllm.v1.mean_length",
        "vLLM",
        "Mean acceptance length: X",
        "V1 engine (0.8 on)",
        "tokens per verification step with the bonus token: 1 + accepted ÷ drafts",
        "L = X; accepted ÷ drafted = (X − 1) / k for drafts of k tokens",
        "vllm-project/vllm vllm/v1/spec_decode/metrics.py:90-91@016a8587",
        _length_to_rate,
        _same,
    ),
    Definition(
        "vllm.v1.per_position",
        "vLLM",
        "Per-position acceptance rate: a₁, a₂, …",
        "V1 engine (0.8 on)",
        "unconditional: aᵢ = drafts whose first i tokens were all accepted ÷ drafts, P(at least i accepted); "
        "the conditional rate at i is aᵢ / aᵢ₋₁",
        "L = 1 + Σ aᵢ; accepted ÷ drafted = Σ aᵢ / k",
        "vllm-project/vllm vllm/v1/spec_decode/metrics.py:38-44, 93-94@016a8587",
    ),
    Definition(
        "vllm.prometheus",
        "vLLM",
        "vllm:spec_decode_num_drafts / _num_draft_tokens / _num_accepted_tokens / _num_accepted_tokens_per_pos",
        "V1 engine (0.8 on)",
        "cumulative counters: drafts (verification steps), draft tokens, accepted draft tokens of the "
        "accepted prefix (no bonus token), drafts whose token at each position was accepted",
        "accepted ÷ drafted = accepted / draft tokens; L = 1 + accepted / drafts; per position = count / drafts",
        "vllm-project/vllm vllm/v1/spec_decode/metrics.py:117-136 (SpecDecodingProm)@016a8587",
    ),
    Definition(
        "vllm.v0.accept_rate",
        "vLLM",
        "Speculative metrics: Draft acceptance rate: X",
        "V0 engine (to 0.9)",
        "every draft token the verifier accepted ÷ draft tokens, including tokens after an earlier rejection, "
        "which are never emitted: it overstates the accepted prefix",
        "none: use Number of emitted tokens (accepted ÷ drafted = (emitted − drafts) / draft tokens)",
        "vllm-project/vllm vllm/spec_decode/metrics.py:32-39@027b4855",
    ),
    Definition(
        "vllm.v0.system_efficiency",
        "vLLM",
        "Speculative metrics: System efficiency: X",
        "V0 engine (to 0.9)",
        "emitted tokens ÷ (drafts × (k + 1)): the mean acceptance length over k + 1",
        "L = X (k + 1); accepted ÷ drafted = (X (k + 1) − 1) / k",
        "vllm-project/vllm vllm/spec_decode/metrics.py:21-24 and get_max_num_emitted_tokens@027b4855",
        _over_k1_to_rate,
        _over_k1_to_length,
    ),
    Definition(
        "sglang.accept_len",
        "SGLang",
        "accept len: X (and the gauge sglang:spec_accept_length)",
        "every release that prints it (0.4 on; to 0.5.3.post1 without an accept rate)",
        "tokens per verification step with the bonus token: (accepted drafts + steps) ÷ steps over the "
        "logging interval",
        "L = X; accepted ÷ drafted = (X − 1) / k for a chain of k",
        f"{_SGL} srt/managers/scheduler_metrics_mixin.py:72-74, 256-258@0.5.3.post3; "
        "srt/managers/scheduler_components/metrics_reporter.py:973@0.5.23",
        _length_to_rate,
        _same,
    ),
    Definition(
        "sglang.accept_rate.over_k1",
        "SGLang",
        "accept rate: X (and the gauge sglang:spec_accept_rate)",
        "0.5.3.post2 – 0.5.10.post1",
        "accept len ÷ (k + 1) for a chain: 0.5.3.post2 – 0.5.5 divide by speculative_num_steps + 1, "
        "0.5.6 – 0.5.10.post1 by speculative_num_draft_tokens; the bonus token is counted, so it is not "
        "accepted ÷ drafted (it is vLLM V0's 'system efficiency')",
        "L = X (k + 1); accepted ÷ drafted = (X (k + 1) − 1) / k",
        f"{_SGL} srt/managers/scheduler_metrics_mixin.py:260-268@0.5.3.post3, 280-288@0.5.6; "
        "srt/observability/scheduler_metrics_mixin.py:618-627@0.5.10.post1",
        _over_k1_to_rate,
        _over_k1_to_length,
    ),
    Definition(
        "sglang.accept_rate.drafted",
        "SGLang",
        "accept rate: X (and the gauge sglang:spec_accept_rate)",
        "0.5.11 on (read to 0.5.23)",
        "accepted draft tokens ÷ (steps × (speculative_num_draft_tokens − 1)): accepted ÷ drafted for a chain, "
        "bonus token not counted",
        "accepted ÷ drafted = X; L = 1 + k X",
        f"{_SGL} srt/observability/scheduler_metrics_mixin.py:531-543@0.5.11; "
        "srt/managers/scheduler_components/metrics_reporter.py:975-982@0.5.23",
        _same,
        _rate_to_length,
    ),
    Definition(
        "sglang.bench_serving.accept_length",
        "SGLang",
        "Accept length: X (bench_serving's result)",
        "read in 0.5.23",
        "tokens per verification step with the bonus token, the server's since its counters were last reset "
        "(/server_info's avg_spec_accept_length), not the benchmark run's alone",
        "L = X; accepted ÷ drafted = (X − 1) / k for a chain of k",
        f"{_SGL} benchmark/serving.py:1642-1662, 1746-1748 and "
        "srt/managers/scheduler_components/internal_state.py:243-253@0.5.23",
        _length_to_rate,
        _same,
    ),
    Definition(
        "llamacpp.summary.accept",
        "llama.cpp",
        "accept    = X%",
        "examples speculative and speculative-simple",
        "n_accept ÷ n_drafted: accepted draft tokens (no bonus token) over drafted ones",
        "accepted ÷ drafted = X / 100; L = n_predict / (n_predict − n_accept)",
        "ggml-org/llama.cpp examples/speculative-simple/speculative-simple.cpp, main()'s closing LOG_INF "
        "(100 · n_accept / n_drafted)",
        _percent,
    ),
    Definition(
        "llamacpp.server.accept_rate",
        "llama.cpp",
        "draft acceptance rate = X (N accepted / N generated)",
        "llama-server, per finished request",
        "accepted ÷ generated draft tokens of the request, bonus token not counted",
        "accepted ÷ drafted = X; L = 1 + accepted / steps (newer builds print it as mean len)",
        "ggml-org/llama.cpp tools/server/server.cpp:1552-1556@4227c9be; "
        "tools/server/server-context.cpp:646-650@0c1e57098",
        _same,
    ),
    Definition(
        "llamacpp.server.mean_len",
        "llama.cpp",
        "mean len = X; acc per pos = (a₁, …)",
        "llama-server builds with PR #24536",
        "1 + accepted ÷ verification steps (bonus token counted); acc per pos is unconditional, as vLLM's",
        "L = X; accepted ÷ drafted = (X − 1) / k for drafts of k tokens",
        "ggml-org/llama.cpp tools/server/server-context.cpp:634, 646-650@0c1e57098",
        _length_to_rate,
        _same,
    ),
    Definition(
        "trtllm.num_accepted",
        "TensorRT-LLM",
        "specDecodingStats.numAcceptedTokens / numDraftTokens / numRequestsWithDraftTokens",
        "PyTorch and C++ executors' iteration stats",
        "accepted draft tokens (no bonus token) over the requests with a draft in the iteration: per request "
        "and step it is L − 1",
        "accepted ÷ drafted = numAcceptedTokens / numDraftTokens; L = 1 + numAcceptedTokens / "
        "numRequestsWithDraftTokens",
        "NVIDIA/TensorRT-LLM cpp/include/tensorrt_llm/executor/types.h, struct SpecDecodingStats@a98a9061",
    ),
    Definition(
        "trtllm.acceptance_length",
        "TensorRT-LLM",
        "specDecodingStats.acceptanceLength",
        "PyTorch and C++ executors' iteration stats",
        "tokens produced per step, bonus token counted: (numAcceptedTokens + numRequestsWithDraftTokens) ÷ "
        "numRequestsWithDraftTokens",
        "L = X; accepted ÷ drafted = (X − 1) / k",
        "NVIDIA/TensorRT-LLM cpp/include/tensorrt_llm/executor/types.h, struct SpecDecodingStats@a98a9061; "
        "tensorrt_llm/_torch/pyexecutor/py_executor.py _update_iter_stats@9521caf4",
        _length_to_rate,
        _same,
    ),
    Definition(
        "trtllm.request_acceptance_rate",
        "TensorRT-LLM",
        "perf metrics speculativeDecoding.acceptanceRate",
        "per-request performance metrics",
        "totalAcceptedDraftTokens ÷ totalDraftTokens of the request, bonus token not counted",
        "accepted ÷ drafted = X; L = 1 + k X",
        "NVIDIA/TensorRT-LLM cpp/include/tensorrt_llm/executor/types.h, "
        "RequestPerfMetrics::SpeculativeDecodingMetrics@a98a9061",
        _same,
        _rate_to_length,
    ),
)

BY_KEY = {d.key: d for d in DEFINITIONS}
#: The keys of mean acceptance lengths: a rate from one is what the fit predicts, not a second measurement.
LENGTH_KEYS = frozenset(d.key for d in DEFINITIONS if d.length is _same)


def accept_rate(printed: tuple[tuple[str, float], ...], k: int | None) -> float | None:
    """Accepted ÷ drafted from the first printed figure that gives it at ``k``, clipped to [0, 1]; or None.

    Parameters
    ----------
    printed : tuple of (str, float)
        Registry keys and the values a paste prints (:attr:`EngineMetrics.printed`).
    k : int or None
        The draft length, where known.
    """
    for key, value in printed:
        definition = BY_KEY.get(key)
        if definition is None or key in LENGTH_KEYS:
            continue
        rate = definition.rate(value, k)
        if rate is not None and math.isfinite(rate):
            return min(1.0, max(0.0, rate))
    return None


def translated(
    printed: tuple[tuple[str, float], ...], k: int | None
) -> dict[str, tuple[float, float | None, float | None]]:
    """Each printed figure by key: (value as printed, accepted ÷ drafted, mean acceptance length) at ``k``."""
    out = {}
    for key, value in printed:
        definition = BY_KEY.get(key)
        if definition is not None:
            out[key] = (value, definition.rate(value, k), definition.length(value, k))
    return out
