"""What a widget parameter is: :class:`Param`, and the number formats of labels and links."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


def format_number(value: float) -> str:
    """Shortest plain form of a number for labels and URLs: 20, 1.5, 0.05."""
    return f"{value:g}"


def format_count(value: int) -> str:
    """Sample counts as 1k, 30k, 1M, 10M: short in the URL and on the slider."""
    for unit, name in ((1_000_000, "M"), (1_000, "k")):
        if value >= unit and value % unit == 0:
            return f"{value // unit}{name}"
    return str(value)


DEFAULT_WIDGETS = {
    "float": "slider",
    "int": "slider",
    "choice": "select_slider",
    "multi": "multiselect",
    "bool": "toggle",
    "text": "text_input",
}


@dataclass(frozen=True)
class Param:
    """One widget parameter.

    ``kind`` says what the value is: ``"float"`` and ``"int"`` range over [low, high] with
    ``step``; ``"choice"`` is one of ``options``, shown and written to the URL with ``fmt``;
    ``"multi"`` several of ``options``; ``"bool"`` true or false; ``"text"`` a string of at most
    ``max_chars`` characters that is empty or that ``allowed`` accepts (``rule`` says which, in
    words), the widget showing ``placeholder`` while it is empty. ``widget`` names the Streamlit
    widget (the name of its AppTest element): :data:`DEFAULT_WIDGETS` unless set.
    """

    key: str
    label: str
    kind: str
    default: Any
    help: str = ""
    low: float | None = None
    high: float | None = None
    step: float | None = None
    options: Sequence[Any] = field(default_factory=tuple)
    fmt: Callable[[Any], str] = str
    widget: str = ""
    shared: bool = False  # carried from page to page by the navigation links
    max_chars: int | None = None
    allowed: Callable[[str], bool] | None = None
    rule: str = ""
    placeholder: str = ""
    #: (key, value): the page creates this widget only while parameter ``key`` has ``value``
    #: (a link's value for it is read only then); None: always. Conditions chain: where ``key`` has a
    #: condition of its own, this widget also needs that one.
    shown_when: tuple[str, Any] | None = None

    @property
    def widget_type(self) -> str:
        return self.widget or DEFAULT_WIDGETS[self.kind]

    def accepts(self, text: str) -> bool:
        """Whether a ``"text"`` parameter can use ``text``; empty is its default, "none given"."""
        if text == "":
            return True
        if self.max_chars is not None and len(text) > self.max_chars:
            return False
        return self.allowed is None or self.allowed(text)

    def url_text(self, value: Any) -> str | list[str]:
        """``value`` as a link carries it, what the widget's binding reads (a list for ``"multi"``)."""
        if self.kind == "bool":
            return "true" if value else "false"
        if self.kind == "multi":
            return [self.fmt(v) for v in value]
        if self.kind == "int":
            return str(int(value))
        if self.kind == "float":
            return format_number(value)
        if self.kind == "text":
            return value
        return self.fmt(value)

    def describe_range(self) -> str:
        if self.kind in ("float", "int"):
            return f"{format_number(self.low)} to {format_number(self.high)}"
        if self.kind in ("choice", "multi"):
            shown = [self.fmt(o) for o in self.options]
            return ", ".join(shown) if len(shown) <= 8 else f"{', '.join(shown[:4])}, …, {shown[-1]}"
        if self.kind == "text":
            most = f"at most {self.max_chars} characters" if self.max_chars is not None else ""
            return ", ".join(part for part in (self.rule, most) if part) or "any text"
        return "true or false"


@dataclass(frozen=True)
class Section:
    """Parameters a page shows together, in this order, under ``title`` (None: no heading).

    A page declares its parameters once, as a tuple of sections in its ``dashboard.features``
    module: the registry's list of the page's parameters is their keys in order, and the page
    shows each section's widgets with ``PageContext.show``. Keys of ``registry.APP_KEYS`` stand
    where the page reads them; the router creates their widgets. ``on_change`` is the widgets'
    Streamlit callback, run before the rerun their change starts, when a widget's value (its own or
    another's) may still be set in ``st.session_state``.
    """

    title: str | None
    keys: tuple[str, ...]
    on_change: Callable[[], None] | None = None


def section_keys(sections: Sequence[Section]) -> tuple[str, ...]:
    """The keys of ``sections``, in order: a page's parameters."""
    return tuple(key for section in sections for key in section.keys)
