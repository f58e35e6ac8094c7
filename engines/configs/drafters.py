"""Which drafter kind (:data:`specmath.DRAFTERS`) each speculative method drafts as, and what to
say where a page costs one kind and configures a method of another.

A method's kind is how the engine runs its drafter, read from vLLM 0.33.0 and 0.34.0 (PyPI
wheels, commits 4ba787ec9 and 62d4bc3c7) and SGLang 0.5.23:

- ``draft_model``, ``eagle``, ``eagle3`` and ``mtp`` draft one token a pass, k passes for k
  tokens: sequential.
- ``ngram`` and ``suffix`` look the tokens up in the prompt and earlier text, no model: model-free.
- ``dflash`` drafts a block in one pass: parallel. vLLM: "dflash and dspark always draft in
  parallel, and no other method supports it" (0.34.0 ``vllm/config/speculative.py`` lines
  1688-1698); 0.33.0 sets ``parallel_drafting`` for them (``speculative.py`` lines 1581-1582).
  SGLang: ``--speculative-algorithm DFLASH`` (``sglang/srt/arg_groups/fields/spec.py`` line 33).
- Not written: vLLM's ``dspark`` (a DFlash draft with a Markov head; Qwen3-Omni's wants
  ``num_speculative_tokens`` equal to its trained block size, 0.34.0 ``speculative.py`` lines
  240-244), SGLang's ``DSPARK``, and PARD, which vLLM 0.33.0 ran as ``draft_model`` with
  ``parallel_drafting: true`` (``speculative.py`` lines 511-515, 2085-2089), a key 0.34.0
  deprecates to no effect. Their kind is parallel as well.
"""

from __future__ import annotations

from specmath._validate import shown

from ._common import METHODS, check_method

#: The drafter kind of each method of :data:`~engines.configs.METHODS`.
METHOD_DRAFTERS = {
    "draft_model": "sequential",
    "eagle": "sequential",
    "eagle3": "sequential",
    "mtp": "sequential",
    "ngram": "model_free",
    "suffix": "model_free",
    "dflash": "parallel",
}

#: What each kind does, for messages.
_KINDS = {
    "sequential": "a draft run once per drafted token",
    "parallel": "a block drafter, which proposes all k tokens in one pass",
    "model_free": "a model-free lookup, with no draft model",
}


def methods_for(drafter: str) -> tuple[str, ...]:
    """The methods of :data:`~engines.configs.METHODS` that draft as ``drafter``."""
    if drafter not in _KINDS:
        raise ValueError(f"drafter must be one of {', '.join(_KINDS)}, got {shown(drafter):.80}")
    return tuple(method for method in METHODS if METHOD_DRAFTERS[method] == drafter)


def drafter_mismatch(drafter: str, method: str) -> str | None:
    """Why a schedule costed for ``drafter`` does not hold for ``method``'s configs, or None where they agree."""
    method = check_method(method)
    choices = methods_for(drafter)  # checks drafter
    if drafter == METHOD_DRAFTERS[method]:
        return None
    said = (
        f"The schedule is costed for {_KINDS[drafter]}, but method `{method}` drafts with "
        f"{METHODS[method]}, as {_KINDS[METHOD_DRAFTERS[method]]}: the configs below would not run what was predicted. "
    )
    listed = ", ".join(f"`{name}`" for name in choices)
    return said + f"Choose the drafter kind of the method, or one of {listed}."
