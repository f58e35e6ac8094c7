"""The Calibrate page's example pastes: one per engine format it reads, and a sweep.

Each is text as the engine prints it, with the source of its format beside it; the page loads
them into its paste box (:mod:`app_pages.calibrate`), the tests read them as any paste.
"""

#: One example paste per engine format, for the page's example buttons: the same run in every
#: format, 1,000 drafting steps of k = 3, 1,850 accepted draft tokens (per position 810, 640 and
#: 400), so every example fits the same alpha once its k is known.
EXAMPLES = {
    # vLLM V1's interval line (engines/vllm_v1.py cites vllm/v1/spec_decode/metrics.py).
    "vLLM V1 log": (
        "INFO 11-29 10:15:01 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
        "Avg generation throughput: 95.0 tokens/s, Running: 8 reqs, Waiting: 0 reqs\n"
        "INFO 11-29 10:15:01 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: 2.85, "
        "Accepted throughput: 61.67 tokens/s, Drafted throughput: 100.00 tokens/s, Accepted: 1850 tokens, "
        "Drafted: 3000 tokens, Per-position acceptance rate: 0.810, 0.640, 0.400, "
        "Avg Draft acceptance rate: 61.7%\n"
    ),
    # vLLM V0's cumulative line (engines/vllm_v0.py cites vllm/engine/metrics.py).
    "vLLM V0 log": (
        "INFO 11-29 10:15:01 metrics.py:467] Speculative metrics: Draft acceptance rate: 0.617, "
        "System efficiency: 0.713, Number of speculative tokens: 3, Number of accepted tokens: 1850, "
        "Number of draft tokens: 3000, Number of emitted tokens: 2850.\n"
    ),
    # vLLM's Prometheus counters (engines/vllm_prometheus.py cites SpecDecodingProm).
    "vLLM /metrics": (
        "# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.\n"
        "# TYPE vllm:spec_decode_num_drafts_total counter\n"
        'vllm:spec_decode_num_drafts_total{engine="0",model_name="llama"} 1000.0\n'
        "# TYPE vllm:spec_decode_num_draft_tokens_total counter\n"
        'vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="llama"} 3000.0\n'
        "# TYPE vllm:spec_decode_num_accepted_tokens_total counter\n"
        'vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="llama"} 1850.0\n'
        "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n"
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="llama",position="0"} 810.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="llama",position="1"} 640.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="llama",position="2"} 400.0\n'
    ),
    # SGLang's decode-batch line (engines/sglang.py cites it): accept len 1 + 1,850 / 1,000,
    # accept rate accepted / drafted = 1,850 / 3,000. It prints no k: the page asks for it.
    "SGLang log": (
        "[2026-11-29 10:15:01] Decode batch, #running-req: 8, #cached-token: 0, #token: 5120, token usage: 0.03, "
        "accept len: 2.85, accept rate: 0.62, cuda graph: True, gen throughput (token/s): 412.50, "
        "#queue-req: 0\n"
    ),
    # llama.cpp's speculative examples' summary (engines/llamacpp.py cites speculative.cpp).
    "llama.cpp": ("n_draft   = 3\nn_predict = 2850\nn_drafted = 3000\nn_accept  = 1850\naccept    = 61.667%\n"),
    # trtllm-serve's /metrics: a JSON list of IterationStats as JsonSerialization::toJsonStr dumps
    # them with nlohmann::json (keys sorted, no spaces): NVIDIA/TensorRT-LLM at 092229bb,
    # cpp/tensorrt_llm/executor/jsonSerialization.cpp lines 34-40, SpecDecodingStats' fields
    # numDraftTokens, numAcceptedTokens, numRequestsWithDraftTokens, acceptanceLength, iterLatencyMS,
    # draftOverhead (engines/trtllm.py reads them); top-level fields abridged. Five
    # iterations of 200 requests with a draft each: 1,000 drafts, 3,000 draft tokens, 1,850 accepted.
    "TensorRT-LLM /metrics": (
        "["
        + ",".join(
            f'{{"iter":{i},"iterLatencyMS":41.{i},"numActiveRequests":200,"numQueuedRequests":0,'
            f'"specDecodingStats":{{"acceptanceLength":{(accepted + 200) / 200:g},"draftOverhead":0.31,'
            f'"iterLatencyMS":41.{i},"numAcceptedTokens":{accepted},"numDraftTokens":600,'
            f'"numRequestsWithDraftTokens":200}},"timestamp":"11-29-2026 10:15:0{i}"}}'
            for i, accepted in enumerate((372, 368, 375, 365, 370), start=1)
        )
        + "]\n"
    ),
}


