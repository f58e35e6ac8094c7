"""Typed distributions: check what a person entered and say exactly what to fix.

Pure Python and NumPy. The rejection-sampling page reads p and q from an editable table or from
the link (``?p=0.5,0.5&q=0.2,0.8``); both go through :func:`check_distribution`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dashboard.address import literal
from specmath.verification import SUM_TOLERANCE

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


#: A number as people type one: digits with a decimal point or a decimal comma, an exponent.
_TYPED_NUMBER = re.compile(r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?")

#: Longest cell text read as a number: a person's number is shorter, a paste may be anything.
MAX_CELL_CHARS = 64

_ASK = "type a probability such as 0.1, 1e-3 or 0,5"


def read_cell(cell) -> tuple[float | None, str | None]:
    """The number in one cell (typed text or a number), or what is wrong, naming the text.

    Text is read as written: ``1e-3`` is 0.001 and ``0,5`` is 0.5; text that is not a plain
    number, that overflows to infinity or that underflows to 0 is refused, never read as
    another number. The reason starts where the cell's name ends (``p(t1) is empty``).
    """
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return None, f"is empty: {_ASK}"
    if not isinstance(cell, str):
        try:
            number = float(cell)
        except (TypeError, ValueError):
            return None, f"{literal(cell)} is not a number: {_ASK}"
        if math.isnan(number):
            return None, f"is empty: {_ASK}"
        return number + 0.0, None  # so that -0 reaches the link as 0, not "-0"
    text = cell.strip()
    if text == "":
        return None, f"is empty: {_ASK}"
    if len(text) > MAX_CELL_CHARS or not _TYPED_NUMBER.fullmatch(text):
        return None, f"{literal(text)} is not a number: {_ASK}"
    number = float(text.replace(",", "."))
    if math.isinf(number):
        return None, f"{literal(text)} is too large to store as a number"
    mantissa = re.split("[eE]", text)[0]
    if number == 0 and any(digit in "123456789" for digit in mantissa):
        return None, f"{literal(text)} is too small to store as a number: type 0 or a larger value"
    return number + 0.0, None


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
        number, problem = read_cell(cell)
        if problem:
            return Checked(name, None, f"{name}({label}) {problem}")
        if not math.isfinite(number):
            return Checked(name, None, f"{name}({label}) is {number}: probabilities must be finite")
        if number < 0:
            shown = literal(cell.strip()) if isinstance(cell, str) else f"= {number:g}"
            return Checked(name, None, f"{name}({label}) {shown} is negative: probabilities must be ≥ 0")
        numbers.append(number)
    values = np.array(numbers)
    with np.errstate(over="ignore"):  # an overflowing sum is reported below, not warned about
        total = values.sum()
    if total == 0:
        return Checked(name, None, f"{name} is all zeros: give at least one token a positive probability")
    if not math.isfinite(total):
        return Checked(name, None, f"{name} sums to more than a number can hold: type smaller values")
    if abs(total - 1.0) > SUM_TOLERANCE:
        return Checked(name, values, f"{name} sums to {total:.6g}, not 1", normalizable=True)
    return Checked(name, values / total)


def encode_number(value: float) -> str:
    """A probability in the URL: twelve significant digits keep what anyone types and drop float noise."""
    return f"{value:.12g}"


def encode(values: Sequence) -> str:
    """URL form of a distribution's cells, comma separated; a cell that is no number is left empty."""
    return ",".join("" if (number := read_cell(v)[0]) is None else encode_number(number) for v in values)


def decode(text: str) -> list[str]:
    """Split a URL value into cells; :func:`check_distribution` judges them.

    Stops splitting after :data:`MAX_TYPED_VOCAB` entries: a longer value comes back with one
    entry too many (the unsplit rest), enough for the check to refuse it.
    """
    return text.split(",", MAX_TYPED_VOCAB)
