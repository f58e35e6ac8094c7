"""The engines' own checks and lookups, transcribed as test oracles (restated, not copied).

Each function says what the engine's code does, with the file and lines it was read from; the
configs in :mod:`specmath.engines.configs` are tested against these, not against themselves.
"""

from __future__ import annotations

import bisect

# vLLM 0.33.0 (PyPI wheel, commit 4ba787ec9) --------------------------------------------------

#: ``SpeculativeConfig``'s fields the configs write (``vllm/config/speculative.py`` lines 413-583);
#: the config takes no other key (``extra="forbid"``, ``vllm/config/utils.py`` line 71).
VLLM_FIELDS = {
    "method",
    "model",
    "num_speculative_tokens",
    "num_speculative_tokens_per_batch_size",
    "rejection_sample_method",
    "synthetic_acceptance_rates",
    "synthetic_acceptance_length",
    "draft_tensor_parallel_size",
}
VLLM_METHODS = {"ngram", "draft_model", "suffix", "custom_class", "eagle", "eagle3", "mtp", "dflash", "dspark"}


def vllm_validate_schedule(schedule) -> list[tuple[int, int, int]]:
    """``validate_and_normalize_dynamic_sd_schedule``, ``vllm/v1/spec_decode/dynamic/utils.py`` lines 7-74."""
    if schedule is None:
        raise ValueError("required")
    if not isinstance(schedule, list) or not schedule:
        raise ValueError("must be a non-empty list")
    parsed = []
    for entry in schedule:
        if not isinstance(entry, (list, tuple)) or len(entry) != 3:
            raise ValueError("entry must have 3 items")
        start, end, k = (int(x) for x in entry)
        if start <= 0 or end <= 0:
            raise ValueError("range must be positive")
        if start > end:
            raise ValueError("start must be <= end")
        if k < 0:
            raise ValueError("k must be >= 0")
        parsed.append((start, end, k))
    parsed.sort(key=lambda entry: entry[0])
    previous_end = 0
    for start, end, _ in parsed:
        if start <= previous_end:
            raise ValueError("ranges must be non-overlapping and sorted")
        previous_end = end
    if parsed[0][0] != 1:
        raise ValueError("the first range must start at 1")
    return parsed


def vllm_dense_schedule(schedule, max_num_seqs: int, num_speculative_tokens: int) -> list[int]:
    """``build_dynamic_sd_schedule_lookup`` (same file, lines 77-142): index b holds the k vLLM drafts at batch b."""
    if max_num_seqs <= 0 or num_speculative_tokens <= 0:
        raise ValueError("sizes must be > 0")
    parsed = vllm_validate_schedule(schedule)
    dense = [0] * (max_num_seqs + 1)
    following, last = 1, None
    for start, end, k in parsed:
        if start > following and last is not None:
            for b in range(following, min(start, max_num_seqs + 1)):
                dense[b] = min(num_speculative_tokens, last)
        for b in range(max(start, following), min(end, max_num_seqs) + 1):
            dense[b] = min(num_speculative_tokens, k)
        following, last = max(following, end + 1), k
        if following > max_num_seqs:
            break
    for b in range(following, max_num_seqs + 1):
        dense[b] = min(num_speculative_tokens, last)
    return dense


def vllm_draft_tp(config: dict, tensor_parallel_size: int) -> int | None:
    """The draft's tensor parallelism vLLM runs, or None where no draft model is loaded.

    ``_verify_and_get_draft_tp`` (``vllm/config/speculative.py`` lines 1849-1870): unset is the
    target's, else it must be 1 or the target's. Only ``draft_model`` loads its draft with it
    (``standalone_ar/speculator.py`` lines 112-121); heads load with the target's
    (``eagle/utils.py`` lines 80-93), and so does DFlash (``dflash/utils.py``, ``load_dflash_model``,
    lines 16-47); ngram and suffix load none.
    """
    if config["method"] in ("ngram", "suffix"):
        return None
    draft_tp = config.get("draft_tensor_parallel_size", tensor_parallel_size)
    if draft_tp not in (1, tensor_parallel_size):
        raise ValueError("cannot be other value than 1 or target model tensor_parallel_size")
    return draft_tp if config["method"] == "draft_model" else tensor_parallel_size


def vllm_check_config(config: dict, n_predict: int | None = None) -> None:
    """The checks of ``SpeculativeConfig`` the configs meet, ``vllm/config/speculative.py``."""
    unknown = set(config) - VLLM_FIELDS
    if unknown:
        raise ValueError(f"unknown keys {unknown}")  # extra="forbid"
    if config["method"] not in VLLM_METHODS:
        raise ValueError("method")  # SpeculativeMethod, lines 74-82
    if config["method"] == "dflash" and "model" not in config:
        # "num_speculative_tokens was provided but without speculative model", line 1294
        raise ValueError("dflash loads a draft checkpoint: model is required")
    k = config["num_speculative_tokens"]
    if not isinstance(k, int) or k <= 0:
        raise ValueError("num_speculative_tokens must be > 0")  # line 413 gt=0, lines 1967-1971
    if n_predict is not None and k > n_predict and k % n_predict:
        raise ValueError("must be divisible by n_predict")  # lines 1600-1612
    if "num_speculative_tokens_per_batch_size" in config:
        vllm_validate_schedule(config["num_speculative_tokens_per_batch_size"])
    method = config.get("rejection_sample_method", "standard")
    rates, length = config.get("synthetic_acceptance_rates"), config.get("synthetic_acceptance_length")
    if method == "synthetic":  # lines 600-633 and 1973-1988
        if (rates is None) == (length is None):
            raise ValueError("exactly one of rates or length")
        if rates is not None:
            if len(rates) != k:
                raise ValueError("rates must have length num_speculative_tokens")
            if not all(0.0 <= r <= 1.0 for r in rates):
                raise ValueError("rates in [0, 1]")
            if any(rates[i] > rates[i - 1] for i in range(1, k)):
                raise ValueError("rates non-increasing")
        elif not 1.0 <= length <= k + 1:
            raise ValueError("length in [1, k + 1]")
    elif rates is not None or length is not None:
        raise ValueError("synthetic values need rejection_sample_method synthetic")


