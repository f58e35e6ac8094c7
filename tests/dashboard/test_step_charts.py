"""The Step through page's figure builders: pure, validated, holding exactly the numbers given."""

import numpy as np
import plotly.graph_objects as go
import pytest

from dashboard import charts
from dashboard.charts import step_through as step_charts
from dashboard.charts.step_through import ROLE_COLOURS
from dashboard.charts.style import FONT_SIZE

WORDS = ("the", "cat", "sat", ".")


def _trace(fig: go.Figure, name: str):
    (found,) = [t for t in fig.data if t.name == name]
    return found


def test_word_bars_hold_the_distribution_and_highlight_the_drawn_word():
    q = np.array([0.1, 0.2, 0.6, 0.1])
    fig = charts.word_bars(WORDS, q, 2, "draft q", "Draft word 1")
    bars = _trace(fig, "draft q")
    assert bars.orientation == "h"
    np.testing.assert_array_equal(bars.x, q)
    assert list(bars.y) == list(WORDS)
    drafted = ROLE_COLOURS["drafted"]
    assert [c == drafted for c in bars.marker.color] == [False, False, True, False]
    (note,) = fig.layout.annotations
    assert (note.x, note.y, note.text, note.font.color) == (0.6, "sat", "← drawn: “sat”", drafted)
    assert fig.layout.yaxis.autorange == "reversed"  # the words' order from the top
    assert fig.layout.title.text == "Draft word 1"


def test_word_bars_draw_other_distributions_as_ticks():
    p, q, r = np.array([0.5, 0.5, 0, 0]), np.array([0.25, 0.25, 0.25, 0.25]), np.array([0.5, 0.5, 0, 0])
    fig = charts.word_bars(WORDS, r, 0, "residual r", "t", markers={"target p": p, "draft q": q})
    np.testing.assert_array_equal(_trace(fig, "target p").x, p)
    np.testing.assert_array_equal(_trace(fig, "draft q").x, q)
    assert fig.layout.xaxis.range[1] > 0.5


def test_position_scores_hold_p_and_q_of_each_drafted_word():
    labels, q, p = ["1 · cat", "2 · sat"], np.array([0.3, 0.2]), np.array([0.5, 0.0])
    fig = charts.position_scores(labels, q, p, "One pass")
    np.testing.assert_array_equal(_trace(fig, "draft q(xᵢ)").y, q)
    np.testing.assert_array_equal(_trace(fig, "target p(xᵢ)").y, p)
    assert list(_trace(fig, "target p(xᵢ)").x) == ["1<br>cat", "2<br>sat"]  # position, then word
    # Large, a row per position from the top, its label on one line.
    fig = charts.position_scores(labels, q, p, "One pass", large=True)
    bars = _trace(fig, "draft q(xᵢ)")
    assert bars.orientation == "h" and list(bars.y) == labels
    np.testing.assert_array_equal(bars.x, q)
    assert fig.layout.yaxis.autorange == "reversed"


def test_large_word_bars_show_the_most_likely_words_and_sum_the_rest():
    words = tuple(f"w{i}" for i in range(21))
    q = np.arange(1, 22) / np.arange(1, 22).sum()  # w20 the most likely, w0 the least
    fig = charts.word_bars(words, q, 0, "draft q", "t", large=True)
    bars = _trace(fig, "draft q")
    rows = len(bars.y)
    assert 2 < rows < len(words)
    # The most likely first, the word drawn (the least likely) kept, the others summed last.
    kept = [f"w{i}" for i in range(20, 20 - (rows - 2), -1)] + ["w0"]
    assert list(bars.y) == [*kept, f"{len(words) - rows + 1} other words"]
    np.testing.assert_allclose(bars.x[:-1], [q[words.index(w)] for w in kept])
    assert bars.x[-1] == pytest.approx(1 - sum(bars.x[:-1]))
    assert fig.layout.yaxis.tickfont.size >= step_charts.MIN_LARGE_FONT


def test_the_rows_of_the_most_likely_words_weigh_the_markers_too():
    values, marker = np.array([0.5, 0.0, 0.5, 0.0]), np.array([0.0, 0.9, 0.0, 0.1])
    shown, rest = step_charts.most_likely(values, None, 3, [marker])
    assert shown.tolist() == [1, 0] and rest.tolist() == [2, 3]  # ties to the lower index
    shown, rest = step_charts.most_likely(values, 3, 3, [marker])
    assert shown.tolist() == [1, 3] and rest.tolist() == [0, 2]  # the drawn word always shown
    shown, rest = step_charts.most_likely(values, 3, 4)
    assert shown.tolist() == [0, 1, 2, 3] and rest.size == 0


