"""engines' public API is a contract as specmath's is: its names, their importability, and the
direction of the arrows (engines imports specmath; specmath, tests/specmath/test_public_api.py, never engines)."""

import engines

#: ``engines.__all__`` as it stands, in ruff's isort-style order (RUF022).
PUBLIC_NAMES = [
    "MAX_METRICS_CHARS",
    "METHOD_DRAFTERS",
    "SPECULATIVE_METHODS",
    "ConfigBlock",
    "EngineConfig",
    "EngineMetrics",
    "EngineSweep",
    "SyntheticRun",
    "acceptance_curve",
    "configs",
    "definitions",
    "draft_lengths",
    "drafter_mismatch",
    "engine_configs",
    "fit_alpha",
    "measured_schedule",
    "methods_for",
    "parse_engine_metrics",
    "parse_engine_sweep",
    "record_counts",
    "synthetic_runs",
    "tree_configs",
]


def test_all_is_exactly_todays_list():
    assert engines.__all__ == PUBLIC_NAMES


def test_every_public_name_is_importable():
    namespace = {}
    exec("from engines import *", namespace)  # raises if a name in __all__ is missing
    assert set(PUBLIC_NAMES) <= namespace.keys()
