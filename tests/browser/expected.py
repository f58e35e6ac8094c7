"""What each page's charts must hold for given settings, computed here with ``specmath`` alone.

The browser tests read the numbers plotly.js holds in the page and compare them with these;
plotly ships NumPy arrays as raw float64 bytes, so the comparison can be tight.
"""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import numpy as np

import specmath
from dashboard import limits
from dashboard.features.verification_rules import LOGIT_PRESETS  # the page's preset pairs: data
from dashboard.params import PARAMS
from dashboard.toy_language import PERIOD, WORDS, target_chain  # the Step through page's language: data
from specmath.rules import RULES  # the rules, their settings and names: data
from specmath.verification import SUM_TOLERANCE  # p's tolerance
from tests.helpers import printed
from tests.links import url_text

RTOL = 1e-12

PUBLISHED_FILE = Path(__file__).resolve().parents[2] / "dashboard" / "data" / "published_results.csv"

K_AXIS = np.arange(1, int(PARAMS["k"].high) + 1)
GRID_ALPHA = np.linspace(0.0, 1.0, 101)
GRID_C = np.geomspace(1.0, 200.0, 101)
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


def assert_close(actual, expected, what: str) -> None:
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=0, err_msg=what)


def printed_equal(actual, expected, spec: str | None) -> bool:
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    return actual.shape == expected.shape and np.array_equal(printed(actual, spec), printed(expected, spec))


def assert_printed(actual, expected, spec: str | None, what: str) -> None:
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
    np.testing.assert_array_equal(printed(actual, spec), printed(expected, spec), err_msg=what)


def _trace(chart: dict, words: str) -> dict:
    """The trace whose name contains ``words`` (case-insensitive)."""
    found = [t for t in chart["data"] if words.lower() in (t.get("name") or "").lower()]
    names = [t.get("name") for t in chart["data"]]
    assert len(found) == 1, f"expected one trace named like {words!r}, the chart has {names}"
    return found[0]


def published_with_k() -> list[tuple[int, float]]:
    """(k, measured speedup) of every published result with a draft length, read with the csv module."""
    with PUBLISHED_FILE.open(encoding="utf-8", newline="") as f:
        return sorted((int(row["k"]), float(row["speedup"])) for row in csv.DictReader(f) if row["k"])


def check_speedup(charts: list[dict], params: dict[str, list[str]]) -> None:
    """The curves, stars and chosen marker; with ``published=true`` the measured points too, and
    only then (they are the marker traces other than the stars and the chosen k)."""
    s = settings(params, ("alpha", "k", "c", "compare", "published"))
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
    points = [t for t in chart["data"] if t.get("mode") == "markers" and t not in (stars, marker)]
    drawn = sorted((int(x), float(y)) for t in points for x, y in zip(t["x"], t["y"], strict=True))
    assert drawn == (published_with_k() if s["published"] == "true" else []), "published points"


def check_optimal_k(charts: list[dict], params: dict[str, list[str]]) -> None:
    """The map(s) of k* and of the best speedup over the (α, c) grid, and the user's marker.

    The page shows either both maps or one, picked by ``view``: each heatmap must be one of them.
    """
    s = settings(params, ("alpha", "c", "max_k"))
    alpha, c, max_k = float(s["alpha"]), float(s["c"]), int(s["max_k"])
    k_star, best = specmath.optimal_k(GRID_ALPHA, GRID_C[:, None], max_k=max_k)
    # The hover prints speedups to 3 decimals and c to 3 significant digits: what it prints is
    # compared with specmath's value printed so.
    maps = {"k": (k_star, None), "speedup": (best, ".3f")}
    shown = []
    for chart in charts:
        (heat,) = [t for t in chart["data"] if t.get("type") == "heatmap"]
        assert_close(heat["x"], GRID_ALPHA, "map, α axis")
        assert_close(heat["y"], np.log10(GRID_C), "map, c axis (log10 c on a linear axis)")
        c_cells = np.broadcast_to(GRID_C[:, None], best.shape)
        assert_printed(heat["customdata"][..., 1], c_cells, ".3g", "map, c in the hover")
        matches = [name for name, (grid, spec) in maps.items() if printed_equal(heat["z"], grid, spec)]
        assert matches, f"a heatmap is neither k* nor the best speedup for max_k = {max_k}"
        shown += matches
        other, spec = maps["speedup" if matches == ["k"] else "k"]
        assert_printed(heat["customdata"][..., 0], other, spec, "map, the other grid in the hover")
        for lines in [t for t in chart["data"] if t.get("name") == "best speedup"]:
            x, y = np.asarray(lines["x"], dtype=float), np.asarray(lines["y"], dtype=float)
            on_line = ~np.isnan(x)
            assert on_line.sum() > 100, "the best-speedup contours hold too few points"
            _, at = specmath.optimal_k(x[on_line], 10 ** y[on_line], max_k=max_k)
            np.testing.assert_allclose(at, np.round(at), rtol=0.02, err_msg="contour points off a whole speedup")
        (you,) = [t for t in chart["data"] if t.get("name") == "your α, c"]
        assert_close([you["x"][0], 10 ** you["y"][0]], [alpha, c], "marker of your α, c")
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
        # As the page reads a typed table: values that sum to 1 within tolerance are used as typed.
        p, q = (v if abs(v.sum() - 1.0) <= SUM_TOLERANCE else v / v.sum() for v in (p, q))
    elif s["preset"] == "random":
        P, Q = specmath.random_distribution_pairs(1, int(s["vocab"]), rng=seed)
        p, q = P[0], Q[0]
    else:
        assert s["preset"] in ("chapter", "identical"), "this check knows the chapter, identical and random presets"
        p = np.array(CHAPTER_P)
        q = p.copy() if s["preset"] == "identical" else np.array(CHAPTER_Q)
    accepted, resampled = specmath.speculative_sample_counts(p, q, n, rng=seed)
    (chart,) = charts
    assert_close(_trace(chart, "accepted")["y"], accepted / n, "accepted")
    assert_close(_trace(chart, "resampled")["y"], resampled / n, "resampled")
    assert_close(_trace(chart, "target")["y"], p, "target p")
    assert_close(_trace(chart, "draft q")["y"], q, "draft q")
    assert_close(_trace(chart, "residual r")["y"], specmath.residual_distribution(p, q), "residual")


