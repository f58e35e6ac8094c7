"""The engines' own checks and lookups, transcribed as test oracles (restated, not copied).

Each function says what the engine's code does, with the file and lines it was read from; the
configs in :mod:`engines.configs` are tested against these, not against themselves.
"""

from __future__ import annotations

import argparse
import bisect
import json
import re
import shlex

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


# The launch commands, parsed by each engine's own argument rules -------------------------------
#
# Each parser holds the flags the configs may write, with the types the engine's parser gives
# them: a flag outside them fails here (the engines define many more, but none of those is
# written), as does a value of the wrong type or a command without its model.


class _Refusing(argparse.ArgumentParser):
    """argparse as the Python engines use it, with its error raised rather than printed and exited on."""

    def error(self, message):
        raise ValueError(message)


def _words(command: str, program: list[str]) -> list[str]:
    """The words a shell passes ``program`` in ``command``, after any leading ``NAME=value`` assignments.

    A backslash before a newline outside single quotes is a line continuation, which the shell drops
    (shlex would keep the newline); the commands quote no newline."""
    words = shlex.split(command.replace("\\\n", ""))
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        words.pop(0)
    if words[: len(program)] != program:
        raise ValueError(f"not a {' '.join(program)} command: {command[:60]!r}")
    return words[len(program) :]


def _parse(words: list[str], positional: str | None, flags: dict[tuple[str, ...], object]) -> dict:
    parser = _Refusing(add_help=False, allow_abbrev=False)
    if positional:
        parser.add_argument(positional, nargs="?")
    for names, kind in flags.items():
        dest = {"dest": names[0].lstrip("-").replace("-", "_")}
        if kind is bool:
            parser.add_argument(*names, action="store_true", **dest)
        elif isinstance(kind, dict):
            parser.add_argument(*names, **kind, **dest)
        else:
            parser.add_argument(*names, type=kind, **dest)
    return vars(parser.parse_args(words))


#: ``vllm serve``'s flags the configs write (0.33.0, ``vllm/engine/arg_utils.py``): argparse's types.
VLLM_SERVE_FLAGS = {
    ("--tensor-parallel-size", "-tp"): int,  # line 1209
    ("--data-parallel-size", "-dp"): int,  # line 1241
    ("--max-num-seqs",): int,  # line 1754
    ("--speculative-config", "-sc"): json.loads,  # lines 1864-1867: optional_type(json.loads)
}


def vllm_serve(command: str) -> dict:
    """``vllm serve [model_tag] [options]`` (0.33.0): the positional ``model_tag`` (``nargs="?"``,
    ``vllm/entrypoints/common/cli_args.py`` lines 438-443) is required here, since without it vLLM
    serves its default model, Qwen/Qwen3-0.6B (``vllm/config/model.py`` line 155)."""
    parsed = _parse(_words(command, ["vllm", "serve"]), "model_tag", VLLM_SERVE_FLAGS)
    if parsed["model_tag"] is None:
        raise ValueError("no model_tag: vllm serve would serve Qwen/Qwen3-0.6B")
    return parsed


#: ``python -m sglang.launch_server``'s flags the configs write (0.5.23, ``sglang/srt/arg_groups/fields/``).
SGLANG_LAUNCH_FLAGS = {
    ("--model-path", "--model"): {"type": str, "required": True},  # model.py lines 51-57, no default
    ("--tp-size", "--tensor-parallel-size"): int,  # parallel.py lines 45-51
    ("--speculative-algorithm",): str,  # spec.py line 31
    ("--speculative-draft-model-path", "--speculative-draft-model"): str,  # spec.py lines 36-42
    ("--speculative-num-steps",): int,  # spec.py line 58
    ("--speculative-eagle-topk",): int,  # spec.py line 62
    ("--speculative-num-draft-tokens",): int,  # spec.py line 66
    ("--speculative-dflash-block-size",): int,  # spec.py line 70
    ("--speculative-adaptive",): bool,  # spec.py line 237, store_true (arg_utils.py lines 393-399)
    ("--speculative-adaptive-config",): str,  # spec.py line 241
    ("--speculative-ngram-max-bfs-breadth",): int,  # spec.py line 256
    ("--max-running-requests",): int,  # schedule.py line 31
}


def sglang_launch(command: str) -> dict:
    """``python -m sglang.launch_server`` (0.5.23): ``argparse.ArgumentParser`` (``server_args.py`` lines
    679-696) with the fields' flags (``arg_utils.py`` lines 298-416)."""
    return _parse(_words(command, ["python", "-m", "sglang.launch_server"]), None, SGLANG_LAUNCH_FLAGS)


#: ``trtllm-serve``'s options the configs write (``tensorrt_llm/commands/serve.py`` at 00209af, ``serve``).
TRTLLM_SERVE_OPTIONS = {
    ("--tensor_parallel_size", "--tp_size"): int,
    ("--config", "--extra_llm_api_options"): str,
}


