"""What each step of the Step through page shows, built from one iteration's trace."""

import numpy as np
import pytest

import specmath
from dashboard import toy_language as tl
from dashboard.charts import ROLE_COLOURS
from dashboard.features import step_through, step_views
from dashboard.toy_language import WORDS


def _trace(kind="noise", strength=0.3, seed=42, k=8, greedy=False):
    opening = tl.opening(seed)
    trace = specmath.speculative_iteration(
        tl.target_chain(), tl.draft_chain(kind, strength), int(opening[-1]), k, rng=seed, greedy=greedy
    )
    return trace, opening


@pytest.fixture(scope="module")
def rejected():
    trace, opening = _trace()
    assert 0 < trace.first_rejection < trace.k, "the default iteration rejects a word midway"
    return trace, opening


@pytest.fixture(scope="module")
def all_accepted():
    trace, opening = _trace(greedy=True)  # the noisy draft keeps the target's most likely words
    assert trace.all_accepted
    return trace, opening


def _colour(role: str) -> str:
    return f'{{foreground="{ROLE_COLOURS[role]}"}}'


def _bars(view):
    return view.figure.data[0]


def test_each_draft_step_shows_the_row_its_word_came_from(rejected):
    trace, opening = rejected
    for i in range(trace.k):
        view = step_views.build(trace, i + 1, opening, 20)
        np.testing.assert_array_equal(_bars(view).x, trace.q[i])
        word = int(trace.drafted[i])
        assert view.heading == f"Step {i + 1} of 19 · the draft proposes word {i + 1} of 8"
        assert f"“{WORDS[word]}”, q = {trace.q[i, word]:.3f}" in view.text
        assert view.sentence.endswith(step_views.styled("current", WORDS[word]))
        assert view.name == "draft"
    first = step_views.build(trace, 1, opening, 20)
    assert first.sentence == "… a small **dog** " + step_views.styled("current", "slept")
    assert "The draft has just read “dog”" in first.text


def test_the_score_step_shows_p_and_q_of_every_drafted_word(rejected):
    trace, opening = rejected
    view = step_views.build(trace, 9, opening, 20)
    positions = np.arange(trace.k)
    np.testing.assert_array_equal(view.figure.data[0].y, trace.q[positions, trace.drafted])
    np.testing.assert_array_equal(view.figure.data[1].y, trace.p[positions, trace.drafted])
    assert view.figure.data[0].x[0] == f"1<br>{WORDS[int(trace.drafted[0])]}"
    assert "all 9 positions at once" in view.heading


def test_each_check_shows_p_q_their_ratio_u_and_the_verdict(rejected):
    trace, opening = rejected
    for j in range(trace.first_rejection + 1):
        view = step_views.build(trace, 10 + j, opening, 20)
        rows = np.arange(j + 1)
        accepts, _, uniforms = view.figure.data
        np.testing.assert_array_equal(accepts.x, np.minimum(1, trace.ratio[rows]))
        np.testing.assert_array_equal(uniforms.x, trace.u[rows])
        word = int(trace.drafted[j])
        verdict = "accepted" if trace.accepted[j] else "rejected"
        assert dict(view.metrics) == {
            "p(word)": f"{trace.p[j, word]:.3f}",
            "q(word)": f"{trace.q[j, word]:.3f}",
            "p/q": f"{trace.ratio[j]:.3f}",
            "u": f"{trace.u[j]:.3f}",
            "Verdict": verdict,
        }
        assert f"**{verdict}**" in view.text


def test_a_check_after_the_rejection_says_it_never_happened(rejected):
    trace, opening = rejected
    j = trace.first_rejection + 1
    view = step_views.build(trace, 10 + j, opening, 20)
    assert f"Position {j + 1} is never checked" in view.text
    assert len(view.figure.data[0].y) == trace.first_rejection + 1  # the checks made, no more
    assert view.metrics == []


def test_the_correction_is_the_residual_at_the_rejected_position(rejected):
    trace, opening = rejected
    j = trace.first_rejection
    view = step_views.build(trace, 18, opening, 20)
    residual, p, q = view.figure.data
    np.testing.assert_array_equal(residual.x, trace.residual)
    np.testing.assert_array_equal(p.x, trace.p[j])
    np.testing.assert_array_equal(q.x, trace.q[j])
    np.testing.assert_allclose(trace.residual, specmath.residual_distribution(trace.p[j], trace.q[j]))
    token = trace.residual_token
    assert f"It draws “{WORDS[token]}” (r = {trace.residual[token]:.3f})" in view.text
    rejected_word = step_views.styled("rejected", WORDS[int(trace.drafted[j])])
    assert view.sentence.endswith(f"{rejected_word} {step_views.styled('resampled', WORDS[token])}")


def test_the_outcome_times_the_emitted_words(rejected):
    trace, opening = rejected
    view = step_views.build(trace, 19, opening, 20)
    n = trace.emitted.size
    assert dict(view.metrics) == {
        "Words emitted": str(n),
        "Time, speculative": "1.4 target steps",
        "Time, one word a step": f"{n} target steps",
        "This iteration": f"{n / 1.4:.2f}× as fast",
    }
    words = view.figure.data[2]
    assert list(words.text) == [WORDS[int(t)] for t in trace.emitted]
    assert view.sentence.count(_colour("accepted")) == n - 1 and view.sentence.count(_colour("resampled")) == 1


