"""The Speedup page: its curves over k (cached), and the measured speedups from the literature,
read from ``dashboard/data/published_results.csv``.

Each row is one measurement as its source prints it: where it comes from (``source`` is a key
of ``dashboard/data/SOURCES.md``, which says how every column was taken), the setting, and the
numbers. Empty cells are values the source does not give. ``c_chapter`` is in this project's
convention, target step time / draft step time; for Leviathan et al. it is 1 / their ``c``.

:func:`load_published_results` reads the shipped file once per process;
:func:`read_published_results` reads any file and raises ``ValueError`` naming the file,
the row and the column of the first malformed value.
"""

from __future__ import annotations

import csv
import functools
import math
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import NamedTuple

import numpy as np
import streamlit as st

import specmath
from dashboard.params import PARAMS, Section

#: The page's parameters: the shared ones, then the comparison curves and the published points.
SIDEBAR = Section(None, ("alpha", "acc", "acc_profile", "k", "c", "compare", "published"))
SECTIONS = (SIDEBAR,)

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "published_results.csv"
SOURCES_FILE = DATA_FILE.with_name("SOURCES.md")


@dataclass(frozen=True)
class PublishedResult:
    """One measured result; ``None`` where the source gives no value."""

    source: str
    paper: str
    table: str
    method: str
    model_target: str
    model_draft: str
    hardware: str
    task: str
    decoding: str
    temperature: float | None
    k: int | None
    alpha: float | None
    mean_accepted_tokens: float | None
    speedup: float
    c_chapter: float | None
    paper_expected_speedup: float | None
    note: str

    @property
    def authors(self) -> str:
        """Authors and year, as ``paper`` begins: "Leviathan et al. 2023"."""
        return self.paper.split(",")[0]

    @property
    def short_citation(self) -> str:
        """Authors, year and the table the numbers are from: "Leviathan et al. 2023, Table 2"."""
        return f"{self.authors}, {self.table.split(';')[0]}"

    @property
    def label(self) -> str:
        """A one-line citation for a hover: authors and year, table, method, setting."""
        setting = f"{self.model_draft} → {self.model_target}, {self.task}, {self.decoding}"
        return f"{self.authors}, {self.table}: {self.method}, {setting}"


#: The header the file must have, in this order.
COLUMNS = tuple(f.name for f in fields(PublishedResult))

_TEXT_REQUIRED = ("source", "paper", "table", "method", "model_target", "model_draft", "hardware", "task", "decoding")
_SOURCE_KEY = re.compile(r"[a-z0-9][a-z0-9_-]*")