def test_acceptance_checks_split_each_row_and_mark_u():
    labels, accept, u = ["1 · cat", "2 · sat"], np.array([1.0, 0.25]), np.array([0.7, 0.4])
    fig = charts.acceptance_checks(labels, accept, u, "Checks")
    np.testing.assert_array_equal(_trace(fig, "accepts: u < min(1, p/q)").x, accept)
    np.testing.assert_array_equal(_trace(fig, "rejects").x, 1 - accept)
    np.testing.assert_array_equal(_trace(fig, "uniform u").x, u)
    assert list(_trace(fig, "uniform u").y) == labels
    assert tuple(fig.layout.xaxis.range) == (0, 1)


def test_greedy_checks_have_no_uniform():
    fig = charts.acceptance_checks(["1 · cat"], np.array([0.0]), np.array([np.nan]), "Checks", greedy=True)
    assert [t.name for t in fig.data] == [
        "accepted: the target's most likely word",
        "rejected: not its most likely word",
    ]


def test_timeline_puts_k_draft_steps_and_one_target_pass_against_one_step_a_word():
    fig = charts.timeline(["cat", "sat", "on"], ["cat", "sat"], 4)
    drafts = _trace(fig, "draft step (1/c = 0.25)")
    np.testing.assert_array_equal(drafts.x, [0.25] * 3)
    np.testing.assert_array_equal(drafts.base, [0, 0.25, 0.5])
    assert list(drafts.customdata) == ["cat", "sat", "on"]
    target = _trace(fig, "target pass over k + 1 positions")
    assert (list(target.x), list(target.base)) == ([1.0], [0.75])
    plain = _trace(fig, "target step")
    np.testing.assert_array_equal(plain.x, [1, 1])
    np.testing.assert_array_equal(plain.base, [0, 1])
    assert list(plain.text) == ["cat", "sat"]
    assert fig.layout.title.text == "2 words in 1.75 target steps: 1.14× as fast"
    assert fig.layout.title.subtitle.text == "1 + 3/4 target steps speculative; one word a step, 2"


def test_large_charts_have_larger_type_and_room_for_it():
    q = np.full(4, 0.25)
    small, large = (charts.word_bars(WORDS, q, 0, "q", "t", large=flag) for flag in (False, True))
    assert small.layout.font.size == FONT_SIZE and large.layout.font.size == step_charts.LARGE_FONT
    assert (small.layout.height, large.layout.height) == (step_charts.HEIGHT, step_charts.LARGE_HEIGHT)
    assert large.layout.margin.l > small.layout.margin.l and large.layout.margin.b > small.layout.margin.b


@pytest.mark.parametrize("role", ["drafted", "accepted", "rejected", "resampled", "bonus"])
def test_word_bars_colour_the_drawn_word_by_its_role_alone(role):
    fig = charts.word_bars(WORDS, np.full(4, 0.25), 1, "q", "t", role=role)
    (note,) = fig.layout.annotations
    assert note.font.color == ROLE_COLOURS[role]
    assert [c == ROLE_COLOURS[role] for c in _trace(fig, "q").marker.color] == [False, True, False, False]
    assert not set(fig.data[0].marker.color) & (set(ROLE_COLOURS.values()) - {ROLE_COLOURS[role]})


def test_each_role_has_its_own_colour():
    assert len(set(ROLE_COLOURS.values())) == len(ROLE_COLOURS)
    assert step_charts.PLAIN_COLOUR not in ROLE_COLOURS.values()


def _luminance(colour: str) -> float:
    """WCAG 2 relative luminance of a ``#RRGGBB`` colour (WCAG 2.2, "relative luminance")."""
    channels = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)]) / 255
    linear = np.where(channels <= 0.04045, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)
    return float(linear @ [0.2126, 0.7152, 0.0722])


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio (L1 + 0.05) / (L2 + 0.05), the lighter over the darker."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_contrast_helper_matches_wcag_reference_values():
    assert contrast("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)  # the well-known just-failing grey


@pytest.mark.parametrize("role", sorted(ROLE_COLOURS))
def test_every_role_colour_reads_as_text_on_the_chart_background(role):
    fig = charts.word_bars(WORDS, np.full(4, 0.25), 0, "q", "t")
    background = fig.layout.template.layout.plot_bgcolor
    assert background.lower() in ("white", "#ffffff")
    assert contrast(ROLE_COLOURS[role], "#FFFFFF") >= 4.5  # WCAG 2 1.4.3, normal text


def test_block_checks_draw_the_stopping_chances_and_the_uniforms_eta():
    h, eta = np.array([0.7, 0.2]), np.array([0.1, 0.5])
    fig = charts.acceptance_checks(["1 · cat", "2 · sat"], h, eta, "Checks", verification="block")
    np.testing.assert_array_equal(_trace(fig, "keeps the prefix: η < h").x, h)
    np.testing.assert_array_equal(_trace(fig, "does not stop here").x, 1 - h)
    np.testing.assert_array_equal(_trace(fig, "uniform η").x, eta)
    assert fig.layout.xaxis.title.text == "η ~ uniform on [0, 1]"
