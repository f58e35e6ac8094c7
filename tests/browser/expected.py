"""What each page's charts must hold for given settings, computed here with ``specmath`` alone.

The browser tests read the numbers plotly.js holds in the page and compare them with these;
plotly ships NumPy arrays as raw float64 bytes, so the comparison can be tight.
"""

from __future__ import annotations

import numpy as np

import specmath
from dashboard.params import PARAMS
from tests.browser.links import url_text

RTOL = 1e-12

K_AXIS = np.arange(1, 65)
GRID_ALPHA = np.linspace(0.0, 1.0, 201)
GRID_C = np.geomspace(1.0, 200.0, 201)
CHAPTER_P = (0.3, 0.25, 0.15, 0.1, 0.08, 0.05, 0.03, 0.02, 0.01, 0.01)
CHAPTER_Q = (0.2, 0.2, 0.2, 0.15, 0.1, 0.05, 0.04, 0.03, 0.02, 0.01)


def _default(key: str):
    param = PARAMS[key]
    if param.kind == "multi":
        return [url_text(param, v) for v in param.default]
    return url_text(param, param.default)


def settings(params: dict[str, list[str]], keys: tuple[str, ...]) -> dict[str, object]:
    """The page's settings from URL parameters (as ``parse_qs`` gives them), defaults filled in."""
    out = {}
    for key in keys:
        if PARAMS[key].kind == "multi":
            out[key] = params.get(key, _default(key))
        else:
            out[key] = params.get(key, [_default(key)])[-1]
    return out


def sample_count(text: str) -> int:
    for suffix, unit in (("M", 1_000_000), ("k", 1_000)):
        if text.endswith(suffix):
            return int(text[: -len(suffix)]) * unit
    return int(text)


def close(actual, expected) -> bool:
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    return actual.shape == expected.shape and np.allclose(actual, expected, rtol=RTOL, atol=0)


def assert_close(actual, expected, what: str) -> None:
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=0, err_msg=what)


def _trace(chart: dict, words: str) -> dict:
    """The trace whose name contains ``words`` (case-insensitive)."""
    found = [t for t in chart["data"] if words.lower() in (t.get("name") or "").lower()]
    names = [t.get("name") for t in chart["data"]]
    assert len(found) == 1, f"expected one trace named like {words!r}, the chart has {names}"
    return found[0]


def check_speedup(charts: list[dict], params: dict[str, list[str]]) -> None:
    s = settings(params, ("alpha", "k", "c", "compare"))
    alpha, k, c = float(s["alpha"]), int(s["k"]), float(s["c"])
    alphas = sorted({*(float(a) for a in s["compare"]), alpha})
    (chart,) = charts
    curves = [t for t in chart["data"] if t.get("mode") == "lines"]
    assert len(curves) == len(alphas), f"{len(curves)} curves for α in {alphas}"
    chosen = _trace(chart, "(chosen)")
    assert chosen["name"].startswith(f"α = {alpha:g}"), chosen["name"]
    assert_close(chosen["x"], K_AXIS, "chosen curve, k axis")
    assert_close(chosen["y"], specmath.speedup(alpha, K_AXIS, c), "chosen curve, speedup")
    for a in alphas:
        if a == alpha:
            continue
        (curve,) = [t for t in curves if t["name"] == f"α = {a:g}"]
        assert_close(curve["y"], specmath.speedup(a, K_AXIS, c), f"curve α = {a:g}")
    best_k, best = specmath.optimal_k(np.array(alphas), c, max_k=int(K_AXIS[-1]))
    stars = _trace(chart, "best k")
    assert_close(stars["x"], best_k, "best k of each curve")
    assert_close(stars["y"], best, "best speedup of each curve")
    marker = _trace(chart, "chosen k")
    assert_close(marker["x"], [k], "chosen k")
    assert_close(marker["y"], [specmath.speedup(alpha, k, c)], "speedup at the chosen k")


