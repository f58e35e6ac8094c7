"""The Step through page under AppTest: every step shows the numbers of the iteration that
``specmath.speculative_iteration`` runs with the page's arguments; Next, Back and the step slider
move the step and the address; a link's step out of range warns and the nearest step is shown."""

import numpy as np
import pytest
import streamlit as st

import specmath
from dashboard import charts
from dashboard import toy_language as tl
from dashboard.charts.step_through import LARGE_FONT
from dashboard.features import step_through, step_views
from dashboard.params import PARAMS
from tests.app_helpers import metrics, open_page, page_charts, switch, trace, values, warnings

STEP = "step_through"
DRAFTS = {"noise": specmath.draft_by_noise, "temperature": specmath.draft_by_temperature}


def _iteration(k=8, kind="noise", strength=0.3, seed=42, greedy=False, proposal="sampled", verification="token"):
    """The page's iteration, run here: the opening's last word, then ``speculative_iteration``;
    a greedy proposal is the draft's rows as point masses on their argmax (ties to the lowest
    index, as specmath's ``"greedy_draft"`` rule)."""
    target = tl.target_chain()
    draft = specmath.draft_by_merging(target, strength) if kind == "merged" else DRAFTS[kind](target, strength)
    if proposal == "greedy_draft":
        draft = np.eye(tl.V)[np.argmax(draft, axis=1)]
    rng = np.random.default_rng([seed, 1])
    word = tl.PERIOD
    for _ in range(3):
        word = int(rng.choice(tl.V, p=target[word]))
    return specmath.speculative_iteration(target, draft, word, k, rng=seed, greedy=greedy, verification=verification)


def _chart(at) -> dict:
    (figure,) = page_charts(at)
    return figure


def _heading(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("#### Step "))


def assert_shows(at, step: int, it: specmath.iteration.IterationTrace, proposed_from: np.ndarray | None = None) -> None:
    """The page shows step ``step`` of the iteration ``it``, with its numbers; ``proposed_from``
    are a greedy draft's own rows q at each position, whose argmax it proposed (``it.q`` are then
    point masses)."""
    k = it.k
    figure = _chart(at)
    assert _heading(at).startswith(f"#### Step {step} of {2 * k + 3} · ")
    assert at.slider(key="step_slider").value == step
    if step <= k:
        i = step - 1
        bars = trace(figure, "draft q")
        np.testing.assert_array_equal(values(bars["x"]), it.q[i] if proposed_from is None else proposed_from[i])
        assert bars["y"] == list(tl.WORDS)
        assert f"drawn “{tl.WORDS[int(it.drafted[i])]}”" in figure["layout"]["title"]["text"]
    elif step == k + 1:
        positions = np.arange(k)
        np.testing.assert_array_equal(values(trace(figure, "draft q(xᵢ)")["y"]), it.q[positions, it.drafted])
        np.testing.assert_array_equal(values(trace(figure, "target p(xᵢ)")["y"]), it.p[positions, it.drafted])
    elif step <= 2 * k + 1 and it.verification == "block":
        j = step - k - 2
        np.testing.assert_array_equal(values(trace(figure, "keeps the prefix: η < h")["x"]), it.block_stop[: j + 1])
        np.testing.assert_array_equal(values(trace(figure, "uniform η")["x"]), it.u[: j + 1])
        assert metrics(at)["weight w"] == f"{it.block_weight[j]:.3f}"
    elif step <= 2 * k + 1:
        j = step - k - 2
        rows = np.arange(min(j, it.first_rejection) + 1)
        accept_name = "accepted: the target's most likely word" if it.greedy else "accepts: u < min(1, p/q)"
        accept = it.accepted[rows].astype(float) if it.greedy else np.minimum(1, it.ratio[rows])
        np.testing.assert_array_equal(values(trace(figure, accept_name)["x"]), accept)
        if not it.greedy:
            np.testing.assert_array_equal(values(trace(figure, "uniform u")["x"]), it.u[rows])
        if j <= it.first_rejection and not it.greedy:
            word = int(it.drafted[j])
            assert metrics(at) == {
                "p(word)": f"{it.p[j, word]:.3f}",
                "q(word)": f"{it.q[j, word]:.3f}",
                "p/q": f"{it.ratio[j]:.3f}",
                "u": f"{it.u[j]:.3f}",
                "Verdict": "accepted" if it.accepted[j] else "rejected",
            }
    elif step == 2 * k + 2:
        if it.all_accepted:
            np.testing.assert_array_equal(values(trace(figure, "target p")["x"]), it.bonus_row)
        else:
            np.testing.assert_array_equal(values(trace(figure, "residual r")["x"]), it.residual)
            np.testing.assert_array_equal(values(trace(figure, "target p")["x"]), it.p[it.first_rejection])
            np.testing.assert_array_equal(values(trace(figure, "draft q")["x"]), it.q[it.first_rejection])
    else:
        words = [tl.WORDS[int(t)] for t in it.emitted]
        assert trace(figure, "target step")["text"] == words
        assert metrics(at)["Words emitted"] == str(it.emitted.size)


