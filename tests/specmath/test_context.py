"""Acceptance against context length: the fall-off's laws, and its fits against the cited points.

The measured points (:data:`specmath.presets.CONTEXT_MEASUREMENTS`) are read here off their sources'
text, kept verbatim under tests/fixtures/presets/context/ (first line ``# `` and the record's
``source``), each as its record's ``reading`` says; the fit is recomputed from those numbers.
"""

import re
from pathlib import Path

import numpy as np
import pytest

import specmath as sm

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "presets" / "context"


def _fixture(measurement) -> str:
    """The text of the fixture whose header cites the measurement's source (exactly one does)."""
    found = []
    for path in FIXTURES.glob("*.txt"):
        header, _, text = path.read_text(encoding="utf-8").partition("\n")
        if header == f"# {measurement.source}":
            found.append(text)
    assert len(found) == 1, measurement.name
    return found[0]


def _speculators(text):
    # The "Eagle3" column of the table; "2k" is 2,000 tokens (the record's reading).
    return [(int(n) * 1_000, float(al)) for n, al in re.findall(r"^\| (\d+)k \| ([\d.]+) \|", text, re.M)]


def _tokenspeed(text):
    line = re.search(r"Input-length sweep.*$", text, re.M).group(0)
    contexts = [int(n) * 1_024 for n in re.findall(r"(\d+)K `", line)]
    lengths = [
        float(x) for x in re.search(r"accept length falls from (.*)\.$", line).group(1).strip("`").split("` to `")
    ]
    return list(zip(contexts, lengths, strict=True))


def _llamacpp(text):
    # A range's midpoint; "~34K" is 34,000 tokens; "~100 tok" is 100.
    points = []
    for context, rate in re.findall(r"^\| ~(\d+K|\d+ tok) \| ~?([\d-]+)% \|", text, re.M):
        tokens = int(context[:-1]) * 1_000 if context.endswith("K") else int(context.split()[0])
        low, _, high = rate.partition("-")
        points.append((tokens, (float(low) + float(high or low)) / 200))
    return points


READERS = {
    "Qwen3-8B EAGLE-3, LongBench-v2": _speculators,
    "Kimi-K3 DSpark, random tokens": _tokenspeed,
    "Qwen3.8-27B MTP, llama.cpp": _llamacpp,
}

#: How close each fitted curve passes its points: within 0.08 in AL where ten points test the
#: form (specmath.context says so); where three points meet three parameters, within the
#: sources' own rounding.
TOLERANCE = {
    "Qwen3-8B EAGLE-3, LongBench-v2": 0.08,
    "Kimi-K3 DSpark, random tokens": 0.005,
    "Qwen3.8-27B MTP, llama.cpp": 0.01,
}


def test_every_measurement_has_a_reader_and_every_fixture_a_measurement():
    assert set(READERS) == set(sm.presets.CONTEXT_MEASUREMENTS) == set(TOLERANCE)
    cited = {f"# {m.source}" for m in sm.presets.CONTEXT_MEASUREMENTS.values()}
    headers = {p.read_text(encoding="utf-8").partition("\n")[0] for p in FIXTURES.glob("*.txt")}
    assert headers == cited


@pytest.mark.parametrize("name", list(sm.presets.CONTEXT_MEASUREMENTS))
def test_the_points_are_the_sources(name):
    m = sm.presets.CONTEXT_MEASUREMENTS[name]
    points = READERS[name](_fixture(m))
    assert np.allclose(np.array(points, dtype=float), np.array(m.points, dtype=float), rtol=0, atol=1e-12)
    assert list(m.contexts) == sorted(m.contexts)


@pytest.mark.parametrize("name", list(sm.presets.CONTEXT_MEASUREMENTS))
def test_the_fit_from_the_sources_numbers_passes_each_point(name):
    m = sm.presets.CONTEXT_MEASUREMENTS[name]
    contexts, values = zip(*READERS[name](_fixture(m)), strict=True)
    fit = sm.fit_context_falloff(contexts, values, baseline=m.baseline, ceiling=m.ceiling)
    assert fit == sm.fit_context_falloff(m.contexts, m.values, baseline=m.baseline, ceiling=m.ceiling)
    assert fit.max_abs_residual <= TOLERANCE[name]
    assert np.allclose(np.subtract(fit.fitted, fit.values), fit.residuals, rtol=0, atol=1e-12)
    assert m.baseline < fit.reference <= (m.ceiling or np.inf)
    # The fitted curve falls: more context, less acceptance.
    grid = np.geomspace(min(contexts) / 10, max(contexts) * 10, 50)
    assert np.all(np.diff(fit.value_at(grid)) < 0)