def check_kl(charts: list[dict], params: dict[str, list[str]]) -> None:
    s = settings(params, ("pairs", "kl_vocab", "seed", "logx"))
    # A link past the page's work cap draws the capped number of pairs (dashboard.limits).
    pairs = limits.kl_pairs(int(s["pairs"]), int(s["kl_vocab"]), int(PARAMS["pairs"].low)).value
    P, Q = specmath.random_distribution_pairs(pairs, int(s["kl_vocab"]), rng=int(s["seed"]))
    result = specmath.divergences(P, Q)
    (chart,) = charts
    (points,) = [t for t in chart["data"] if t.get("mode") == "markers"]
    assert_close(points["x"], result.kl, "KL of each pair")
    assert_close(points["y"], result.alpha, "α of each pair")
    assert chart["layout"]["xaxis_type"] == ("log" if s["logx"] == "true" else "linear")


def _named(chart: dict, name: str) -> dict:
    """The trace called exactly ``name``."""
    found = [t for t in chart["data"] if t.get("name") == name]
    assert len(found) == 1, f"expected one trace named {name!r}, the chart has {[t.get('name') for t in chart['data']]}"
    return found[0]


def _chart_with(charts: list[dict], name: str) -> dict:
    """The one chart that has a trace called exactly ``name``."""
    found = [chart for chart in charts if any(t.get("name") == name for t in chart["data"])]
    assert len(found) == 1, f"expected one chart with a trace {name!r}, found {len(found)}"
    return found[0]


def _trace_names(chart: dict) -> list[str]:
    return sorted(t.get("name") or "" for t in chart["data"])


#: The simulator generates its tokens as independent sequences of this many tokens.
SIMULATOR_SEQUENCE = 200


