"""The registry of engines' acceptance figures: every figure a parser files is in it, and its conversions
give back the run a paste came from."""

from pathlib import Path

import pytest

import engines
from dashboard.features import calibrate_examples
from engines import definitions
from engines.sglang import UNKNOWN_RATE

FIXTURES = Path(__file__).parents[1] / "fixtures" / "engine_metrics"
# The examples' run: 1,000 drafts of k = 3, 1,850 accepted of 3,000 drafted.
K, RATE, LENGTH = 3, 1850 / 3000, 2.85


def test_keys_are_unique_and_every_row_cites_a_source():
    assert len(definitions.BY_KEY) == len(definitions.DEFINITIONS)
    for d in definitions.DEFINITIONS:
        assert d.engine in ("vLLM", "SGLang", "llama.cpp", "TensorRT-LLM"), d.key
        assert "@" in d.source or "main()" in d.source, d.key  # file at a version or commit


@pytest.mark.parametrize("path", sorted(p.name for p in FIXTURES.glob("*.txt")))
def test_every_printed_figure_of_a_fixture_has_a_definition(path):
    try:
        m = engines.parse_engine_metrics((FIXTURES / path).read_text(encoding="utf-8"))
    except ValueError:
        return  # a fixture of a refused paste
    assert {key for key, _ in m.printed} <= set(definitions.BY_KEY) | {UNKNOWN_RATE}


@pytest.mark.parametrize("name", [n for n in calibrate_examples.EXAMPLES if n != calibrate_examples.SWEEP_EXAMPLE])
def test_the_examples_printed_figures_convert_back_to_their_run(name):
    """Each figure as printed (two or three decimals) converts at k = 3 to the run's accepted ÷ drafted
    and mean length, within its rounding: that the conversions are the engines' definitions."""
    m = engines.parse_engine_metrics(calibrate_examples.EXAMPLES[name])
    for key, (value, rate, length) in definitions.translated(m.printed, K).items():
        if rate is not None:
            assert rate == pytest.approx(RATE, abs=0.01), (name, key, value)
        if length is not None:
            assert length == pytest.approx(LENGTH, abs=0.01), (name, key, value)


def test_sglangs_two_rates_of_one_run():
    # The same run printed by SGLang 0.5.3.post3 (accept len ÷ (k + 1) = 2.85 / 4 = 0.7125, "0.71") and
    # by 0.5.11 on (accepted ÷ drafted, "0.62"): both convert to the run's 0.617 at k = 3.
    old = definitions.BY_KEY["sglang.accept_rate.over_k1"]
    new = definitions.BY_KEY["sglang.accept_rate.drafted"]
    assert old.rate(0.71, K) == pytest.approx((0.71 * 4 - 1) / 3) == pytest.approx(RATE, abs=0.01)
    assert old.length(0.71, K) == pytest.approx(2.84)
    assert new.rate(0.62, K) == 0.62 and new.length(0.62, K) == pytest.approx(2.86)
    assert old.rate(0.71, None) is None  # it needs k
    assert definitions.accept_rate((("sglang.accept_len", 2.85), ("sglang.accept_rate.over_k1", 0.71)), K) == (
        pytest.approx((0.71 * 4 - 1) / 3)
    )
    # A rate taken from the mean length alone is what the fit predicts, not a measurement: none.
    assert definitions.accept_rate((("sglang.accept_len", 2.85),), K) is None
