"""The dashboard's pure pieces: the parameter table, link checks, typed distributions, presets."""

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import specmath
from dashboard import pq_input
from dashboard.binding import address_value, check_url_value
from dashboard.features.rejection_sampling import sampling_report
from dashboard.params import PARAMS, SHARED_KEYS, format_count, format_number
from dashboard.presets import PRESET_LABELS, preset_pair
from dashboard.registry import APP_KEYS, PAGES
from tests.links import CATEGORIES, bad_value

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("param", PARAMS.values(), ids=list(PARAMS))
def test_parameter_table_is_consistent(param):
    if param.kind in ("float", "int"):
        assert param.low <= param.default <= param.high
        assert param.step > 0
    if param.kind == "choice":
        assert param.default in param.options
    if param.kind in ("choice", "multi"):
        shown = [param.fmt(o) for o in param.options]
        assert len(set(shown)) == len(shown), "two options would share one URL value"
    if param.kind == "multi":
        assert set(param.default) <= set(param.options)
    # The default, written as a link would write it, passes the link check.
    if param.kind == "multi":
        raw = [param.fmt(v) for v in param.default]
    elif param.kind == "choice":
        raw = param.fmt(param.default)
    elif param.kind == "bool":
        raw = str(param.default).lower()
    elif param.kind == "text":
        raw = param.default
    else:
        raw = format_number(param.default)
    assert check_url_value(param, raw) is None


def test_shared_parameters_are_alpha_k_c():
    assert SHARED_KEYS == ("alpha", "k", "c")


def test_a_parameter_several_pages_read_has_its_widget_in_the_router():
    readers = Counter(key for page in PAGES.values() for key in page.params)
    several = {key for key, count in readers.items() if count > 1}
    assert several <= APP_KEYS, f"add {sorted(several - APP_KEYS)} to registry.APP_KEYS (Back would lose them)"


def test_a_conditional_parameter_depends_on_one_its_pages_read():
    for page in PAGES.values():
        for key in page.params:
            condition = PARAMS[key].shown_when
            if condition is not None:
                other, value = condition
                assert other in page.params, (page.id, key)
                param = PARAMS[other]
                assert value in param.options if param.kind == "choice" else isinstance(value, bool), (key, value)


def test_every_page_is_registered_with_known_parameters():
    for page in PAGES.values():
        assert (ROOT / page.script).is_file()
        assert set(page.params) <= set(PARAMS)
    assert sorted(p.script for p in PAGES.values()) == sorted(
        f"app_pages/{f.name}" for f in (ROOT / "app_pages").glob("*.py")
    )


def test_cost_ratio_slider_reaches_both_ends_and_the_chapter_values():
    options = PARAMS["c"].options
    assert (min(options), max(options)) == (1, 200)
    assert {10, 20, 50} <= set(options)
    ratios = np.diff(np.log(options))
    assert ratios.max() < np.log(1.3), "steps no coarser than 30% anywhere on the log scale"


@pytest.mark.parametrize(
    ("key", "raw", "problem"),
    [
        ("alpha", "0.5", None),
        ("alpha", "0.123", None),
        ("alpha", " ", "is empty"),
        ("alpha", "x", "is not a number"),
        ("alpha", "-0.01", "is outside 0 to 1"),
        ("alpha", "inf", "is outside 0 to 1"),
        ("k", "64", None),
        ("k", "65", "is outside 1 to 64"),
        ("k", "3.0", None),
        ("k", "3.5", "is not a whole number"),
        ("c", "20", None),
        ("c", "20.0", "is written 20 in a link"),
        ("n", "1M", None),
        ("n", "1000000", "is written 1M in a link"),
        ("compare", ["0.5", "0.6"], None),
        ("compare", "", None),
        ("compare", ["0.5", "0.55555"], "has values not offered"),
        ("logx", "TRUE", None),
        ("logx", "1", "is not true or false"),
        ("preset", "random", None),
        ("preset", "Random", "is not one of the offered values"),
        ("drafter", "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", None),
        ("drafter", "", None),  # none typed: the preset's name
        ("drafter", "a b", "is not allowed (letters, digits"),
        ("drafter", " x", "is not allowed"),  # taken as it is, not stripped
        ("drafter", "x" * 201, "at most 200 characters"),
        ("drafter", ["a/b", "c/d"], "appears 2 times"),
        ("alpha", "1e999", "is outside 0 to 1"),
        ("compare", "0.5,0.6", "has values not offered"),  # one value, not two
        ("seed", "12.5", "is not a whole number"),
    ],
)
def test_link_value_checks(key, raw, problem):
    found = check_url_value(PARAMS[key], raw)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found and f"`{key}" in found


