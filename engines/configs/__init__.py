"""The serving engines' settings for a batch-size schedule of k, with each engine's own rules.

:func:`engine_configs` writes one :class:`EngineConfig` per engine (vLLM's
``--speculative-config``, SGLang's flags, TensorRT-LLM's ``speculative_config`` YAML and JSON,
llama.cpp's llama-server flags), each inside the whole command that serves the target with them
(one block to paste, or a file and the command that reads it), each saying in ``warnings`` where
the engine would not do what the schedule says (data parallelism, a method it does not schedule, MTP's multiples,
TensorRT-LLM's first key) and writing what the engine does take instead, never a config it
would refuse or quietly ignore. :func:`tree_configs` does the same for an EAGLE tree, and
:func:`synthetic_runs` writes the settings that force the predicted acceptance and the
benchmark to run with them. Each engine's module cites the source its flags, defaults and
rules were read from.
"""

from __future__ import annotations

from . import llamacpp, sglang, trtllm, vllm
from ._common import MAX_NAME, METHODS, ConfigBlock, EngineConfig, check_count, check_name, check_target, safe_name
from .drafters import METHOD_DRAFTERS, drafter_mismatch, methods_for
from .synthetic import SyntheticRun, synthetic_runs

#: The engines, in the order the configs come.
ENGINES = ("vLLM", "SGLang", "TensorRT-LLM", "llama.cpp")


def engine_configs(
    schedule,
    method: str,
    model: str | None,
    fixed_k: int,
    batch: int,
    *,
    target: str | None = None,
    data_parallel_size: int = 1,
    n_predict: int = 1,
    tensor_parallel_size: int = 1,
    draft_tensor_parallel_size: int | None = None,
) -> tuple[EngineConfig, ...]:
    """Every engine's config for ``schedule``, each with the engine's rules applied and said, and
    each engine's whole launch command for ``target``.

    Parameters
    ----------
    schedule : sequence of (lo, hi, k)
        :func:`specmath.batch_k_schedule`'s ranges: inclusive, contiguous from batch 1, k >= 0.
    method : str
        vLLM's name for the speculative method, one of :data:`METHODS`.
    model : str or None
        The draft model or head to load, a Hub id or a path (1 to :data:`MAX_NAME` characters, no
        control character, not starting with ``-``; quoted where a shell would read it otherwise);
        ``None`` where the method loads none.
    target : str or None
        The target model the commands serve, a Hub id or a path (as ``model``); ``None`` writes
        a placeholder, ``YOUR-TARGET-MODEL``.
    fixed_k, batch : int
        The best k at ``batch`` (0: speculation does not pay there), for the engines and rules
        that take one k at every batch size (SGLang's chain, llama.cpp, vLLM under data
        parallelism, TensorRT-LLM's NGram).
    data_parallel_size : int, default 1
        vLLM's ``--data-parallel-size``; above 1 also read as SGLang's attention data parallelism.
    n_predict : int, default 1
        The target's MTP layers, for method ``mtp`` (vLLM's multiple rule).
    tensor_parallel_size, draft_tensor_parallel_size : int, default 1 and None
        The GPUs the target and the draft are split over (``None``: the draft's are the
        target's), written in each engine's terms (vLLM's ``--tensor-parallel-size`` and
        ``draft_tensor_parallel_size``, SGLang's ``--tp-size``, TensorRT-LLM's ``--tp_size``;
        llama.cpp has none and says what it has), with a warning where the engine refuses or
        ignores the draft's.

    Returns
    -------
    tuple of EngineConfig
        vLLM, SGLang, TensorRT-LLM and llama.cpp, in :data:`ENGINES` order.
    """
    tp = {
        "target": target, "tensor_parallel_size": tensor_parallel_size,
        "draft_tensor_parallel_size": draft_tensor_parallel_size,
    }  # fmt: skip
    parallel = {"data_parallel_size": data_parallel_size, **tp}
    return (
        vllm.vllm_config(schedule, method, model, fixed_k=fixed_k, batch=batch, **parallel, n_predict=n_predict),
        sglang.sglang_config(schedule, method, model, fixed_k, batch, **parallel),
        trtllm.trtllm_config(schedule, method, model, fixed_k, batch, **tp),
        llamacpp.llamacpp_config(method, model, fixed_k, batch, **tp),
    )


def tree_configs(
    steps: int,
    topk: int,
    num_draft_tokens: int,
    head: str,
    *,
    target: str | None = None,
    tensor_parallel_size: int = 1,
    batch: int = 1,
) -> tuple[EngineConfig, ...]:
    """Every engine's settings for SGLang's EAGLE tree of ``steps``, ``topk`` and ``num_draft_tokens``
    (root included), drafted by the EAGLE head ``head``: SGLang builds it, in one launch command serving
    ``target`` on ``tensor_parallel_size`` GPUs for ``batch`` requests at once; the others say what they build."""
    for name, value in (
        ("steps", steps), ("topk", topk), ("num_draft_tokens", num_draft_tokens),
        ("tensor_parallel_size", tensor_parallel_size), ("batch", batch),
    ):  # fmt: skip
        check_count(value, name, 1)
    check_name(head, "head")
    flags = sglang.tree_flags("EAGLE", head, steps, topk, num_draft_tokens)
    command = sglang.launch_command(check_target(target), flags, tensor_parallel_size, batch)
    tree = EngineConfig(
        "SGLang",
        sglang.SOURCE,
        (ConfigBlock("Serve the target with this tree", command, "bash"),),
        (),
        ("An EAGLE-3 head takes `--speculative-algorithm EAGLE3`, with the same tree flags.",),
        {flag: str(value) for flag, value in flags},
    )
    # What the other engines do instead is a fact of theirs, not a rule the choice broke: notes.
    no_tree = (
        ("vLLM", vllm.SOURCE, "vLLM 0.33.0's speculative config has no token tree (and takes no unknown key): "
         "EAGLE drafts a chain there."),
        ("TensorRT-LLM", trtllm.SOURCE, "TensorRT-LLM's EAGLE-3 dynamic tree (`use_dynamic_tree`, "
         "`dynamic_tree_max_topK`, `max_total_draft_tokens`, llm_args.py `EagleDecodingConfig`) grows its tree "
         "its own way, at most topK × depth draft tokens: not the tree drawn here, so no settings for it."),
        ("llama.cpp", llamacpp.SOURCE, "llama.cpp drafts chains only (`--spec-draft-n-max`): no trees."),
    )  # fmt: skip
    others = {engine: EngineConfig(engine, source, (), (), (note,)) for engine, source, note in no_tree}
    return others["vLLM"], tree, others["TensorRT-LLM"], others["llama.cpp"]


__all__ = [
    "ENGINES",
    "MAX_NAME",
    "METHODS",
    "METHOD_DRAFTERS",
    "ConfigBlock",
    "EngineConfig",
    "SyntheticRun",
    "drafter_mismatch",
    "engine_configs",
    "methods_for",
    "safe_name",
    "synthetic_runs",
    "tree_configs",
]
