"""Hand-made links for every page, generated from the parameter table (``dashboard.params``).

A valid link sets every parameter a page reads to a value other than its default; a bad link
gives each parameter a value of one kind of mistake. Some parameters are read only when another
one has a given value (:data:`CONDITIONS`); links set that other parameter accordingly.
"""

from __future__ import annotations

import math

from dashboard import limits
from dashboard.params import PARAMS, Param, format_number

#: Parameter -> (parameter, value) it depends on: the page creates the widget only then.
CONDITIONS = {key: p.shown_when for key, p in PARAMS.items() if p.shown_when is not None}

CATEGORIES = ("out_of_range", "non_numeric", "empty", "enormous")
ENORMOUS = "9" * 400

#: A text value a link may carry: a Hugging Face repo id, as the drafter's name.
TEXT_VALUE = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
#: Text parameters that take another kind of text, and a value each takes: per-position rates.
TEXT_VALUES = {"acc_profile": "0.73, 0.52, 0.35"}
#: Choices a link makes where another would show the page without what its tests then move: the
#: Hardware tab whose charts the page's batch slider changes (it moves none on Schedule, and
#: Engine configs has no chart).
CHOICES = {"hw_view": "experts"}
#: Text a name cannot hold, by category: a space, a quote (both would change a shell command).
BAD_TEXT = {"out_of_range": "two words", "non_numeric": "it's"}


def widget_type(param: Param) -> str:
    return param.widget_type


def url_text(param: Param, value) -> str:
    if param.kind in ("float", "int"):
        return str(int(value)) if param.kind == "int" else format_number(value)
    if param.kind == "bool":
        return "true" if value else "false"
    if param.kind == "text":
        return value
    return param.fmt(value)


