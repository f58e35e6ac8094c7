"""The Simulator page under AppTest, and its pure pieces."""

import numpy as np
import pytest

import specmath
from dashboard import limits
from dashboard.features import simulator
from tests.app_helpers import metrics, open_page, page_charts, trace, values, warnings

SIMULATOR = "simulator"


def _chains(target: str, draft: str, strength: float, vocab: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The page's seeded target chain and its draft, from specmath's builders."""
    if target == "regimes":
        chain = specmath.two_regime_transition_matrix(vocab, rng=seed)
    else:
        chain = specmath.random_transition_matrix(vocab, 0.5, rng=seed)
    builders = {
        "merged": lambda: specmath.draft_by_merging(chain, min(int(strength), vocab)),
        "temperature": lambda: specmath.draft_by_temperature(chain, strength),
        "noise": lambda: specmath.draft_by_noise(chain, strength),
    }
    return chain, builders[draft]()


def _run(target="regimes", draft="merged", strength=2.0, vocab=8, k=8, tokens=100_000, seed=42):
    chain, draft_chain = _chains(target, draft, strength, vocab, seed)
    records = specmath.speculative_decode(
        chain, draft_chain, k, simulator.SEQUENCE_LENGTH, rng=seed, n_sequences=tokens // simulator.SEQUENCE_LENGTH
    )
    return records, specmath.decode_summary(records)


def test_simulator_defaults_show_the_run():
    at = open_page(SIMULATOR)
    assert not at.exception and not warnings(at)
    records, summary = _run()
    m = metrics(at)
    assert m["Tokens per call, measured"] == f"{summary.tokens_per_call:.3f}"
    assert m["Tokens per call, closed form"] == f"{specmath.expected_tokens(summary.acceptance_rate, 8):.3f}"
    assert m["α fitted from mean length"] == f"{summary.alpha_fit:.3f}"
    assert m["Speedup at c = 20, measured"] == f"{summary.tokens_per_call / 1.4:.2f}×"
    histogram, positions = page_charts(at)
    measured = values(trace(histogram, "measured")["y"])
    np.testing.assert_allclose(measured, np.bincount(records.emitted, minlength=10)[1:] / records.emitted.size)
    law = values(trace(histogram, f"i.i.d. law at fitted α = {summary.alpha_fit:.3f}")["y"])
    np.testing.assert_allclose(law, specmath.tokens_per_iteration_pmf(summary.alpha_fit, 8))
    np.testing.assert_allclose(values(trace(positions, "unconditional P(≥ i accepted)")["y"]), summary.unconditional)
    np.testing.assert_allclose(values(trace(positions, "conditional P(i | i − 1)")["y"]), summary.conditional)
    position = np.arange(1, 9)
    np.testing.assert_allclose(values(trace(positions, "i.i.d.: α^i")["y"]), summary.alpha_fit**position)
    np.testing.assert_allclose(values(trace(positions, "i.i.d.: α")["y"]), np.full(8, summary.alpha_fit))


@pytest.mark.parametrize(
    ("widget", "key", "value"),
    [
        ("selectbox", "target", "random"),
        ("slider", "chain_vocab", 5),
        ("slider", "k", 3),
        ("select_slider", "tokens", 10_000),
        ("number_input", "seed", 7),
    ],
)
def test_simulator_widgets_change_the_run(widget, key, value):
    at = open_page(SIMULATOR)
    getattr(at, widget)(key=key).set_value(value).run()
    assert not at.exception
    settings = {"target": "regimes", "vocab": 8, "k": 8, "tokens": 100_000, "seed": 42}
    settings |= {{"chain_vocab": "vocab"}.get(key, key): value}
    _, summary = _run(**settings)
    assert metrics(at)["Tokens per call, measured"] == f"{summary.tokens_per_call:.3f}"


@pytest.mark.parametrize(
    ("query", "strength"),
    [({"draft": "temperature", "temperature": "3"}, 3.0), ({"draft": "noise", "noise": "0.5"}, 0.5)],
)
def test_simulator_draft_kinds_from_the_link(query, strength):
    at = open_page(SIMULATOR, **query)
    assert not warnings(at)
    _, summary = _run(draft=query["draft"], strength=strength)
    assert metrics(at)["Per-token acceptance"] == f"{summary.acceptance_rate:.3f}"


def test_simulator_identical_draft_accepts_everything():
    # As many contexts as tokens: the merged draft is the target itself.
    at = open_page(SIMULATOR, contexts="8", k="4")
    m = metrics(at)
    assert m["Tokens per call, measured"] == "5.000"
    assert m["Per-token acceptance"] == "1.000"
    assert m["α fitted from mean length"] == "1.000"


@pytest.mark.parametrize(("key", "raw"), [("draft", "oracle"), ("chain_vocab", "99"), ("tokens", "1e9"), ("k", "abc")])
def test_simulator_bad_links_warn(key, raw):
    at = open_page(SIMULATOR, **{key: raw})
    assert not at.exception
    assert any(f"`{key}" in w for w in warnings(at))
    assert len(page_charts(at)) == 2


def test_coloured_sample_marks_every_kind():
    tokens = np.array([0, 1, 2, 1, 0])
    kinds = np.array(
        [
            specmath.decode.START,
            specmath.decode.ACCEPTED,
            specmath.decode.RESAMPLED,
            specmath.decode.ACCEPTED,
            specmath.decode.BONUS,
        ]
    )
    text = simulator.coloured_sample(tokens, kinds, simulator.token_letters(3))
    assert text == (":gray[**a**] :gray[|] :blue[**b**] :orange[**c**] :gray[|] :blue[**b**] :green[**a**] :gray[|]")
    # A run of one kind is one span; an iteration's end still closes it.
    kinds = np.array([specmath.decode.START, *[specmath.decode.ACCEPTED] * 3, specmath.decode.BONUS])
    text = simulator.coloured_sample(tokens, kinds, simulator.token_letters(3))
    assert text == ":gray[**a**] :gray[|] :blue[**b c b**] :green[**a**] :gray[|]"


def test_a_link_past_the_work_cap_runs_the_capped_amount_and_says_so():
    at = open_page(SIMULATOR, tokens="1M", k="64")
    assert not at.exception
    (note,) = [i.value for i in at.info]
    used = limits.simulator_tokens(1_000_000, 64, simulator.SEQUENCE_LENGTH).value
    assert f"Generated {used:,} of the 1,000,000 tokens" in note
    _, summary = _run(k=64, tokens=used)
    assert metrics(at)["Tokens per call, measured"] == f"{summary.tokens_per_call:.3f}"


def test_a_token_count_written_as_a_plain_number_names_the_count_used():
    """Issue 30: ?tokens=300000 is not how a link writes 300k; the warning names what runs instead."""
    at = open_page(SIMULATOR, tokens="300000")
    assert not at.exception
    assert warnings(at) == ["`tokens` = ` 300000 ` is written 300k in a link; using 100k."]
    assert metrics(at)  # the default run, drawn
