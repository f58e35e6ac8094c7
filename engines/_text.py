"""What the format parsers share: the text as read, its markers and lines, and the checks on printed values.

Private to :mod:`engines`; a parser returns a :class:`Found`, a string saying what was
incomplete, or None when its format is absent, and raises :class:`ReportError` for a report
that is there but impossible.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .record import EngineMetrics

# Reports of one format read at most (the latest ones); a real log that long would exceed the
# character cap anyway, so this only bounds the work hostile input can cause.
MAX_REPORTS = 10_000
# Longest stretch of a line read after a marker, and before it for SGLang's batch size.
MAX_SEGMENT = 16_384
MAX_LOOKBACK = 2_048

# Half a unit in the last printed decimal, plus float slack: the tolerance of a printed value.
HALF_2DP, HALF_3DP, HALF_1DP = 0.005 + 1e-9, 0.0005 + 1e-9, 0.05 + 1e-9

# A printed number, its sign and every digit taken (possessive runs: no backtracking blow-up),
# so that a value out of range is read and refused by value (read_int, the parsers' checks), not
# taken for a missing field; or the NaN / inf that NumPy, Python and printf print for 0/0.
NUM = r"(?:[+-]?\d++(?:\.\d++)?(?:[eE][+-]?\d++)?|-?nan|-?inf)"
INT = r"[+-]?\d++(?:\.\d++)?(?:[eE][+-]?\d++)?"
#: Digits of the largest count read: an engine's counters stay far below 10^18.
MAX_COUNT_DIGITS = 18


# A sample line of the Prometheus text format or OpenMetrics, as both scrape readers take it:
# the name (each reader's own), a label set, the value, and after it what is ignored: a timestamp
# (the text format's integer milliseconds, OpenMetrics' seconds, which may have a fraction) and
# OpenMetrics' exemplar (' # {trace_id="…"} 1.0'). A label value may hold any character but a
# line break, braces too, with quotes and backslashes escaped. The quantifiers are possessive:
# what they take cannot be taken any other way, and a line that fails to match fails in one pass.
_PROM_NUMBER = r"[+-]?(?:\d{1,20}(?:\.\d{0,20})?|\.\d{1,20})(?:[eE][+-]?\d{1,3})?"
_PROM_VALUE = rf"{_PROM_NUMBER}|[+-]?Inf|NaN"
PROM_LABELS = r'\{(?:[^"{}\n]|"(?:[^"\\\n]|\\.){0,2048}+"){0,4096}+\}'
PROM_SAMPLE_REST = (
    rf"[ \t]*({PROM_LABELS})?[ \t]+({_PROM_VALUE})(?:[ \t]+{_PROM_NUMBER})?"
    rf"(?:[ \t]+#[ \t]+{PROM_LABELS}[ \t]+(?:{_PROM_VALUE})(?:[ \t]+{_PROM_NUMBER})?)?[ \t]*$"
)


def in_comment(text: str, pos: int) -> bool:
    """Whether offset ``pos`` is on a line that starts with ``#`` (a HELP, TYPE or comment line of a scrape)."""
    start = text.rfind("\n", 0, pos) + 1
    return text[start:pos].lstrip(" \t").startswith("#")


class ReportError(ValueError):
    """A report that is there but wrong; ``pos`` places it against the other formats."""

    def __init__(self, message: str, pos: int):
        super().__init__(message)
        self.pos = pos


@dataclass(frozen=True)
class Needs:
    """What a format's report is made of, for the message on a paste no format could read.

    Every format module declares ``NEEDS = Needs(…)`` beside ``FORMAT``, ``ENGINE`` and ``parse``;
    the dispatcher finds which parts a refused paste has and names the format with the most as the
    nearest, with what it found and what it lacks.

    Attributes
    ----------
    what : str
        The report as a noun phrase: ``"a vLLM V1 log line"``.
    parts : tuple of (str, str)
        Each part a whole report has: how the message names it (``"'Drafted: N tokens'"``) and a
        regular expression that finds it (linear time; searched once over the paste).
    """

    what: str
    parts: tuple[tuple[str, str], ...]

    def found(self, text: str) -> tuple[list[str], list[str]]:
        """The parts ``text`` has and the parts it lacks, by name, in declared order."""
        have, lack = [], []
        for name, pattern in self.parts:
            (have if re.search(pattern, text) else lack).append(name)
        return have, lack


@dataclass(frozen=True)
class Found:
    pos: int  # offset of the last report used, to pick the format that comes last
    metrics: EngineMetrics


@dataclass(frozen=True)
class Segment:
    start: int  # offset of the marker
    text: str  # from the marker to the next marker or the end of its line
    before: str  # the same line before the marker (bounded)
    line_ended: bool  # False only at the end of a paste without a final line break


