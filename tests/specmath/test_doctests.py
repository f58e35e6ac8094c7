"""Every Examples section in specmath runs: each module's docstrings through doctest, as written.

One test per module, so that a new module's examples run without a line here; NumPy 2 prints
``np.float64(0.5)``, so the examples wrap scalars in ``float()`` as the README does.
"""

import doctest
import importlib
import pkgutil

import pytest

import specmath

MODULES = sorted(["specmath"] + [info.name for info in pkgutil.walk_packages(specmath.__path__, prefix="specmath.")])


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (printed above)"


def test_the_examples_are_found():
    # A module renamed or a docstring moved out of reach of doctest would otherwise pass quietly.
    attempted = {
        name: doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE).attempted
        for name in MODULES
    }
    with_examples = {name for name, count in attempted.items() if count}
    assert {"specmath", "specmath.calibration", "specmath.trees", "specmath.alpha_fit"} <= with_examples
