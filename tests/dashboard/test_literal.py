"""Outside text in messages: every Markdown character escaped, invisible characters dropped, cut short."""

import string

import pytest

from dashboard.literal import MAX_SHOWN, literal, quoted


def _unescape(text: str) -> str:
    out, escaped = [], False
    for char in text:
        if escaped or char != "\\":
            out.append(char)
            escaped = False
        else:
            escaped = True
    assert not escaped, "a lone backslash at the end would escape what follows the value"
    return "".join(out)


@pytest.mark.parametrize(
    "text", ["[fix](//e.vil)", "x`![](//e.vil/p.png)", "<b>bold</b>", "# h", ":red[a] $x$", "a\\b"]
)
def test_every_ascii_punctuation_is_escaped_and_reads_back(text):
    shown = literal(text, limit=100)
    assert _unescape(shown) == text
    for position, char in enumerate(shown):
        if char in string.punctuation and char != "\\":
            assert shown[position - 1] == "\\", (shown, position)


def test_long_text_is_cut_with_an_ellipsis():
    shown = literal("9" * 10_000)
    assert shown == "9" * (MAX_SHOWN - 1) + "…"
    assert len(literal("[" * 1000)) == 2 * (MAX_SHOWN - 1) + 1  # the cut comes before the escapes


def test_invisible_and_control_characters_are_dropped_and_breaks_become_spaces():
    assert literal("a\u202eb\u200bc\x07d\u2066e") == "abcde"
    assert literal("one\ntwo\tthree\r\nfour", limit=100) == "one two three  four"


def test_quoted_values_read_as_a_value_in_a_sentence():
    assert quoted("0.5") == "“0\\.5”"
    assert quoted(None) == "“None”"
