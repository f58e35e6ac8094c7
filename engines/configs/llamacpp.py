"""llama.cpp's llama-server flags for a chain of k drafted tokens. llama.cpp has no per-batch schedule.

Read from ggml-org/llama.cpp at commit 0c1e57098bba43ac29e6e3b677cdceebdd22334f (vendored in the
llama-cpp-python 0.3.36 source package); "line N" is a line of that commit's file.

- ``common/arg.cpp``: ``--spec-draft-n-max N`` (line 4140, an int >= 0, default 3 from
  ``common/common.h`` line 328), ``--spec-draft-n-min N`` (line 4150, default 0, line 329: a draft
  shorter than it is dropped, ``common/speculative.cpp`` lines 409-411), ``--spec-draft-p-min P``
  (line 4197, alias ``--draft-p-min``, default 0.0, line 332: drafting stops where the draft's top
  token has a lower probability), ``--spec-draft-model FNAME`` (line 4241, aliases ``-md``,
  ``--model-draft``: a GGUF file) and ``--spec-type`` (line 4249; ``draft-simple``,
  ``draft-eagle3``, ``draft-mtp``, ``ngram-*``, ``common/speculative.cpp`` lines 34-44);
  ``draft-mtp`` loads the MTP layers of the target model (``common/common.cpp`` line 1625).
- The issue's ``--draft-max`` and ``--draft-min`` are removed at this commit: they stop the
  server with "the argument has been removed. use --spec-draft-n-max …" (``common/arg.cpp``
  lines 4386-4399). ``--spec-draft-p-min`` is as the issue names it.
- The command: ``common_params_parse_ex`` (``common/arg.cpp`` lines 765-876) refuses any word it
  does not define for the program ("error: invalid argument", line 827; ``--`` words have ``_``
  read as ``-``, lines 822-825), reads an int with ``std::stoi`` and a float with ``std::stof``;
  ``-m`` / ``--model FNAME`` (line 3035) names the GGUF; without a model path llama-server starts
  as a router that "never loads a model" (``tools/server/server.cpp`` lines 138-141).
- One ``n_max`` for the server: every slot drafts up to it, whatever the number of requests
  in flight, so a batch-size schedule has no place here.
- No tensor-parallel degree: llama-server spreads a model over the GPUs of ``--device``
  (line 2738) as ``--split-mode`` says (lines 2806-2829): ``layer``, the default
  (``common/common.h`` line 485), splits the layers and KV cache across them, pipelined;
  ``row`` splits the weights by rows; ``tensor`` splits weights and KV cache, "EXPERIMENTAL".
  The draft goes on ``--spec-draft-device`` (line 4213, default: the target's devices).
- Requests at once: llama-server's slots, ``-np`` / ``--parallel N`` (``common/arg.cpp`` lines
  2543-2552), default -1 for the server (line 1403), which ``tools/server/server.cpp`` lines
  156-160 turn into 4 slots and a unified KV cache: more than 4 requests in flight need
  ``--parallel``, and ``--kv-unified`` (``-kvu``, lines 1723-1730, "use single unified KV buffer
  shared across all sequences (default: enabled if number of slots is auto)") keeps the auto
  default's one shared buffer.
- DFlash: ``--spec-type draft-dflash`` (``common/speculative.cpp`` line 38) with the DFlash draft
  as ``--spec-draft-model``. Its block is the last accepted token and ``--spec-draft-n-max`` mask
  tokens (lines 1203-1210); the trained block size is read from the GGUF's ``dflash.block_size``
  (default 16, lines 980-986), and a larger ``n_max`` is clamped to block_size - 1 with a warning
  (lines 1014-1023).
"""

from __future__ import annotations

from ._common import (
    ConfigBlock,
    EngineConfig,
    check_count,
    check_method,
    check_model,
    check_parallel,
    check_target,
    command,
    in_code,
    shell_word,
)

SOURCE = "llama.cpp at 0c1e570 (common/arg.cpp)"

#: Slots llama-server runs without ``--parallel`` (its -1, "auto").
AUTO_SLOTS = 4

#: ``--spec-type`` for each method (None: none the page writes).
SPEC_TYPES = {
    "draft_model": "draft-simple",
    "eagle": None,
    "eagle3": "draft-eagle3",
    "mtp": "draft-mtp",
    "ngram": None,
    "suffix": None,
    "dflash": "draft-dflash",
}

#: What each method's ``--spec-draft-model`` is, and its placeholder's name.
DRAFT_FILES = {
    "draft_model": ("draft model", "YOUR-DRAFT.gguf"),
    "eagle3": ("EAGLE-3 head", "YOUR-EAGLE3-HEAD.gguf"),
    "dflash": ("DFlash draft", "YOUR-DFLASH-DRAFT.gguf"),
}


