"""Helpers for AppTest: open a page the way the real app does, read its charts and metrics."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]

SPEEDUP = "pages/1_Speedup.py"
OPTIMAL_K = "pages/2_Optimal_k.py"
SAMPLING = "pages/3_Rejection_sampling.py"
KL = "pages/4_Acceptance_vs_KL.py"
ALL_PAGES = ("app.py", SPEEDUP, OPTIMAL_K, SAMPLING, KL)


def open_page(script: str, **query: str) -> AppTest:
    """Run ``script`` under the real entry point (app.py), with ``query`` as the link's parameters."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    if script != "app.py":
        at.switch_page(script)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def page_charts(at: AppTest) -> list[dict]:
    """The plotly figures on the page, as the JSON the browser receives."""
    return [json.loads(element.proto.spec) for element in at.get("plotly_chart")]


def trace(figure: dict, name: str) -> dict:
    matches = [t for t in figure["data"] if t.get("name") == name]
    assert len(matches) == 1, f"no single trace named {name!r} in {[t.get('name') for t in figure['data']]}"
    return matches[0]


def values(encoded) -> np.ndarray:
    """A trace's array as plotly serialized it: a plain list or a typed array ({dtype, bdata, shape})."""
    if isinstance(encoded, dict) and "bdata" in encoded:
        array = np.frombuffer(base64.b64decode(encoded["bdata"]), dtype=np.dtype(encoded["dtype"]))
        shape = encoded.get("shape")
        return array.reshape([int(s) for s in str(shape).split(",")]) if shape else array
    return np.asarray(encoded)


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning]
