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
- ``method``: one of :data:`METHODS` (``notes`` says which variant);
- ``gpu`` (a :data:`specmath.GPU_PRESETS` name where one exists), ``gpu_count`` (tensor-parallel GPUs),
  ``precision`` (``"bf16"``, ``"fp16"``, ``"fp8"`` or ``"not stated"``), ``batch`` (concurrent requests);
- ``k`` (draft tokens per step; for trees the number of draft steps) and ``tree`` (``None`` or the
  source's own tree settings under the source's own names);
- ``temperature`` (``None`` where the source does not state it);
- ``mean_acceptance_length``: tokens per target forward pass including the bonus token;
- ``per_position`` (``None`` or the printed per-position rates), ``context`` (``None`` or the prompt length);
- ``speedup``: measured, over plain decoding on the same engine and hardware, ``baseline`` (what it is
  over) and ``notes``;
- ``quote``: the lines of the fixture the row's numbers come from, each a substring of the fixture;
- ``printed``: how the numbers were read. ``printed["speedup"]`` and ``printed["mean_acceptance_length"]``
  are ``{"rule", "values"}``, ``values`` being strings as printed in the quote and ``rule`` one of
  :data:`RULES`; ``printed["batch"]`` and ``printed["k"]``, where present, are the batch and ``k`` as
  printed in the quote.

tests/dashboard/test_measured_runs.py checks every row against its fixture.
"""

from __future__ import annotations

import json
from pathlib import Path

#: Where the runs are kept.
RUNS_PATH = Path(__file__).resolve().parent / "data" / "measured_runs.json"

#: The drafter kinds a row's ``method`` names.
METHODS = ("draft_model", "eagle", "eagle3", "medusa", "mtp", "ngram", "other")

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


def load_measured_runs(path: Path = RUNS_PATH) -> tuple[list[dict], dict[str, dict]]:
    """The measured runs (one dict per row, in the file's order) and their sources by key."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return data["runs"], data["sources"]
