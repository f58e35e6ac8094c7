"""Outside text in messages: one code span that reads back as the text, invisible characters by code point."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dashboard.address import MAX_SHOWN, WORD_JOINER, literal
from tests.links import HOSTILE


def read_back(shown: str) -> str:
    """What CommonMark shows of ``shown`` if it is exactly one code span (spec 6.1); fails otherwise."""
    match = re.fullmatch(r"(`+)(.*)\1", shown, re.DOTALL)
    assert match, f"not one code span: {shown!r}"
    fence, content = match.groups()
    assert max((len(run) for run in re.findall("`+", content)), default=0) < len(fence), shown
    if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
        content = content[1:-1]
    return content.replace(WORD_JOINER, "")


ADDRESSES = ("www.e.vil/login", "https://e.vil/x", "http://e.vil", "mailto:a@e.vil", "a@e.vil", "e.vil/x",
             "<http://e.vil>", "ftp://e.vil", "xmpp:a@e.vil")  # fmt: skip


@pytest.mark.parametrize("text", ADDRESSES + HOSTILE[:-2] + ("`", "``a", "a`", " a ", "`` ` ``", ":material/home:"))
def test_every_shape_of_outside_text_is_one_code_span_that_reads_back(text):
    assert read_back(literal(text, limit=100)) == text


@given(st.text(alphabet=st.sampled_from("`a :/.<>[]()!$#*_\\"), min_size=1, max_size=40))
def test_any_text_of_markdown_characters_reads_back(text):
    assert read_back(literal(text, limit=100)) == text


def test_a_text_of_spaces_keeps_its_spaces_and_an_empty_one_shows_as_empty_quotes():
    assert read_back(literal("   ")) == "   "
    assert literal("") == "“”"


def test_streamlits_icon_syntax_is_broken_by_an_invisible_joiner():
    assert ":material/" not in literal(":material/home: :Material/x:")


def test_long_text_is_cut_with_an_ellipsis():
    assert read_back(literal("9" * 10_000)) == "9" * (MAX_SHOWN - 1) + "…"
    assert read_back(literal("`" * 1000)) == "`" * (MAX_SHOWN - 1) + "…"  # the cut comes before the fence


def test_invisible_and_control_characters_are_shown_by_code_point_and_breaks_become_spaces():
    assert read_back(literal("a\u202eb\u200bc\x07d\u2066e", limit=100)) == "a⟨U+202E⟩b⟨U+200B⟩c⟨U+0007⟩d⟨U+2066⟩e"
    # A right-to-left mark before a number: the value refused is not "0.9" as far as a reader can see.
    assert read_back(literal("\u200f0.9")) == "⟨U+200F⟩0.9"
    assert read_back(literal("one\ntwo\tthree\r\nfour", limit=100)) == "one two three  four"
