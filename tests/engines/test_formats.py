"""The dispatcher's list is the one place formats are named: every format module is on it, and each
has what the dispatcher reads of it."""

import importlib
import re
from pathlib import Path

from engines import dispatch

PACKAGE = Path(dispatch.__file__).parent


def test_every_module_that_declares_a_format_is_tried():
    declared = {
        path.stem
        for path in PACKAGE.glob("*.py")
        if re.search(r"^FORMAT = ", path.read_text(encoding="utf-8"), re.MULTILINE)
    }
    # sglang_bench is a sweep, read by parse_engine_sweep, not a paste of one run.
    assert declared - {"sglang_bench"} == set(dispatch.FORMAT_MODULES)


def test_each_format_module_has_a_name_an_engine_its_parts_and_a_parser():
    names = [module.FORMAT for module in dispatch.FORMATS]
    assert len(set(names)) == len(names)
    for name in dispatch.FORMAT_MODULES:
        module = importlib.import_module(f"engines.{name}")
        assert isinstance(module.ENGINE, str) and module.NEEDS.what and callable(module.parse), name
