"""vLLM's ``--speculative-config`` for a batch-size schedule of k, with vLLM's rules applied.

Read from vLLM 0.33.0 (the PyPI wheel, commit 4ba787ec9), the release whose checker the
schedule is written for; "0.33.0 line N" below is a line of that wheel's file.

- ``vllm/config/speculative.py``: ``SpeculativeConfig`` takes ``num_speculative_tokens`` (an
  int > 0, line 413: the largest k, which sizes the engine's buffers), ``model`` (the draft
  model or head, line 416), ``method`` (line 419; the ``SpeculativeMethod`` names of lines 74-82,
  ``suffix`` among them) and ``num_speculative_tokens_per_batch_size`` (line 524), a list of
  ``(range_start, range_end, num_speculative_tokens)`` over inclusive batch ranges. The config
  takes no unknown key (``extra="forbid"``, ``vllm/config/utils.py`` line 71).
- The schedule's checker, ``validate_and_normalize_dynamic_sd_schedule`` in
  ``vllm/v1/spec_decode/dynamic/utils.py`` (lines 7-74, the same in 0.34.0): entries of three
  integers, ranges positive, start <= end, k >= 0, sorted without overlap, the first starting at
  1. ``build_dynamic_sd_schedule_lookup`` (lines 77-142) caps each k at
  ``num_speculative_tokens``, fills a gap with the k below it and keeps the last k past the last
  range, up to ``--max-num-seqs``.
- Data parallelism: with ``--data-parallel-size`` above 1, ``_maybe_disable_dynamic_sd_for_data_parallel``
  (``vllm/config/vllm.py`` lines 1110-1127) sets the schedule to ``None`` with a warning and
  serves ``num_speculative_tokens`` at every batch size.
- Model Runner V1: ``_maybe_disable_dynamic_sd_for_v1`` (lines 1088-1108) drops the schedule
  the same way for a method outside ``ngram, eagle, eagle3, mtp, draft_model, dflash`` when
  the V1 runner serves (``VLLM_USE_V2_MODEL_RUNNER=0``, or V2 lacking a feature in use,
  ``use_v2_model_runner``, lines 730-766). vLLM 0.34.0 (commit 62d4bc3c7) has no V1 runner
  and no such rule: the issue names only ``vllm/config/vllm.py``, and the rule is 0.33.0's.
- MTP: where the MTP model's ``n_predict`` is below ``num_speculative_tokens``, the latter must
  be a multiple of it (``speculative.py`` lines 1600-1612, "must be divisible by n_predict").
- Tensor parallelism: ``--tensor-parallel-size`` (``vllm/engine/arg_utils.py`` line 1209; 0.34.0
  line 1224). The speculative config's ``draft_tensor_parallel_size`` (``speculative.py`` line 427;
  0.34.0 line 481) defaults to the target's and must be 1 or the target's, else "cannot be other
  value than 1 or target model tensor_parallel_size" (``_verify_and_get_draft_tp``, lines
  1849-1870; 0.34.0 lines 1530-1551). It is checked where a draft model is loaded; only
  ``draft_model``'s drafter loads with the draft's parallel config
  (``vllm/v1/worker/gpu/spec_decode/standalone_ar/speculator.py`` lines 112-121, the same in
  0.34.0), while an EAGLE, EAGLE-3 or MTP head loads with the target's
  (``vllm/v1/worker/gpu/spec_decode/eagle/utils.py``, ``load_eagle_model``, lines 80-93). Model
  Runner V1's ``draft_model`` refuses a draft TP other than the target's
  (``vllm/v1/spec_decode/draft_model.py`` lines 63-78, ``_raise_if_draft_tp_mismatch``; 0.34.0 has
  no V1 runner). ngram and suffix load no draft.
- DFlash (``dflash``, a block drafter): ``model`` is its draft checkpoint, required
  ("num_speculative_tokens was provided but without speculative model", ``speculative.py`` line
  1294; 0.34.0 ``vllm/v1/worker/gpu/spec_decode/speculator_config.py`` lines 172-175). ``num_speculative_tokens``
  is the k drafted tokens: one pass of k + 1 queries a request, the last accepted token and k mask
  tokens ("Each request emits exactly (bonus + N mask) query tokens per step",
  ``vllm/v1/worker/gpu/spec_decode/dflash/speculator.py`` lines 64-65; 0.34.0 lines 61-62), so a checkpoint
  trained on blocks of 16 drafts up to 15; vLLM does not check k against the checkpoint's block size.
  Under a schedule Model Runner V2 passes the batch's k to the drafter, which skips its pass at
  k = 0 (``dflash/speculator.py`` lines 546-553; 0.34.0 lines 570-577) and else drafts the full
  ``num_speculative_tokens`` and has the rest cut off (``vllm/v1/worker/gpu/model_runner.py`` lines
  2308-2337; 0.34.0 lines 2368-2401): the draft pass has the largest k's width at every batch size.
  ``dflash`` is among V1's scheduled methods above. Its drafter loads with the target's parallel
  config (``dflash/utils.py``, ``load_dflash_model``, lines 16-47, the same in 0.34.0), as a head does.
- The command: ``vllm serve [model_tag] [options]`` takes the model as its positional
  ``model_tag`` (``nargs="?"``, ``vllm/entrypoints/common/cli_args.py`` lines 438-443; the
  ``--model`` flag is deprecated there, ``vllm/utils/argparse_utils.py`` lines 324-337); without
  it vLLM serves ``Qwen/Qwen3-0.6B`` (``vllm/config/model.py`` line 155, ``vllm/entrypoints/cli/serve.py``
  line 40). ``--speculative-config`` / ``-sc`` is parsed with ``json.loads`` (``vllm/engine/arg_utils.py``
  lines 1864-1867); ``--data-parallel-size`` is line 1241.
- Sequences at once: ``--max-num-seqs`` (``vllm/engine/arg_utils.py`` line 1754) defaults, for
  ``vllm serve``, to 1024 on a GPU of 70 GiB or more other than an A100 (H100, H200, B200,
  MI300X) and to 256 on the others (``get_batch_defaults``, lines 2973-3006; 0.34.0 not read
  here). A schedule that reaches past 256 needs the flag on the smaller GPUs, or its larger
  batches never run.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence

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

SOURCE = "vLLM 0.33.0 (vllm/config/speculative.py, vllm/config/vllm.py)"

#: The methods whose proposers Model Runner V1 truncates to a schedule's k (0.33.0 ``vllm/config/vllm.py`` line 1096).
V1_SCHEDULE_METHODS = ("ngram", "eagle", "eagle3", "mtp", "draft_model", "dflash")

#: The methods whose drafter vLLM loads with ``draft_tensor_parallel_size`` (standalone_ar/speculator.py line 118).
DRAFT_TP_METHODS = ("draft_model",)

#: What loads each method's draft with the target's tensor parallelism, for the warning.
TARGET_TP_LOADERS = {"dflash": "dflash/utils.py, `load_dflash_model`"}

#: The methods that load no draft, so have no draft tensor parallelism.
NO_DRAFT_METHODS = ("ngram", "suffix")

#: ``vllm serve``'s smallest default ``--max-num-seqs`` (an A100, L40S, L4 or RTX 4090).
SERVE_MAX_NUM_SEQS = 256


def running_flags(batch: int) -> list[tuple[str, object]]:
    """``--max-num-seqs`` for a server that must run ``batch`` sequences at once, none where every
    GPU's default allows it."""
    return [("--max-num-seqs", batch)] if batch > SERVE_MAX_NUM_SEQS else []


