"""For bench/bench_floor.py: a dashboard page's elements drawn again from a capture, nothing computed.

``bench_floor.py`` captures a page under AppTest at each value the bench moves one slider to (the
sidebar and the main area as element trees) into the JSON file named by ``SDE_FLOOR``. This app
serves the page at its own address among as many pages as the dashboard has, and draws the
capture: the widgets, texts, metrics and charts the page drew, with the same keys, so that an
ECharts chart is updated in place as on the page, and the blocks the page's fragment drew in a
fragment. Once the timed slider is drawn, its value picks the capture the rest is drawn from. A
press here costs what Streamlit and the browser spend on those elements, whatever the page
computes: the page's floor.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import streamlit as st


@st.cache_resource
def _capture(path: str) -> dict:
    # Read once per server, not on every rerun: the main script runs again on each press.
    return json.loads(Path(path).read_text(encoding="utf-8"))


CAPTURE = _capture(os.environ["SDE_FLOOR"])


def _text(parent, p: dict, kind: str) -> None:
    body = p.get("body", "")
    if kind == "latex":
        parent.latex(body.strip().removeprefix("$$").removesuffix("$$"))
    elif kind == "divider":
        parent.divider()
    else:
        getattr(parent, kind)(body)


def _slider(parent, p: dict, key: str, common: dict) -> Any:
    if "options" in p:  # a select slider: its default is an index into the options
        value = p["options"][int(p["default"][0])]
        return parent.select_slider(p["label"], p["options"], value=value, key=key, **common)
    number = int if p.get("data_type") == "INT" else float
    low, high, step = (number(float(p.get(name, 0))) for name in ("min", "max", "step"))
    value = number(float(p["default"][0]))
    return parent.slider(p["label"], low, high, value, step, format=p.get("format"), key=key, **common)


def _widget(parent, kind: str, p: dict, key: str) -> Any:
    # The page's widgets are bound to the address (query_param_key), as the page's are.
    common = {"help": p.get("help") or None}
    if p.get("query_param_key"):
        common["bind"] = "query-params"
    if kind in ("slider", "select_slider"):
        return _slider(parent, p, key, common)
    if kind == "selectbox":
        return parent.selectbox(p["label"], p.get("options", []), index=int(p.get("default", 0)), key=key, **common)
    if kind == "radio":
        options = p.get("options", [])
        index = int(p.get("default", 0))
        return parent.radio(p["label"], options, index=index, horizontal=p.get("horizontal", False), key=key, **common)
    if kind == "number_input":
        number = int if p.get("data_type") == "INT" else float
        bounds = {"min_value": number(float(p["min"])) if "min" in p else None}
        bounds["max_value"] = number(float(p["max"])) if "max" in p else None
        value = number(float(p.get("default", 0)))
        step = number(float(p.get("step", 1)))
        form = p.get("format")
        return parent.number_input(p["label"], value=value, step=step, format=form, key=key, **bounds, **common)
    if kind in ("text_input", "text_area"):
        hint = p.get("placeholder") or None
        return getattr(parent, kind)(p["label"], p.get("default", ""), placeholder=hint, key=key, **common)
    if kind in ("checkbox", "toggle"):
        return getattr(parent, kind)(p["label"], bool(p.get("default", False)), key=key, **common)
    if kind == "multiselect":
        options = p.get("options", [])
        chosen = [options[int(i)] for i in p.get("default", [])]
        return parent.multiselect(p["label"], options, chosen, key=key, **common)
    if kind == "button":
        return parent.button(p["label"], key=key, help=common["help"])
    raise KeyError(kind)


def _element(parent, node: dict, key: str) -> Any:
    kind, p = node["type"], node.get("proto", {})
    if kind in ("markdown", "caption", "latex", "divider", "title", "header", "subheader", "html"):
        return _text(parent, p, kind)
    if kind in ("info", "warning", "error", "success"):
        return getattr(parent, kind)(p.get("body", ""), icon=p.get("icon") or None)
    if kind == "code":
        return parent.code(p.get("code_text", ""), language=p.get("language") or None)
    if kind == "metric":
        return parent.metric(p.get("label", ""), p.get("body", ""), help=p.get("help") or None)
    if kind == "echarts_chart":
        spec = json.loads(p["spec"])
        return parent.echarts_chart(spec, key=node["key"], height=node["height"], renderer="svg")
    if kind == "plotly_chart":
        figure, config = json.loads(p["spec"]), json.loads(p.get("config") or "{}")
        return parent.plotly_chart(figure, theme="streamlit" if p.get("theme") else None, config=config, key=key)
    return _widget(parent, kind, p, node.get("key") or key)


def _block(parent, node: dict, key: str) -> None:
    p, children = node.get("proto", {}), node["children"]
    if node["type"] == "grid_container":
        grid = parent.grid(int(p.get("columns", 2)), min_column_width=p.get("min_column_width_px"))
        for i, cell in enumerate(children):
            draw(cell["children"], grid.cell(), f"{key}.{i}")
        return
    if node["type"] == "tab_container":
        tabs = p.get("tab_container", {})
        labels = [child["label"] for child in children]
        options = {"default": tabs.get("default_tab_label") or None}
        if tabs.get("query_param_key"):
            options.update(key=tabs["query_param_key"], bind="query-params", on_change="rerun")
        for i, (tab, child) in enumerate(zip(parent.tabs(labels, **options), children, strict=True)):
            draw(child["children"], tab, f"{key}.{i}")
        return
    if node["type"] == "expander":
        inner = parent.expander(node.get("label", ""), expanded=False)
    else:
        flex = p.get("flex_container", {})
        inner = parent.container(horizontal=flex.get("direction") == "HORIZONTAL")
    draw(children, inner, key)


def draw(nodes: list[dict], parent, key: str) -> None:
    """Draw captured ``nodes`` into ``parent``; ``key`` names the widgets by their place."""
    for i, node in enumerate(nodes):
        (_block if "children" in node else _element)(parent, node, f"{key}.{i}")


def _at(value: Any) -> dict:
    """The capture drawn once the slider shows ``value``."""
    return next(c["tree"] for c in CAPTURE["captures"] if c["value"] == value or _close(c["value"], value))


def page() -> None:
    first = CAPTURE["captures"][0]["tree"]
    path = CAPTURE["slider_path"]  # (i,) among the router's widgets, (i, j) in the fragment's block
    # The page's fragment (ui.interactive) draws one block in the sidebar and one in the main area.
    side = next((i for i, node in enumerate(first["sidebar"]) if node.get("fragment")), None)
    main = next((i for i, node in enumerate(first["main"]) if node.get("fragment")), len(first["main"]))
    now = {"tree": first}  # the capture at the slider's value, once the slider is drawn

    def with_slider(nodes: list[dict], at: int, parent, key: str, inside: tuple[int, ...]) -> None:
        # The nodes up to the slider as first captured; the rest as captured at its value.
        draw(nodes[:at], parent, key)
        now["tree"] = _at(_element(parent, nodes[at], f"{key}.{at}"))
        rest = now["tree"]["sidebar"]
        for i in inside:
            rest = rest[i]["children"]
        draw([n for i, n in enumerate(rest) if i > at and (inside or i != side)], parent, f"{key}+")

    def fragment() -> None:
        if side is not None and len(path) == 2:
            with_slider(first["sidebar"][side]["children"], path[1], st.sidebar, "f", (side,))
        elif side is not None:
            draw(now["tree"]["sidebar"][side]["children"], st.sidebar, "f")
        if main < len(first["main"]):
            draw(now["tree"]["main"][main]["children"], st, "g")

    if len(path) == 1:
        with_slider(first["sidebar"], path[0], st.sidebar, "s", ())
    else:
        draw([n for i, n in enumerate(first["sidebar"]) if i != side], st.sidebar, "s")
    draw(now["tree"]["main"][:main], st, "m")
    st.fragment(fragment)()
    draw(now["tree"]["main"][main + 1 :], st, "n")


def _close(a: Any, b: Any) -> bool:
    return isinstance(a, float | int) and isinstance(b, float | int) and abs(a - b) < 1e-9


def _elsewhere() -> None:
    st.write("Another page of the dashboard; this bench times one.")


st.set_page_config(page_title=CAPTURE["title"], layout="wide")
pages = [
    st.Page(page if path == CAPTURE["url_path"] else _elsewhere, title=path or "Home", url_path=path or "Home")
    for path in CAPTURE["url_paths"]
]
st.navigation(pages, position="hidden").run()
