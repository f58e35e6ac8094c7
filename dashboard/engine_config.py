"""A batch-size k schedule as the serving engines take it: vLLM's speculative config and SGLang's flags.

Pure Python on top of :func:`specmath.batch_k_schedule`, so each text the Hardware page shows
is tested by parsing it back. What the engines take, from their sources:

- vLLM, ``--speculative-config`` (``vllm/config/speculative.py``, class ``SpeculativeConfig``,
  vllm-project/vllm commit 002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443): ``method`` (among others
  ``draft_model``, ``eagle``, ``eagle3``, ``mtp``, ``ngram``), ``model`` (the draft model or EAGLE
  head), ``num_speculative_tokens`` (> 0: the largest k, which sizes the engine's buffers) and
  ``num_speculative_tokens_per_batch_size``, ``(range_start, range_end, k)`` over inclusive batch
  ranges. ``vllm/v1/spec_decode/dynamic/utils.py`` (commit 14b450ca590cbff96e7004bdb147a5d3acf5a4f6)
  checks it (the first range starts at 1, ranges sorted and disjoint, k >= 0), caps each k at
  ``num_speculative_tokens``, fills a gap with the k below it and keeps the last k beyond the last
  range. For ``ngram`` without ``prompt_lookup_min``/``max`` vLLM uses 5 and 5.
- SGLang 0.5.23 (the wheel's ``sglang/srt/arg_groups/fields/spec.py``): ``--speculative-algorithm``
  (builtins EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM, DFLASH, DSPARK, UNO; NEXTN is an alias of
  EAGLE, ``sglang/srt/speculative/spec_registry.py``), ``--speculative-draft-model-path``,
  ``--speculative-num-steps``, ``--speculative-eagle-topk`` and ``--speculative-num-draft-tokens``,
  which counts the root: with top-k 1 (a chain) SGLang sets it to num_steps + 1
  (``sglang/srt/arg_groups/speculative_hook.py``). For NGRAM the top-k is
  ``--speculative-ngram-max-bfs-breadth`` (default 10) and the steps follow from the draft tokens.
- A separate draft model must share the target's vocabulary (:func:`vocabulary_problem`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

import specmath

#: vLLM's ``method`` values the page offers, and what each is.
METHODS = {
    "draft_model": "a separate, smaller model",
    "eagle": "an EAGLE head",
    "eagle3": "an EAGLE-3 head",
    "mtp": "the target's own multi-token-prediction layers",
    "ngram": "n-grams looked up in the prompt",
}

#: SGLang's ``--speculative-algorithm`` for each vLLM method.
SGLANG_ALGORITHMS = {
    "draft_model": "STANDALONE",
    "eagle": "EAGLE",
    "eagle3": "EAGLE3",
    "mtp": "NEXTN",
    "ngram": "NGRAM",
}

#: Written where the engine needs a model the page does not know: the EAGLE head trained for the target.
HEAD_PLACEHOLDER = "YOUR-{kind}-HEAD-FOR-{target}"


def hub_name(spec: specmath.ModelSpec) -> str:
    """The Hugging Face name of a preset (``meta-llama/Llama-3.2-1B``), from its source; else its label."""
    found = re.match(r"huggingface\.co/([\w.-]+/[\w.-]+)", spec.source)
    return found.group(1) if found else spec.name


#: Longest drafter name the page takes: Hugging Face repo ids are at most 96 characters, and a
#: local path rarely passes 200.
MAX_DRAFTER_NAME = 200

#: What :func:`valid_drafter_name` accepts, in words: a warning about a link shows code only for
#: the page's parameter names (tests/browser/test_bad_links.py), so no characters as code.
DRAFTER_NAME_RULE = "letters, digits, dots, underscores, hyphens and slashes only, not starting with a hyphen"

# ASCII only: a look-alike letter from another script would name another repository.
_DRAFTER_NAME = re.compile(r"[A-Za-z0-9._/][A-Za-z0-9._/-]*")


def valid_drafter_name(name: str) -> bool:
    """Whether ``name`` may go into the engines' configs as the drafter's model.

    What Hugging Face repo ids (``yuhuili/EAGLE3-LLaMA3.1-Instruct-8B``) and local paths
    (``./heads/my-head``) use: ASCII letters, digits, ``.``, ``_``, ``-`` and ``/``, at most
    :data:`MAX_DRAFTER_NAME` characters. The configs are pasted into a shell, unquoted in
    SGLang's flags and inside single quotes in vLLM's, so a space, a quote, a backslash, ``$``
    or a backtick would change the command; a leading ``-`` would read as a flag. The empty
    name is not a name: it means "none typed".
    """
    return len(name) <= MAX_DRAFTER_NAME and _DRAFTER_NAME.fullmatch(name) is not None


def draft_name(method: str, draft: specmath.ModelSpec, target: specmath.ModelSpec, typed: str = "") -> str | None:
    """The ``model`` the engine loads as its drafter, or ``None`` where the method needs none.

    ``typed`` is the user's own draft model or head; where it is a valid name
    (:func:`valid_drafter_name`) it replaces the preset's name or the head placeholder.
    """
    if method in ("draft_model", "eagle", "eagle3") and valid_drafter_name(typed):
        return typed
    if method == "draft_model":
        return hub_name(draft)
    if method in ("eagle", "eagle3"):
        kind = "EAGLE3" if method == "eagle3" else "EAGLE"
        return HEAD_PLACEHOLDER.format(kind=kind, target=hub_name(target).split("/")[-1])
    return None  # mtp: the target's own layers; ngram: the prompt


def vocabulary_problem(target: specmath.ModelSpec, draft: specmath.ModelSpec) -> str | None:
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
    one vocab_size, both known. EAGLE heads, MTP and n-grams load no separate vocabulary.
    """
    names = f"{draft.name} (draft) and {target.name} (target)"
    if not (draft.vocab_size and target.vocab_size and draft.tokenizer and target.tokenizer):
        return (
            f"the page does not know the vocabulary of {names}: vLLM refuses a draft_model whose "
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


def same_vocabulary_drafters(target: specmath.ModelSpec, candidates) -> list[str]:
    """The names of ``candidates`` smaller than ``target`` that the engines take as its draft model."""
    return [
        spec.name
        for spec in candidates
        if spec.parameters < target.parameters and vocabulary_problem(target, spec) is None
    ]


def vllm_config(method: str, model: str | None, schedule: Sequence[tuple[int, int, int]]) -> dict | None:
    """vLLM's speculative config for ``schedule``, or ``None`` if it never speculates.

    vLLM wants ``num_speculative_tokens`` > 0, so a schedule of k = 0 alone is no config at all:
    serve without ``--speculative-config``.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    largest = max(k for _, _, k in schedule)
    if largest == 0:
        return None
    config: dict = {"method": method}
    if model is not None:
        config["model"] = model
    config["num_speculative_tokens"] = largest
    config["num_speculative_tokens_per_batch_size"] = [[lo, hi, k] for lo, hi, k in schedule]
    return config


def vllm_flag(config: Mapping) -> str:
    """``--speculative-config '{…}'`` as a shell takes it (the JSON has no single quote to escape)."""
    text = json.dumps(config)
    if "'" in text:
        raise ValueError("the speculative config must not contain a single quote")
    return f"--speculative-config '{text}'"


def sglang_flags(method: str, model: str | None, k: int) -> list[str]:
    """SGLang's flags for a chain of ``k`` drafted tokens (empty for k = 0: serve without speculation)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if k <= 0:
        return []
    flags = [f"--speculative-algorithm {SGLANG_ALGORITHMS[method]}"]
    if method == "ngram":
        # A chain: one branch per step; the draft tokens count the root, as for EAGLE.
        return [*flags, f"--speculative-num-draft-tokens {k + 1}", "--speculative-ngram-max-bfs-breadth 1"]
    if model is not None:
        flags.append(f"--speculative-draft-model-path {model}")
    return [
        *flags,
        f"--speculative-num-steps {k}",
        "--speculative-eagle-topk 1",
        f"--speculative-num-draft-tokens {k + 1}",
    ]


def speedup_ranges(
    schedule: Sequence[tuple[int, int, int]], batches: Sequence[int], speedup: Sequence[float]
) -> list[tuple[float, float]]:
    """The lowest and highest predicted best speedup over the swept batches of each range."""
    out = []
    for lo, hi, _ in schedule:
        inside = [float(s) for b, s in zip(batches, speedup, strict=True) if lo <= b <= hi]
        out.append((min(inside), max(inside)))
    return out


def schedule_rows(
    schedule: Sequence[tuple[int, int, int]], batches: Sequence[int], speedup: Sequence[float]
) -> list[dict[str, str]]:
    """The schedule as the page's table prints it: batch sizes, k, predicted speedup."""
    rows = []
    for (lo, hi, k), (low, high) in zip(schedule, speedup_ranges(schedule, batches, speedup), strict=True):
        span = f"{low:.2f}×" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}× to {high:.2f}×"
        rows.append(
            {
                "batch sizes": str(lo) if lo == hi else f"{lo} to {hi}",
                "k": str(k) if k else "0 (do not speculate)",
                "predicted speedup": span if k else f"1× (speculating: {span})",
            }
        )
    return rows


def schedule_document(
    schedule: Sequence[tuple[int, int, int]], config: Mapping | None, inputs: Mapping, sglang: Sequence[str]
) -> str:
    """The schedule with the inputs it came from, as JSON a team can review and diff."""
    document = {
        "num_speculative_tokens_per_batch_size": [[lo, hi, k] for lo, hi, k in schedule],
        "vllm_speculative_config": config,
        "sglang_flags_at_chosen_batch": list(sglang),
        "inputs": dict(inputs),
        "note": "Predicted by the Speculative Decoding Explorer's roofline model (specmath); "
        "check it with the engine's own benchmark (vllm bench serve) before serving with it.",
    }
    return json.dumps(document, indent=2, ensure_ascii=False)
