"""Published measured speculative-decoding runs, to score the dashboard's predictions against.

The runs live in ``dashboard/data/measured_runs.json``: ``{"sources": {key: source}, "runs": [row, ...]}``.
A source is ``{"citation", "url", "fixture", "publisher"}``; its fixture (a path from the repository root)
keeps the source's own text verbatim under ``# `` lines that say where it was read, and ``publisher`` names
who measured and published it (an author or a team), so that two sources by one publisher count as one
independent source. A row has these keys:

- ``id`` (unique slug), ``source`` (a key of ``sources``), ``where`` (table, row and column in the source);
- ``engine`` (engine and version as the source gives them), ``task`` (data set);
- ``target``, ``draft``: :data:`specmath.MODEL_PRESETS` names, or Hugging Face ids where no preset exists
  (``draft`` is ``None`` for draft-free methods such as n-gram lookup);
- ``method``: a key of :data:`specmath.deployment.METHOD_DRAFTERS`, or ``"medusa"`` / ``"other"``, which
  :func:`specmath.predict_speedup` does not price (``notes`` says which variant);
- ``gpu`` (a :data:`specmath.GPU_PRESETS` name where one exists), ``gpu_count`` (tensor-parallel GPUs),
  ``precision`` of the weights (``"bf16"``, ``"fp16"``, ``"fp8"``, ``"as stored"`` where the source names only the
  activations' dtype, or ``"not stated"``: both priced as each checkpoint stores them), ``batch`` (concurrent requests);
- ``k`` (draft tokens per step; for trees the number of draft steps) and ``tree`` (``None`` or the
  source's own tree settings under the source's own names);
- ``temperature`` (``None`` where the source does not state it);
- ``mean_acceptance_length``: tokens per target forward pass including the bonus token;
- ``per_position`` (``None`` or the printed per-position rates), ``context`` (``None`` or the prompt length);
- ``overlap``: whether the engine overlapped an iteration's host work with the GPU (SGLang's
  ``SGLANG_ENABLE_SPEC_V2``), ``None`` where the source does not say (:func:`specmath.predict.sglang_without_overlap`);
- ``speedup``: measured, over plain decoding on the same engine and hardware, ``baseline`` (what it is
  over) and ``notes``;
- ``quote``: the lines of the fixture the row's numbers come from, each a substring of the fixture;
- ``printed``: how the numbers were read. ``printed["speedup"]`` and ``printed["mean_acceptance_length"]``
  are ``{"rule", "values"}``, ``values`` being strings as printed in the quote and ``rule`` one of
  :data:`RULES`; ``printed["batch"]`` and ``printed["k"]``, where present, are the batch and ``k`` as
  printed in the quote.

tests/dashboard/test_measured_runs.py checks every row against its fixture; :func:`load_measured_runs`
checks the file's shape, and that no speedup exceeds its run's acceptance length (an iteration costs at
least one plain step): TensorRT-LLM blog 7's single-batch n-gram run, 1.96x at an acceptance length of
1.66 taken from other conversations than the timed ones, was left out for that.
"""

from __future__ import annotations

import json
from pathlib import Path

from specmath.deployment import METHOD_DRAFTERS
from specmath.predict import RUN_KEYS

#: Where the runs are kept.
DATA_FILE = Path(__file__).resolve().parent / "data" / "measured_runs.json"

#: The methods a row may name: those the prediction prices, and two it does not.
METHODS = (*METHOD_DRAFTERS, "medusa", "other")

#: What a run says of itself beyond what the prediction reads.
RECORD_KEYS = ("id", "source", "where", "engine", "task", "speedup", "baseline", "notes", "quote", "printed")
#: Every key a run has, in the file's order.
RUN_FIELDS = (*RECORD_KEYS[:5], *RUN_KEYS, "per_position", "context", "overlap", *RECORD_KEYS[5:])
#: Every key a source has.
SOURCE_FIELDS = ("citation", "url", "fixture", "publisher")

#: How a printed value becomes a row's number: the value itself, a ratio of two printed values
#: (speculative over baseline throughput), or a printed percentage gain ("96.13%" is 1.9613).
RULES = {
    "as_printed": lambda values: float(values[0]),
    "ratio": lambda values: float(values[0]) / float(values[1]),
    "percent_gain": lambda values: 1 + float(values[0].rstrip("%")) / 100,
}


def read_printed(printed: dict) -> float:
    """The number a ``printed`` entry stands for, by its rule.

    >>> read_printed({"rule": "percent_gain", "values": ["32.11%"]})
    1.3211
    """
    rule = printed["rule"]
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; rules are {sorted(RULES)}")
    return RULES[rule](printed["values"])


def _check(runs, sources) -> None:
    """The file's shape: every field there, ids unique, sources named, methods known, speedups > 0."""
    if not isinstance(sources, dict) or not isinstance(runs, list):
        raise ValueError(f"{DATA_FILE.name} must hold a 'sources' mapping and a 'runs' list")
    for key, source in sources.items():
        missing = [field for field in SOURCE_FIELDS if field not in source]
        if missing:
            raise ValueError(f"source {key!r} lacks {', '.join(missing)}")
    seen = set()
    for number, run in enumerate(runs, 1):
        missing = [field for field in RUN_FIELDS if field not in run]
        name = run.get("id", f"number {number}")
        if missing:
            raise ValueError(f"run {name!r} lacks {', '.join(missing)}")
        if name in seen:
            raise ValueError(f"run id {name!r} is given twice")
        seen.add(name)
        if run["source"] not in sources:
            raise ValueError(f"run {name!r} cites {run['source']!r}, which is not among the sources")
        if run["method"] not in METHODS:
            raise ValueError(f"run {name!r}: method {run['method']!r} is not one of {', '.join(METHODS)}")
        speedup = run["speedup"]
        if isinstance(speedup, bool) or not isinstance(speedup, (int, float)) or not speedup > 0:
            raise ValueError(f"run {name!r}: speedup must be a number > 0, got {speedup!r}")
        length = run["mean_acceptance_length"]
        if isinstance(length, bool) or not isinstance(length, (int, float)) or not length >= 1:
            raise ValueError(f"run {name!r}: mean_acceptance_length must be a number >= 1, got {length!r}")
        # An iteration costs at least one plain step (its verify pass reads every weight a step reads), so
        # a speedup above the tokens an iteration yields pairs numbers from different runs.
        if speedup > length:
            raise ValueError(
                f"run {name!r}: speedup {speedup!r} exceeds the mean acceptance length {length!r}, more than an "
                "iteration of at least one plain step can give"
            )


def load_measured_runs(path: Path = DATA_FILE) -> tuple[list[dict], dict[str, dict]]:
    """The measured runs (one dict per row, in the file's order) and their sources by key, checked.

    Raises ``ValueError`` naming the run or source that lacks a field, cites an unknown source,
    repeats an id, names an unknown method or gives no positive speedup.
    """
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    runs, sources = document.get("runs"), document.get("sources")
    _check(runs, sources)
    return runs, sources
