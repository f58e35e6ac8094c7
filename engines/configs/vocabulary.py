"""Whether the engines take a separate draft model for a target: one vocabulary, one tokenizer.

An engine rule like the others of :mod:`engines.configs`, read from the engines'
sources (cited in :func:`vocabulary_problem`).
"""

from __future__ import annotations

from specmath.presets import ModelSpec

#: The method that runs each kind of head (:attr:`specmath.ModelSpec.head`), in vLLM's names.
HEAD_METHODS = {"EAGLE": "eagle", "EAGLE-3": "eagle3", "MTP": "mtp"}


def head_problem(target: ModelSpec, draft: ModelSpec) -> str | None:
    """Why ``draft``, a head (:attr:`specmath.ModelSpec.head`), cannot be a separate draft model
    (vLLM's method ``draft_model``), or None for a model on its own.

    A head shares its target's vocabulary (it has none of its own, so that is no problem); what
    it lacks is a forward pass of its own. Read from vLLM 0.34.0 (PyPI wheel, commit 62d4bc3c7):

    - A configured method is kept: the checkpoint is checked against it only where its model
      class declares a speculator (``vllm/v1/worker/gpu/spec_decode/speculator_config.py``
      lines 412-426), which the EAGLE-3 and DeepSeek MTP classes do not.
    - ``draft_model``'s speculator runs the draft on token ids and positions alone
      (``vllm/v1/worker/gpu/spec_decode/standalone_ar/speculator.py`` line 157), while a head's
      forward needs the target's hidden states: ``Eagle3LlamaForCausalLM.forward``
      (``vllm/model_executor/models/llama_eagle3.py`` lines 355-362; ``qwen3_eagle3.py`` lines
      334-341, ``deepseek_eagle3.py`` lines 324-331), ``DeepSeekMTP.forward``
      (``deepseek_mtp.py`` lines 277-285). So the draft cannot run.
    - vLLM 0.33.0 (commit 4ba787ec9) instead turned a ``draft_model`` whose name holds "eagle3"
      into ``eagle3`` (``vllm/config/speculative.py`` lines 1445-1448): by the name, not the checkpoint.
    - Method ``mtp`` loads MTP layers from the target's own checkpoint (``mtp/config.py``,
      ``default_model``, lines 42-55).
    """
    if not draft.is_head:
        return None
    why = (
        f"{draft.name} is an {draft.head} head for {draft.head_of}, not a model on its own: it drafts from its "
        "target's hidden states and reads its target's vocabulary, but method draft_model runs a draft on token "
        "ids alone (vLLM 0.34.0), so the head cannot draft"
    )
    if draft.head_of != target.name:
        why += f"; and it was trained for {draft.head_of}, not {target.name}"
    return f"{why}; method {HEAD_METHODS[draft.head]} runs it"


def vocabulary_problem(target: ModelSpec, draft: ModelSpec) -> str | None:
    """Why the engines would refuse ``draft`` as a separate draft model for ``target``, or None.

    The rule, from the engines' sources:

    - vLLM 0.34.0 (PyPI wheel, commit 62d4bc3c7), ``vllm/config/speculative.py``: the config's
      validator ends with ``verify_equal_vocab_size_if_draft_model()`` (line 1722), which raises
      "Target and draft model should have the same vocabulary size" when the target's and the
      draft's ``get_vocab_size()`` differ (lines 1725-1739), for a speculator whose draft has a
      vocabulary of its own: ``draft_model`` (``draft_has_own_vocab = True``,
      ``vllm/v1/worker/gpu/spec_decode/standalone_ar/config.py``, line 15). No option lifts it,
      and the config takes no unknown key (``extra="forbid"``, ``vllm/config/utils.py``, line 72).
      Tokenizers are not compared: the draft is loaded with the target's
      (``vllm/v1/worker/gpu/spec_decode/speculator_config.py``, lines 191-195), so a draft of
      another tokenizer and the same vocab_size starts, and its token ids name other tokens.
    - vLLM 0.27.0 (PyPI wheel, commit 4bdc8a788), same file: ``use_heterogeneous_vocab: bool =
      False`` (line 151) skips the check (lines 1336-1337) and drafts from the tokens both
      vocabularies share (TLI, vllm-project/vllm pull request 38174), for ``draft_model`` only
      (lines 1324-1327) and greedy draft sampling only (lines 1329-1334). 0.34.0 has no such field.
    - SGLang 0.5.23 (PyPI wheel), ``sglang/srt/speculative/standalone_worker_v2.py``,
      ``_validate_vocab_compatibility`` (lines 185-215): ``STANDALONE`` raises unless the
      vocab_size are equal and the two tokenizers' ``get_vocab()`` (token-to-id maps) are equal.
      No option lifts it.

    So a pair passes only with one tokenizer family (:attr:`specmath.ModelSpec.tokenizer`) and
    one vocab_size, both known. EAGLE heads, MTP and n-grams load no separate vocabulary: a head
    given as the draft model gets :func:`head_problem`'s answer instead, which is not about its
    vocabulary.
    """
    if draft.is_head:
        return head_problem(target, draft)
    names = f"{draft.name} (draft) and {target.name} (target)"
    if not (draft.vocab_size and target.vocab_size and draft.tokenizer and target.tokenizer):
        return (
            f"the vocabulary of {names} is not known: vLLM refuses a draft_model whose "
            "vocab_size is not the target's, and SGLang also one of another tokenizer"
        )
    sizes = f"vocab_size {draft.vocab_size:,} and {target.vocab_size:,}"
    if draft.tokenizer != target.tokenizer:
        what = f"{names} use different tokenizers ({draft.tokenizer} and {target.tokenizer}, {sizes})"
        if draft.vocab_size == target.vocab_size:
            return (
                f"{what}: vLLM starts, but loads the draft with the target's tokenizer, so the draft's "
                "token ids name other tokens and almost none is accepted; SGLang's STANDALONE refuses the pair"
            )
    elif draft.vocab_size != target.vocab_size:
        what = f"{names} share the {draft.tokenizer} tokenizer but not its padding ({sizes})"
    else:
        return None
    return (
        f"{what}: vLLM refuses this draft_model config at start-up (“Target and draft model should "
        "have the same vocabulary size”), and SGLang's STANDALONE refuses the pair too"
    )


def same_vocabulary_drafters(target: ModelSpec, candidates) -> list[str]:
    """The names of ``candidates`` smaller than ``target`` that the engines take as its draft model
    (standalone models only: a head is no draft model)."""
    return [
        spec.name
        for spec in candidates
        if spec.parameters < target.parameters and vocabulary_problem(target, spec) is None
    ]
