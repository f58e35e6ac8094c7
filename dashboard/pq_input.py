"""Typed distributions: check what a person entered and say exactly what to fix.

Pure Python and NumPy. The rejection-sampling page reads p and q from an editable table or from
the link (``?p=0.5,0.5&q=0.2,0.8``); both go through :func:`check_distribution`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import specmath
from dashboard.literal import quoted

#: Largest vocabulary a typed or linked distribution may have: the table must stay readable,
#: and a hand-made link must not be able to make the server parse megabytes.
MAX_TYPED_VOCAB = 50


@dataclass(frozen=True)
class Checked:
    """A typed distribution after checking.

    ``values`` is the probability vector when it can be used as it is; otherwise ``problem``
    says what is wrong, and ``normalizable`` tells whether dividing by the sum would fix it.
    """

    name: str
    values: np.ndarray | None
    problem: str | None = None
    normalizable: bool = False


def _as_number(cell) -> float | None:
    if cell is None:
        return None
    if isinstance(cell, str):
        try:
            return float(cell.strip())
        except ValueError:
            return None
    try:
        number = float(cell)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def check_distribution(cells: Sequence, name: str, labels: Sequence[str]) -> Checked:
    """Check one column of typed probabilities.

    Parameters
    ----------
    cells : sequence
        The typed values: numbers, numeric text, or anything else a person may have entered.
    name : str
        ``"p"`` or ``"q"``, used in the message.
    labels : sequence of str
        Token labels, so the message can point at the row.
    """
    if len(cells) == 0:
        return Checked(name, None, f"{name} is empty: add at least one token")
    if len(cells) > MAX_TYPED_VOCAB:
        return Checked(name, None, f"{name} has more than {MAX_TYPED_VOCAB} entries, the most supported here")
    numbers = []
    for label, cell in zip(labels, cells, strict=True):
        number = _as_number(cell)
        if number is None:
            what = (
                "is empty"
                if cell is None or str(cell).strip() in ("", "nan", "None")
                else f"{quoted(cell)} is not a number"
            )
            return Checked(name, None, f"{name}({label}) {what}: type a probability such as 0.1")
        if not math.isfinite(number):
            return Checked(name, None, f"{name}({label}) is {number}: probabilities must be finite")
        if number < 0:
            return Checked(name, None, f"{name}({label}) = {number:g} is negative: probabilities must be ≥ 0")
        numbers.append(number)
    values = np.array(numbers)
    total = values.sum()
    if total == 0:
        return Checked(name, None, f"{name} is all zeros: give at least one token a positive probability")
    if abs(total - 1.0) > specmath.SUM_TOLERANCE:
        return Checked(name, values, f"{name} sums to {total:.6g}, not 1", normalizable=True)
    return Checked(name, values / total)


def encode(values: np.ndarray) -> str:
    """Compact URL form of a distribution: six significant digits, comma separated."""
    return ",".join(f"{v:.6g}" for v in values)


def decode(text: str) -> list[str]:
    """Split a URL value into cells; :func:`check_distribution` judges them.

    Stops splitting after :data:`MAX_TYPED_VOCAB` entries: a longer value comes back with one
    entry too many (the unsplit rest), enough for the check to refuse it.
    """
    return text.split(",", MAX_TYPED_VOCAB)
