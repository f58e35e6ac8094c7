"""What comes from outside through the address bar, a paste or a typed cell: whether a link's
value can be used (and in what words a person can act on if not), and such text shown literally.

Streamlit renders a message as Markdown, with its own directives (``:red[…]``, ``:material/…:``),
LaTeX between dollar signs and GitHub's autolinks of bare addresses (``www.…``, ``https://…``): a
value that reaches a message as it came can put a link, an image or a heading on the page, and
backslash escapes do not stop an autolink. :func:`literal` is the one place such text passes
through: it puts the text in a code span, inside which no Markdown construct is parsed.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a type only: dashboard.params imports engine_config, which shows names with literal
    from dashboard.params import Param

#: Characters shown at most of a value from outside; longer ones are cut with an ellipsis.
MAX_SHOWN = 24

#: Streamlit turns ``:material/name:`` into an icon's name even inside a code span; a word joiner
#: (invisible, and not a line break) after the colon keeps the text as it was typed.
_ICON = re.compile(r":(?=material/)", re.IGNORECASE)
WORD_JOINER = "\u2060"
#: Unicode categories shown by code point, not as themselves: controls, format characters
#: (bidirectional marks and overrides, zero-width spaces), lone surrogates, line and paragraph separators.
INVISIBLE = ("Cc", "Cf", "Cs", "Zl", "Zp")


def _visible(char: str) -> str:
    if char in "\r\n\t":
        return " "
    if unicodedata.category(char) in INVISIBLE:
        return f"⟨U+{ord(char):04X}⟩"
    return char


def _longest_backtick_run(text: str) -> int:
    runs = re.findall(r"`+", text)
    return max((len(run) for run in runs), default=0)


def literal(text: object, limit: int = MAX_SHOWN) -> str:
    """``text`` as a Markdown code span that shows exactly its characters, cut to ``limit`` with "…".

    The span's fence is one backtick longer than any run of backticks in the text, and a space
    pads each side (CommonMark strips one from each), so a text that starts or ends with a
    backtick or a space reads back unchanged. Line breaks and tabs become spaces; other control
    characters and invisible format characters (right-to-left marks, zero-width spaces) are
    shown by their code point, ``⟨U+200F⟩``, so that a value refused for a character nobody can
    see says which, and none of them reorders or hides the message. An empty text is shown as an
    empty pair of quotes.
    """
    shown = "".join(_visible(char) for char in str(text))
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    if not shown:
        return "“”"
    shown = _ICON.sub(":" + WORD_JOINER, shown)
    fence = "`" * (_longest_backtick_run(shown) + 1)
    # A text of spaces only is not stripped by CommonMark, so it takes no padding.
    pad = "" if shown.strip(" ") == "" else " "
    return f"{fence}{pad}{shown}{pad}{fence}"


def _single(raw: str | list[str]) -> str:
    return raw[-1] if isinstance(raw, list) else raw


def _shown(raw: str | list[str]) -> str:
    return literal(",".join(raw) if isinstance(raw, list) else raw)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def check_url_value(param: Param, raw: str | list[str]) -> str | None:
    """Why ``raw``, the link's value for ``param``, cannot be used as it is; ``None`` if it can.

    Mirrors what Streamlit's query-parameter binding does with such a value (ignore it and use
    the default, or truncate a fractional int slider value), so the page can say so. The value is
    shown as literal text (:func:`literal`), never as Markdown.
    """
    shown = f"`{param.key}` = {_shown(raw)}"
    if param.kind != "multi" and isinstance(raw, list) and len(raw) > 1:
        return f"`{param.key}` appears {len(raw)} times in the link ({_shown(raw)})"
    if param.kind == "multi":
        # Repeated parameters (?compare=0.5&compare=0.6); an empty value is an empty selection.
        parts = [s for s in (raw if isinstance(raw, list) else [raw]) if s != ""]
        allowed = {param.fmt(o) for o in param.options}
        unknown = [s for s in parts if s not in allowed]
        if unknown:
            return f"{shown} has values not offered ({_shown(unknown)}); the choices are {param.describe_range()}"
        return None
    if param.kind == "text":
        # Taken as it is, spaces included: a name with a space is not one the engines load.
        return None if param.accepts(_single(raw)) else f"{shown} is not allowed ({param.describe_range()})"
    value = _single(raw).strip()
    if value == "":
        return f"`{param.key}` in the link is empty"
    if param.kind == "bool":
        return None if value.lower() in ("true", "false") else f"{shown} is not true or false"
    if param.kind == "choice":
        if value in {param.fmt(o) for o in param.options}:
            return None
        same = [o for o in param.options if _number(value) == o and not isinstance(o, bool)]
        if same:  # 100000 for the 100k a link writes: the binding does not read it, so say how
            return f"{shown} is written {param.fmt(same[0])} in a link"
        return f"{shown} is not one of the offered values ({param.describe_range()})"
    try:
        number = float(value)
    except ValueError:
        return f"{shown} is not a number"
    if math.isnan(number):
        return f"{shown} is not a number"
    if not math.isfinite(number) or number < param.low or number > param.high:
        return f"{shown} is outside {param.describe_range()}"
    if param.kind == "int" and number != int(number):
        return f"{shown} is not a whole number"
    return None


def address_value(param: Param, raw: str | list[str]) -> str | None:
    """The one value the address should hold instead of ``raw``, or ``None`` to leave it.

    Streamlit's binding drops or corrects most bad values, but keeps a repeated key as it is
    (``?seed=1&seed=2`` stays, and a copied link carries it on), a minus zero (``?alpha=-0``)
    and any text: the address then keeps the last value, which is the one the binding reads, 0
    for -0, and nothing (the default) for a text the parameter does not allow.
    """
    if param.kind == "multi":
        return None
    values = raw if isinstance(raw, list) else [raw]
    value = values[-1]
    if param.kind == "text" and not param.accepts(value):
        value = ""
    if param.kind in ("float", "int"):
        try:
            number = float(value)
        except ValueError:
            number = None
        if number == 0 and math.copysign(1.0, number) < 0:
            value = "0"
    return value if len(values) > 1 or value != values[-1] else None
