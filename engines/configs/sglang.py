"""SGLang's server flags: a chain at one batch size, an EAGLE tree, and ``--speculative-adaptive``
with a per-batch-size ``candidate_steps`` file that holds a whole schedule.

Read from SGLang 0.5.23 (the PyPI wheel); "line N" is a line of that wheel's file.

- ``sglang/srt/arg_groups/fields/spec.py``: ``--speculative-algorithm`` (line 31),
  ``--speculative-draft-model-path`` (line 36), ``--speculative-num-steps`` (line 58),
  ``--speculative-eagle-topk`` (line 62), ``--speculative-num-draft-tokens`` (line 66),
  ``--speculative-adaptive`` (a bool, line 237), ``--speculative-adaptive-config`` (a path to a
  JSON file, line 241), ``--speculative-ngram-max-bfs-breadth`` (line 256). Algorithms: EAGLE,
  EAGLE3, NEXTN (EAGLE's alias, ``sglang/srt/speculative/spec_registry.py``), STANDALONE,
  NGRAM, DFLASH, DSPARK, UNO; none is suffix decoding.
- The draft tokens count the root: with top-k 1 SGLang sets them to steps + 1
  (``sglang/srt/arg_groups/speculative_hook.py`` lines 1255-1266).
- ``--speculative-adaptive`` (``sglang/srt/speculative/adaptive_spec_params.py``): the JSON's
  integer-string keys are batch sizes, each ``{"candidate_steps": [...]}`` (non-negative ints,
  lines 116-131; 0 means no drafting, line 232). A batch is padded up to a CUDA-graph batch size
  and routed to the largest key at or below it, the smallest key below them all
  (``_route``, ``_find_closest_bs``, lines 342-358); a slot with one candidate never moves.
  ``adaptive_unsupported_reason`` (lines 56-100) turns it off, falling back to the static flags,
  for an algorithm other than EAGLE and EAGLE3, a top-k other than 1 and under attention data
  parallelism. ``--speculative-num-steps`` must be one of the candidates and the draft tokens
  become steps + 1 (``speculative_hook.py`` lines 1392-1427).
- Tensor parallelism: ``--tp-size`` (alias ``--tensor-parallel-size``,
  ``sglang/srt/arg_groups/fields/parallel.py`` lines 45-51). No flag gives the draft a
  tensor-parallel size of its own (none in ``fields/spec.py``): the draft worker is built from the
  server's own arguments (``sglang/srt/speculative/draft_worker_common.py``,
  ``build_draft_tp_worker``, lines 66-101), so it runs on the target's GPUs.
- DFLASH (``_handle_dflash``, ``sglang/srt/arg_groups/speculative_hook.py`` lines 287-441): the
  draft model path is required (lines 323-327); steps and top-k are forced to 1 (lines 328-366); the
  block size is ``--speculative-dflash-block-size`` (``fields/spec.py`` lines 70-73, "Block size
  (verify window length). Alias of --speculative-num-draft-tokens for DFLASH"), else the draft
  checkpoint's, else 16 (lines 368-424). The block counts the last accepted token: position 0 is
  the anchor and the draft proposes ``block_size - 1`` tokens ("draft tokens are block positions
  1: (pos 0 is the seeded bonus token)", ``sglang/srt/speculative/dflash_worker_v2.py`` lines
  147-156 and 181-183), so k tokens take a block of k + 1. A block other than the checkpoint's is
  run with a warning ("DFLASH block size mismatch", lines 509-522). With attention data
  parallelism DFLASH requires ``--enable-dp-lm-head`` (``speculative_hook.py`` lines 303-309).
  ``--speculative-adaptive`` does not run with it (``adaptive_unsupported_reason``, above). Its
  draft worker is built as above (``dflash_worker_v2.py`` line 431, ``build_draft_tp_worker``).
- Requests at once: under every algorithm written here, SGLang sets ``max_running_requests`` to
  48 where ``--max-running-requests`` (``sglang/srt/arg_groups/fields/schedule.py`` lines 31-34,
  default None) is not given, with the warning "Max running requests is reset to 48 for
  speculative decoding" (``speculative_hook.py`` lines 1086-1094 for EAGLE, EAGLE3 and
  STANDALONE, ``_handle_eagle_family``; 1294-1302 for NGRAM; 438-446 for DFLASH; dispatched by
  ``sglang/srt/speculative/spec_info.py`` lines 255-266). A schedule that reaches past batch 48
  needs the flag, or its larger batches never run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ._common import (
    ConfigBlock,
    EngineConfig,
    check_count,
    check_method,
    check_model,
    check_name,
    check_parallel,
    check_schedule,
    check_target,
    command,
    read_flag_lines,
    shell_word,
)

SOURCE = "SGLang 0.5.23 (sglang/srt/arg_groups/fields/spec.py, sglang/srt/speculative/adaptive_spec_params.py)"

#: ``--speculative-algorithm`` for each method (None: SGLang has none).
ALGORITHMS = {
    "draft_model": "STANDALONE",
    "eagle": "EAGLE",
    "eagle3": "EAGLE3",
    "mtp": "NEXTN",
    "ngram": "NGRAM",
    "suffix": None,
    "dflash": "DFLASH",
}

#: The algorithms ``--speculative-adaptive`` runs with (``adaptive_unsupported_reason``, lines 60-65).
ADAPTIVE_ALGORITHMS = ("EAGLE", "EAGLE3")

#: The file name the adaptive flags point at.
ADAPTIVE_FILE = "sglang_adaptive.json"

#: Requests SGLang runs at once under speculative decoding without ``--max-running-requests``.
SPECULATIVE_MAX_RUNNING = 48


def running_flags(batch: int) -> list[tuple[str, object]]:
    """``--max-running-requests`` for a server that must run ``batch`` requests at once under
    speculation, none where SGLang's 48 already allow it."""
    return [("--max-running-requests", batch)] if batch > SPECULATIVE_MAX_RUNNING else []