def test_the_eagle3_head_halves_near_8k_tokens():
    # The one source with more points than parameters: the half-context lies inside its span.
    m = sm.presets.CONTEXT_MEASUREMENTS["Qwen3-8B EAGLE-3, LongBench-v2"]
    fit = sm.fit_context_falloff(m.contexts, m.values, baseline=m.baseline)
    assert 6_000 < fit.falloff.half_context < 10_000
    assert abs(fit.value_at(fit.falloff.half_context) - (1 + (fit.reference - 1) / 2)) < 1e-12


# --- the fall-off's laws --------------------------------------------------------------------------


def test_the_multiplier_is_one_at_no_context_and_a_half_at_the_half_context():
    g = sm.ContextFalloff(half_context=8_000, steepness=3)
    assert g.multiplier(0) == 1.0
    assert g.multiplier(8_000) == 0.5
    assert np.all(np.diff(g.multiplier(np.linspace(0, 100_000, 101))) < 0)


def test_one_multiplier_scales_a_curve_and_its_profile_alike():
    # Scaling position 1's rate scales every unconditional u_i, so every AL(k) - 1, by g.
    g = sm.ContextFalloff(half_context=20_000, steepness=1.5)
    u = np.array([0.8, 0.6, 0.45, 0.3])
    curve = {k: 1 + u[:k].sum() for k in range(1, 5)}
    at = g.lengths_at(curve, 30_000)
    moved = g.profile_at(u, 30_000)
    assert list(at) == [1, 2, 3, 4]
    for k in curve:
        assert at[k] == pytest.approx(1 + moved[:k].sum(), abs=1e-12)
        assert (at[k] - 1) == pytest.approx((curve[k] - 1) * g.multiplier(30_000), abs=1e-12)


def test_a_preset_curve_carries_to_a_context():
    preset = sm.ACCEPTANCE_PRESETS["MiniMax-M3 EAGLE-3 (thinking off)"]
    g = sm.ContextFalloff(half_context=8_000, steepness=3)
    at = g.lengths_at(dict(preset.lengths), 8_000)
    assert at == {k: 1 + (al - 1) / 2 for k, al in preset.lengths}


def test_the_fit_recovers_the_falloff_it_was_made_from():
    g = sm.ContextFalloff(half_context=30_000, steepness=1.7)
    contexts = np.geomspace(1_000, 200_000, 8)
    fit = sm.fit_context_falloff(contexts, 0.15 + 0.7 * g.multiplier(contexts), baseline=0.15)
    assert fit.falloff.half_context == pytest.approx(30_000, rel=0.01)
    assert fit.falloff.steepness == pytest.approx(1.7, rel=0.01)
    assert fit.reference == pytest.approx(0.85, abs=1e-3)
    assert fit.max_abs_residual < 1e-3


def test_a_ceiling_bounds_the_value_at_no_context():
    contexts, rates = [1_000, 2_000, 4_000], [0.99, 0.9, 0.7]
    assert sm.fit_context_falloff(contexts, rates, baseline=0, ceiling=1).reference <= 1


@pytest.mark.parametrize(
    ("contexts", "values", "kwargs", "message"),
    [
        ([1_000, 2_000], [2.0, 1.5], {}, "at least three distinct contexts"),
        ([1_000, 1_000, 2_000], [2.0, 1.9, 1.5], {}, "at least three distinct contexts"),
        ([-1, 1_000, 2_000], [2.0, 1.9, 1.5], {}, "contexts must be > 0"),
        ([1_000, 2_000, 4_000], [2.0, 0.9, 1.5], {}, "values must be >= baseline"),
        ([1_000, 2_000, 4_000], [1.2, 0.9, 0.5], {"baseline": 0, "ceiling": 1}, "values must be <= ceiling"),
        ([1_000, 2_000, 4_000], [2.0, 1.5], {}, "of one length"),
        ([1_000, 2_000, float("nan")], [2.0, 1.9, 1.5], {}, "finite"),
    ],
)
def test_bad_points_are_refused_by_name(contexts, values, kwargs, message):
    with pytest.raises(ValueError, match=message):
        sm.fit_context_falloff(contexts, values, **kwargs)


@pytest.mark.parametrize(
    ("half", "steepness", "message"), [(0, 1, "half_context"), (1_000, -1, "steepness"), (1_000, 0, "steepness")]
)
def test_a_falloff_needs_positive_parameters(half, steepness, message):
    with pytest.raises(ValueError, match=message):
        sm.ContextFalloff(half, steepness)


def test_negative_context_and_short_lengths_are_refused():
    g = sm.ContextFalloff(8_000, 3)
    with pytest.raises(ValueError, match="context must be >= 0"):
        g.multiplier(-5)
    with pytest.raises(ValueError, match="length must be >= 1"):
        g.length_at(0.5, 1_000)
