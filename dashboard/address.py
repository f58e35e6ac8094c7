"""What comes from outside through the address bar, a paste or a typed cell, shown literally.

Streamlit renders a message as Markdown, with its own directives (``:red[…]``, ``:material/…:``),
LaTeX between dollar signs and GitHub's autolinks of bare addresses (``www.…``, ``https://…``): a
value that reaches a message as it came can put a link, an image or a heading on the page, and
backslash escapes do not stop an autolink. :func:`literal` is the one place such text passes
through: it puts the text in a code span, inside which no Markdown construct is parsed.
"""

from __future__ import annotations

import re
import unicodedata

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
