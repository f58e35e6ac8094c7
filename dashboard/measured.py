"""Measured runs of speculative decoding: ``dashboard/data/measured_runs.json``, read and checked.

The file is ``{"sources": {key: {"citation", "url", "fixture"}}, "runs": [run, ...]}``; each run
has the keys :func:`specmath.predict_speedup` reads (:data:`specmath.predict.RUN_KEYS`, with
``per_position`` and ``context``, null where not stated) and what the source says of it: ``id``,
``source`` (a key of ``sources``), ``where`` (table, figure or line), ``engine``, ``task``, the
measured ``speedup``, its ``baseline``, ``notes`` and the ``quote`` it was read from. Each
source's fixture keeps the source's text verbatim.
"""

from __future__ import annotations

import json
from pathlib import Path

from specmath.predict import RUN_KEYS

DATA_FILE = Path(__file__).parent / "data" / "measured_runs.json"

#: What a run says of itself beyond what the prediction reads.
RECORD_KEYS = ("id", "source", "where", "engine", "task", "speedup", "baseline", "notes", "quote")
#: Every key a run has, in the file's order.
RUN_FIELDS = (*RECORD_KEYS[:5], *RUN_KEYS, "per_position", "context", *RECORD_KEYS[5:])
#: Every key a source has.
SOURCE_FIELDS = ("citation", "url", "fixture")


def _check(runs, sources) -> None:
    """The file's shape: every field there, ids unique, sources named, speedups > 0."""
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
        speedup = run["speedup"]
        if isinstance(speedup, bool) or not isinstance(speedup, (int, float)) or not speedup > 0:
            raise ValueError(f"run {name!r}: speedup must be a number > 0, got {speedup!r}")


def load_measured_runs(path: Path = DATA_FILE) -> tuple[list[dict], dict]:
    """The measured runs and their sources, checked: ``(runs, sources)``, fresh copies at every call.

    Raises ``ValueError`` naming the run or source that lacks a field, cites an unknown source,
    repeats an id or gives no positive speedup.
    """
    document = json.loads(path.read_text(encoding="utf-8"))
    runs, sources = document.get("runs"), document.get("sources")
    _check(runs, sources)
    return runs, sources