def test_the_page_opens_at_the_first_draft_word():
    at = open_page(STEP)
    assert not at.exception and not warnings(at) and not at.info
    assert_shows(at, 1, _iteration())
    assert dict(at.query_params) == {}
    assert _heading(at) == "#### Step 1 of 19 · the draft proposes word 1 of 8"
    assert any(m.value == "#### … a small **dog** " + step_views.styled("current", "slept") for m in at.markdown)
    assert any(c.value.startswith("Steps 1–8: the draft proposes 8 words") for c in at.caption)
    assert at.button(key="step_back").disabled and not at.button(key="step_next").disabled


def test_every_step_shows_the_iterations_numbers():
    """One session walks all 19 steps with the step slider, the never-checked ones too."""
    it = _iteration()
    at = open_page(STEP)
    outline = step_through.outline(it.k)
    for step in range(1, 20):
        at.slider(key="step_slider").set_value(step).run()
        assert not at.exception and not warnings(at)
        assert_shows(at, step, it)
        assert at.query_params.get("step") == (None if step == 1 else str(step))
        assert [c.value for c in at.caption if c.value.startswith("Step")] == [outline]
        if step == 19:  # the outcome: 1 target step and 8 draft steps of 1/20, for the words emitted
            n = it.emitted.size
            assert metrics(at) == {
                "Words emitted": str(n),
                "Time, speculative": "1.4 target steps",
                "Time, one word a step": f"{n} target steps",
                "This iteration": f"{n / 1.4:.2f}× as fast",
            }
        elif not 10 <= step <= 10 + it.first_rejection:  # a check that happened shows its numbers (above)
            assert metrics(at) == {}, step


def test_next_and_back_move_the_step_and_the_address():
    it = _iteration()
    assert it.first_rejection == 2, "the default iteration rejects its third word"
    at = open_page(STEP)
    visited = []
    while not at.button(key="step_next").disabled:
        at.button(key="step_next").click().run()
        visited.append(int(at.query_params["step"]))
        assert_shows(at, visited[-1], it)
    # The checks of positions 4 to 8 (steps 13-17) never happen: Next goes on to the correction.
    assert visited == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 18, 19]
    at.button(key="step_back").click().run()
    at.button(key="step_back").click().run()
    assert at.query_params["step"] == "12"
    assert_shows(at, 12, it)
    for _ in range(11):
        at.button(key="step_back").click().run()
    assert dict(at.query_params) == {} and at.button(key="step_back").disabled
    assert_shows(at, 1, it)


def test_the_step_slider_jumps_to_a_step():
    at = open_page(STEP)
    at.slider(key="step_slider").set_value(11).run()
    assert at.query_params["step"] == "11"
    assert_shows(at, 11, _iteration())
    at.slider(key="step_slider").set_value(1).run()
    assert "step" not in at.query_params


@pytest.mark.parametrize("step", [1, 10, 18, 19])
def test_greedy_decoding_is_the_argmax_iteration(step):
    at = open_page(STEP, step=str(step))
    at.toggle(key="greedy").set_value(True).run()
    it = _iteration(greedy=True)
    assert it.all_accepted, "the noisy draft keeps the target's most likely words"
    assert_shows(at, step, it)
    if step == 10:
        best = tl.WORDS[int(np.argmax(it.p[0]))]
        assert metrics(at) == {
            "Drafted": tl.WORDS[int(it.drafted[0])],
            "Target's most likely": best,
            "Verdict": "accepted",
        }