class Doc:
    """The text read, with the line lookups the parsers share."""

    def __init__(self, text: str):
        self.text = text
        self.ends_with_newline = text.endswith("\n")
        self._mark = (0, 1)  # (offset, its line): parsers ask in increasing order, so count on from there

    def line_of(self, pos: int) -> int:
        """1-based line number of offset ``pos``; amortized linear over a parser's pass."""
        at, line = self._mark
        if pos >= at:
            line += self.text.count("\n", at, pos)
        else:
            line -= self.text.count("\n", pos, at)
        self._mark = (pos, line)
        return line

    def tail(self, needle: str, keep: int = MAX_REPORTS) -> tuple[int, int]:
        """Offset of the first of the last ``keep`` occurrences of ``needle``, and how many come before.

        Counting and searching run in C, so a paste dense with markers costs Python work for
        ``keep`` reports at most.
        """
        text = self.text
        total = text.count(needle)
        if total <= keep:
            return 0, 0
        pos = len(text)
        for _ in range(keep):
            pos = text.rfind(needle, 0, pos)
        return pos, total - keep

    def segments(self, marker: str) -> tuple[list[Segment], int]:
        """The last :data:`MAX_REPORTS` occurrences of ``marker``, each up to the next one or
        the end of its line, and how many earlier ones were left unread.

        Linear in the text: line ends are searched once per line, not once per marker.
        """
        text = self.text
        first, dropped = self.tail(marker)
        starts = []
        at = text.find(marker, first)
        while at != -1:
            starts.append(at)
            at = text.find(marker, at + len(marker))
        out = []
        line_start, line_end, prev_end = 0, -1, 0
        for i, start in enumerate(starts):
            if start > line_end:  # the first marker of a line: find where the line starts and ends
                window = max(prev_end, start - MAX_LOOKBACK)
                newline = text.rfind("\n", window, start)
                line_start = newline + 1 if newline != -1 else window
                line_end = text.find("\n", start)
                if line_end == -1:
                    line_end = len(text)
            end = min(line_end, starts[i + 1] if i + 1 < len(starts) else line_end, start + MAX_SEGMENT)
            lookback = max(line_start, prev_end, start - MAX_LOOKBACK)
            out.append(Segment(start, text[start:end], text[lookback:start], end < len(text)))
            prev_end = end
        return out, dropped


def read_float(s: str) -> float:
    return float(s)  # NUM only admits what float() reads (a huge one reads as inf)


def clipped(raw: str, most: int = 40) -> str:
    """``raw`` as a message quotes it: whole if short, else its ends and its length."""
    return raw if len(raw) <= most else f"{raw[:12]}…{raw[-6:]} ({len(raw):,} characters)"


def read_int(s: str, field: str, line: int, pos: int) -> int:
    """A printed count (INT), or a :class:`ReportError` saying it is out of range, with its value."""
    if re.fullmatch(rf"\+?\d{{1,{MAX_COUNT_DIGITS}}}", s):
        return int(s)
    whole = re.fullmatch(r"[+-]?\d++", s) is not None
    raise ReportError(
        f"{field} = {clipped(s)} is {'out of range' if whole else 'not a whole number'}: a count is a whole "
        f"number from 0 to 10^{MAX_COUNT_DIGITS} − 1 (line {line})",
        pos,
    )


def check_rate(value: float, field: str, line: int, pos: int, top: float = 1.0) -> None:
    if not math.isnan(value) and not 0.0 <= value <= top:
        span = "[0, 1]" if top == 1.0 else "[0, 100]%"
        raise ReportError(f"{field} must be within {span}, got {value:g} (line {line})", pos)


def check_accepted(accepted: int, drafted: int, names: tuple[str, str], line: int, pos: int) -> None:
    if accepted > drafted:
        raise ReportError(
            f"{names[0]} ({accepted}) exceeds {names[1]} ({drafted}) (line {line}): "
            "no more draft tokens can be accepted than were drafted",
            pos,
        )


def lines_list(lines: list[int], most: int = 5) -> str:
    shown = ", ".join(str(n) for n in lines[:most])
    return shown + (f" and {len(lines) - most} more" if len(lines) > most else "")


# sgl-project/sglang logs its arguments at start-up: python/sglang/srt/entrypoints/engine.py
# (0.5.23, line 311) as "server_args={'speculative_eagle_topk': 8, …}", earlier releases as
# "server_args=ServerArgs(…, speculative_eagle_topk=8, …)"; a pasted command line has
# "--speculative-eagle-topk 8".
_TOPK = re.compile(r"speculative[_-]eagle[_-]topk['\"]?[ \t]*[=:]?[ \t]*['\"]?(\d{1,6})\b")


def eagle_topk(doc: Doc) -> int | None:
    """SGLang's ``--speculative-eagle-topk`` as the paste's latest server arguments show it, or None."""
    first, _ = doc.tail("eagle", keep=64)
    found = None
    for m in _TOPK.finditer(doc.text, first):
        found = int(m.group(1))
    return found


def tree_note(topk: int | None) -> list[str]:
    """The caveat for a paste whose SGLang server verified trees (top-k above 1)."""
    if topk is None or topk <= 1:
        return []
    return [
        f"the server arguments show --speculative-eagle-topk {topk}: SGLang verified a tree of drafts at each "
        "step, so the chain α fitted from the accept length is not the per-token acceptance (see the Draft "
        "trees page)"
    ]