def target_file(target: str) -> str:
    """The GGUF ``-m`` loads for ``target``, a placeholder named after it: llama-server reads GGUF files,
    and a Hub model of safetensors must be converted first."""
    base = target.rstrip("/").rsplit("/", 1)[-1] or target
    return f"{base}.gguf" if base.startswith("YOUR-") else f"YOUR-{base}.gguf"


NO_SCHEDULE = (
    "llama.cpp has no batch-size schedule: `--spec-draft-n-max` holds for every request the server "
    "decodes, so these flags are the best chain at one batch size."
)


def llamacpp_config(
    method: str,
    model: str | None,
    fixed_k: int,
    batch: int,
    *,
    target: str | None = None,
    tensor_parallel_size: int = 1,
    draft_tensor_parallel_size: int | None = None,
) -> EngineConfig:
    """``llama-server -m`` the GGUF of ``target`` (``None``: a placeholder) with the flags for a chain of
    ``fixed_k`` tokens, the best at ``batch`` requests in flight; where the target or the draft is on more
    than one GPU, what llama.cpp has instead of tensor parallelism."""
    method, model = check_method(method), check_model(model, method)
    target = check_target(target)
    fixed_k, batch = check_count(fixed_k, "fixed_k"), check_count(batch, "batch", 1)
    tp, draft_tp = check_parallel(tensor_parallel_size, draft_tensor_parallel_size)
    spec_type = SPEC_TYPES[method]
    if spec_type is None:
        why = {
            "eagle": "its drafters are draft models, EAGLE-3 heads, MTP layers and n-grams (`--spec-type`), "
            "not EAGLE-1 heads",
            "ngram": "its n-gram drafters (`ngram-simple`, `ngram-mod`, …) take lengths of their own "
            "(`--spec-ngram-*`), not the draft length the page computes",
            "suffix": "it has no suffix decoding",
        }[method]
        return EngineConfig("llama.cpp", SOURCE, (), (f"No llama.cpp flags for `{method}`: {why}.",), (NO_SCHEDULE,))
    if fixed_k == 0:
        notes = (f"At batch {batch} no k beats plain decoding: serve without the speculative flags.", NO_SCHEDULE)
        return EngineConfig("llama.cpp", SOURCE, (), (), notes)
    flags: list[tuple[str, object]] = [("--spec-type", spec_type)]
    notes = [NO_SCHEDULE]
    files = f"llama-server loads GGUF files: give {in_code(target, 'the target')} converted to GGUF as `-m`"
    if method in DRAFT_FILES:
        kind, placeholder = DRAFT_FILES[method]
        flags.append(("--spec-draft-model", placeholder))
        named = f" ({in_code(model, 'the model named above')})" if model else ""
        files += f", and the {kind}{named} as `--spec-draft-model`"
    notes.append(files + ".")
    if method == "dflash":
        notes.append(
            f"DFlash drafts the {fixed_k} tokens in one pass over the last accepted token and {fixed_k} mask tokens; "
            "llama.cpp clamps `--spec-draft-n-max` to the GGUF's trained block size less one, with a warning."
        )
    elif method == "mtp":
        notes.append("`draft-mtp` drafts with the MTP layers of the target's own GGUF, which must carry them.")
    flags += [("--spec-draft-n-max", fixed_k), ("--spec-draft-n-min", 0), ("--spec-draft-p-min", 0.0)]
    if batch > AUTO_SLOTS:
        flags += [("--parallel", batch), ("--kv-unified", "")]
        notes.append(
            f"llama-server runs {AUTO_SLOTS} requests at once unless `--parallel` is given (its default, -1, means "
            f"4 slots sharing one KV buffer): `--parallel {batch}` serves the batch this k is best at, and "
            "`--kv-unified` keeps the shared buffer, which llama-server turns on by itself only for the auto slots."
        )
    notes.append(
        "`--spec-draft-n-min 0` keeps every draft and `--spec-draft-p-min 0.0` never cuts one short, so "
        "each draft is k tokens, as the prediction assumes (both are llama.cpp's defaults). The issue's "
        "`--draft-max` and `--draft-min` are removed at this commit: llama.cpp stops with \u201cthe argument has "
        "been removed\u201d."
    )
    if max(tp, draft_tp) > 1:
        notes.append(
            f"llama.cpp has no tensor-parallel degree (the target's {tp} GPUs and the draft's {draft_tp} here): "
            "llama-server spreads the model over the GPUs "
            "of `--device` as `--split-mode` says (`layer`, the default, pipelines layers and KV cache; `row` "
            "splits the weights by rows; `tensor` splits weights and KV cache, marked experimental, the nearest "
            "to the all-reduces costed here), and the draft over `--spec-draft-device` (default: the target's)."
        )
    settings = {name: str(value) for name, value in flags}
    serve = command(f"llama-server -m {shell_word(target_file(target))}", flags)
    block = ConfigBlock(f"the whole command, best at batch {batch}", serve, "bash")
    return EngineConfig("llama.cpp", SOURCE, (block,), (), tuple(notes), settings)
