"""The Exercises page under AppTest: every exercise shown with its question, a link built from the
registry that opens its page with its settings and without a warning, and its answer behind a click;
and what each answer says of the linked view holds on that view."""

from urllib.parse import parse_qs

import numpy as np
import pytest

from dashboard.features.exercises import BY_ID, EXERCISES, vllm_rate
from dashboard.params import PARAMS
from dashboard.registry import PAGES
from tests.app_helpers import metrics, open_page, page_charts, trace, values, warnings

EXERCISES_PAGE = "exercises"


@pytest.fixture(scope="module")
def shown():
    at = open_page(EXERCISES_PAGE)
    assert not at.exception and not warnings(at)
    return at


def _links(at) -> list:
    return [link.proto for link in at.main.get("page_link")]


def test_every_exercise_has_its_question_link_and_answer(shown):
    texts = [m.value for m in shown.markdown]
    for number, exercise in enumerate(EXERCISES, start=1):
        assert f"#### {number}. {exercise.title}" in texts
        assert exercise.question_text() in texts
    links = _links(shown)
    assert [link.page for link in links] == [e.info.url_path for e in EXERCISES]
    assert [link.label for link in links] == [f"Open {e.info.title}" for e in EXERCISES]
    assert [parse_qs(link.query_string) for link in links] == [
        {key: [value] for key, value in e.query().items()} for e in EXERCISES
    ]
    # Each answer behind a click, in an expander of its own, closed.
    answers = shown.main.expander  # the sidebar's list of pages is one too
    assert [e.label for e in answers] == ["Answer"] * len(EXERCISES)
    assert not any(e.proto.expanded for e in answers)
    for expander, exercise in zip(answers, EXERCISES, strict=True):
        assert [m.value for m in expander.markdown] == [exercise.answer_text()]


def _widget_value(at, key):
    param = PARAMS[key]
    widget = next(w for w in at.get(param.widget_type) if w.key == key)
    return widget.value


@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.id for e in EXERCISES])
def test_every_link_opens_its_page_with_its_settings_and_no_warning(exercise, shown):
    (link,) = [
        link for link in _links(shown) if parse_qs(link.query_string) == {k: [v] for k, v in exercise.query().items()}
    ]
    at = open_page(exercise.page, **{key: value[-1] for key, value in parse_qs(link.query_string).items()})
    assert not at.exception
    assert warnings(at) == []
    assert at.title[0].value.endswith(PAGES[exercise.page].title)
    for key, value in exercise.settings.items():
        assert _widget_value(at, key) == value, key


# --- What the answers say of the linked views ----------------------------------------------


def _open(exercise_id):
    exercise = BY_ID[exercise_id]
    return open_page(exercise.page, **exercise.query())


def test_long_draft_view_shows_the_answers_numbers():
    at = _open("long_draft")
    m = metrics(at)
    assert m["Speedup at k = 10"] == "2.87×"
    assert m["Best k for α = 0.95, c = 5"] == "10 → 2.87×"
    assert "**2.87×**" in BY_ID["long_draft"].answer_text()


def test_draft_is_target_view_accepts_everything():
    at = _open("draft_is_target")
    m = metrics(at)
    assert m["Tokens per call, measured"] == "9.000"
    assert m["Per-token acceptance"] == "1.000"
    assert m["Speedup at c = 20, measured"] == "6.43×"
    answer = BY_ID["draft_is_target"].answer_text()
    assert "**9.000 tokens per target call**" in answer and "**6.43×**" in answer


def test_slower_than_plain_view_says_it_does_not_pay():
    at = _open("slower_than_plain")
    m = metrics(at)
    assert m["Optimal k at α = 0.3, c = 2"] == "1"
    assert m["Its speedup"] == "0.87×"
    assert m["Speculation pays here?"] == "no: plain decoding is faster"
    assert len(page_charts(at)) == 1  # the best-speedup map alone


def test_vllm_average_view_has_a_flat_conditional_and_a_falling_unconditional_rate():
    at = _open("vllm_average")
    answer = BY_ID["vllm_average"].answer_text()
    alpha = float(answer.split("α = ")[-1].split(" on average")[0])
    m = metrics(at)
    assert float(m["Per-token acceptance"]) == pytest.approx(alpha, abs=0.01)
    (by_position,) = [f for f in page_charts(at) if any(t.get("name") == "conditional P(i | i − 1)" for t in f["data"])]
    conditional = values(trace(by_position, "conditional P(i | i − 1)")["y"])
    unconditional = values(trace(by_position, "unconditional P(≥ i accepted)")["y"])
    assert np.ptp(conditional) < 0.03  # per checked position: about α at every i
    assert np.all(np.diff(unconditional) < 0)  # reaching position i: falls with i
    # vLLM's average over the k = 8 positions is the mean of the unconditional rates: near the
    # i.i.d. figure the answer quotes (acceptance varies a little from context to context).
    assert unconditional.mean() == pytest.approx(vllm_rate(alpha, 8), abs=0.02)
    assert f"k = 8: {vllm_rate(alpha, 8):.2f}" in answer


def test_rejections_view_observes_the_answers_acceptance():
    at = _open("rejections")
    m = metrics(at)
    assert m["α = Σ min(p, q)"] == "0.8500"
    assert abs(float(m["Observed acceptance rate"]) - 0.85) < 4 * 0.00036
    assert "0.00036" in BY_ID["rejections"].answer_text()


def test_kl_floor_view_draws_the_answers_pairs_on_a_log_axis():
    at = _open("kl_floor")
    assert at.toggle(key="logx").value is True
    (figure,) = page_charts(at)
    assert figure["layout"]["xaxis"]["type"] == "log"


def _tokens_per_iteration(at) -> dict[str, float]:
    (table,) = [d.value for d in at.dataframe if "tokens per iteration" in d.value.columns]
    return dict(zip(table["rule"], table["tokens per iteration"], strict=True))


def test_greedy_draft_view_shows_the_answers_tokens_per_iteration_and_alphas():
    at = _open("greedy_draft")
    rows = _tokens_per_iteration(at)
    answer = BY_ID["greedy_draft"].answer_text()
    assert f"{rows['rejection sampling']:.2f} tokens per iteration" in answer
    assert f"{rows['greedy draft']:.2f} tokens per iteration" in answer
    # Each rule's α as the answer prints it, a number on the page beside the bars.
    shown = metrics(at)
    assert f"= **{shown['α, greedy draft']}**: the target's probability" in answer
    assert f"1 − TV(p, q) = **{shown['α, rejection sampling']}**" in answer


def test_block_against_token_view_shows_the_ninths():
    at = _open("block_against_token")
    rows = _tokens_per_iteration(at)
    assert rows["rejection sampling"] == pytest.approx(1 + 10 / 9)
    assert rows["block verification"] == pytest.approx(1 + 11 / 9)