def check_optimal_k(charts: list[dict], params: dict[str, list[str]]) -> None:
    """The map(s) of k* and of the best speedup over the (α, c) grid, and the user's marker.

    The page shows either both maps or one, picked by ``view``: each heatmap must be one of them.
    """
    s = settings(params, ("alpha", "c", "max_k"))
    alpha, c, max_k = float(s["alpha"]), float(s["c"]), int(s["max_k"])
    k_star, best = specmath.optimal_k(GRID_ALPHA, GRID_C[:, None], max_k=max_k)
    maps = {"k": k_star, "speedup": best}
    shown = []
    for chart in charts:
        (heat,) = [t for t in chart["data"] if t.get("type") == "heatmap"]
        assert_close(heat["x"], GRID_ALPHA, "map, α axis")
        assert_close(heat["y"], GRID_C, "map, c axis")
        matches = [name for name, grid in maps.items() if close(heat["z"], grid)]
        assert matches, f"a heatmap is neither k* nor the best speedup for max_k = {max_k}"
        shown += matches
        for contour in [t for t in chart["data"] if t.get("type") == "contour"]:
            assert_close(contour["z"], best, "best-speedup contours")
        (you,) = [t for t in chart["data"] if t.get("type") == "scatter"]
        assert_close([you["x"][0], you["y"][0]], [alpha, c], "marker of your α, c")
    if "view" in PARAMS and len(charts) == 1:
        assert shown == [settings(params, ("view",))["view"]], f"view={params.get('view')} shows {shown}"
    else:
        assert sorted(shown) == ["k", "speedup"]


def check_sampling(charts: list[dict], params: dict[str, list[str]]) -> None:
    s = settings(params, ("preset", "vocab", "n", "seed"))
    n, seed = sample_count(s["n"]), int(s["seed"])
    if "p" in params and "q" in params:
        p = np.array([float(v) for v in params["p"][-1].split(",")])
        q = np.array([float(v) for v in params["q"][-1].split(",")])
        p, q = p / p.sum(), q / q.sum()
    elif s["preset"] == "random":
        P, Q = specmath.random_distribution_pairs(1, int(s["vocab"]), rng=seed)
        p, q = P[0], Q[0]
    else:
        assert s["preset"] in ("chapter", "identical"), "this check knows the chapter, identical and random presets"
        p = np.array(CHAPTER_P)
        q = p.copy() if s["preset"] == "identical" else np.array(CHAPTER_Q)
    tokens, accepted = specmath.speculative_sample(p, q, n, rng=seed)
    (chart,) = charts
    assert_close(_trace(chart, "accepted")["y"], np.bincount(tokens[accepted], minlength=p.size) / n, "accepted")
    assert_close(_trace(chart, "resampled")["y"], np.bincount(tokens[~accepted], minlength=p.size) / n, "resampled")
    assert_close(_trace(chart, "target")["y"], p, "target p")
    assert_close(_trace(chart, "draft q")["y"], q, "draft q")
    assert_close(_trace(chart, "residual r")["y"], specmath.residual_distribution(p, q), "residual")


def check_kl(charts: list[dict], params: dict[str, list[str]]) -> None:
    s = settings(params, ("pairs", "kl_vocab", "seed", "logx"))
    P, Q = specmath.random_distribution_pairs(int(s["pairs"]), int(s["kl_vocab"]), rng=int(s["seed"]))
    result = specmath.divergences(P, Q)
    (chart,) = charts
    (points,) = [t for t in chart["data"] if t.get("mode") == "markers"]
    assert_close(points["x"], result.kl, "KL of each pair")
    assert_close(points["y"], result.alpha, "α of each pair")
    assert chart["layout"]["xaxis_type"] == ("log" if s["logx"] == "true" else "linear")


CHECKS = {"speedup": check_speedup, "optimal_k": check_optimal_k, "sampling": check_sampling, "kl": check_kl}
