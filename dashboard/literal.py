"""Text from outside (a link's values and names, a paste, a typed cell) as literal text in a message.

Streamlit renders a message as Markdown, with its own directives (``:red[…]``, ``:material/…:``)
and LaTeX between dollar signs: a value that reaches a message unescaped can put a link, an image
or a heading on the page. :func:`literal` is the one place such text passes through.
"""

from __future__ import annotations

import unicodedata

#: Characters shown at most of a value from outside; longer ones are cut with an ellipsis.
MAX_SHOWN = 24

#: Every ASCII punctuation character: CommonMark lets a backslash escape each of them, and any of
#: them may start Markdown, a Streamlit directive, LaTeX or HTML.
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def literal(text: object, limit: int = MAX_SHOWN) -> str:
    """``text`` as Markdown that shows exactly its characters, cut to ``limit`` with "…".

    Line breaks and tabs become spaces; other control characters and invisible format characters
    (right-to-left marks, zero-width spaces) are dropped, so what is shown is what was sent.
    """
    shown = "".join(
        " " if char in "\r\n\t" else char
        for char in str(text)
        if char in "\r\n\t" or unicodedata.category(char) not in ("Cc", "Cf", "Cs", "Zl", "Zp")
    )
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return "".join("\\" + char if char in _PUNCTUATION else char for char in shown)


def quoted(text: object, limit: int = MAX_SHOWN) -> str:
    """:func:`literal` between typographic quotes, for a value inside a sentence."""
    return f"“{literal(text, limit)}”"