# llama-server's /metrics (engines/llamacpp_prometheus.py cites it): counters, gauges, then
# the per-position counter, no labels, whole numbers as a C++ stream writes them. The same run.
EXAMPLES["llama-server /metrics"] = (
    "# HELP llamacpp:tokens_predicted_total Number of generation tokens processed\n"
    "# TYPE llamacpp:tokens_predicted_total counter\n"
    "llamacpp:tokens_predicted_total 2850\n"
    + "".join(
        f"# HELP llamacpp:spec_decode_{name}_total Speculative: {about}\n"
        f"# TYPE llamacpp:spec_decode_{name}_total counter\n"
        f"llamacpp:spec_decode_{name}_total {value}\n"
        for name, about, value in (
            ("num_draft_tokens", "Total draft tokens generated", 3000),
            ("num_accepted_tokens", "Total draft tokens accepted by the target model", 1850),
            ("num_drafts", "Total speculative decoding verification steps", 1000),
        )
    )
    + "# HELP llamacpp:requests_processing Number of requests processing\n"
    "# TYPE llamacpp:requests_processing gauge\n"
    "llamacpp:requests_processing 0\n"
    "# HELP llamacpp:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft position\n"
    "# TYPE llamacpp:spec_decode_num_accepted_tokens_per_pos_total counter\n"
    + "".join(
        f'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="{i}"}} {n}\n'
        for i, n in enumerate((810, 640, 400))
    )
)
# vLLM's per-request metrics (engines/vllm_per_request.py cites them), two responses of 500
# steps each: histograms [100, 80, 120, 200] and [90, 90, 120, 200] add up to the same run's 1,000
# drafts with 810, 640 and 400 reaching positions 1, 2 and 3.
EXAMPLES["vLLM per-request"] = "".join(
    f'{{"id": "cmpl-{i}", "object": "text_completion", "model": "llama", "choices": [], "metrics": '
    f'{{"speculative_decoding": {{"mean_acceptance_length": {1 + accepted / 500}, "draft_acceptance_rate": '
    f'{accepted / 1500}, "acceptance_histogram": {hist}, "num_spec_steps": 500, "num_accepted_draft_tokens": '
    f'{accepted}, "num_draft_tokens": 1500, "num_spec_tokens": 3}}}}}}\n'
    for i, (hist, accepted) in enumerate((([100, 80, 120, 200], 920), ([90, 90, 120, 200], 930)), start=1)
)
# vllm bench serve's "Speculative Decoding" section (engines/vllm_bench.py cites
# vllm/benchmarks/serve.py), each value padded as its "{:<40} {:<10}" prints it: the same run's
# deltas, 1,850 / 3,000 = 61.67 %, 1 + 1,850 / 1,000 = 2.85, positions 810, 640, 400 of 1,000.
EXAMPLES["vLLM bench serve"] = (
    "{s:{c}^{n}}\n".format(s="Speculative Decoding", n=50, c="-")
    + "".join(
        f"{label:<40} {value:<10.2f}\n" if isinstance(value, float) else f"{label:<40} {value:<10}\n"
        for label, value in (
            ("Acceptance rate (%):", 100 * 1850 / 3000),
            ("Acceptance length:", 1 + 1850 / 1000),
            ("Drafts:", 1000),
            ("Draft tokens:", 3000),
            ("Accepted tokens:", 1850),
        )
    )
    + "Per-position acceptance (%):\n"
    + "".join(f"{f'  Position {i}:':<40} {100 * n / 1000:<10.2f}\n" for i, n in enumerate((810, 640, 400)))
    + "=" * 50
    + "\n"
)
#: A sweep, not one run: SGLang's bench_speculative.py lines (engines/sglang_bench.py cites
#: them) at batch 1, 16, 64 and 128, chains of 1 to 3 steps at accept lengths near α = 0.8's; invented
#: step times, long enough from 64 on for speculation to stop paying.
SWEEP_EXAMPLE = "SGLang sweep"
EXAMPLES[SWEEP_EXAMPLE] = "".join(
    f'{{"batch_size": {b}, "steps": {k}, "topk": {min(k, 1)}, "num_draft_tokens": {k + 1 if k else 0}, '
    f'"acc_length": {length}, "step_time": {time}, "speed": {round(length / time, 3)}, "completion_tokens": 512.0}}\n'
    for b, runs in (
        (1, ((0, 1.0, 0.0076), (1, 1.801, 0.0092), (2, 2.437, 0.0105), (3, 2.951, 0.0119))),
        (16, ((0, 1.0, 0.0082), (1, 1.795, 0.0105), (2, 2.446, 0.0124), (3, 2.938, 0.0149))),
        (64, ((0, 1.0, 0.0101), (1, 1.806, 0.0196), (2, 2.44, 0.0290), (3, 2.957, 0.0391))),
        (128, ((0, 1.0, 0.0124), (1, 1.799, 0.0302), (2, 2.45, 0.0455), (3, 2.946, 0.0611))),
    )
    for k, length, time in runs
)
