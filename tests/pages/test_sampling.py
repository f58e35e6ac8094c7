"""The rejection-sampling page under AppTest: presets, typed distributions, links with their own p and q."""

import numpy as np
import pytest

import specmath
from dashboard.address import literal
from tests.app_helpers import (
    SAMPLING,
    metrics,
    open_page,
    page_charts,
    trace,
    values,
    warnings,
)
from tests.helpers import CHAPTER_P, CHAPTER_Q


def test_sampling_defaults_match_theory():
    at = open_page(SAMPLING)
    m = metrics(at)
    assert m["α = Σ min(p, q)"] == "0.8500"
    assert m["1 − TV(p, q)"] == "0.8500"
    assert abs(float(m["Observed acceptance rate"]) - 0.85) < 0.005
    assert float(m["χ² p-value (output ~ p)"]) > 1e-3
    figure = page_charts(at)[0]
    np.testing.assert_allclose(
        values(trace(figure, "target p")["y"]), [0.3, 0.25, 0.15, 0.1, 0.08, 0.05, 0.03, 0.02, 0.01, 0.01]
    )
    accepted = values(trace(figure, "accepted draft")["y"])
    resampled = values(trace(figure, "resampled from residual")["y"])
    assert accepted.sum() + resampled.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(values(trace(figure, "residual r")["y"]), [2 / 3, 1 / 3, 0, 0, 0, 0, 0, 0, 0, 0])


@pytest.mark.parametrize(
    ("preset", "alpha", "observed"),
    [("identical", "1.0000", "1.0000"), ("disjoint", "0.0000", "0.0000"), ("greedy_draft", "0.2500", None)],
)
def test_sampling_presets_at_the_edges(preset, alpha, observed):
    at = open_page(SAMPLING)
    at.selectbox(key="preset").set_value(preset).run()
    m = metrics(at)
    assert m["α = Σ min(p, q)"] == alpha
    if observed is not None:
        assert m["Observed acceptance rate"] == observed
    assert float(m["χ² p-value (output ~ p)"]) > 1e-3


def test_sampling_random_preset_follows_vocabulary_and_seed():
    at = open_page(SAMPLING, preset="random", vocab="17", seed="7")
    assert not at.exception
    assert len(at.data_editor[0].value) == 17
    p, q = (row[0] for row in specmath.random_distribution_pairs(1, 17, rng=7))
    assert metrics(at)["α = Σ min(p, q)"] == f"{specmath.acceptance_probability(p, q):.4f}"


def test_sampling_count_slider():
    at = open_page(SAMPLING)
    at.select_slider(key="n").set_value(1_000_000).run()
    assert "1M rounds" in page_charts(at)[0]["layout"]["title"]["text"]


def _edit(at, edits):
    at.session_state["pq_editor_0"] = {"edited_rows": edits, "added_rows": [], "deleted_rows": []}
    return at.run()


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        ({0: {"p": "-0.1"}}, f"p(t0) {literal('-0.1')} is negative"),
        ({3: {"q": None}}, "q(t3) is empty"),
        ({3: {"q": " "}}, "q(t3) is empty"),
        ({i: {"q": "0"} for i in range(10)}, "q is all zeros"),
        ({0: {"p": "0.6"}}, "p sums to 1.3, not 1"),
        ({0: {"p": "abc"}}, "p(t0) ` abc ` is not a number: type a probability such as 0.1, 1e-3 or 0,5"),
        ({0: {"p": "0.5.5"}}, f"p(t0) {literal('0.5.5')} is not a number"),
        ({0: {"p": "1,000.5"}}, f"p(t0) {literal('1,000.5')} is not a number"),
        ({0: {"p": "1e309"}}, "p(t0) ` 1e309 ` is too large to store as a number"),
        ({0: {"p": "1e-400"}}, f"p(t0) {literal('1e-400')} is too small to store as a number"),
        ({0: {"p": "1e308"}}, "p sums to 1e+308, not 1"),
        ({0: {"p": "1e308"}, 1: {"p": "1e308"}}, "p sums to more than a number can hold"),
        ({0: {"p": "[x](//e.vil)"}}, "p(t0) ` [x](//e.vil) ` is not a number"),
    ],
)
def test_sampling_typed_mistakes_show_what_to_fix(edits, message):
    at = _edit(open_page(SAMPLING), edits)
    assert not at.exception
    assert any(message in e.value for e in at.error), [e.value for e in at.error]
    assert not page_charts(at)