@pytest.mark.parametrize("key", PARAMS)
def test_every_kind_of_bad_value_of_every_parameter_is_refused(key):
    """The values the pages' bad links carry (``tests.links``): each one the parameter cannot
    take is refused, by a message naming the parameter; a NaN where a number belongs too."""
    param = PARAMS[key]
    for category in CATEGORIES:
        for below in (False, True):
            raw = bad_value(param, category, below=below)
            if raw is not None:
                found = check_url_value(param, raw)
                assert found is not None and found.startswith(f"`{key}`"), (category, raw, found)
    if param.kind in ("float", "int"):
        assert "is not a number" in check_url_value(param, "NaN")


def test_link_value_shown_short():
    message = check_url_value(PARAMS["k"], "9" * 500)
    assert len(message) < 120


def test_number_formats():
    assert [format_number(v) for v in (20, 1.5, 0.05, 1.25)] == ["20", "1.5", "0.05", "1.25"]
    assert [format_count(v) for v in (1_000, 30_000, 1_000_000, 10_000_000, 1_500)] == [
        "1k",
        "30k",
        "1M",
        "10M",
        "1500",
    ]


LABELS = [f"t{i}" for i in range(3)]


@pytest.mark.parametrize(
    ("cells", "problem", "normalizable"),
    [
        ([0.2, 0.3, 0.5], None, False),
        (["0.2", " 0.3", "0.5"], None, False),
        ([0.2, None, 0.8], "p(t1) is empty", False),
        ([0.2, float("nan"), 0.8], "p(t1) is empty", False),
        ([0.2, "abc", 0.8], "p(t1) ` abc ` is not a number", False),
        ([0.2, -0.3, 1.1], "p(t1) = -0.3 is negative", False),
        ([0.2, float("inf"), 0.8], "p(t1) is inf", False),
        ([0, 0, 0], "p is all zeros", False),
        ([1, 1, 2], "p sums to 4, not 1", True),
    ],
)
def test_typed_distribution_checks(cells, problem, normalizable):
    checked = pq_input.check_distribution(cells, "p", LABELS)
    assert checked.problem == problem if problem is None else problem in checked.problem
    assert checked.normalizable == normalizable
    if problem is None:
        assert checked.values.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("key", "raw", "problem"),
    [
        ("alpha", ["0.5", "0.5"], "appears 2 times in the link"),
        ("preset", ["random", "chapter"], "appears 2 times in the link"),
        ("compare", ["0.5", "0.6"], None),  # a multiselect's link form repeats the key
        ("vocab", "nan", "is not a number"),
        ("temperature", "NaN", "is not one of the offered values"),
        ("alpha", "-0", None),
    ],
)
def test_link_values_repeated_or_nan(key, raw, problem):
    found = check_url_value(PARAMS[key], raw)
    assert found is None if problem is None else problem in found


@pytest.mark.parametrize(
    ("key", "raw", "kept"),
    [
        ("alpha", ["0.5", "0.9"], "0.9"),
        ("seed", ["1", "2"], "2"),
        ("c", ["10", "50"], "50"),
        ("alpha", "-0", "0"),
        ("alpha", "-0.0e3", "0"),
        ("seed", "-0", "0"),
        ("alpha", ["0.5", "-0"], "0"),
        ("alpha", "0.5", None),
        ("alpha", "0", None),
        ("alpha", "abc", None),  # the binding drops what it cannot use
        ("compare", ["0.5", "0.6"], None),
        ("drafter", "a/b", None),
        ("drafter", ["a/b", "c/d"], "c/d"),
        ("drafter", "a b", ""),  # the box takes any text: the address holds the default instead
        ("drafter", ["a/b", "[x](//e.vil)"], ""),
    ],
)
def test_address_keeps_one_value_and_no_minus_zero(key, raw, kept):
    assert address_value(PARAMS[key], raw) == kept


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("0.25", 0.25),
        (" 1e-3 ", 0.001),
        ("2.5E-1", 0.25),
        ("0,5", 0.5),
        (",5", 0.5),
        ("1.", 1.0),
        ("+0.1", 0.1),
        ("1e308", 1e308),
        ("0.12345678901234567890", 0.12345678901234567890),
        ("5e-324", 5e-324),
    ],
)
def test_typed_cells_read_as_written(text, number):
    assert pq_input.read_cell(text) == (number, None)