def launch_command(target: str, flags: list[tuple[str, object]], tp: int = 1, batch: int = 1) -> str:
    """``python -m sglang.launch_server --model-path TARGET`` (the flag SGLang requires, ``fields/model.py``
    line 51), ``--tp-size`` on more than one GPU, ``flags``, and ``--max-running-requests`` where ``batch``
    requests at once need it (:func:`running_flags`), one flag a line."""
    gpus: list[tuple[str, object]] = [("--tp-size", tp)] if tp > 1 else []
    program = f"python -m sglang.launch_server --model-path {shell_word(target)}"
    return command(program, [*gpus, *flags, *running_flags(batch)])


def chain_flags(method: str, model: str | None, k: int) -> list[tuple[str, object]]:
    """The flags of a chain of ``k`` drafted tokens (top-k 1), in SGLang's order."""
    algorithm = ALGORITHMS[method]
    flags: list[tuple[str, object]] = [("--speculative-algorithm", algorithm)]
    if method == "ngram":
        # A chain: one branch per step; the draft tokens count the root, as for EAGLE.
        return [*flags, ("--speculative-num-draft-tokens", k + 1), ("--speculative-ngram-max-bfs-breadth", 1)]
    if model is not None:
        flags.append(("--speculative-draft-model-path", model))
    if method == "dflash":
        # One pass drafts the block; SGLang forces steps and top-k to 1 itself.
        return [*flags, ("--speculative-dflash-block-size", k + 1)]
    steps = [("--speculative-num-steps", k), ("--speculative-eagle-topk", 1), ("--speculative-num-draft-tokens", k + 1)]
    return [*flags, *steps]


def tree_flags(algorithm: str, model: str, steps: int, topk: int, num_draft_tokens: int) -> list[tuple[str, object]]:
    """SGLang's flags for an EAGLE tree: ``num_draft_tokens`` counts the root."""
    for name, value in (("steps", steps), ("topk", topk), ("num_draft_tokens", num_draft_tokens)):
        check_count(value, name, 1)
    if algorithm not in ADAPTIVE_ALGORITHMS:
        raise ValueError(f"algorithm must be EAGLE or EAGLE3, got {algorithm!r}")
    check_name(model, "model")
    return [
        ("--speculative-algorithm", algorithm),
        ("--speculative-draft-model-path", model),
        ("--speculative-num-steps", steps),
        ("--speculative-eagle-topk", topk),
        ("--speculative-num-draft-tokens", num_draft_tokens),
    ]


def adaptive_file(schedule: Sequence[tuple[int, int, int]]) -> dict:
    """The ``--speculative-adaptive-config`` object holding ``schedule``: one slot per range, keyed by
    its first batch, whose only candidate is the range's k."""
    return {str(lo): {"candidate_steps": [k]} for lo, _, k in schedule}


def adaptive_versions_note(schedule: Sequence[tuple[int, int, int]]) -> str:
    """Which SGLang releases read :func:`adaptive_file` as written (the module's sources)."""
    said = (
        "The per-batch slots are read from SGLang 0.5.13 on; 0.5.12.post1 and earlier read one flat "
        "`candidate_steps` list at the file's top level, so there the slots are ignored and the steps adapt among "
        "1, 3, 7 and `--speculative-num-steps` by acceptance, not batch size."
    )
    if any(k == 0 for _, _, k in schedule):
        said += (
            " 0.5.13 also refuses a slot of 0 steps (\u201cmust be a list of positive ints\u201d): use 0.5.14 or later."
        )
    return said


def read_flags(text: str) -> dict[str, str]:
    """``--flag value`` lines joined by `` \\`` (:func:`~engines.configs._common.flag_lines`)
    read back as a shell reads them."""
    return read_flag_lines(text)