def test_all_accepted_ends_with_the_bonus_word(all_accepted):
    trace, opening = all_accepted
    bonus = step_views.build(trace, 18, opening, 20)
    np.testing.assert_array_equal(bonus.figure.data[0].x, trace.bonus_row)
    np.testing.assert_array_equal(trace.bonus_row, trace.p[-1])
    assert "all 8 accepted: the bonus word" in bonus.heading and "takes its most likely word" in bonus.text
    outcome = step_views.build(trace, 19, opening, 20)
    assert dict(outcome.metrics)["Words emitted"] == "9"
    assert outcome.sentence.count(_colour("accepted")) == 8 and outcome.sentence.count(_colour("bonus")) == 1


def test_greedy_checks_compare_with_the_targets_most_likely_word(all_accepted):
    trace, opening = all_accepted
    view = step_views.build(trace, 10, opening, 20)
    best = int(np.argmax(trace.p[0]))
    assert dict(view.metrics) == {
        "Drafted": WORDS[int(trace.drafted[0])],
        "Target's most likely": WORDS[best],
        "Verdict": "accepted",
    }
    assert [t.name for t in view.figure.data] == [
        "accepted: the target's most likely word",
        "rejected: not its most likely word",
    ]


def test_numbers_that_print_alike_are_printed_apart():
    assert step_views.apart(0.37121, 0.37124) == ("0.37121", "0.37124")
    assert step_views.apart(0.2, 0.9) == ("0.200", "0.900")


def test_every_step_builds_for_every_kind_of_draft():
    for kind, strength in (("noise", 1.0), ("temperature", 0.25), ("merged", 1), ("merged", 21)):
        for greedy in (False, True):
            for k in (1, 3):
                trace, opening = _trace(kind, strength, seed=3, k=k, greedy=greedy)
                for number in range(1, step_through.total_steps(k) + 1):
                    assert step_views.build(trace, number, opening, 1.25).figure.data


def _drawn_colour(view) -> str:
    (note,) = [a for a in view.figure.layout.annotations if a.text.startswith("← drawn")]
    return note.font.color


def test_each_drawn_word_takes_its_roles_colour_as_the_legend_names_it(rejected, all_accepted):
    """Step 1's drawn draft word is the draft's colour, not the residual's: one colour, one role."""
    steps = {"drafted": (rejected, 1), "resampled": (rejected, 18), "bonus": (all_accepted, 18)}
    for role, ((trace, opening), number) in steps.items():
        view = step_views.build(trace, number, opening, 20)
        assert _drawn_colour(view) == ROLE_COLOURS[role]
        assert ROLE_COLOURS[role] in view.figure.data[0].marker.color
    legend = dict(zip(step_views.LEGEND_ENTRIES, step_views.legend(), strict=True))
    assert legend["resampled"] == step_views.styled("resampled", "drawn from the residual")
    assert all(_colour(role) in line for role, line in legend.items())


# --- Greedy drafting and block verification ----------------------------------------------------


def _run(proposal="sampled", verification="token", **kwargs):
    settings = {"kind": "noise", "strength": 0.3, "k": 8, "seed": 42} | kwargs
    return step_through.run(
        settings["kind"], settings["strength"], settings["k"], settings["seed"],
        proposal=proposal, verification=verification,
    )  # fmt: skip


def test_a_greedy_draft_proposes_its_argmax_and_is_checked_as_a_point_mass():
    run = _run(proposal="greedy_draft")
    trace, draft = run.trace, run.draft_chain
    np.testing.assert_array_equal(draft, tl.draft_chain("noise", 0.3))
    contexts = np.append(run.opening[-1], trace.drafted[:-1])
    np.testing.assert_array_equal(trace.drafted, np.argmax(draft[contexts], axis=1))
    np.testing.assert_array_equal(trace.q, np.eye(tl.V)[trace.drafted])  # q = 1 on each drafted word
    # Accepted with probability min(1, p/1) = p(word): the check's stretch is p.
    j = trace.first_rejection
    assert 0 < j < trace.k, "this iteration rejects a word midway"
    view = step_views.build(trace, 10 + j, run.opening, 20, draft_chain=draft)
    np.testing.assert_array_equal(view.figure.data[0].x, trace.p[np.arange(j + 1), trace.drafted[: j + 1]])
    assert "the greedy draft proposed it as certain, q = 1" in view.text
    # The residual max(p − onehot, 0), normalized, is the target's row without the drafted word.
    finish = step_views.build(trace, 18, run.opening, 20, draft_chain=draft)
    without = trace.p[j] * (np.arange(tl.V) != trace.drafted[j])
    np.testing.assert_allclose(finish.figure.data[0].x, without / without.sum())
    # The draft step shows the draft's own q, whose most likely word it proposes.
    first = step_views.build(trace, 1, run.opening, 20, draft_chain=draft)
    np.testing.assert_array_equal(first.figure.data[0].x, draft[run.opening[-1]])
    assert "proposes its most likely word" in first.text and "q = 1" in first.text