def trtllm_serve(command: str) -> dict:
    """``trtllm-serve MODEL [options]``: a click command whose ``MODEL`` argument is required and which
    refuses an option it does not define; click takes options before and after the argument, as argparse does."""
    parsed = _parse(_words(command, ["trtllm-serve"]), "model", TRTLLM_SERVE_OPTIONS)
    if parsed["model"] is None:
        raise ValueError("Missing argument 'MODEL'")
    return parsed


#: llama-server's arguments the configs write (``common/arg.cpp`` at 0c1e570): names and value kind.
LLAMA_SERVER_ARGS = {
    ("-m", "--model"): str,  # line 3035
    ("-hf", "-hfr", "--hf-repo"): str,  # line 3060
    ("--spec-type",): str,  # line 4249
    ("--spec-draft-model", "-md", "--model-draft"): str,  # line 4241
    ("--spec-draft-n-max",): int,  # line 4140, std::stoi
    ("--spec-draft-n-min",): int,  # line 4150
    ("--spec-draft-p-min", "--draft-p-min"): float,  # line 4197, std::stof
    ("--spec-synth-rates",): str,  # line 4170
    ("-np", "--parallel"): int,  # lines 2543-2552
    ("-kvu", "--kv-unified"): bool,  # lines 1723-1730, no value
}


def llama_server(command: str) -> dict:
    """llama-server's ``common_params_parse_ex`` (lines 765-876): a word it does not define stops it
    ("error: invalid argument", line 827; ``_`` in a ``--`` word reads as ``-``, lines 822-825), a value
    flag takes the next word, parsed as its kind. Without ``-m`` or ``-hf`` the server is a router that
    "never loads a model" (``tools/server/server.cpp`` lines 138-141), refused here."""
    names = {name: (next(n for n in spelled if n.startswith("--")), kind)
             for spelled, kind in LLAMA_SERVER_ARGS.items() for name in spelled}  # fmt: skip
    words, parsed = _words(command, ["llama-server"]), {}
    while words:
        word = words.pop(0)
        if word.startswith("--"):
            word = word.replace("_", "-")
        if word not in names:
            raise ValueError(f"error: invalid argument: {word}")
        canonical, kind = names[word]
        if kind is bool:
            parsed[canonical] = True
            continue
        if not words:
            raise ValueError("expected value for argument")
        parsed[canonical] = kind(words.pop(0))
    if "--model" not in parsed and "--hf-repo" not in parsed:
        raise ValueError("no model: llama-server would start as a router")
    return parsed


#: Each engine's command parser and the key of what it parses that holds the model served.
COMMANDS = {
    "vLLM": (vllm_serve, "model_tag"),
    "SGLang": (sglang_launch, "model_path"),
    "TensorRT-LLM": (trtllm_serve, "model"),
    "llama.cpp": (llama_server, "--model"),
}


# Older readers of the same files ------------------------------------------------------------


def sglang_0_5_12_candidates(document: dict, initial_steps: int) -> list[int]:
    """The steps SGLang 0.5.12 (and 0.5.12.post1) adapts among for an ``--speculative-adaptive-config`` file:
    ``cfg.get("candidate_steps", [1, 3, 7])`` from the top level, plus the initial steps, two at least
    (``adaptive_spec_params.py`` lines 93-113); batch-size keys are not read."""
    candidates = sorted(set(document.get("candidate_steps", [1, 3, 7])) | {initial_steps})
    if len(candidates) < 2:
        raise ValueError("candidate_steps must have at least 2 distinct values")
    return candidates


def sglang_0_5_13_check_adaptive(document: dict) -> dict[int, list[int]]:
    """SGLang 0.5.13's ``_load_adaptive_config`` (lines 80-115): as 0.5.23's, but every step positive."""
    slots = sglang_check_adaptive(document)
    if any(step <= 0 for steps in slots.values() for step in steps):
        raise ValueError("candidate_steps must be a list of positive ints")
    return slots


def trtllm_check_schedule_lower_bounds(schedule: dict, max_draft_len: int) -> dict:
    """``validate_draft_len_schedule_and_sort`` before TensorRT-LLM pull request 10860: the key 1 required
    and mapped to ``max_draft_len``, no length above it."""
    if 1 not in schedule:
        raise ValueError("draft_len_schedule must include batch_size=1")
    if schedule[1] != max_draft_len:
        raise ValueError("draft_len_schedule[1] must equal max_draft_len")
    if any(k > max_draft_len or k < 0 for k in schedule.values()):
        raise ValueError("lengths in [0, max_draft_len]")
    return dict(sorted(schedule.items()))


def trtllm_draft_len_lower_bounds(schedule: dict, batch: int) -> int:
    """``Drafter.get_draft_len_for_batch_size`` before pull request 10860 (``_torch/speculative/drafter.py``):
    the largest key at or below the batch."""
    keys = list(schedule)
    i = bisect.bisect_right(keys, batch)
    return schedule[keys[i - 1]] if i else 0