def speculative_config(method: str, model: str | None, k: int, schedule=None, **extra) -> dict:
    """The ``--speculative-config`` object in vLLM's key order: method, model, k, schedule, then ``extra``."""
    config: dict = {"method": method}
    if model is not None:
        config["model"] = model
    config["num_speculative_tokens"] = k
    if schedule is not None:
        config["num_speculative_tokens_per_batch_size"] = [[lo, hi, kk] for lo, hi, kk in schedule]
    return config | extra


def serve_command(
    target: str, config: dict, *, tensor_parallel_size: int = 1, data_parallel_size: int = 1, batch: int = 1
) -> str:
    """``vllm serve TARGET`` with every flag the config needs, one a line: the GPUs, ``--speculative-config``
    (its JSON one shell word, in single quotes) and ``--max-num-seqs`` where ``batch`` sequences at once
    need it (:func:`running_flags`). Without the model vLLM would serve its default, Qwen/Qwen3-0.6B
    (``vllm/config/model.py`` line 155; "Defaults to Qwen/Qwen3-0.6B", ``vllm/entrypoints/cli/serve.py`` line 40)."""
    flags: list[tuple[str, object]] = []
    if tensor_parallel_size > 1:
        flags.append(("--tensor-parallel-size", tensor_parallel_size))
    if data_parallel_size > 1:
        flags.append(("--data-parallel-size", data_parallel_size))
    flags += [("--speculative-config", json.dumps(config)), *running_flags(batch)]
    return command(f"vllm serve {shell_word(target)}", flags)