def test_greedy_decoding_ignores_the_proposal():
    """At temperature 0 the draft already proposes its argmax: the iteration is greedy decoding's."""
    greedy = step_through.run("noise", 0.3, 8, 42, greedy=True, proposal="greedy_draft")
    assert greedy.draft_chain is None
    reference, _ = _trace(greedy=True)
    np.testing.assert_array_equal(greedy.trace.emitted, reference.emitted)


@pytest.fixture(scope="module")
def block():
    run = _run(proposal="greedy_draft", verification="block")
    trace = run.trace
    missed = trace.u[: trace.first_rejection] >= trace.block_stop[: trace.first_rejection]
    assert 0 < trace.first_rejection < trace.k and not missed.any()
    return run


def _block_weights(trace):
    """Sun et al.'s weights w_i = min(1, w_{i-1} p/q) along the drafted path, recomputed here."""
    weights, w = [], 1.0
    for ratio in trace.ratio:
        w = min(1.0, w * ratio)
        weights.append(w)
    return np.array(weights)


def test_every_block_check_shows_its_weight_stopping_chance_and_uniform(block):
    trace, opening = block.trace, block.opening
    weights = _block_weights(trace)
    np.testing.assert_allclose(trace.block_weight, weights)
    visited = [n for n in range(1, 20) if step_through.shown(n, 8, step_through.last_checked(trace))]
    assert visited == list(range(1, 20)), "block verification checks every position"
    for j in range(trace.k):
        view = step_views.build(trace, 10 + j, opening, 20, draft_chain=block.draft_chain)
        stretch, _, uniforms = view.figure.data
        np.testing.assert_array_equal(stretch.x, trace.block_stop[: j + 1])
        np.testing.assert_array_equal(uniforms.x, trace.u[: j + 1])
        assert (stretch.name, uniforms.name) == ("keeps the prefix: η < h", "uniform η")
        metrics = dict(view.metrics)
        assert metrics["weight w"] == f"{weights[j]:.3f}" and metrics["η"] == f"{trace.u[j]:.3f}"
        passed = np.flatnonzero(trace.u[: j + 1] < trace.block_stop[: j + 1])
        kept = passed[-1] + 1 if passed.size else 0
        assert metrics["Kept so far"] == f"{kept} of 8"
        if j < trace.k - 1:
            # h = m / (m + 1 − w), m the residual weight of the next position.
            m = np.maximum(weights[j] * trace.p[j + 1] - trace.q[j + 1], 0).sum()
            assert metrics["stop chance h"] == f"{m / (m + 1 - weights[j]):.3f}"
            assert view.sentence.count(_colour("rejected")) == 0, "nothing is rejected before the last check"
        else:
            assert metrics["stop chance h"] == f"{weights[-1]:.3f}"
            assert kept == trace.first_rejection
            assert view.sentence.count(_colour("rejected")) == trace.k - kept
            assert "That was the last check" in view.text
    assert "Sun et al. 2024, Algorithm 2" in view.text


def test_a_block_correction_draws_from_the_block_residual(block):
    trace, opening = block.trace, block.opening
    j = trace.first_rejection
    w = _block_weights(trace)[j - 1]
    view = step_views.build(trace, 18, opening, 20, draft_chain=block.draft_chain)
    excess = np.maximum(w * trace.p[j] - trace.q[j], 0)
    np.testing.assert_allclose(view.figure.data[0].x, excess / excess.sum())
    assert f"w = {w:.3f}" in view.text and f"Block verification kept {j} word" in view.text
    # Kept words, the rejected one, the correction: the words after it are not in the sentence.
    assert view.sentence.count(_colour("accepted")) == j and view.sentence.count(_colour("rejected")) == 1


def test_the_outline_says_block_verification_checks_every_position():
    assert "every position, the kept prefix decided after the last" in step_through.outline(8, block=True)
    assert "Next skips positions after a rejection" in step_through.outline(8)


def test_every_step_builds_under_each_proposal_and_verification():
    for proposal in ("sampled", "greedy_draft"):
        for verification in ("token", "block"):
            for kind, strength, k in (("noise", 1.0, 1), ("merged", 1, 3), ("temperature", 0.25, 8)):
                run = _run(proposal, verification, kind=kind, strength=strength, k=k, seed=3)
                for number in range(1, step_through.total_steps(k) + 1):
                    assert step_views.build(run.trace, number, run.opening, 1.25, draft_chain=run.draft_chain).text


def test_the_registered_block_view_keeps_four_words_where_token_verification_keeps_none():
    """The page reference's picture: seed 0, a greedy draft, step 13 (the check of position 4)."""
    block = step_through.run("noise", 0.3, 8, 0, proposal="greedy_draft", verification="block").trace
    token = step_through.run("noise", 0.3, 8, 0, proposal="greedy_draft", verification="token").trace
    np.testing.assert_array_equal(block.drafted, token.drafted)
    passed = block.u < block.block_stop
    assert passed[:4].tolist() == [False, False, False, True] and block.first_rejection == 4
    assert token.first_rejection == 0
