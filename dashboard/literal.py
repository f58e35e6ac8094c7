"""Text from outside (a link's values and names, a paste, a typed cell) as literal text in a message.

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


def _longest_backtick_run(text: str) -> int:
    runs = re.findall(r"`+", text)
    return max((len(run) for run in runs), default=0)


def literal(text: object, limit: int = MAX_SHOWN) -> str:
    """``text`` as a Markdown code span that shows exactly its characters, cut to ``limit`` with "…".

    The span's fence is one backtick longer than any run of backticks in the text, and a space
    pads each side (CommonMark strips one from each), so a text that starts or ends with a
    backtick or a space reads back unchanged. Line breaks and tabs become spaces; other control
    characters and invisible format characters (right-to-left marks, zero-width spaces) are
    dropped, so what is shown is what was sent. An empty text is shown as an empty pair of quotes.
    """
    shown = "".join(
        " " if char in "\r\n\t" else char
        for char in str(text)
        if char in "\r\n\t" or unicodedata.category(char) not in ("Cc", "Cf", "Cs", "Zl", "Zp")
    )
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    if not shown:
        return "“”"
    shown = _ICON.sub(":" + WORD_JOINER, shown)
    fence = "`" * (_longest_backtick_run(shown) + 1)
    # A text of spaces only is not stripped by CommonMark, so it takes no padding.
    pad = "" if shown.strip(" ") == "" else " "
    return f"{fence}{pad}{shown}{pad}{fence}"


def quoted(text: object, limit: int = MAX_SHOWN) -> str:
    """:func:`literal`, for a value inside a sentence: the code span marks where the value starts and ends."""
    return literal(text, limit)
