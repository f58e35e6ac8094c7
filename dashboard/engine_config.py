"""What the pages add to :mod:`engines.configs`: the drafter's name (and what the
page says of it), the schedule's table and its JSON download.

The engines' configs themselves (vLLM, SGLang, TensorRT-LLM, llama.cpp), with each engine's
rules and their sources, are written by :func:`engines.engine_configs`; this module names the
model they load (a preset's Hub name, a typed name, or a placeholder for a head); the
vocabulary check (:mod:`engines.configs.vocabulary`) is the engines' rule, kept with them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import engines
import specmath
from dashboard import texts
from dashboard.address import literal
from engines.configs import MAX_NAME, safe_name, vocabulary

#: vLLM's ``method`` values the page offers, and what each is.
METHODS = engines.SPECULATIVE_METHODS

#: Written where the engine needs a model the page does not know: the EAGLE head trained for the target.
HEAD_PLACEHOLDER = "YOUR-{kind}-HEAD-FOR-{target}"

#: The same for a DFlash block drafter, a draft model trained on the target's hidden states.
DFLASH_PLACEHOLDER = "YOUR-DFLASH-DRAFT-FOR-{target}"


def hub_name(spec: specmath.ModelSpec) -> str:
    """The Hugging Face name of a preset (``meta-llama/Llama-3.2-1B``), its ``hub_id``; else its label."""
    return spec.hub_id or spec.name


#: Longest drafter name the page takes (the configs' own limit).
MAX_DRAFTER_NAME = MAX_NAME

#: What :func:`valid_drafter_name` accepts, in words: a warning about a link shows code only for
#: the page's parameter names (tests/browser/test_bad_links.py), so no characters as code.
DRAFTER_NAME_RULE = "letters, digits, dots, underscores, hyphens and slashes only, not starting with a hyphen"


def valid_drafter_name(name: str) -> bool:
    """Whether ``name`` may go into the engines' configs as the drafter's model.

    What Hugging Face repo ids (``yuhuili/EAGLE3-LLaMA3.1-Instruct-8B``) and local paths
    (``./heads/my-head``) use: ASCII letters, digits, ``.``, ``_``, ``-`` and ``/``, at most
    :data:`MAX_DRAFTER_NAME` characters (:func:`engines.configs.safe_name`). The
    configs would quote any other name, but a name a link carries into commands people paste
    should read as what it is: no Hub id has a space, a quote or a ``$``, and a look-alike letter
    names another repository. The empty name is not a name: it means "none typed".
    """
    return safe_name(name)


def draft_name(method: str, draft: specmath.ModelSpec, target: specmath.ModelSpec, typed: str = "") -> str | None:
    """The ``model`` the engine loads as its drafter, or ``None`` where the method needs none.

    ``typed`` is the user's own draft model or head; where it is a valid name
    (:func:`valid_drafter_name`) it replaces the preset's name or the head placeholder.
    """
    if method in ("draft_model", "eagle", "eagle3", "dflash") and valid_drafter_name(typed):
        return typed
    if method == "draft_model":
        return hub_name(draft)
    if method in ("eagle", "eagle3"):
        kind = "EAGLE3" if method == "eagle3" else "EAGLE"
        return HEAD_PLACEHOLDER.format(kind=kind, target=hub_name(target).split("/")[-1])
    if method == "dflash":
        return DFLASH_PLACEHOLDER.format(target=hub_name(target).split("/")[-1])
    return None  # mtp: the target's own layers; ngram: the prompt


class Drafter(NamedTuple):
    """The drafter the configs load (:func:`drafter`) and what the page says of it."""

    #: The ``model`` of the engines' configs (:func:`draft_name`), None where the method loads none.
    model: str | None
    #: Whether a typed name is valid and so replaces the preset's (:func:`valid_drafter_name`).
    typed: bool
    #: Why the engines refuse the preset pair (:func:`vocabulary.vocabulary_problem`), or None.
    vocabulary_problem: str | None
    #: ("warning" or "caption", Markdown) in the order the page shows them; a typed name as literal text.
    messages: tuple[tuple[str, str], ...]


def drafter(method: str, draft_model: str, target_model: str, typed_name: str = "") -> Drafter:
    """The drafter of the schedule's configs for ``method`` and the preset names, with ``typed_name``
    (the user's model or head, "" for none), and what the Hardware and Calibrate pages say of it.

    A warning where a typed name is refused (and what the configs use instead) or where a preset
    ``draft_model`` does not share the target's vocabulary or is a head (the engines' rule, with
    the presets that would do, and for a head the method that runs it); a caption where a valid
    typed name is not used (the method loads no draft model) or is a draft model whose
    vocabulary the page cannot check.
    """
    presets = specmath.MODEL_PRESETS
    target, draft = presets[target_model], presets[draft_model]
    model = draft_name(method, draft, target, typed_name)
    typed = valid_drafter_name(typed_name)
    messages = []
    if typed_name and not typed:
        used = f"`{model}`" if model else f"no model ({method} needs none)"
        rule = f"{DRAFTER_NAME_RULE}, at most {MAX_DRAFTER_NAME} characters"
        messages.append(
            ("warning", texts.SCHEDULE_DRAFTER_REFUSED.format(name=literal(typed_name), rule=rule, used=used))
        )
    elif typed and model is None:
        messages.append(("caption", texts.SCHEDULE_DRAFTER_UNUSED.format(method=method, what=METHODS[method])))
    refused = None
    if method == "draft_model" and typed:
        tokenizer = target.tokenizer or "unknown"
        said = texts.SCHEDULE_VOCABULARY_TYPED.format(
            target=target.name, vocab_size=target.vocab_size, tokenizer=tokenizer
        )
        messages.append(("caption", said))
    elif method == "draft_model":
        refused = vocabulary.vocabulary_problem(target, draft)
    if refused:
        drafters = vocabulary.same_vocabulary_drafters(target, presets.values())
        among = f"among the presets: {', '.join(drafters)}" if drafters else "none among the presets"
        why = refused[0].upper() + refused[1:]
        if draft.is_head:  # a head is run by its own method, not as a draft model
            said = texts.SCHEDULE_HEAD_AS_DRAFT.format(
                why=why, method=vocabulary.HEAD_METHODS[draft.head], drafters=among
            )
        else:
            said = texts.SCHEDULE_VOCABULARY.format(why=why, drafters=among)
        messages.append(("warning", said))
    return Drafter(model, typed, refused, tuple(messages))


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
    schedule: Sequence[tuple[int, int, int]], configs: Sequence[engines.EngineConfig], inputs: Mapping
) -> str:
    """The schedule with every engine's settings and the inputs it came from, as JSON a team can review and diff."""
    by_engine = {config.engine: config for config in configs}
    chain = by_engine["SGLang"].settings or {}
    document = {
        "num_speculative_tokens_per_batch_size": [[lo, hi, k] for lo, hi, k in schedule],
        "vllm_speculative_config": by_engine["vLLM"].settings,
        "sglang_flags_at_chosen_batch": [f"{flag} {value}" for flag, value in chain.items()],
        "commands": {
            config.engine: [block.text for block in config.blocks if block.language == "bash"] for config in configs
        },
        "engines": {
            config.engine: {
                "settings": config.settings,
                "files": {block.filename: block.text for block in config.blocks if block.filename},
                "warnings": list(config.warnings),
            }
            for config in configs
        },
        "inputs": dict(inputs),
        "note": "Predicted by the Speculative Decoding Explorer's roofline model (specmath); "
        "check it with the engine's own benchmark (vllm bench serve) before serving with it.",
    }
    return json.dumps(document, indent=2, ensure_ascii=False)