def read_flag(text: str) -> dict:
    """The object of the ``--speculative-config '{…}'`` in ``text`` (a flag or a whole command), read as a
    shell reads it (a backslash before a newline continues the line)."""
    words = shlex.split(text.replace("\\\n", ""))
    if words.count("--speculative-config") != 1 or words[-1] == "--speculative-config":
        raise ValueError(f"text must hold one --speculative-config '{{…}}', got {text[:80]!r}")
    return json.loads(words[words.index("--speculative-config") + 1])


def num_speculative_tokens(largest: int, method: str, n_predict: int) -> int:
    """vLLM's ``num_speculative_tokens`` for a largest k: for MTP above ``n_predict``, the next multiple of it."""
    if method == "mtp" and largest > n_predict and largest % n_predict:
        return -(-largest // n_predict) * n_predict
    return largest


def vllm_config(
    schedule: Sequence[tuple[int, int, int]],
    method: str,
    model: str | None = None,
    *,
    target: str | None = None,
    fixed_k: int = 0,
    batch: int = 1,
    data_parallel_size: int = 1,
    n_predict: int = 1,
    tensor_parallel_size: int = 1,
    draft_tensor_parallel_size: int | None = None,
) -> EngineConfig:
    """vLLM's ``--speculative-config`` for ``schedule``, or the rule that keeps it from applying.

    Parameters
    ----------
    schedule : sequence of (lo, hi, k)
        :func:`specmath.batch_k_schedule`'s ranges, contiguous from batch 1.
    method : str
        vLLM's ``method``; ``model`` the draft model or head it loads (``None`` for mtp, ngram, suffix).
    target : str or None
        The target model ``vllm serve`` loads (``None``: a placeholder,
        :data:`~engines.configs._common.TARGET_PLACEHOLDER`).
    fixed_k, batch : int
        The best k at the batch size a fixed config is for (0: speculation does not pay
        there); used where vLLM would serve one k at every batch size (data parallelism).
    data_parallel_size : int
        ``--data-parallel-size``; above 1 vLLM drops the schedule, so the config is ``fixed_k``'s.
    n_predict : int
        The MTP model's ``n_predict`` (its MTP layers), for method mtp.
    tensor_parallel_size, draft_tensor_parallel_size : int
        The target's ``--tensor-parallel-size`` and the draft's (``None``: the target's, vLLM's
        default). A draft TP other than the target's is written as ``draft_tensor_parallel_size``
        where vLLM takes and honours it (1, for ``draft_model``), else said in a warning.
    """
    schedule = check_schedule(schedule)
    method = check_method(method)
    model = check_model(model, method)
    target = check_target(target)
    fixed_k, batch = check_count(fixed_k, "fixed_k"), check_count(batch, "batch", 1)
    reach = max(schedule[-1][1], batch)
    data_parallel_size = check_count(data_parallel_size, "data_parallel_size", 1)
    n_predict = check_count(n_predict, "n_predict", 1)
    tp, draft_tp = check_parallel(tensor_parallel_size, draft_tensor_parallel_size)
    warnings, notes = [], []
    largest = max(k for _, _, k in schedule)
    if data_parallel_size > 1:
        warnings.append(
            f"With `--data-parallel-size {data_parallel_size}` vLLM drops `num_speculative_tokens_per_batch_size` "
            "(ranks could pick different k and deadlock) and drafts `num_speculative_tokens` at every batch size "
            f"(vllm/config/vllm.py, `_maybe_disable_dynamic_sd_for_data_parallel`): so no schedule here, but the "
            f"best k at batch {batch}, {fixed_k}."
        )
        largest, schedule = fixed_k, None
    if largest == 0:
        notes.append("No k beats plain decoding here: serve without `--speculative-config`.")
        return EngineConfig("vLLM", SOURCE, (), tuple(warnings), tuple(notes), None)
    draft_keys = draft_parallel(method, tp, draft_tp, warnings)
    k = num_speculative_tokens(largest, method, n_predict)
    if k != largest:
        warnings.append(
            f"vLLM refuses an MTP `num_speculative_tokens` above the model's `n_predict` = {n_predict} that is "
            f"not a multiple of it (\u201cmust be divisible by n_predict\u201d, vllm/config/speculative.py): "
            f"it is {k} here, not {largest}; the schedule still caps each batch's k."
        )
    if schedule is not None and method not in V1_SCHEDULE_METHODS:
        warnings.append(
            f"If vLLM serves on Model Runner V1 (`VLLM_USE_V2_MODEL_RUNNER=0`, or V2 lacking a feature you use: "
            f"it logs \u201cusing the V1 model runner instead\u201d), it drops the schedule for `{method}` and drafts "
            f"{k} tokens at every batch size (vllm/config/vllm.py, `_maybe_disable_dynamic_sd_for_v1`). "
            "Model Runner V2, the default, applies it."
        )
    if schedule is not None:
        notes.append(
            "vLLM checks that the first range starts at 1 and caps each k at `num_speculative_tokens`; "
            "batch sizes above the last range keep its k."
        )
    if method == "dflash":
        notes.append(dflash_note(k, schedule is not None))
    config = speculative_config(method, model, k, schedule, **draft_keys)
    serve = serve_command(target, config, tensor_parallel_size=tp, data_parallel_size=data_parallel_size, batch=reach)
    blocks = [ConfigBlock("the whole command", serve, "bash")]
    if running_flags(reach):
        notes.append(
            f"`vllm serve` runs at most 1024 sequences at once on a GPU of 70 GiB or more other than an A100, and "
            f"{SERVE_MAX_NUM_SEQS} on the others, unless `--max-num-seqs` is given (vllm/engine/arg_utils.py, "
            f"`get_batch_defaults`): the schedule reaches batch {reach}."
        )
    return EngineConfig("vLLM", SOURCE, tuple(blocks), tuple(warnings), tuple(notes), config)


def draft_parallel(method: str, tp: int, draft_tp: int, warnings: list[str]) -> dict:
    """The speculative config's ``draft_tensor_parallel_size`` key for a draft on ``draft_tp`` GPUs
    beside a target on ``tp`` (none where it is the default, the target's), appending to ``warnings``
    where vLLM would refuse it or not honour it."""
    if method in NO_DRAFT_METHODS or draft_tp == tp:
        return {}
    if method not in DRAFT_TP_METHODS:
        loader = TARGET_TP_LOADERS.get(method, "eagle/utils.py, `load_eagle_model`")
        warnings.append(
            f"vLLM loads the `{method}` drafter with the target's tensor parallelism, on its {tp} GPU"
            f"{'s' if tp > 1 else ''} ({loader}), whatever `draft_tensor_parallel_size` "
            f"says: so none is written, and the draft on {draft_tp} GPU{'s' if draft_tp > 1 else ''} assumed "
            "here is not what vLLM runs."
        )
        return {}
    if draft_tp != 1:
        warnings.append(
            f"vLLM refuses `draft_tensor_parallel_size` {draft_tp}: it must be 1 or the target's "
            f"`--tensor-parallel-size` {tp} (\u201ccannot be other value than 1 or target model "
            f"tensor_parallel_size\u201d, vllm/config/speculative.py, `_verify_and_get_draft_tp`): none is written, "
            f"so the draft runs on the target's {tp} GPUs."
        )
        return {}
    warnings.append(
        "If vLLM serves on Model Runner V1 (`VLLM_USE_V2_MODEL_RUNNER=0`), its `draft_model` drafter refuses a "
        f"`draft_tensor_parallel_size` other than the target's {tp} (v1/spec_decode/draft_model.py, "
        "`_raise_if_draft_tp_mismatch`); Model Runner V2, the default, runs the draft on one GPU."
    )
    return {"draft_tensor_parallel_size": 1}


def dflash_note(k: int, scheduled: bool) -> str:
    """What ``num_speculative_tokens`` = ``k`` means for DFlash, and what a schedule changes of its pass."""
    said = (
        f"DFlash drafts all {k} tokens in one pass of {k + 1} positions a request (the last accepted token and "
        f"{k} mask tokens): a checkpoint trained on blocks of B tokens drafts at most B \u2212 1, which vLLM does "
        "not check."
    )
    if scheduled:
        said += (
            f" Under the schedule the pass keeps its {k + 1} positions at every batch size and the drafts are cut "
            "to the batch's k (none at k 0): only the verification follows the schedule."
        )
    return said