#: The chapter's p with its first and last cells retyped: 0.29 and 0.02, still summing to 1.
RETYPED_P = [0.29, 0.25, 0.15, 0.1, 0.08, 0.05, 0.03, 0.02, 0.01, 0.02]


@pytest.mark.parametrize(
    ("first", "last"),
    [("0.29", "0.02"), ("0,29", "2e-2"), (" 2.9E-1 ", "0,0200"), ("0.29000000000000000000001", "+.02")],
)
def test_sampling_cells_store_the_number_typed(first, last):
    """Scientific notation, a decimal comma, 20 digits: each cell holds exactly the number written."""
    at = _edit(open_page(SAMPLING), {0: {"p": first}, 9: {"p": last}})
    assert not at.exception and not at.error
    q = [0.2, 0.2, 0.2, 0.15, 0.1, 0.05, 0.04, 0.03, 0.02, 0.01]
    assert metrics(at)["α = Σ min(p, q)"] == f"{specmath.acceptance_probability(RETYPED_P, q):.4f}"
    np.testing.assert_array_equal(values(trace(page_charts(at)[0], "target p")["y"]), RETYPED_P)
    assert at.query_params["p"] == ",".join(f"{v:g}" for v in RETYPED_P)


def test_sampling_table_looks_as_before_and_keeps_untouched_values_exact():
    at = open_page(SAMPLING, preset="random", vocab="5", seed="3")
    table = at.data_editor[0].value
    p, q = (row[0] for row in specmath.random_distribution_pairs(1, 5, rng=3))
    assert table["p"].tolist() == [f"{v:.4f}" for v in p]  # four decimals, as the number columns showed
    at = _edit(at, {0: {"q": table["q"][0]}})  # a cell retyped as shown keeps its exact value
    assert not at.error
    np.testing.assert_array_equal(values(trace(page_charts(at)[0], "draft q")["y"]), q)


def test_sampling_unreadable_cell_is_left_out_of_the_link():
    at = _edit(open_page(SAMPLING), {0: {"p": "abc"}, 9: {"p": "1e-2"}})
    assert at.query_params["p"] == ",0.25,0.15,0.1,0.08,0.05,0.03,0.02,0.01,0.01"


def test_sampling_offers_to_normalize_only_when_meaningful():
    at = _edit(open_page(SAMPLING), {0: {"p": "-0.1"}})
    assert not [b for b in at.button if "Normalize" in b.label]
    at = _edit(open_page(SAMPLING), {0: {"p": "0.6"}})
    at.button[0].click().run()
    assert not at.error
    p = np.array([0.6, 0.25, 0.15, 0.1, 0.08, 0.05, 0.03, 0.02, 0.01, 0.01]) / 1.3
    q = np.array([0.2, 0.2, 0.2, 0.15, 0.1, 0.05, 0.04, 0.03, 0.02, 0.01])
    assert metrics(at)["α = Σ min(p, q)"] == f"{specmath.acceptance_probability(p, q):.4f}"


def test_sampling_edits_go_into_the_link():
    at = _edit(open_page(SAMPLING), {9: {"p": "0"}, 8: {"p": "0.02"}})
    assert at.query_params["p"] == "0.3,0.25,0.15,0.1,0.08,0.05,0.03,0.02,0.02,0"
    reopened = open_page(SAMPLING, p=at.query_params["p"], q=at.query_params["q"])
    assert metrics(reopened) == metrics(at)