def valid_value(param: Param, prefer=None) -> list[str]:
    """A valid value other than the default, as the URL carries it (one entry per repeat)."""
    if param.kind in ("float", "int"):
        steps = math.floor((param.high - param.low) / param.step)
        value = param.low + round(steps * 0.37) * param.step
        if math.isclose(value, param.default):
            value += param.step
        value = round(value, 10)
        return [url_text(param, int(value) if param.kind == "int" else value)]
    if param.kind == "choice":
        prefer = CHOICES.get(param.key) if prefer is None else prefer
        if prefer is not None:
            return [url_text(param, prefer)]
        options = [o for o in param.options if o != param.default]
        return [url_text(param, options[len(options) // 3])]
    if param.kind == "multi":
        picked = [o for o in param.options if o not in param.default][:2]
        return [url_text(param, o) for o in picked]
    if param.kind == "bool":
        return [url_text(param, not param.default)]
    if param.kind == "text":
        text = TEXT_VALUES.get(param.key, TEXT_VALUE)
        assert param.accepts(text) and text != param.default, param.key
        return [text]
    raise ValueError(param.kind)


def used(key: str, chosen: dict[str, list[str]]) -> bool:
    """Whether the page reads ``key`` given the values ``chosen`` so far (else the defaults); a
    condition's parameter must be read itself (conditions chain)."""
    if key not in CONDITIONS:
        return True
    other, value = CONDITIONS[key]
    wanted = url_text(PARAMS[other], value)
    current = chosen.get(other, [url_text(PARAMS[other], PARAMS[other].default)])
    return current == [wanted] and used(other, chosen)


def deep_link(keys: tuple[str, ...]) -> dict[str, list[str]]:
    """Every parameter the page reads, at a valid non-default value; conditions satisfied."""
    chosen: dict[str, list[str]] = {}
    for key in keys:
        prefer = next((value for dep, (other, value) in CONDITIONS.items() if other == key and dep in keys), None)
        if prefer == PARAMS[key].default:
            prefer = None
        chosen[key] = valid_value(PARAMS[key], prefer)
    if {"k", "drafts", "accepted"} <= chosen.keys():
        # At most k × drafts draft tokens can be accepted; more shows an error instead of the chart.
        most = int(chosen["k"][0]) * int(chosen["drafts"][0])
        if int(chosen["accepted"][0]) > most:
            chosen["accepted"] = [str(most * 37 // 100)]
    if {"target_ms", "draft_ms", "cal_draft_model"} <= chosen.keys() and used("cal_draft_model", chosen):
        # Step times a roofline can give (the fit warns otherwise): a draft smaller and faster than the target.
        if chosen["cal_draft_model"] == chosen["cal_target_model"]:
            chosen["cal_draft_model"] = ["LLaMA-68M" if chosen["cal_target_model"] != ["LLaMA-68M"] else "Llama-2-7B"]
        chosen["draft_ms"] = [format_number(float(chosen["target_ms"][0]) / 4)]
    if {"pairs", "kl_vocab"} <= chosen.keys():
        # Within the page's work cap (dashboard.limits), so that every slider step changes the view.
        step = int(PARAMS["pairs"].step)
        most = limits.KL_ENTRIES // int(chosen["kl_vocab"][0]) // step * step
        chosen["pairs"] = [str(min(int(chosen["pairs"][0]), max(most, int(PARAMS["pairs"].low))))]
    return {key: value for key, value in chosen.items() if used(key, chosen)}


def bad_value(param: Param, category: str, below: bool = False) -> str | None:
    """A wrong value of the given kind for ``param``, or ``None`` where that kind is valid.

    Numbers out of range are above the range, or below it with ``below``.
    """
    numeric = param.kind in ("float", "int")
    if param.kind == "text" and param.allowed is None and param.max_chars is None:
        return None  # any text is a value the box takes; the page judges it (the typed logits)
    if param.kind == "text" and category in BAD_TEXT:
        return BAD_TEXT[category]  # a number or a word would be text the parameter allows
    if category == "out_of_range":
        if numeric and below:
            return str(int(param.low) - 1) if param.kind == "int" else format_number(param.low - 0.5)
        if numeric:
            return str(int(param.high) * 10 + 1) if param.kind == "int" else format_number(param.high + 1)
        return {"bool": "maybe"}.get(param.kind, "not-an-option")
    if category == "non_numeric":
        return "abc"
    if category == "empty":
        # An empty multiselect and an empty text (the default) are valid links.
        return None if param.kind in ("multi", "text") else ""
    if category == "enormous":
        return ENORMOUS
    raise ValueError(category)


def bad_link(keys: tuple[str, ...], category: str):
    """A link giving the page's parameters bad values of ``category``: ``(link, bad keys)``.

    A parameter others depend on (``preset`` for ``vocab``) cannot be bad and enable them at once,
    so the categories take turns: in one the parameter is set to enable a dependent, which gets
    the bad value; in another the parameter itself is bad. Over the four categories every
    parameter gets at least one bad value, and each link still covers the whole page.
    """
    turn = CATEGORIES.index(category)
    link: dict[str, list[str]] = {}
    bad: list[str] = []

    def spoil(key: str) -> None:
        value = bad_value(PARAMS[key], category, below=len(bad) % 2 == 1)
        if value is not None:
            link[key] = [value]
            bad.append(key)

    enablers: dict[str, list[str]] = {}
    for dep, (other, value) in CONDITIONS.items():
        if dep in keys and other in keys:
            values = enablers.setdefault(other, [])
            if value not in values:
                values.append(value)

    def decide(key: str, depth: int) -> None:
        if key not in enablers:
            spoil(key)
            return
        slots = [*enablers[key], None]  # None: the parameter itself is bad
        # An enabler reached through another (a chain) takes the turn after its own: the turns
        # that reach it then still alternate its slots.
        value = slots[(turn // 2**depth) % len(slots)]
        if value is None:
            spoil(key)
            value = PARAMS[key].default  # a bad value falls back to the default
        elif value != PARAMS[key].default:
            link[key] = [url_text(PARAMS[key], value)]
        for dep, (other, wanted) in CONDITIONS.items():
            if other == key and dep in keys and wanted == value:
                decide(dep, depth + 1)

    for key in keys:
        if key in CONDITIONS and CONDITIONS[key][0] in enablers:
            continue  # decided with the parameter it depends on
        decide(key, 0)
    return link, tuple(bad)


#: Values and names a crafted link may carry: every shape of address Markdown autolinks, Markdown
#: links and images, a heading, backticks, HTML, Streamlit's directives and LaTeX, control and
#: right-to-left characters, 10 kB.
HOSTILE = (
    "www.e.vil/login",
    "https://e.vil/x?y=1",
    "mailto:a@e.vil",
    "a@e.vil",
    "e.vil/login",
    "<http://e.vil>",
    "x`![](//e.vil/p.png)",
    "[fix](//e.vil)",
    "<img src=//e.vil/p.png>",
    "# Session expired. **Click** [here](https://e.vil/reload)",
    ":red[alert] $x^2$ :material/home:",
    "a\u202eb\u200bc\x07d\ne",
    "9" * 10_000,
)


def hostile_link(keys: tuple[str, ...]) -> dict[str, str]:
    """A link giving each of ``keys`` one of :data:`HOSTILE` and carrying each as a parameter name too."""
    link = {key: HOSTILE[number % len(HOSTILE)] for number, key in enumerate(keys)}
    return link | {name[:40]: "1" for name in HOSTILE}