# TensorRT-LLM (commit 0004396, tensorrt_llm/llmapi/llm_args.py) -----------------------------


def trtllm_check_schedule(schedule: dict, max_draft_len: int) -> dict:
    """``DecodingBaseConfig.validate_draft_len_schedule_and_sort``: keys >= 1, lengths >= 0 and <=
    ``max_draft_len``, the smallest key's length equal to it; returns the schedule sorted."""
    for b, k in schedule.items():
        if int(b) < 1 or k < 0:
            raise ValueError("keys >= 1, lengths >= 0")
    smallest = min(schedule, key=int)
    if schedule[smallest] != max_draft_len:
        raise ValueError("the smallest key must map to max_draft_len")
    if any(k > max_draft_len for k in schedule.values()):
        raise ValueError("lengths <= max_draft_len")
    return dict(sorted(((int(b), k) for b, k in schedule.items())))


def trtllm_draft_len(schedule: dict, batch: int) -> int:
    """``get_draft_len_for_batch_size`` (``tensorrt_llm/_torch/speculative/utils.py``): the first key
    at or above the batch, 0 above them all."""
    keys = list(schedule)
    i = bisect.bisect_left(keys, batch)
    return schedule[keys[i]] if i < len(keys) else 0


# SGLang 0.5.23 (sglang/srt/speculative/adaptive_spec_params.py) ----------------------------


def sglang_check_adaptive(document: dict) -> dict[int, list[int]]:
    """``_load_adaptive_config`` (lines 103-139): integer-string keys, each a non-empty list of
    non-negative int ``candidate_steps``; at least one such key."""
    slots = {}
    for key, entry in document.items():
        if not key.isdigit():
            continue
        steps = entry.get("candidate_steps")
        if not isinstance(steps, list) or not steps or not all(isinstance(s, int) and s >= 0 for s in steps):
            raise ValueError("candidate_steps")
        slots[int(key)] = sorted(set(steps))
    if not slots:
        raise ValueError("no batch-size key")
    return slots


def sglang_steps(slots: dict[int, list[int]], batch: int) -> list[int]:
    """``_find_closest_bs`` (lines 356-358), CUDA-graph padding aside: the largest key at or below the batch."""
    keys = sorted(slots)
    return slots[keys[max(0, bisect.bisect_right(keys, batch) - 1)]]


def sglang_dflash_drafted(flags: dict) -> int:
    """The tokens SGLang 0.5.23's DFLASH drafts a step: ``--speculative-dflash-block-size`` (an alias of
    ``--speculative-num-draft-tokens``, ``sglang/srt/arg_groups/speculative_hook.py`` lines 368-386) is
    the block, whose position 0 is the last accepted token (``dflash_worker_v2.py`` lines 147-156, 181-183)."""
    if flags["--speculative-algorithm"] != "DFLASH":
        raise ValueError("not DFLASH")
    block = int(flags["--speculative-dflash-block-size"])
    if block <= 0:
        raise ValueError("DFLASH requires --speculative-dflash-block-size to be positive")
    return block - 1


def vllm_max_num_seqs(flags: dict, memory_bytes: float, device_name: str) -> int:
    """Sequences ``vllm serve`` 0.33.0 runs at once on a CUDA GPU: ``--max-num-seqs``, else its default for
    the GPU (``vllm/engine/arg_utils.py``, ``get_batch_defaults``, lines 2973-3006; GB10 left out)."""
    if "--max-num-seqs" in flags:
        return int(flags["--max-num-seqs"])
    if memory_bytes >= 160 * 2**30:
        return 1024
    if memory_bytes >= 70 * 2**30 and "a100" not in device_name.lower():
        return 1024
    return 256


def sglang_max_running_requests(flags: dict) -> int:
    """Requests SGLang 0.5.23 runs at once under speculative decoding: ``--max-running-requests``, else 48
    (``sglang/srt/arg_groups/speculative_hook.py`` lines 1086-1094, 1294-1302, 438-446)."""
    if "--speculative-algorithm" not in flags:
        raise ValueError("not speculative decoding")
    return int(flags.get("--max-running-requests", 48))


def llamacpp_slots(flags: dict) -> int:
    """Requests llama-server runs at once (at 0c1e570): ``--parallel``, whose server default -1 means 4
    (``common/arg.cpp`` line 1403, ``tools/server/server.cpp`` lines 156-160); 0 is refused."""
    slots = int(flags.get("--parallel", -1))
    if slots == 0:
        raise ValueError("error: invalid value for n_parallel")
    return 4 if slots < 0 else slots


def llamacpp_dflash_drafted(n_max: int, block_size: int = 16) -> int:
    """The tokens llama.cpp's ``draft-dflash`` drafts at ``--spec-draft-n-max`` ``n_max`` with a GGUF trained on
    ``block_size`` (default 16): at most block_size - 1 (``common/speculative.cpp`` at 0c1e570, lines 980-1023)."""
    return min(n_max, block_size - 1)