def check_simulator(charts: list[dict], params: dict[str, list[str]]) -> None:
    """Tokens per target call and acceptance by draft position, from a seeded run of the decoder.

    The page builds the toy target chain and its draft from the seed, then runs
    ``speculative_decode`` with the same seed; run again here, it gives the same records, and
    every bar and curve is recomputed from them: the share of target calls that emitted
    n = 1 … k + 1 tokens, the i.i.d. law at the α fitted from the mean length, the unconditional
    P(A ≥ i) and conditional P(A ≥ i | A ≥ i − 1) per position, and the i.i.d. α^i and α.
    (``c`` only changes the page's metrics, not its charts.)
    """
    s = settings(params, ("k", "target", "draft", "contexts", "temperature", "noise", "chain_vocab", "tokens", "seed"))
    k, vocab, seed = int(s["k"]), int(s["chain_vocab"]), int(s["seed"])
    if s["target"] == "regimes":
        chain = specmath.two_regime_transition_matrix(vocab, rng=seed)
    else:
        assert s["target"] == "random", s["target"]
        chain = specmath.random_transition_matrix(vocab, 0.5, rng=seed)
    if s["draft"] == "merged":  # more contexts than tokens: the draft is the target itself
        draft = specmath.draft_by_merging(chain, min(int(s["contexts"]), vocab))
    elif s["draft"] == "temperature":
        draft = specmath.draft_by_temperature(chain, float(s["temperature"]))
    else:
        assert s["draft"] == "noise", s["draft"]
        draft = specmath.draft_by_noise(chain, float(s["noise"]))
    tokens = limits.simulator_tokens(sample_count(s["tokens"]), k, SIMULATOR_SEQUENCE).value
    sequences = max(1, tokens // SIMULATOR_SEQUENCE)
    records = specmath.speculative_decode(chain, draft, k, SIMULATOR_SEQUENCE, rng=seed, n_sequences=sequences)
    assert records.k == k and records.emitted.max() <= k + 1

    iterations = records.emitted.size
    n = np.arange(1, k + 2)
    share = (records.emitted[:, None] == n).sum(axis=0) / iterations
    alpha_fit = float(specmath.fit_alpha_from_acceptance_length(records.emitted.mean(), k))
    at_least = (records.accepted[:, None] >= np.arange(k + 1)).sum(axis=0)  # iterations with A >= i
    unconditional = at_least[1:] / iterations
    with np.errstate(invalid="ignore", divide="ignore"):
        conditional = np.where(at_least[:k] > 0, at_least[1:] / at_least[:k], np.nan)  # NaN: never got there
    position = np.arange(1, k + 1)

    assert len(charts) == 2, f"{len(charts)} charts"
    law_name = f"i.i.d. law at fitted α = {alpha_fit:.3f}"
    calls = _chart_with(charts, "measured")
    assert _trace_names(calls) == sorted(["measured", law_name]), _trace_names(calls)
    measured, law = _named(calls, "measured"), _named(calls, law_name)
    assert_close(measured["x"], n, "tokens per call, n axis")
    assert_close(measured["y"], share, "share of target calls emitting n tokens")
    assert_close(law["x"], n, "i.i.d. law, n axis")
    assert_close(law["y"], specmath.tokens_per_iteration_pmf(alpha_fit, k), "i.i.d. law at the fitted α")

    names = ("unconditional P(≥ i accepted)", "conditional P(i | i − 1)", "i.i.d.: α^i", "i.i.d.: α")
    by_position = _chart_with(charts, names[0])
    assert _trace_names(by_position) == sorted(names), _trace_names(by_position)
    for name, values in zip(
        names, (unconditional, conditional, alpha_fit**position, np.full(k, alpha_fit)), strict=True
    ):
        trace = _named(by_position, name)
        assert_close(trace["x"], position, f"{name}, position axis")
        assert_close(trace["y"], values, name)


#: Draft lengths the Calibrate page predicts the speedup for.
CALIBRATE_K = np.arange(1, 65)


def check_calibrate(charts: list[dict], params: dict[str, list[str]]) -> None:
    """Predicted speedup against k from typed counts: the i.i.d. curve at the fitted α and its band.

    The link describes typed counts only (a paste is not in the URL, so a view with a paste and
    its per-position profile cannot come from a link): α and its 95% interval come from
    ``alpha_interval(accepted, drafts, k)``, c from the step times when both are set, else the
    c slider. Counts no draft of length k can give show an error and no chart.
    """
    s = settings(params, ("k", "c", "drafts", "accepted", "target_ms", "draft_ms"))
    k, drafts, accepted = int(s["k"]), int(float(s["drafts"])), int(float(s["accepted"]))
    target_ms, draft_ms = float(s["target_ms"]), float(s["draft_ms"])
    if target_ms > 0 and draft_ms > 0:
        c = float(specmath.cost_ratio_from_times(target_ms, draft_ms))
    else:
        c = float(s["c"])
    if accepted > k * drafts:
        assert charts == [], f"{accepted} accepted in {drafts} drafts of k = {k} is impossible, yet a chart shows"
        return
    fit = specmath.alpha_interval(accepted, drafts, k)
    scheduled = settings(params, ("cal_schedule",))["cal_schedule"] == "true"
    if scheduled:
        chart, schedule = charts
        _check_calibrate_schedule(schedule, params, fit.alpha, target_ms, draft_ms)
    else:
        (chart,) = charts
    band_name = f"α interval {fit.low:.3f} … {fit.high:.3f}"
    iid_name = f"i.i.d. at fitted α = {fit.alpha:.3f}"
    assert _trace_names(chart) == sorted([band_name, iid_name]), _trace_names(chart)
    iid = _named(chart, iid_name)
    assert_close(iid["x"], CALIBRATE_K, "i.i.d. curve, k axis")
    assert_close(iid["y"], specmath.speedup(fit.alpha, CALIBRATE_K, c), "i.i.d. speedup at the fitted α")
    band = _named(chart, band_name)  # one closed outline: out along the upper edge, back along the lower
    assert_close(band["x"], np.concatenate([CALIBRATE_K, CALIBRATE_K[::-1]]), "α band, k axis")
    upper, lower = (specmath.speedup(a, CALIBRATE_K, c) for a in (fit.high, fit.low))
    assert_close(band["y"], np.concatenate([upper, lower[::-1]]), "α band: speedup at the interval's ends")


def _check_calibrate_schedule(chart: dict, params: dict, alpha: float, target_ms: float, draft_ms: float) -> None:
    """The k schedule at the fitted α on the chosen GPU's roofline at the chosen serving (drafter kind,
    tensor parallelism), scaled to the step times (``fit_roofline`` at the chosen batch, context and
    tensor parallelism) when both are set and the drafter runs a model."""
    keys = ("target_model", "draft_model", "gpu", "precision", "batch", "context", "max_batch", "drafter_kind")
    serving = ("lookup_ms", "tp", "draft_tp", "interconnect", "link_bandwidth", "link_latency_us", "method")
    s = settings(params, tuple(f"cal_{key}" for key in (*keys, *serving)))
    s = {key.removeprefix("cal_"): value for key, value in s.items()} | {"bandwidth": "0", "peak": "0"}
    gpu, target_spec, draft_spec, kind, lookup, tp, draft_tp, link = _hardware_models(s)
    overhead_s, batch, context = 0.0, int(s["batch"]), sample_count(s["context"])
    if target_ms > 0 and draft_ms > 0 and kind != "model_free":
        fit = specmath.fit_roofline(
            target_ms / 1e3, draft_ms / 1e3, target_spec, draft_spec, gpu, batch, context,
            tp=tp, draft_tp=draft_tp, interconnect=link,
        )  # fmt: skip
        gpu, overhead_s = fit.gpu, fit.overhead_s
    every = np.arange(1, int(s["max_batch"]) + 1)
    drafting = lookup if kind == "model_free" else draft_spec
    sweep = specmath.roofline_batch_sweep(
        alpha, drafting, target_spec, gpu, every, context, overhead_s, max_k=32,
        drafter=kind, tp=tp, draft_tp=draft_tp, interconnect=link,
    )  # fmt: skip
    steps = _named(chart, "k in the schedule")
    assert_close(steps["x"], every, "Calibrate's k schedule, batch axis")
    assert_close(steps["y"], np.where(sweep.speedup > 1, sweep.k, 0), "k in Calibrate's schedule at each batch size")


#: Draft lengths the Hardware page searches and draws; bytes per weight of each precision.
HARDWARE_K = np.arange(1, 33)
BYTES_PER_PARAMETER = {"bf16": 2.0, "fp8": 1.0, "int4": 0.5}


def _datasheet(name: str, bytes_per_parameter: float) -> specmath.GPUSpec:
    """A GPU preset as the serving pages use it: FP8 weights at its dense FP8 peak where it has one."""
    gpu = specmath.GPU_PRESETS[name]
    if bytes_per_parameter == 1.0 and gpu.peak_flops_fp8 > 0:
        gpu = dataclasses.replace(gpu, peak_flops=gpu.peak_flops_fp8)
    return gpu


def _link(name: str, bandwidth: str, latency_us: str) -> specmath.Interconnect:
    """An interconnect preset with the link's typed bandwidth (GB/s) and latency (µs), each where above 0."""
    link = specmath.INTERCONNECT_PRESETS[name]
    return dataclasses.replace(
        link,
        bandwidth=float(bandwidth) * 1e9 if float(bandwidth) > 0 else link.bandwidth,
        latency_s=float(latency_us) * 1e-6 if float(latency_us) > 0 else link.latency_s,
    )


def _hardware_models(s: dict) -> tuple:
    """The Hardware page's models from its settings: the GPU (FP8 weights at its FP8 peak, the
    overrides), the target and draft specs, the drafter kind, the draft (or lookup seconds),
    the tensor-parallel degrees and the interconnect, each overridden where set."""
    bandwidth, peak, precision = float(s["bandwidth"]), float(s["peak"]), BYTES_PER_PARAMETER[s["precision"]]
    gpu = _datasheet(s["gpu"], precision)
    gpu = dataclasses.replace(
        gpu,
        memory_bandwidth=bandwidth * 1e9 if bandwidth > 0 else gpu.memory_bandwidth,
        peak_flops=peak * 1e12 if peak > 0 else gpu.peak_flops,
    )
    target_spec, draft_spec = (
        dataclasses.replace(specmath.MODEL_PRESETS[s[key]], bytes_per_parameter=precision)
        for key in ("target_model", "draft_model")
    )
    link = _link(s["interconnect"], s["link_bandwidth"], s["link_latency_us"])
    kind, tp = s["drafter_kind"], int(s["tp"])
    # "auto": the target's GPUs for a head or any method's drafter but draft_model's, which vLLM
    # alone runs apart (the page puts it on one GPU); a number as set.
    follows = draft_spec.is_head or s["method"] != "draft_model"
    draft_tp = int(s["draft_tp"]) if s["draft_tp"] != "auto" else (tp if follows else 1)
    lookup = float(s["lookup_ms"]) / 1e3 if kind == "model_free" else None
    return gpu, target_spec, draft_spec, kind, lookup, tp, draft_tp, link


def check_hardware(charts: list[dict], params: dict[str, list[str]]) -> None:
    """Speedup against k with free verification and under the roofline, with each curve's best k;
    the target's pass time over w = k + 1 positions; best speedup and best k at every batch size;
    the verify pass against the batch beside a dense model of the target's active size; best k
    and speedup over (batch, context); the k schedule.

    Cost models are ``specmath.roofline`` of the preset models (weights at the chosen precision)
    on the preset GPU, its bandwidth or peak replaced where the overrides are set, at the chosen
    tensor-parallel degrees over the chosen interconnect, for the chosen drafter kind. The draft
    step drawn as a horizontal line and the ridge and crossover lines are shapes, not traces:
    the page reader does not see them.
    """
    keys = ("alpha", "k", "target_model", "draft_model", "gpu", "precision", "batch", "context", "drafter_kind")
    serving = ("lookup_ms", "tp", "draft_tp", "interconnect", "link_bandwidth", "link_latency_us", "method")
    s = settings(params, (*keys, *serving, "overhead_ms", "bandwidth", "peak", "max_batch"))
    alpha, k, batch, context = float(s["alpha"]), int(s["k"]), int(s["batch"]), sample_count(s["context"])
    overhead_s = float(s["overhead_ms"]) / 1e3
    gpu, target_spec, draft_spec, kind, lookup, tp, draft_tp, link = _hardware_models(s)

    def draft_at(b: int, c: int):
        return lookup if kind == "model_free" else specmath.Roofline(draft_spec, gpu, b, c, overhead_s, draft_tp, link)

    target = specmath.Roofline(target_spec, gpu, batch, context, overhead_s, tp, link)
    draft = draft_at(batch, context)
    max_k = int(HARDWARE_K[-1])
    step = float(target(1))

    assert len(charts) == 6, f"{len(charts)} charts"
    curves = _chart_with(charts, "roofline")
    assert _trace_names(curves) == sorted(["free verification", "roofline", "best k"]), _trace_names(curves)
    free, roof = _named(curves, "free verification"), _named(curves, "roofline")
    assert_close(free["x"], HARDWARE_K, "free verification, k axis")
    expected_free = specmath.general_speedup(alpha, HARDWARE_K, draft, step, drafter=kind)
    assert_close(free["y"], expected_free, "speedup with free verification")
    assert_close(roof["x"], HARDWARE_K, "roofline, k axis")
    expected_roof = specmath.general_speedup(alpha, HARDWARE_K, draft, target, drafter=kind)
    assert_close(roof["y"], expected_roof, "speedup under the roofline")
    stars = _named(curves, "best k")
    best = {
        "free verification": specmath.optimal_k_general(alpha, draft, step, max_k=max_k, drafter=kind),
        "roofline": specmath.optimal_k_general(alpha, draft, target, max_k=max_k, drafter=kind),
    }
    assert sorted(stars["customdata"]) == sorted(best), stars["customdata"]
    assert_close(stars["x"], [best[name][0] for name in stars["customdata"]], "best k of each curve")
    assert_close(stars["y"], [best[name][1] for name in stars["customdata"]], "best speedup of each curve")

    cost = _chart_with(charts, "target pass over w positions")
    assert _trace_names(cost) == ["target pass over w positions"], _trace_names(cost)
    (line,) = cost["data"]
    assert_close(line["x"], HARDWARE_K + 1, "verification widths w = k + 1")
    assert_close(line["y"], target(HARDWARE_K + 1) * 1e3, "target pass time over w positions (ms)")

    sweep = _chart_with(charts, "best speedup")
    assert _trace_names(sweep) == sorted(["best speedup", "best k"]), _trace_names(sweep)
    batches = np.array(PARAMS["batch"].options)
    optima = [
        specmath.optimal_k_general(
            alpha,
            draft_at(int(b), context),
            specmath.Roofline(target_spec, gpu, int(b), context, overhead_s, tp, link),
            max_k=max_k,
            drafter=kind,
        )
        for b in batches
    ]
    for name, column in (("best k", 0), ("best speedup", 1)):
        trace = _named(sweep, name)
        assert_close(trace["x"], batches, f"{name}, batch axis")
        assert_close(trace["y"], [o[column] for o in optima], f"{name} at each batch size")

    # The verify pass against the batch: the target's, and (a mixture of experts) a dense model
    # of its active size, every expert but a token's gone (its embedding table kept).
    verify = _chart_with(charts, target_spec.name)
    models = [target_spec]
    if target_spec.is_moe:
        experts = ("routed_experts", "experts_per_token", "shared_experts", "expert_parameters", "moe_layers")
        kept = target_spec.parameters - target_spec.skipped_parameters
        twin = dataclasses.replace(
            target_spec, name=f"dense {target_spec.name}", parameters=kept, **dict.fromkeys(experts, 0)
        )
        models.append(twin)
    assert _trace_names(verify) == sorted(m.name for m in models), _trace_names(verify)
    for model in models:
        costs = [specmath.Roofline(model, gpu, int(b), context, overhead_s, tp, link) for b in batches]
        ratios = [float(t(k + 1)) / float(t(1)) for t in costs]
        assert_close(_named(verify, model.name)["y"], ratios, f"T(k + 1) / T(1) of {model.name} at each batch")

    # Best k and speedup over (context, batch): one batch sweep a context.
    (heat,) = [t for chart in charts for t in chart["data"] if t.get("type") == "heatmap"]
    drafting = lookup if kind == "model_free" else draft_spec
    for row, c in enumerate(PARAMS["context"].options):
        by_batch = specmath.roofline_batch_sweep(
            alpha, drafting, target_spec, gpu, batches, c, overhead_s, max_k,
            drafter=kind, tp=tp, draft_tp=draft_tp, interconnect=link,
        )  # fmt: skip
        assert_close(np.asarray(heat["z"])[row], by_batch.speedup, f"best speedup at context {c}")

    # The k schedule: every batch 1 … max batch, k = 0 where the best speedup is not above 1.
    schedule = _chart_with(charts, "k in the schedule")
    every = np.arange(1, int(s["max_batch"]) + 1)
    dense = specmath.roofline_batch_sweep(
        alpha, drafting, target_spec, gpu, every, context, overhead_s, max_k=max_k,
        drafter=kind, tp=tp, draft_tp=draft_tp, interconnect=link,
    )  # fmt: skip
    steps = _named(schedule, "k in the schedule")
    assert_close(steps["x"], every, "k schedule, batch axis")
    assert_close(steps["y"], np.where(dense.speedup > 1, dense.k, 0), "k in the schedule at each batch size")


#: The longest draft the Step through page steps through; the words of its opening.
STEP_MAX_K = 8
OPENING_WORDS = 3


def check_step_through(charts: list[dict], params: dict[str, list[str]]) -> None:
    """The one chart of the step shown, from ``speculative_iteration`` run here on the toy language.

    The page's iteration starts after an opening of three words drawn from the target after a
    period with ``default_rng([seed, 1])``, from its last word, with ``rng=seed``; the draft is
    specmath's noise, temperature or merged draft of the target; a greedy draft (sampling only)
    is that draft's rows as point masses on their argmax, and block verification (sampling only)
    is ``verification="block"``. Steps: 1 … k draft the words,
    k + 1 is the target's pass, k + 2 … 2k + 1 the checks, 2k + 2 the residual or bonus word,
    2k + 3 the timeline (k is the shared k, at most 8).
    """
    s = settings(params, ("step", "k", "c", "step_draft", "step_noise", "step_temperature", "step_contexts"))
    s |= settings(params, ("greedy", "step_proposal", "step_verification", "seed"))
    k, c, seed, step = min(int(s["k"]), STEP_MAX_K), float(s["c"]), int(s["seed"]), int(s["step"])
    greedy = s["greedy"] == "true"
    target = target_chain()
    if s["step_draft"] == "noise":
        draft = specmath.draft_by_noise(target, float(s["step_noise"]))
    elif s["step_draft"] == "temperature":
        draft = specmath.draft_by_temperature(target, float(s["step_temperature"]))
    else:
        assert s["step_draft"] == "merged", s["step_draft"]
        draft = specmath.draft_by_merging(target, min(int(s["step_contexts"]), len(WORDS)))
    own = draft  # the rows a greedy draft takes its most likely word from
    if s["step_proposal"] == "greedy_draft" and not greedy:
        draft = np.eye(len(WORDS))[np.argmax(draft, axis=1)]  # checked as q = 1, ties to the lowest index
    verification = "token" if greedy else s["step_verification"]
    rng, word = np.random.default_rng([seed, 1]), PERIOD
    for _ in range(OPENING_WORDS):
        word = int(rng.choice(len(WORDS), p=target[word]))
    it = specmath.speculative_iteration(target, draft, word, k, rng=seed, greedy=greedy, verification=verification)

    (chart,) = charts
    if step <= k:
        bars = _named(chart, "draft q")
        context = word if step == 1 else int(it.drafted[step - 2])
        q = own[context]
        rows = list(bars["y"])
        if rows == list(WORDS):
            assert_close(bars["x"], q, f"the draft's row q at position {step}")
        else:  # presenter mode: the words that fit, the rest summed in the last row
            shown = [WORDS.index(word) for word in rows[:-1]]
            assert rows[-1] == f"{len(WORDS) - len(shown)} other words", rows
            expected = np.append(q[shown], q.sum() - q[shown].sum())
            assert_close(bars["x"], expected, f"the draft's row q at position {step}, others summed")
    elif step == k + 1:
        positions = np.arange(k)
        assert_close(_named(chart, "draft q(xᵢ)")["y"], it.q[positions, it.drafted], "q of each drafted word")
        assert_close(_named(chart, "target p(xᵢ)")["y"], it.p[positions, it.drafted], "p of each drafted word")
    elif step <= 2 * k + 1 and verification == "block":
        rows = np.arange(step - k - 1)
        assert_close(_named(chart, "keeps the prefix: η < h")["x"], it.block_stop[rows], "stopping chances h")
        assert_close(_named(chart, "uniform η")["x"], it.u[rows], "the uniforms η")
    elif step <= 2 * k + 1:
        rows = np.arange(min(step - k - 2, it.first_rejection) + 1)
        if it.greedy:
            accept = _named(chart, "accepted: the target's most likely word")
            assert_close(accept["x"], it.accepted[rows], "greedy verdicts")
        else:
            accept = _named(chart, "accepts: u < min(1, p/q)")
            assert_close(accept["x"], np.minimum(1, it.ratio[rows]), "acceptance probability min(1, p/q)")
            assert_close(_named(chart, "uniform u")["x"], it.u[rows], "the uniforms u")
    elif step == 2 * k + 2:
        if it.all_accepted:
            assert_close(_named(chart, "target p")["x"], it.bonus_row, "the bonus row p")
        else:
            j = it.first_rejection
            assert_close(_named(chart, "residual r")["x"], it.residual, "the residual")
            assert_close(_named(chart, "target p")["x"], it.p[j], "p at the rejected position")
            assert_close(_named(chart, "draft q")["x"], it.q[j], "q at the rejected position")
    else:
        (drafts,) = [t for t in chart["data"] if (t.get("name") or "").startswith("draft step")]
        assert_close(drafts["x"], np.full(k, 1 / c), "draft steps of 1/c")
        assert list(drafts["customdata"]) == [WORDS[int(t)] for t in it.drafted]
        assert_close(_named(chart, "target pass over k + 1 positions")["x"], [1.0], "one target pass")
        assert_close(_named(chart, "target step")["x"], np.ones(it.emitted.size), "one target step a word")


#: The Draft trees page's budgets (nodes, root included) and depth limits searched.
TREE_BUDGETS = np.arange(1, 129)
TREE_DEPTH = 16


def _tree_acceptance(s: dict) -> np.ndarray:
    if s["tree_source"] == "chain":
        return np.array([float(s["alpha"])])
    if s["tree_source"] == "pair":
        target = int(s["tree_chain_vocab"])
        seed = int(s["seed"])
        if s["tree_target"] == "regimes":
            chain = specmath.two_regime_transition_matrix(target, rng=seed)
        else:
            chain = specmath.random_transition_matrix(target, 0.5, rng=seed)
        draft = specmath.draft_by_merging(chain, min(int(s["tree_contexts"]), target))
        return specmath.acceptance_from_pair(chain, draft)
    assert s["tree_source"] == "sequoia", s["tree_source"]  # the typed vector travels by hand
    return np.asarray(specmath.SEQUOIA_ACCEPTANCE)


def check_trees(charts: list[dict], params: dict[str, list[str]]) -> None:
    """Expected tokens against the budget (chain, best tree at the depth limit, EAGLE tree), the
    speedup under the target's roofline with draft steps of T(1)/c, and the best tree drawn.

    Recomputed from specmath alone: the chain's F is ``expected_tokens(p_1, m - 1)``, the best
    tree's the table column, the EAGLE tree's one ``eagle_tree`` per num_draft_tokens SGLang takes
    (topk at most the ranks; at topk 1 only steps + 1), and each best-tree speedup the best over
    depths up to the limit, computed here by a loop.
    """
    keys = ("tree_source", "alpha", "tree_target", "tree_chain_vocab", "tree_contexts", "seed", "budget", "depth")
    s = settings(params, (*keys, "topk", "steps", "c", "tree_target_model", "tree_gpu", "tree_precision"))
    s |= settings(params, ("tree_batch", "tree_context", "tree_cost", "tree_beta"))
    s |= settings(params, ("tree_tp", "tree_interconnect", "tree_link_bandwidth", "tree_link_latency_us"))
    a = _tree_acceptance(s)
    budget, depth, c = int(s["budget"]), int(s["depth"]), float(s["c"])
    steps, topk = int(s["steps"]), min(int(s["topk"]), a.size)
    spec = dataclasses.replace(
        specmath.MODEL_PRESETS[s["tree_target_model"]], bytes_per_parameter=BYTES_PER_PARAMETER[s["tree_precision"]]
    )
    if s["tree_cost"] == "free":
        target = specmath.FreeVerification(1.0)
    elif s["tree_cost"] == "linear":
        target = specmath.LinearOverhead(1.0, float(s["tree_beta"]))
    else:
        gpu = _datasheet(s["tree_gpu"], BYTES_PER_PARAMETER[s["tree_precision"]])
        link = _link(s["tree_interconnect"], s["tree_link_bandwidth"], s["tree_link_latency_us"])
        batch, context, tp = int(s["tree_batch"]), sample_count(s["tree_context"]), int(s["tree_tp"])
        target = specmath.Roofline(spec, gpu, batch, context, 0.0, tp, link)
    table = specmath.optimal_tree_table(a, int(TREE_BUDGETS[-1]), TREE_DEPTH)
    eagle = np.full(TREE_BUDGETS.size, np.nan)
    for n in TREE_BUDGETS:
        if (topk == 1 and n == steps + 1) or (topk > 1 and n <= 1 + topk + (steps - 1) * topk**2):
            eagle[n - 1] = specmath.eagle_tree(a, steps, topk, int(n))[0]
    chain = specmath.expected_tokens(a[0], TREE_BUDGETS - 1)

    assert len(charts) == 3, f"{len(charts)} charts"
    (tokens,) = [chart for chart in charts if not {"best (m, depth)", "nodes"} & set(_trace_names(chart))]
    best_name, eagle_name = f"best tree, depth ≤ {depth}", f"EAGLE tree, topk {topk}, {steps} steps"
    assert _trace_names(tokens) == sorted(["chain of m − 1 drafts", best_name, eagle_name]), _trace_names(tokens)
    assert_close(_named(tokens, "chain of m − 1 drafts")["y"], chain, "chain F")
    assert_close(_named(tokens, best_name)["y"], table[1:, depth], "best tree F at the depth limit")
    assert_close(_named(tokens, eagle_name)["y"], eagle, "EAGLE tree F")

    speed = _chart_with(charts, "best (m, depth)")
    best = np.full(TREE_BUDGETS.size, np.nan)
    for m in TREE_BUDGETS:
        for d in range(depth + 1):
            if np.isfinite(table[m, d]):
                value = table[m, d] / (d / c + float(target(int(m))) / float(target(1)))
                best[m - 1] = value if np.isnan(best[m - 1]) else max(best[m - 1], value)
    np.testing.assert_allclose(_named(speed, best_name)["y"], best, rtol=1e-12, err_msg="best tree speedup")
    steps_cost = np.array([steps / c + float(target(int(m))) / float(target(1)) for m in TREE_BUDGETS])
    np.testing.assert_allclose(_named(speed, eagle_name)["y"], eagle / steps_cost, rtol=1e-12, err_msg="EAGLE speedup")
    chain_cost = (TREE_BUDGETS - 1) / c + np.array([float(target(int(m))) / float(target(1)) for m in TREE_BUDGETS])
    np.testing.assert_allclose(_named(speed, "chain of m − 1 drafts")["y"], chain / chain_cost, rtol=1e-12)
    star = _named(speed, "best (m, depth)")
    top = int(np.nanargmax(best))
    assert_close(star["x"], [top + 1], "best budget")
    np.testing.assert_allclose(star["y"], [best[top]], rtol=1e-12, err_msg="best speedup")

    tree = _chart_with(charts, "nodes")
    shown = max(m for m in range(1, budget + 1) if np.isfinite(table[m, depth]))
    nodes = _named(tree, "nodes")
    assert len(nodes["x"]) == shown, "nodes drawn"
    np.testing.assert_allclose(
        np.sum(np.asarray(nodes["customdata"], dtype=float)[:, 1]), table[shown, depth], rtol=1e-12
    )


#: The Verification rules page's temperature grid, the most draft blocks it enumerates exactly
#: (specmath.verification.MAX_BLOCK_ENUMERATION), and the toy language's draft (the Step through
#: page's default, the target blurred toward uniform).
VERIFICATION_TEMPERATURES = np.round(np.linspace(0.0, 2.0, 41), 2)
MAX_BLOCKS = 10**6
TOY_NOISE = 0.3
#: The rules the page compares by α (specmath's lossless ones) and those it shows at the link's settings.
RULE_NAMES = {name: rule.title for name, rule in RULES.items() if rule.lossless}
LOSSY_RULES = {name: rule for name, rule in RULES.items() if not rule.lossless}


def _row_at_temperature(row: np.ndarray, temperature: float) -> np.ndarray:
    """A toy-language row raised to 1/T and renormalized; at T = 0 its most likely word."""
    if temperature == 0:
        return np.eye(row.size)[np.argmax(row)]
    powered = (row / row.max()) ** (1 / temperature)
    return powered / powered.sum()


def verification_pair(s: dict, params: dict[str, list[str]], temperature: float) -> tuple[np.ndarray, np.ndarray]:
    """The page's p and q at ``temperature``: a preset's or typed logits, or a toy-language row."""
    if s["vr_preset"] == "toy":
        row = WORDS.index(s["vr_context"])
        target, draft = target_chain()[row], specmath.draft_by_noise(target_chain(), TOY_NOISE)[row]
        return _row_at_temperature(target, temperature), _row_at_temperature(draft, temperature)
    if s["vr_preset"] == "typed" and "lp" in params:
        logits = [[float(x) for x in params[key][-1].split(",")] for key in ("lp", "lq")]
    else:
        preset = "binary" if s["vr_preset"] == "typed" else s["vr_preset"]
        logits = LOGIT_PRESETS[preset]
    return specmath.with_temperature(logits[0], temperature), specmath.with_temperature(logits[1], temperature)


def check_verification(charts: list[dict], params: dict[str, list[str]]) -> None:
    """The link's pair at its temperature: α of each lossless rule, α against T, the first token's
    law under each rule beside p (the lossy ones at the link's settings), block against token
    verification over k."""
    lossy_keys = {f"vr_{param.name}" for rule in LOSSY_RULES.values() for param in rule.params}
    s = settings(params, ("vr_preset", "vr_context", "vr_temperature", *sorted(lossy_keys), "k"))
    temperature = float(s["vr_temperature"])
    p, q = verification_pair(s, params, temperature)

    bars = _named(_chart_with(charts, "α"), "α")
    assert list(bars["x"]) == list(RULE_NAMES.values()), bars["x"]
    alphas = [specmath.acceptance_probability(p, q, rule) for rule in RULE_NAMES]
    assert_close(bars["y"], alphas, "α of each rule")

    laws = _chart_with(charts, "target p")
    (lines,) = [c for c in charts if c is not laws and any(t.get("name") == "exact match" for t in c["data"])]
    pairs = [verification_pair(s, params, t) for t in VERIFICATION_TEMPERATURES]
    P, Q = np.stack([pair[0] for pair in pairs]), np.stack([pair[1] for pair in pairs])
    for rule, name in RULE_NAMES.items():
        assert_close(_named(lines, name)["x"], VERIFICATION_TEMPERATURES, f"{name}: temperatures")
        assert_close(_named(lines, name)["y"], specmath.acceptance_probability(P, Q, rule), f"{name}: α against T")

    assert_close(_named(laws, "target p")["y"], p, "target p")
    lossy = {}
    for rule_name, rule in LOSSY_RULES.items():
        # A whole-number setting (a top-K) is cut to the vocabulary size, as the page says.
        read = {
            param.name: min(int(s[f"vr_{param.name}"]), p.size) if param.integer else float(s[f"vr_{param.name}"])
            for param in rule.params
        }
        lossy[rule.titled(read)] = (rule_name, read)
    for name, (rule, rule_params) in {**{n: (r, {}) for r, n in RULE_NAMES.items()}, **lossy}.items():
        law = specmath.first_token_distribution(p, q, rule, **rule_params)
        assert_close(_named(laws, name)["y"], law, f"first-token law, {name}")

    k = int(s["k"])
    longest = max(n for n in range(k + 1) if p.size**n <= MAX_BLOCKS)
    block = _chart_with(charts, "block verification")
    for verification in ("token", "block"):
        trace = _named(block, f"{verification} verification")
        assert_close(trace["x"], np.arange(1, longest + 1), f"{verification}: k axis")
        accepted = [specmath.expected_accepted_tokens(p, q, n, verification) for n in range(1, longest + 1)]
        assert_close(trace["y"], accepted, f"{verification} verification: accepted tokens")


CHECKS = {
    "speedup": check_speedup,
    "optimal_k": check_optimal_k,
    "sampling": check_sampling,
    "kl": check_kl,
    "simulator": check_simulator,
    "step_through": check_step_through,
    "calibrate": check_calibrate,
    "hardware": check_hardware,
    "trees": check_trees,
    "verification": check_verification,
}