class _Bad(ValueError):
    """A value's complaint, before the file, row and column are added."""


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _Bad(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise _Bad(f"{text!r} is not a finite number")
    return value


def _optional(parse):
    def parse_optional(text: str):
        return None if text == "" else parse(text)

    return parse_optional


def _positive(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise _Bad(f"{text} must be > 0")
    return value


def _non_negative(text: str) -> float:
    value = _number(text)
    if value < 0:
        raise _Bad(f"{text} must be >= 0")
    return value


def _probability(text: str) -> float:
    value = _number(text)
    if not 0 <= value <= 1:
        raise _Bad(f"{text} must be in [0, 1]")
    return value


def _tokens_per_call(text: str) -> float:
    value = _number(text)
    if value < 1:
        raise _Bad(f"{text} must be >= 1 (every target call yields at least one token)")
    return value


def _draft_length(text: str) -> int:
    if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
        raise _Bad(f"{text!r} must be a positive integer")
    return int(text)


def _text(text: str) -> str:
    return text


def _required_text(text: str) -> str:
    if not text.strip():
        raise _Bad("must not be empty")
    return text


def _source_key(text: str) -> str:
    if not _SOURCE_KEY.fullmatch(text):
        raise _Bad(f"{text!r} is not a source key (lower-case letters, digits, '-' and '_')")
    return text


_PARSERS = {
    **{name: _required_text for name in _TEXT_REQUIRED},
    "source": _source_key,
    "temperature": _optional(_non_negative),
    "k": _optional(_draft_length),
    "alpha": _optional(_probability),
    "mean_accepted_tokens": _optional(_tokens_per_call),
    "speedup": _positive,
    "c_chapter": _optional(_positive),
    "paper_expected_speedup": _optional(_positive),
    "note": _text,
}


def read_published_results(path: str | Path) -> tuple[PublishedResult, ...]:
    """Every row of the CSV file at ``path``, validated, in file order.

    Raises ``ValueError`` naming the file, and the row (1 is the first under the header), its
    line and the column, for a wrong header, a row with too few or too many cells, an empty
    required cell, a value that is not a number, or one out of range: α outside [0, 1], a
    speedup, c or predicted speedup that is not > 0, k that is not a positive integer, mean
    accepted tokens below 1 or above k + 1, a negative temperature.
    """
    path = Path(path)
    try:
        with path.open(encoding="utf-8", newline="") as f:
            return _parse(path, list(csv.reader(f, strict=True)))
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 ({error})") from None
    except csv.Error as error:
        raise ValueError(f"{path}: not a well-formed CSV file ({error})") from None


def _parse(path: Path, lines: list[list[str]]) -> tuple[PublishedResult, ...]:
    if not lines:
        raise ValueError(f"{path}: empty file, expected the header {','.join(COLUMNS)}")
    header = [name.strip() for name in lines[0]]
    if header and header[0].startswith("\ufeff"):
        header[0] = header[0][1:]
    if tuple(header) != COLUMNS:
        missing = [name for name in COLUMNS if name not in header]
        extra = [name for name in header if name not in COLUMNS]
        detail = f"missing {missing}" if missing else ""
        detail += ("; " if detail and extra else "") + (f"unexpected {extra}" if extra else "")
        raise ValueError(f"{path}: header must be {','.join(COLUMNS)} ({detail or 'columns out of order'})")
    results = []
    seen: dict[tuple[str, ...], int] = {}
    for number, cells in enumerate(lines[1:], start=1):
        where = f"{path}: row {number} (line {number + 1})"
        if not any(cell.strip() for cell in cells):
            raise ValueError(f"{where}: blank row")
        if len(cells) != len(COLUMNS):
            raise ValueError(f"{where}: {len(cells)} cells, expected {len(COLUMNS)}")
        if tuple(cells) in seen:
            raise ValueError(f"{where}: the same row as row {seen[tuple(cells)]}")
        seen[tuple(cells)] = number
        values = {}
        for name, cell in zip(COLUMNS, cells, strict=True):
            try:
                values[name] = _PARSERS[name](cell.strip() if name != "note" else cell)
            except _Bad as bad:
                raise ValueError(f"{where}, column '{name}': {bad}") from None
        result = PublishedResult(**values)
        if result.k is not None and result.mean_accepted_tokens is not None:
            if result.mean_accepted_tokens > result.k + 1:
                raise ValueError(
                    f"{where}, column 'mean_accepted_tokens': {result.mean_accepted_tokens} is more than "
                    f"k + 1 = {result.k + 1}, the most one target call can yield"
                )
        results.append(result)
    return tuple(results)


@functools.cache
def load_published_results() -> tuple[PublishedResult, ...]:
    """The shipped data file's rows, read and validated once per process (immutable)."""
    return read_published_results(DATA_FILE)


def iid_speedup(result: PublishedResult) -> float | None:
    """The chapter's i.i.d. speedup at the result's own α, k and c; ``None`` where it lacks one.

    This is the curve a measured point should be compared with, not the user's.
    """
    if result.alpha is None or result.k is None or result.c_chapter is None:
        return None
    return float(specmath.speedup(result.alpha, result.k, result.c_chapter))


def split_by_draft_length(
    results: tuple[PublishedResult, ...],
) -> tuple[tuple[PublishedResult, ...], tuple[PublishedResult, ...]]:
    """``(with k, without k)``: results that can be drawn against the draft length, and the rest
    (methods with no fixed draft length, such as Spec-Bench's trees), each in file order."""
    return tuple(r for r in results if r.k is not None), tuple(r for r in results if r.k is None)


#: Draft lengths on the speedup page's x axis (the k slider's range).
K_AXIS = np.arange(1, int(PARAMS["k"].high) + 1)  # every k the slider offers


@st.cache_data(max_entries=64, show_spinner=False)
def speedup_curves(alphas: tuple[float, ...], c: float) -> tuple[np.ndarray, dict]:
    """Speedup over :data:`K_AXIS` for each alpha, and each curve's best k on that axis."""
    grid = specmath.speedup(np.array(alphas)[:, None], K_AXIS, c)
    best_k, best = specmath.optimal_k(np.array(alphas), c, max_k=int(K_AXIS[-1]))
    optima = {a: (int(k), float(s)) for a, k, s in zip(alphas, best_k, best, strict=True)}
    return grid, optima


#: How far apart (relative) the measured and the i.i.d. speedups must be to be said to part:
#: at the same k and c the ratio of the speedups is the ratio of the acceptance lengths.
PART_TOLERANCE = 0.05


class MeasuredAgainstIid(NamedTuple):
    """A measured acceptance's speedup beside the i.i.d. curve of its fitted α (the Speedup page's second chart).

    Attributes
    ----------
    k : numpy.ndarray
        The measured draft lengths 1 … m (a curve's largest k, a profile's positions).
    measured : numpy.ndarray
        :func:`specmath.speedup` of the Acceptance at each of ``k``.
    iid_k, iid : numpy.ndarray
        Draft lengths 1 … past the fitted α's best k, and the i.i.d. speedup there.
    fit : specmath.acceptance_model.IidFit
        The fitted α: on AL(1) where the value measures k = 1, else least squares over its k.
    fitted_on : str
        Which fit, in words: "AL(1)" or "least squares over k = 2, 4".
    parts_at : int or None
        The first measured k where the two speedups differ by more than :data:`PART_TOLERANCE`
        of the i.i.d. one; None where they never do.
    best_measured, best_iid : tuple of (int, float)
        Each curve's best k and speedup (the measured one searched over its measured k only).
    """

    k: np.ndarray
    measured: np.ndarray
    iid_k: np.ndarray
    iid: np.ndarray
    fit: specmath.acceptance_model.IidFit
    fitted_on: str
    parts_at: int | None
    best_measured: tuple[int, float]
    best_iid: tuple[int, float]


@st.cache_data(max_entries=64, show_spinner=False)
def measured_against_iid(acceptance: specmath.Acceptance, c: float) -> MeasuredAgainstIid:
    """The measured value's speedup over its measured k and the i.i.d. speedup of its fitted α, at cost ratio c."""
    m = int(acceptance.measured)
    k = np.arange(1, m + 1)
    measured_k = acceptance.fitted_alpha().k
    if 1 in measured_k:
        fit, fitted_on = acceptance.fitted_alpha(k=1), "AL(1)"
    else:
        fit = acceptance.fitted_alpha()
        fitted_on = "least squares over k = " + ", ".join(str(x) for x in measured_k)
    measured = np.asarray(specmath.speedup(acceptance, k, c))
    iid_at_k = np.asarray(specmath.speedup(fit.alpha, k, c))
    apart = np.flatnonzero(np.abs(measured / iid_at_k - 1.0) > PART_TOLERANCE)
    best_k, best = specmath.optimal_k(acceptance, c, max_k=m)
    iid_best_k, iid_best = specmath.optimal_k(fit.alpha, c, max_k=int(K_AXIS[-1]))
    iid_k = np.arange(1, min(max(m, int(iid_best_k) + 2), int(K_AXIS[-1])) + 1)
    return MeasuredAgainstIid(
        k,
        measured,
        iid_k,
        np.asarray(specmath.speedup(fit.alpha, iid_k, c)),
        fit,
        fitted_on,
        int(k[apart[0]]) if apart.size else None,
        (int(best_k), float(best)),
        (int(iid_best_k), float(iid_best)),
    )