@pytest.mark.parametrize(
    ("query", "settings"),
    [
        (
            {"step_draft": "temperature", "step_temperature": "0.5", "step": "12"},
            {"kind": "temperature", "strength": 0.5},
        ),
        ({"step_draft": "merged", "step_contexts": "2", "step": "11"}, {"kind": "merged", "strength": 2}),
        ({"step_noise": "0.9", "seed": "7", "k": "3", "c": "5", "step": "9"}, {"strength": 0.9, "seed": 7, "k": 3}),
    ],
)
def test_the_links_settings_make_the_iteration(query, settings):
    at = open_page(STEP, **query)
    assert not warnings(at)
    assert_shows(at, int(query["step"]), _iteration(**settings))


def test_the_outcome_times_the_words_at_the_users_c():
    at = open_page(STEP, step="19", c="5")
    it = _iteration()
    n = it.emitted.size
    assert metrics(at) == {
        "Words emitted": str(n),
        "Time, speculative": "2.6 target steps",
        "Time, one word a step": f"{n} target steps",
        "This iteration": f"{n / 2.6:.2f}× as fast",
    }
    figure = _chart(at)
    drafts = trace(figure, "draft step (1/c = 0.2)")
    np.testing.assert_allclose(values(drafts["base"]), np.arange(8) / 5)
    assert drafts["customdata"] == [tl.WORDS[int(t)] for t in it.drafted]


@pytest.mark.parametrize(
    ("query", "shown", "message"),
    [
        ({"step": "15", "k": "3"}, 9, "`step` = ` 15 ` is outside 1 to 9; using step 9 of 9 (k = 3)."),
        ({"step": "191"}, 19, "`step` = ` 191 ` is outside 1 to 19; using step 19 of 19 (k = 8)."),
        ({"step": "0"}, 1, "`step` = ` 0 ` is outside 1 to 19; using step 1 of 19 (k = 8)."),
        ({"step": "abc"}, 1, "`step` = ` abc ` is not a number; using step 1 of 19 (k = 8)."),
        ({"step": "12.5"}, 12, "`step` = ` 12.5 ` is not a whole number; using step 12 of 19 (k = 8)."),
        ({"step": ["3", "4"]}, 4, "`step` appears 2 times in the link (` 3,4 `); using step 4 of 19 (k = 8)."),
    ],
)
def test_a_links_step_out_of_range_warns_and_the_nearest_step_is_shown(query, shown, message):
    at = open_page(STEP, **query)
    assert not at.exception
    assert warnings(at) == [message]
    assert_shows(at, shown, _iteration(k=int(query.get("k", 8))))
    # The address holds the step shown: a copied link shows this view, without the warning.
    assert at.query_params.get("step") == (None if shown == 1 else str(shown))


def test_shortening_k_keeps_the_nearest_step_with_a_note():
    at = open_page(STEP, step="19")
    at.slider(key="k").set_value(3).run()
    assert not warnings(at)
    assert [i.value for i in at.info] == ["k = 3 has 9 steps: showing step 9, its last."]
    assert at.query_params["step"] == "9"
    assert_shows(at, 9, _iteration(k=3))


def test_a_long_shared_k_is_stepped_through_eight_words_at_a_time():
    at = open_page(STEP, k="20", step="17")
    assert not warnings(at)
    (note,) = [i.value for i in at.info]
    assert "The shared draft length is k = 20; this page steps through at most 8" in note
    assert_shows(at, 17, _iteration(k=8))
    assert at.slider(key="k").value == 20
    switch(at, "speedup").run()
    assert at.slider(key="k").value == 20  # the other pages keep the shared k


def test_presenter_mode_enlarges_the_type_and_the_buttons():
    at = open_page(STEP)
    assert not [h for h in at.get("html") if "st-key-step_next" in h.proto.body and "<style" in h.proto.body]
    assert _chart(at)["layout"]["font"]["size"] == charts.style.FONT_SIZE
    at.toggle(key="presenter").set_value(True).run()
    (css,) = [h.proto.body for h in at.get("html") if "st-key-step_next" in h.proto.body and "<style" in h.proto.body]
    assert "min-height: 4rem" in css and "<script" not in css  # big buttons, by CSS alone
    figure = _chart(at)
    assert figure["layout"]["font"]["size"] == LARGE_FONT
    # The draft's most likely words and the word drawn, each with its q; the rest summed.
    it = _iteration()
    bars = trace(figure, "draft q")
    *words, rest = bars["y"]
    shown = [tl.WORDS.index(word) for word in words]
    assert int(it.drafted[0]) in shown and rest == f"{tl.V - len(shown)} other words"
    q = values(bars["x"])
    np.testing.assert_array_equal(q[:-1], it.q[0][shown])
    assert q[-1] == pytest.approx(1 - it.q[0][shown].sum())
    # The numbering and the page's explanation open from a button, off the slide.
    assert any(c.value == step_through.outline(8) for c in at.caption)