def test_sampling_table_follows_an_address_it_did_not_write():
    """Back, Forward or a link in the same session change the address under the page: the table
    shown is the address's, never one typed earlier in the session."""
    at = open_page(SAMPLING, p="0.5,0.5", q="0.2,0.8")
    assert metrics(at)["α = Σ min(p, q)"] == "0.7000"
    at = _edit(at, {0: {"p": "0.4"}, 1: {"p": "0.6"}})  # typed: the address follows the table
    assert (at.query_params["p"], metrics(at)["α = Σ min(p, q)"]) == ("0.4,0.6", "0.8000")
    at.query_params["p"], at.query_params["q"] = "0.9,0.1", "0.5,0.5"  # e.g. Back to another link
    at.run()
    assert metrics(at)["α = Σ min(p, q)"] == "0.6000"
    assert (at.query_params["p"], at.query_params["q"]) == ("0.9,0.1", "0.5,0.5")
    del at.query_params["p"], at.query_params["q"]  # the sidebar link: no table in the address
    at.run()
    assert metrics(at)["α = Σ min(p, q)"] == "0.8500"  # the chapter's preset
    assert "p" not in at.query_params


def test_sampling_link_with_custom_pair():
    at = open_page(SAMPLING, p="0.5,0.5,0", q="0,0.5,0.5")
    assert metrics(at)["α = Σ min(p, q)"] == "0.5000"
    assert not warnings(at)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"p": "0.5,0.5", "q": "abc,1"}, "is not a number"),
        ({"p": "0.5,0.5"}, "only one of `p` and `q`"),
        ({"p": "0.5,0.5", "q": "0.2,0.3,0.5"}, "must match"),
        ({"p": ",".join(["0.01"] * 100), "q": ",".join(["0.01"] * 100)}, "more than 50 entries"),
        ({"p": "-1,2", "q": "0.5,0.5"}, "negative"),
        ({"p": "", "q": ""}, "is empty"),
        ({"p": "0.5,1e309", "q": "0.5,0.5"}, "p(t1) ` 1e309 ` is too large to store as a number"),
        ({"p": "0.5,0.5", "q": "1e-999,1"}, f"q(t0) {literal('1e-999')} is too small to store as a number"),
        ({"p": "0.5,0.5", "q": "inf,1"}, "q(t0) ` inf ` is not a number"),
        ({"p": "0.5,0.5", "q": "nan,1"}, "q(t0) ` nan ` is not a number"),
    ],
)
def test_sampling_bad_links_fall_back_to_the_preset(query, message):
    at = open_page(SAMPLING, **query)
    assert not at.exception
    assert any(message in w for w in warnings(at)), warnings(at)
    assert metrics(at)["α = Σ min(p, q)"] == "0.8500"
    assert "p" not in at.query_params and "q" not in at.query_params  # a copied link is the preset's


def test_sampling_link_that_does_not_sum_to_one_is_normalized_with_a_warning():
    at = open_page(SAMPLING, p="1,3", q="1,1")
    assert any("p sums to 4, not 1: normalized" in w for w in warnings(at))
    assert metrics(at)["α = Σ min(p, q)"] == "0.7500"


@pytest.mark.parametrize(
    ("query", "pair", "n", "seed"),
    [
        ({}, (CHAPTER_P, CHAPTER_Q), 100_000, 42),
        ({"p": "1,3", "q": "1,1", "n": "1k", "seed": "3"}, ([0.25, 0.75], [0.5, 0.5]), 1_000, 3),
        ({"preset": "random", "vocab": "5", "seed": "7", "n": "10k"}, None, 10_000, 7),
    ],
    ids=["chapter", "typed-normalized", "random"],
)
def test_sampling_bars_are_specmaths_seeded_rounds(query, pair, n, seed):
    """Each bar is the share of ``speculative_sample_counts(p, q, n, rng=seed)`` rounds: for the
    chapter's pair, a linked pair normalized to sum to 1, and a seeded random pair."""
    at = open_page(SAMPLING, **query)
    assert not at.exception
    p, q = (row[0] for row in specmath.random_distribution_pairs(1, 5, rng=seed)) if pair is None else pair
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    accepted, resampled = specmath.speculative_sample_counts(p, q, n, rng=seed)
    figure = page_charts(at)[0]
    # The random pair passes through the table's cells: its last digit may differ.
    for name, expected in (
        ("target p", p),
        ("draft q", q),
        ("accepted draft", accepted / n),
        ("resampled from residual", resampled / n),
        ("residual r", specmath.residual_distribution(p, q)),
    ):
        np.testing.assert_allclose(values(trace(figure, name)["y"]), expected, rtol=1e-12, atol=0, err_msg=name)
