"""TensorRT-LLM's ``speculative_config`` with ``draft_len_schedule``, as YAML and JSON.

Read from NVIDIA/TensorRT-LLM at commit 0004396720054fd8e205cbf616f21f0b57c6b412 through the
search tool's stored copy (the repository is too large to fetch, and the tool gives character
offsets, not lines, so the citations name the symbol):

- ``tensorrt_llm/llmapi/llm_args.py``, ``DecodingBaseConfig``: ``max_draft_len`` (a
  non-negative int), ``speculative_model`` (a Hub id or a local path) and ``draft_len_schedule``
  (``dict[int, int]``): "{4:4, 8:2, 32:1}: batch sizes 1-4 use 4, 5-8 use 2, 9-32 use 1, 33+ use
  0 (implicit, speculation disabled)". ``validate_draft_len_schedule_and_sort``: every key >= 1,
  every length >= 0 and <= ``max_draft_len``, and the smallest key's length must equal
  ``max_draft_len`` ("because it is the smallest batch-size key"); it is exclusive with
  ``max_concurrency``. The lookup, ``get_draft_len_for_batch_size``
  (``tensorrt_llm/_torch/speculative/utils.py``), takes the first key >= the batch size, and 0
  past the largest key.
- Which builds read the keys so: pull request 10860 ("Dynamic draft length on spec decode
  one-model path", merged 13 March 2026) made the keys upper bounds ("New semantics: Keys
  represent specific batch sizes … draft_len to use for batch sizes UP TO that key", the
  standalone ``get_draft_len_for_batch_size`` of ``_torch/speculative/utils.py``), required only
  that the smallest key map to ``max_draft_len``, and brought the schedule to the one-model paths;
  0004396 reads them so. Before it, from pull request 8194 ("Dynamic draft length in spec decode
  (stage 1)", October 2025), ``llm_args.py`` described "{1: 4, 4: 2, 8: 0} means: batch_size >= 1
  uses draft_len=4, batch_size >= 4 uses draft_len=2, batch_size >= 8 uses draft_len=0",
  ``validate_draft_len_schedule_and_sort`` refused a schedule without the key 1 ("draft_len_schedule
  must include batch_size=1") or whose ``schedule[1]`` was not ``max_draft_len``, and only the
  two-model ``Drafter.get_draft_len_for_batch_size`` (``_torch/speculative/drafter.py``) read it:
  the largest key at or below the batch, the largest key's length past it. Those copies are stored
  in the search tool without their commit, so no hash is named for them. A schedule written here
  (keys = the ranges' last batches) is refused there unless its first range is batch 1 alone, and
  read one range late if it is. Pull request 16888 (open when read) would floor a length of 0 at 1
  on the one-model paths.
- ``decoding_type`` of each config class: ``Eagle3`` (``Eagle3DecodingConfig``, always the
  one-model path), ``MTP`` (``MTPDecodingConfig``, the target's own MTP layers), ``Draft_Target``
  (``DraftTargetDecodingConfig``, one model, ``speculative_model`` required), ``NGram``.
  ``SpeculativeDecodingMode.support_dynamic_draft_len`` (``tensorrt_llm/_torch/speculative/interface.py``
  at commit 00b6d5a25c30b4382d24fbdf52956d601b3ffd24) lists the one-model MTP, Eagle3 and
  draft-target modes, PARD, DFlash and SA; not NGram.
- DFlash: ``DFlashDecodingConfig`` (``decoding_type`` ``DFlash``, ``spec_dec_mode`` ``DFLASH``)
  drafts all ``max_draft_len`` = K tokens in one forward pass, conditioned on the target's hidden
  states; "DFlash only needs K+1 tokens per gen request (K drafts + 1 bonus)"
  (``tokens_per_gen_step``, and ``1 + runtime_draft_len`` at a scheduled length). Its mask token and
  target layers come from the draft checkpoint where not set. It runs in the target's engine
  (``use_one_engine`` through ``is_external_drafter`` and ``is_parallel_draft``, ``interface.py``).
- The YAML is the file of ``trtllm-serve MODEL --extra_llm_api_options FILE``
  (``tensorrt_llm/commands/serve.py``) and of ``trtllm-bench … throughput --extra_llm_api_options``
  (``tensorrt_llm/bench/benchmark/throughput.py`` at commit 56851033051a6f9bd50e22219db64d68722a6f01).
  Both read it through ``update_llm_args_with_extra_options`` (``llm_args.py`` at 0004396), which
  loads it with PyYAML's ``yaml.safe_load`` and refuses a root that is not a mapping; it is written
  here with PyYAML's ``yaml.safe_dump``, so writer and reader resolve every scalar alike (YAML 1.1).
- The command: ``trtllm-serve MODEL`` is a click command whose ``MODEL`` argument is required
  (``@click.argument("model", type=str)``) and whose ``--config`` / ``--extra_llm_api_options`` names
  the YAML file that overrides its options (``tensorrt_llm/commands/serve.py`` at 00209af, the
  ``serve`` command's options); click refuses an option it does not define.
- Tensor parallelism: ``trtllm-serve``'s ``--tensor_parallel_size`` / ``--tp_size`` (default 1,
  ``tensorrt_llm/commands/serve.py`` at commit 00209af149e7774406881a37283dce303571eb11, the
  ``serve`` command's options), passed on as the LLM's ``tensor_parallel_size``
  (``get_llm_args``; ``_ParallelConfig.tp_size`` in ``llm_args.py``). ``DecodingBaseConfig``
  has no field for the draft's own tensor parallelism (its fields at 0004396: ``max_draft_len``,
  ``max_total_draft_tokens``, ``speculative_model``, ``max_concurrency``, ``draft_len_schedule``,
  ``load_format``, the acceptance-rate and sampling switches), and the config takes no unknown
  key (``StrictBaseModel``): the one-model paths draft inside the target's model, on its GPUs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import yaml

from ._common import (
    ConfigBlock,
    EngineConfig,
    check_count,
    check_method,
    check_model,
    check_parallel,
    check_schedule,
    check_target,
    command,
    shell_word,
)

SOURCE = "TensorRT-LLM at 0004396 (tensorrt_llm/llmapi/llm_args.py, DecodingBaseConfig)"

#: ``decoding_type`` for each method (None: no config the page writes).
DECODING_TYPES = {
    "draft_model": "Draft_Target",
    "eagle": None,
    "eagle3": "Eagle3",
    "mtp": "MTP",
    "ngram": "NGram",
    "suffix": None,
    "dflash": "DFlash",
}

#: The decoding types whose one-model path changes the draft length at run time (``support_dynamic_draft_len``).
SCHEDULED_TYPES = ("Draft_Target", "Eagle3", "MTP", "DFlash")

FILE = "trtllm_speculative.yaml"


def draft_len_schedule(schedule: Sequence[tuple[int, int, int]]) -> tuple[dict[int, int], list[tuple[int, int, int]]]:
    """``draft_len_schedule`` for ``schedule`` (each range's last batch to its k), and the ranges whose
    k had to be capped at the first range's, which TensorRT-LLM takes as ``max_draft_len``.

    Trailing ranges of k = 0 are left out: past the largest key TensorRT-LLM does not speculate.
    """
    first = schedule[0][2]
    kept = list(schedule)
    while len(kept) > 1 and kept[-1][2] == 0:
        kept.pop()
    capped = [(lo, hi, k) for lo, hi, k in kept if k > first]
    return {hi: min(k, first) for _, hi, k in kept}, capped


def serve_command(target: str, tp: int = 1) -> str:
    """``trtllm-serve TARGET`` (its required ``MODEL`` argument) reading :data:`FILE` through
    ``--extra_llm_api_options``, with ``--tp_size`` on more than one GPU, one flag a line."""
    gpus: list[tuple[str, object]] = [("--tp_size", tp)] if tp > 1 else []
    return command(f"trtllm-serve {shell_word(target)}", [*gpus, ("--extra_llm_api_options", FILE)])


def spans(ranges: Sequence[tuple[int, int, int]]) -> str:
    """``ranges`` in words with their k: "batch 9 (k 3), batches 12 to 15 (k 4) and …"."""
    said = [f"batch {lo} (k {k})" if lo == hi else f"batches {lo} to {hi} (k {k})" for lo, hi, k in ranges]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def speculative_config(decoding_type: str, model: str | None, max_draft_len: int, schedule=None) -> dict:
    """The ``speculative_config`` mapping, in TensorRT-LLM's field order."""
    config: dict = {"decoding_type": decoding_type, "max_draft_len": max_draft_len}
    if model is not None:
        config["speculative_model"] = model
    if schedule is not None:
        config["draft_len_schedule"] = dict(schedule)
    return config


def trtllm_config(
    schedule: Sequence[tuple[int, int, int]],
    method: str,
    model: str | None,
    fixed_k: int,
    batch: int,
    *,
    target: str | None = None,
    tensor_parallel_size: int = 1,
    draft_tensor_parallel_size: int | None = None,
) -> EngineConfig:
    """``speculative_config`` for ``schedule`` and the ``trtllm-serve`` command that serves ``target``
    (``None``: a placeholder) with it; for NGram, whose drafts TensorRT-LLM does not schedule by batch,
    the ``fixed_k`` best at ``batch``. ``--tp_size`` for a target on more than one GPU; a warning where
    the draft's tensor parallelism (``None``: the target's) differs, which TensorRT-LLM has no setting for."""
    schedule = check_schedule(schedule)
    method, model = check_method(method), check_model(model, method)
    target = check_target(target)
    fixed_k, batch = check_count(fixed_k, "fixed_k"), check_count(batch, "batch", 1)
    tp, draft_tp = check_parallel(tensor_parallel_size, draft_tensor_parallel_size)
    decoding_type = DECODING_TYPES[method]
    if decoding_type is None:
        why = (
            "its PyTorch backend drafts with EAGLE-3 heads (`Eagle3`; `EagleDecodingConfig` runs the same one-model "
            "EAGLE-3 path)"
            if method == "eagle"
            else "it has no suffix decoding of vLLM's kind (its `SA` is a suffix automaton of its own)"
        )
        return EngineConfig("TensorRT-LLM", SOURCE, (), (f"No TensorRT-LLM config for `{method}`: {why}.",))
    if method != "draft_model":
        model = model if method in ("eagle3", "dflash") else None  # MTP uses the target's layers, NGram the prompt
    warnings, notes = [], []
    first = schedule[0][2]
    if decoding_type not in SCHEDULED_TYPES:
        warnings.append(
            f"TensorRT-LLM changes the draft length with the batch size only on its one-model paths "
            f"(`support_dynamic_draft_len`: MTP, Eagle3, Draft_Target, DFlash and others, not {decoding_type}): "
            f"so no `draft_len_schedule` here, but the best k at batch {batch}, {fixed_k}."
        )
        table, capped, max_draft_len = None, [], fixed_k
    elif max(k for _, _, k in schedule) == 0:
        table, capped, max_draft_len = None, [], 0
    elif first == 0:
        warnings.append(
            "No speculation at batch 1: TensorRT-LLM takes the smallest key's length as `max_draft_len`, and "
            "`max_draft_len` 0 turns speculation off, so a schedule that speculates only at larger batches "
            "cannot be written."
        )
        table, capped, max_draft_len = None, [], 0
    else:
        table, capped = draft_len_schedule(schedule)
        max_draft_len = first
    if max_draft_len == 0:
        notes.append("No k pays here: serve without `speculative_config`.")
        return EngineConfig("TensorRT-LLM", SOURCE, (), tuple(warnings), tuple(notes))
    if capped:
        # One message for every capped range: the rule is one, and so is what it does to them.
        warnings.append(
            f"TensorRT-LLM wants the smallest key of `draft_len_schedule` to map to `max_draft_len` and no length "
            f"above it (`validate_draft_len_schedule_and_sort`), so batch 1's k, {first}, caps the rest: "
            f"{spans(capped)} get {first} instead."
        )
    if table is not None:
        largest = max(table)
        notes.append(
            f"Each key is the last batch size of a range: TensorRT-LLM uses the first key at or above the batch, "
            f"and does not speculate above {largest:,} (where vLLM keeps the last range's k). Builds before "
            "pull request 10860 (merged 13 March 2026) read the keys as lower bounds instead and require the key 1: "
            "they refuse this schedule or read it shifted."
        )
    if decoding_type != "NGram" and draft_tp != tp:
        warnings.append(
            "TensorRT-LLM's `speculative_config` has no setting for the draft's tensor parallelism "
            f"(llm_args.py, `DecodingBaseConfig`): its {decoding_type} path drafts inside the target's model, "
            f"on the target's {tp} GPU{'s' if tp > 1 else ''}, not the {draft_tp} assumed here."
        )
    config = speculative_config(decoding_type, model, max_draft_len, table)
    # TensorRT-LLM reads the file with PyYAML's safe_load: safe_dump writes what that reader reads back.
    text = yaml.safe_dump({"speculative_config": config}, sort_keys=False, allow_unicode=True)
    blocks = [
        ConfigBlock(f"{FILE}", text, "yaml", FILE),
        ConfigBlock(f"the whole command, beside {FILE}", serve_command(target, tp), "bash"),
        ConfigBlock("the same settings as JSON, for the LLM API (keys of draft_len_schedule as text)",
                    json.dumps(config, indent=2), "json"),
    ]  # fmt: skip
    return EngineConfig("TensorRT-LLM", SOURCE, tuple(blocks), tuple(warnings), tuple(notes), config)