def test_presenter_mode_collapses_the_sidebar(monkeypatch):
    """The page calls ``st.set_page_config`` after the router: its sidebar state is the last one set."""
    states = []
    set_page_config = st.set_page_config

    def recorded(**config):
        states.append(config.get("initial_sidebar_state"))
        set_page_config(**config)

    monkeypatch.setattr(st, "set_page_config", recorded)
    open_page(STEP, presenter="true")
    assert states[-2:] == ["expanded", "collapsed"]
    open_page(STEP)
    assert states[-1] == "expanded"


def test_the_step_parameter_is_described_by_the_table():
    param = PARAMS["step"]
    assert (param.low, param.high, param.default) == (1, 19, 1)
    at = open_page(STEP)
    assert at.slider(key="step_slider").label == param.label


def test_the_page_runs_the_clickers_key_script():
    """The keys' script (``dashboard/js/step_keys.js``) goes out as it is, allowed to run; its
    behaviour is tested in the browser (tests/browser/test_step_keys.py)."""
    at = open_page(STEP)
    (script,) = [h.proto for h in at.get("html") if 'id="sde-step-keys"' in h.proto.body]
    assert script.unsafe_allow_javascript
    assert step_through.KEYS_JS.read_text(encoding="utf-8") in script.body


@pytest.mark.parametrize("proposal", ["sampled", "greedy_draft"])
@pytest.mark.parametrize("verification", ["token", "block"])
def test_the_pages_iteration_is_specmaths_under_each_proposal_and_verification(proposal, verification):
    """Every step the page stops at shows the numbers of the iteration specmath runs on the same
    inputs, and the outcome emits its words."""
    it = _iteration(proposal=proposal, verification=verification)
    own = None
    if proposal == "greedy_draft":
        contexts = np.append(tl.opening(42)[-1], it.drafted[:-1])
        own = specmath.draft_by_noise(tl.target_chain(), 0.3)[contexts]
        np.testing.assert_array_equal(it.drafted, np.argmax(own, axis=1))
    query = {"step_proposal": proposal, "step_verification": verification}
    at = open_page(STEP, **{key: value for key, value in query.items() if value != PARAMS[key].default})
    assert not at.exception and not warnings(at)
    visited = [1]
    assert_shows(at, 1, it, own)
    while not at.button(key="step_next").disabled:
        at.button(key="step_next").click().run()
        visited.append(int(at.query_params["step"]))
        assert_shows(at, visited[-1], it, own)
    checks = range(10, 18) if verification == "block" else range(10, 10 + min(it.first_rejection + 1, 8))
    assert visited == [*range(1, 10), *checks, 18, 19]
    assert metrics(at)["Words emitted"] == str(it.emitted.size)
    assert _chart(at)["data"][2]["text"] == [tl.WORDS[int(t)] for t in it.emitted]


def test_block_verification_and_a_greedy_draft_are_chosen_in_the_sidebar():
    at = open_page(STEP, step="19")
    at.radio(key="step_verification").set_value("block").run()
    at.radio(key="step_proposal").set_value("greedy_draft").run()
    assert not at.exception and not warnings(at)
    assert_shows(at, 19, _iteration(proposal="greedy_draft", verification="block"))
    assert any("the kept prefix decided after the last" in c.value for c in at.caption)


def test_greedy_decoding_hides_the_proposal_and_the_verification():
    """At temperature 0 the draft proposes its argmax and block keeps what token keeps: no choice."""
    at = open_page(STEP, step="19", step_verification="block")
    assert [r.key for r in at.radio] == ["step_proposal", "step_verification"]
    at.toggle(key="greedy").set_value(True).run()
    assert not at.radio and not warnings(at)
    assert_shows(at, 19, _iteration(greedy=True))


def test_an_old_links_greedy_proposal_gets_the_bad_link_warning_and_the_sampled_draft():
    """Before the one vocabulary a greedy draft was ``step_proposal=greedy``; greedy is now decoding only."""
    at = open_page(STEP, step_proposal="greedy")
    assert not at.exception
    messages = warnings(at)
    assert any("step_proposal" in w and "sampled, greedy_draft" in w for w in messages), messages
    assert at.radio(key="step_proposal").value == "sampled"