def test_typed_minus_zero_is_zero():
    number, problem = pq_input.read_cell("-0")
    assert problem is None and math.copysign(1.0, number) == 1.0


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "is empty"),
        ("abc", "` abc ` is not a number"),
        ("inf", "` inf ` is not a number"),
        ("nan", "` nan ` is not a number"),
        ("1_000", "` 1_000 ` is not a number"),
        ("0x10", "` 0x10 ` is not a number"),
        ("1 2", "` 1 2 ` is not a number"),
        ("1" * 65, "is not a number"),
        ("1e309", "` 1e309 ` is too large to store"),
        ("-1e999", "` -1e999 ` is too large to store"),
        ("1e-400", "` 1e-400 ` is too small to store"),
    ],
)
def test_typed_cells_that_are_no_number_are_refused(text, problem):
    number, why = pq_input.read_cell(text)
    assert number is None and problem in why


def test_typed_distribution_size_cap():
    cells = [1 / 60] * 60
    checked = pq_input.check_distribution(cells, "q", [f"t{i}" for i in range(60)])
    assert "more than 50 entries" in checked.problem


def test_url_encoding_round_trip_and_cap():
    p = np.array([0.3, 0.25, 0.15, 0.1, 0.2])
    encoded = pq_input.encode(p)
    assert encoded == "0.3,0.25,0.15,0.1,0.2"
    # Twelve significant digits: all of what a person types, none of the float noise.
    assert pq_input.encode([0.123456789, 0.1 + 0.2, "2e-2", "abc", None]) == "0.123456789,0.3,0.02,,"
    assert pq_input.decode(encoded) == ["0.3", "0.25", "0.15", "0.1", "0.2"]
    huge = ",".join(["1"] * 1_000_000)
    assert len(pq_input.decode(huge)) == pq_input.MAX_TYPED_VOCAB + 1


@pytest.mark.parametrize("name", PRESET_LABELS)
def test_presets_are_valid_pairs(name):
    p, q = preset_pair(name, vocab=12, seed=3)
    assert specmath.acceptance_probability(p, q) >= 0  # validates both as distributions
    expected_alpha = {"identical": 1.0, "disjoint": 0.0, "greedy_draft": p[1]}
    if name in expected_alpha:
        assert specmath.acceptance_probability(p, q) == pytest.approx(expected_alpha[name])
    if name == "greedy_draft":
        assert sorted(q) == [0.0] * (q.size - 1) + [1.0]
    if name == "random":
        assert p.size == 12


def test_sampling_report_against_known_counts():
    p, q = np.array([0.5, 0.5, 0.0]), np.array([0.25, 0.25, 0.5])
    report = sampling_report(p, q, np.array([250, 250, 0]), np.array([250, 250, 0]))
    assert report.alpha == 0.5 and report.one_minus_tv == 0.5
    assert report.observed_acceptance == 0.5
    assert report.max_deviation == 0.0
    assert report.chi_square_pvalue == 1.0
    # A token the target never emits makes the fit impossible.
    assert sampling_report(p, q, np.array([250, 250, 1]), np.array([250, 249, 0])).chi_square_pvalue == 0.0


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("100000", "is written 100k in a link"),
        ("3e5", "is written 300k in a link"),
        ("12", "is not one of the offered values"),
    ],
)
def test_a_choice_given_as_its_plain_number_is_told_how_a_link_writes_it(raw, says):
    assert check_url_value(PARAMS["tokens"], [raw]) == f"`tokens` = ` {raw} ` {says}" + (
        " (10k, 30k, 100k, 300k, 1M)" if raw == "12" else ""
    )
