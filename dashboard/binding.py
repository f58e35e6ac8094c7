"""Widgets bound to the address: Streamlit's ``bind="query-params"``, a link's values checked.

A :class:`~dashboard.params.Param` becomes its Streamlit widget (:func:`make_widget`) with the
parameter's key as widget key and URL key, so the address bar is always a link to the view. What
a link gives that the widget cannot take (:func:`check_url_value`) is named in a warning
(:func:`bound_widget`). A page that sets widgets from another's change does it in that widget's
callback (``Section.on_change``), which Streamlit runs before any widget of the rerun exists, so
it may write their values in ``st.session_state``; the binding then writes them to the address.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import streamlit as st

from dashboard import workarounds
from dashboard.address import literal
from dashboard.params import Param

#: Where a widget goes: ``st``, ``st.sidebar``, a container or a column. Streamlit's class for
#: them lives in a module of its own internals, which this project does not import.
Container = Any

#: A widget's ``on_change``: run before the rerun its change starts, or None.
Callback = Callable[[], None] | None


def _display(param: Param, value: Any) -> str:
    if param.kind == "multi":
        return ", ".join(param.fmt(v) for v in value) or "none"
    if param.kind == "text":  # from outside: literal text
        return literal(value) if value else "no value (the default)"
    return param.fmt(value)


def bound_widget(
    param: Param, raw: list[str] | None, notices: Container, container: Container, on_change: Callback = None
) -> Any:
    """Create ``param``'s widget in ``container``, bound to the URL; its value. ``raw``: the link's values of it.

    A value in the link that the widget could not take is named in a warning in ``notices``, with
    the value used instead. A text box takes any text from the link, so a text the parameter does
    not allow is not used: its default is. What the user types into the box is the page's to judge
    (it is in the address too, but not from a link).
    """
    return _bound(param, raw, notices, lambda: make_widget(param, container, on_change))


def bound_tabs(
    param: Param, raw: list[str] | None, notices: Container, container: Container, on_change: Callback = None
) -> tuple[Any, Container]:
    """``param``'s tabs (``widget="tabs"``) in ``container``, bound to the URL; the open tab's
    value and container. As :func:`bound_widget`.

    The tabs track which is open (Streamlit's ``bind="query-params"``), so a page draws only the
    open tab's content: the others' charts are neither computed nor sent.
    """
    opened = {}

    def tabs() -> Any:
        labels = [param.fmt(option) for option in param.options]
        containers = container.tabs(
            labels, default=param.fmt(param.default), key=param.key, bind="query-params", on_change=on_change or "rerun"
        )
        index = next(i for i, tab in enumerate(containers) if tab.open)
        opened["container"] = containers[index]
        return param.options[index]

    return _bound(param, raw, notices, tabs), opened["container"]


def _bound(param: Param, raw: list[str] | None, notices: Container, create: Callable[[], Any]) -> Any:
    """What :func:`bound_widget` does around ``create``, which makes the widget and returns its value."""
    key = param.key
    bound = key in st.session_state
    # Before the widget binds the key, which would forbid writing it: a copied link must
    # not carry on what the binding keeps (see address_value).
    if raw is not None and not bound:
        corrected = address_value(param, raw)
        if corrected is not None:
            try:
                st.query_params[key] = corrected
            except st.errors.StreamlitAPIException:
                pass  # bound after all: the warning below still names the value in use
    value = create()
    if isinstance(value, float):
        value += 0.0  # a link's -0 is 0, not "α = -0"
    typed = param.kind == "text" and bound and raw is not None and raw[-1] == value
    problem = check_url_value(param, raw) if raw is not None and not typed else None
    if problem and param.kind == "text" and not param.accepts(value):
        # The address holds the default now (address_value).
        value = param.default
    if problem:
        notices.warning(f"{problem}; using {_display(param, value)}.", icon="⚠️")
    return value


def make_widget(param: Param, container: Container, on_change: Callback = None) -> Any:
    """The Streamlit widget :class:`~dashboard.params.Param` describes, bound to the URL; its value.

    ``on_change`` is the widget's Streamlit callback, if any.
    """
    common = {"key": param.key, "help": param.help or None, "bind": "query-params", "on_change": on_change}
    kind, widget = param.kind, param.widget_type
    if kind == "int" and widget == "number_input":
        return workarounds.whole_number_input(
            container, param.label, value=param.default, low=param.low, high=param.high, **common
        )
    if kind in ("float", "int"):
        cast = float if kind == "float" else int
        bounds = {"min_value": cast(param.low), "max_value": cast(param.high), "step": cast(param.step)}
        return getattr(container, widget)(param.label, value=cast(param.default), **bounds, **common)
    options = list(param.options)
    if widget == "select_slider":
        return container.select_slider(
            param.label, options=options, value=param.default, format_func=param.fmt, **common
        )
    if widget in ("selectbox", "radio"):
        extra = {"horizontal": True} if widget == "radio" else {}
        return getattr(container, widget)(
            param.label, options, index=options.index(param.default), format_func=param.fmt, **extra, **common
        )
    if widget == "multiselect":
        return container.multiselect(param.label, options, default=list(param.default), format_func=param.fmt, **common)
    if widget == "toggle":
        return container.toggle(param.label, value=param.default, **common)
    if widget == "text_input":
        # No max_chars: Streamlit would cut a longer link value to an allowed-looking prefix and
        # use it; the page refuses a text over param.max_chars whole (Param.accepts).
        return container.text_input(param.label, value=param.default, placeholder=param.placeholder or None, **common)
    raise ValueError(f"no widget {widget!r} for parameter {param.key} of kind {kind!r}")


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