def sglang_config(
    schedule: Sequence[tuple[int, int, int]],
    method: str,
    model: str | None,
    fixed_k: int,
    batch: int,
    *,
    target: str | None = None,
    data_parallel_size: int = 1,
    tensor_parallel_size: int = 1,
    draft_tensor_parallel_size: int | None = None,
) -> EngineConfig:
    """SGLang's launch commands for ``target`` (``None``: a placeholder): the chain of ``fixed_k`` tokens
    best at ``batch``, and for EAGLE and EAGLE-3 the whole ``schedule`` through ``--speculative-adaptive``;
    each with ``--tp-size`` for a target on more than one GPU, and a warning where the draft's tensor
    parallelism (``None``: the target's) is not the target's, which SGLang has no flag for."""
    schedule = check_schedule(schedule)
    method, model = check_method(method), check_model(model, method)
    target = check_target(target)
    fixed_k, batch = check_count(fixed_k, "fixed_k"), check_count(batch, "batch", 1)
    data_parallel_size = check_count(data_parallel_size, "data_parallel_size", 1)
    tp, draft_tp = check_parallel(tensor_parallel_size, draft_tensor_parallel_size)
    algorithm = ALGORITHMS[method]
    if algorithm is None:
        warning = (
            f"SGLang has no `{method}` method (its algorithms: EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM, "
            "DFLASH, DSPARK, UNO): no flags."
        )
        return EngineConfig("SGLang", SOURCE, (), (warning,))
    warnings, notes, blocks = [], [], []
    reach = max(schedule[-1][1], batch)
    flags = chain_flags(method, model, fixed_k) if fixed_k else None
    if flags:
        shape = "block" if method == "dflash" else "chain"
        launch = launch_command(target, flags, tp, reach)
        blocks.append(ConfigBlock(f"a fixed {shape}, best at batch {batch}: the whole command", launch, "bash"))
        counted = "`--speculative-dflash-block-size`" if method == "dflash" else "`--speculative-num-draft-tokens`"
        notes.append(
            f"One draft length for the whole server: the best k at batch {batch} is {fixed_k}; "
            f"{counted} counts the last accepted token as well, so it is k + 1."
        )
        if method == "dflash":
            notes.append(
                f"A DFlash checkpoint is trained on one block size: SGLang runs a block of {fixed_k + 1} with a "
                "warning (\u201cDFLASH block size mismatch\u201d) where the checkpoint's differs."
            )
            if data_parallel_size > 1:
                warnings.append(
                    "With attention data parallelism (`--enable-dp-attention`) SGLang refuses DFLASH without "
                    "`--enable-dp-lm-head` (speculative_hook.py, `_handle_dflash`): add it."
                )
    else:
        notes.append(f"At batch {batch} no k beats plain decoding: serve without the speculative flags.")
    largest = max(k for _, _, k in schedule)
    if largest and algorithm not in ADAPTIVE_ALGORITHMS:
        notes.append(
            f"`--speculative-adaptive`, which could follow the whole schedule, runs with EAGLE and EAGLE3 only; "
            f"SGLang turns it off for {algorithm}."
        )
    elif largest and len(schedule) > 1:
        first = schedule[0][2]
        adaptive = [
            ("--speculative-adaptive", ""),
            ("--speculative-adaptive-config", ADAPTIVE_FILE),
            ("--speculative-algorithm", algorithm),
            *([("--speculative-draft-model-path", model)] if model is not None else []),
            ("--speculative-num-steps", first),
            ("--speculative-eagle-topk", 1),
        ]
        document = json.dumps(adaptive_file(schedule), indent=2)
        blocks.append(ConfigBlock(f"{ADAPTIVE_FILE}, one slot per range", document, "json", ADAPTIVE_FILE))
        title = f"or the whole schedule, adaptive: the whole command, beside {ADAPTIVE_FILE}"
        blocks.append(ConfigBlock(title, launch_command(target, adaptive, tp, reach), "bash"))
        notes.append(
            "With `--speculative-adaptive`, each range is a slot keyed by its first batch whose only "
            "`candidate_steps` is its k, so the steps never move from it. SGLang pads a batch up to a CUDA-graph "
            "batch size before picking the slot, so just below a range's first batch it may take that range's k."
        )
        notes.append(adaptive_versions_note(schedule))
        if data_parallel_size > 1:
            warnings.append(
                "With attention data parallelism (`--enable-dp-attention`) SGLang turns `--speculative-adaptive` "
                f"off and drafts `--speculative-num-steps` = {first} at every batch size "
                "(adaptive_spec_params.py, `adaptive_unsupported_reason`): use the fixed chain there."
            )
    if blocks and running_flags(reach):
        notes.append(
            f"Under speculative decoding SGLang runs at most {SPECULATIVE_MAX_RUNNING} requests at once unless "
            f"`--max-running-requests` is given (\u201cMax running requests is reset to 48 for speculative "
            f"decoding\u201d, speculative_hook.py): the schedule reaches batch {reach}."
        )
    if blocks and method != "ngram" and draft_tp != tp:
        warnings.append(
            f"SGLang has no flag for the draft's tensor parallelism: it builds the draft worker from the server's "
            f"arguments (draft_worker_common.py, `build_draft_tp_worker`), so the draft runs on the target's {tp} "
            f"GPU{'s' if tp > 1 else ''}, not the {draft_tp} assumed here."
        )
    return EngineConfig("SGLang", SOURCE, tuple(blocks), tuple(warnings), tuple(notes), dict(flags) if flags else None)
