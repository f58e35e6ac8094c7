"""Helpers for AppTest: open a page the way the real app does, read its charts and metrics."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from dashboard.address import WORD_JOINER
from dashboard.charts import echart
from dashboard.registry import PAGES
from engines.configs import sglang, vllm

ROOT = Path(__file__).resolve().parents[1]

#: Registry ids of the pages most tests open.
HOME, SPEEDUP, OPTIMAL_K, SAMPLING, KL = "home", "speedup", "optimal_k", "sampling", "kl"

#: Pages that show no chart: the home page and the exercises, which link to the pages with charts.
WITHOUT_CHARTS = frozenset({HOME, "exercises"})


def switch(at: AppTest, page_id: str) -> AppTest:
    """Switch ``at`` (run at least once) to the registry's page ``page_id``; not run yet."""
    return at.switch_page(PAGES[page_id].script)


def open_page(page_id: str, **query: str) -> AppTest:
    """Run the registry's page ``page_id`` under the router (app.py), with ``query`` as the link's parameters."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    # AppTest finds a page of st.navigation only after a first run has registered the pages.
    at.run()
    if page_id != HOME:
        switch(at, page_id)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def _chart_elements(node) -> list:
    """The plotly and ECharts charts under ``node``, in the page's order."""
    found = []
    for child in getattr(node, "children", {}).values():
        if getattr(child, "type", None) in ("plotly_chart", "echarts_chart"):
            found.append(child)
        found += _chart_elements(child)
    return found


def page_charts(at: AppTest) -> list[dict]:
    """The page's charts as the JSON the browser receives: a plotly figure as it is, an ECharts
    option read back as one (``charts.echart.as_figure``)."""
    return [
        json.loads(element.proto.spec)
        if element.type == "plotly_chart"
        else echart.as_figure(json.loads(element.proto.spec))
        for element in _chart_elements(at.main)
    ]


def page_options(at: AppTest) -> list[dict]:
    """The page's ECharts options as sent, in the page's order: where a test reads a chart's marks
    (rules, shaded bands), which :func:`page_charts` does not carry."""
    return [json.loads(element.proto.spec) for element in _chart_elements(at.main) if element.type == "echarts_chart"]


def trace(figure: dict, name: str) -> dict:
    matches = [t for t in figure["data"] if t.get("name") == name]
    assert len(matches) == 1, f"no single trace named {name!r} in {[t.get('name') for t in figure['data']]}"
    return matches[0]


def values(encoded) -> np.ndarray:
    """A trace's array as plotly serialized it: a plain list or a typed array ({dtype, bdata, shape}).

    In a plain list of numbers a null reads as NaN: it is how JSON holds a NaN, and how an ECharts
    option (``charts.echart.with_gaps``) marks a point that is not drawn.
    """
    if isinstance(encoded, dict) and "bdata" in encoded:
        array = np.frombuffer(base64.b64decode(encoded["bdata"]), dtype=np.dtype(encoded["dtype"]))
        shape = encoded.get("shape")
        return array.reshape([int(s) for s in str(shape).split(",")]) if shape else array
    array = np.asarray(encoded)
    if array.dtype == object and all(v is None or isinstance(v, int | float) for v in array.flat):
        return array.astype(float)
    return array


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning]


#: A Markdown code span: a run of backticks, the text, the same run (CommonMark).
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def _span_text(match: re.Match) -> str:
    content = match.group(2)
    if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
        content = content[1:-1]
    return content.replace(WORD_JOINER, "")


def shown(markdown: str) -> str:
    """What a message shows: code spans (outside text, through ``dashboard.address``) as their
    text, and backslash escapes elsewhere undone."""
    parts = []
    end = 0
    for match in CODE_SPAN.finditer(markdown):
        parts += [re.sub(r"\\(.)", r"\1", markdown[end : match.start()]), _span_text(match)]
        end = match.end()
    return "".join(parts) + re.sub(r"\\(.)", r"\1", markdown[end:])


def codes(at) -> list[str]:
    return [element.proto.code_text for element in at.get("code")]


def vllm_config(at) -> dict:
    """The ``--speculative-config`` object of the page's ``vllm serve`` command (not the synthetic run's),
    read as a shell reads the flag."""
    configs = [vllm.read_flag(text) for text in codes(at) if text.startswith("vllm serve ")]
    (config,) = [config for config in configs if "rejection_sample_method" not in config]
    return config


def synthetic_vllm_config(at) -> dict:
    """The ``--speculative-config`` object of the synthetic run's ``vllm serve`` command."""
    configs = [vllm.read_flag(text) for text in codes(at) if text.startswith("vllm serve ")]
    (config,) = [config for config in configs if "rejection_sample_method" in config]
    return config


def sglang_flags(at) -> dict[str, str]:
    """The ``--speculative-*`` flags of the page's fixed-chain SGLang command, read as a shell reads them."""
    (text,) = [
        text for text in codes(at)
        if text.startswith("python -m sglang.launch_server ") and "--speculative-adaptive" not in text
    ]  # fmt: skip
    return {flag: value for flag, value in sglang.read_flags(text).items() if flag.startswith("--speculative")}
