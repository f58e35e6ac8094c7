"""One example paste per engine format, for the Calibrate page's example buttons.

The same run in every format: 1,000 drafting steps of k = 3, 1,850 accepted draft tokens
(per position 810, 640 and 400), so every example fits the same alpha.
"""

EXAMPLES = {
    "vLLM V1 log": (
        "INFO 11-29 10:15:01 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
        "Avg generation throughput: 95.0 tokens/s, Running: 8 reqs, Waiting: 0 reqs\n"
        "INFO 11-29 10:15:01 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: 2.85, "
        "Accepted throughput: 61.67 tokens/s, Drafted throughput: 100.00 tokens/s, Accepted: 1850 tokens, "
        "Drafted: 3000 tokens, Per-position acceptance rate: 0.810, 0.640, 0.400, "
        "Avg Draft acceptance rate: 61.7%\n"
    ),
    "vLLM V0 log": (
        "INFO 11-29 10:15:01 metrics.py:467] Speculative metrics: Draft acceptance rate: 0.617, "
        "System efficiency: 0.713, Number of speculative tokens: 3, Number of accepted tokens: 1850, "
        "Number of draft tokens: 3000, Number of emitted tokens: 2850.\n"
    ),
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
    "SGLang log": (
        "[2026-11-29 10:15:01] Decode batch. #running-req: 8, #token: 5120, token usage: 0.03, "
        "accept len: 2.85, accept rate: 0.62, cuda graph: True, gen throughput (token/s): 412.50, "
        "#queue-req: 0\n"
    ),
    "llama.cpp": ("n_draft   = 3\nn_predict = 2850\nn_drafted = 3000\nn_accept  = 1850\naccept    = 61.667%\n"),
}
