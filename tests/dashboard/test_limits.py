"""The caps on one run's work: untouched at the defaults, the largest allowed amount above them."""

import pytest

from dashboard import limits
from dashboard.params import PARAMS, TOKEN_COUNTS


def test_the_simulator_defaults_and_every_token_count_at_small_k_run_as_asked():
    assert limits.simulator_tokens(PARAMS["tokens"].default, PARAMS["k"].default, 500) == limits.Capped(100_000)
    for tokens in TOKEN_COUNTS:
        assert limits.simulator_tokens(tokens, 1, 500).value == tokens


@pytest.mark.parametrize(("tokens", "k"), [(1_000_000, 64), (1_000_000, 8), (300_000, 16), (10**12, 1)])
def test_a_capped_simulator_run_is_the_most_whole_sequences_within_the_budget(tokens, k):
    capped = limits.simulator_tokens(tokens, k, 500)
    assert capped.value % 500 == 0 and capped.value < tokens
    assert capped.value * (k + 1) <= limits.SIMULATOR_WORK < (capped.value + 500) * (k + 1)
    assert f"{capped.value:,} of the {tokens:,} tokens" in capped.note and f"k = {k}" in capped.note


def test_the_simulator_always_runs_one_sequence():
    assert limits.simulator_tokens(10**6, 10**9, 500).value == 500


def test_divergence_pairs_are_capped_by_pairs_times_vocabulary():
    assert limits.kl_pairs(200, 20, 10) == limits.Capped(200)
    capped = limits.kl_pairs(5000, 1000, 10)
    assert capped.value == limits.KL_ENTRIES // 1000 < 5000
    assert f"{capped.value:,} of the 5,000 pairs" in capped.note
    assert limits.kl_pairs(5000, 10**9, 10).value == 10
