"""The public API is a contract: its names, their importability, and a NumPy-only import.

The dashboard, the benches and outside users import these names from ``specmath`` (the engines' from
``engines``, tests/engines/test_public_api.py), so a name that disappears, or one that appears unannounced, is
a change to review on purpose.
"""

import ast
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import specmath

ROOT = Path(__file__).resolve().parents[2]

#: ``specmath.__all__`` as it stands, in its own order: ruff's isort-style sort (RUF022),
#: constants, then classes, then functions. What a notebook calls, one way for each thing (issue 43): the
#: types functions return, the presets' record types, the decode outcome codes and the drafter kinds are
#: their modules' (the specmath docstring says which), as are the profile helpers ``acceptance`` replaces.
PUBLIC_NAMES = [
    "ACCEPTANCE_PRESETS",
    "GPU_PRESETS",
    "INTERCONNECT_PRESETS",
    "MODEL_PRESETS",
    "SEQUOIA_ACCEPTANCE",
    "Acceptance",
    "ContextFalloff",
    "FreeVerification",
    "GPUSpec",
    "Interconnect",
    "LinearOverhead",
    "ModelSpec",
    "Roofline",
    "Tabulated",
    "acceptance",
    "acceptance_curve",
    "acceptance_curve_from_counts",
    "acceptance_from_pair",
    "acceptance_probability",
    "alpha_interval",
    "batch_k_schedule",
    "bretagnolle_huber_bound",
    "cost_ratio_from_times",
    "decode_summary",
    "divergences",
    "draft_acceptance_rate",
    "draft_by_merging",
    "draft_by_noise",
    "draft_by_temperature",
    "draft_lengths",
    "eagle_tree",
    "expected_accepted_tokens",
    "expected_active_experts",
    "expected_tokens",
    "first_token_distribution",
    "fit_alpha",
    "fit_context_falloff",
    "fit_roofline",
    "from_leviathan_cost",
    "general_optimal_k",
    "general_speedup",
    "kl_divergence",
    "kv_shards",
    "measured_schedule",
    "operations_factor",
    "optimal_k",
    "optimal_tree",
    "optimal_tree_table",
    "pinsker_bound",
    "predict_speedup",
    "predicted_acceptance_rate",
    "random_distribution_pairs",
    "random_transition_matrix",
    "residual_distribution",
    "roofline_batch_sweep",
    "simulate_iid_blocks",
    "speculative_decode",
    "speculative_iteration",
    "speculative_sample",
    "speculative_sample_counts",
    "speedup",
    "state_acceptance",
    "stationary_distribution",
    "to_leviathan_cost",
    "tokens_per_iteration_pmf",
    "tree_expected_tokens",
    "tree_speedup",
    "tv_distance",
    "two_regime_transition_matrix",
    "with_temperature",
]


def test_all_is_exactly_todays_list():
    assert specmath.__all__ == PUBLIC_NAMES


def test_the_namespace_holds_nothing_public_beyond_all():
    # Caps and tolerances stay constants of the modules that enforce them (specmath.speedup.MAX_DRAFT_LENGTH).
    public = {name for name in vars(specmath) if not name.startswith("_")}
    modules = {name for name in public if inspect.ismodule(getattr(specmath, name))}
    assert public - modules == set(PUBLIC_NAMES)


def test_every_public_name_is_importable():
    namespace = {}
    exec("from specmath import *", namespace)  # raises if a name in __all__ is missing
    assert set(PUBLIC_NAMES) <= namespace.keys()


def test_import_loads_numpy_and_the_standard_library_only():
    # A fresh interpreter: this one has the test suite's own imports (SciPy, engines) loaded.
    code = (
        "import sys; before = set(sys.modules); import specmath; "
        "print(' '.join(sorted({m.partition('.')[0] for m in set(sys.modules) - before})))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(result.stdout.split()) - set(sys.stdlib_module_names)
    assert loaded == {"specmath", "numpy"}, sorted(loaded)


def test_no_module_imports_beyond_numpy_and_the_standard_library():
    """The arrows go one way: engines and the dashboard import specmath, never the reverse, even lazily."""
    outside = {}
    for path in sorted((ROOT / "specmath").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names and top not in ("numpy", "specmath"):
                    outside.setdefault(path.relative_to(ROOT).as_posix(), []).append(name)
    assert outside == {}


def test_every_type_a_returns_section_names_by_module_is_there():
    """A return type outside ``__all__`` is named ``specmath.<module>.<Type>`` in its function's Returns section."""
    named = set()
    for path in sorted((ROOT / "specmath").rglob("*.py")):
        named |= set(re.findall(r"\n\s+Returns\n\s+-+\n\s+(specmath(?:\.\w+)+)\n", path.read_text(encoding="utf-8")))
    assert len(named) >= 11, sorted(named)
    for dotted in sorted(named):
        module, _, name = dotted.rpartition(".")
        assert inspect.isclass(getattr(importlib.import_module(module), name)), dotted
