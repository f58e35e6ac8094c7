"""The Verification rules page under AppTest: its tables and charts at the presets and temperatures."""

import numpy as np
import pytest

import specmath
from dashboard import toy_language
from dashboard.features.verification_rules import LOGIT_PRESETS
from dashboard.params import PARAMS
from specmath.rules import RULES
from tests.app_helpers import metrics, open_page, page_charts, trace, values, warnings

PAGE = "verification"


def _table(at, index: int):
    return at.dataframe[index].value


def test_binary_preset_shows_the_papers_10_9_and_11_9_at_k_2():
    at = open_page(PAGE, vr_preset="binary", k="2")
    assert not at.exception
    speed = _table(at, 1).set_index("rule")
    # Tokens per iteration are 1 + accepted: 1 + 10/9 and 1 + 11/9.
    assert speed.loc["rejection sampling", "tokens per iteration"] == pytest.approx(19 / 9)
    assert speed.loc["block verification", "tokens per iteration"] == pytest.approx(20 / 9)
    block = page_charts(at)[3]
    assert values(trace(block, "block verification")["y"])[-1] == pytest.approx(11 / 9)
    assert values(trace(block, "token verification")["y"])[-1] == pytest.approx(10 / 9)


def test_at_temperature_zero_greedy_draft_accepts_as_rejection_sampling():
    """A one-hot draft: its argmax is what it samples, so both rules keep it with p(argmax q)."""
    at = open_page(PAGE, vr_preset="overconfident", vr_temperature="0")
    assert not at.exception and not warnings(at)
    bars = trace(page_charts(at)[0], "α")
    alpha = dict(zip(bars["x"], values(bars["y"]), strict=True))
    assert alpha["greedy draft"] == alpha["rejection sampling"]
    # Under the bars, their numbers.
    assert metrics(at) == {f"α, {rule}": f"{value:.3f}" for rule, value in alpha.items()}


def _laws(at, preset):
    """The law table by rule, p as the law chart drew it, and the draft's argmax (the same at every T > 0)."""
    p = values(trace(page_charts(at)[2], "target p")["y"])
    return _table(at, 0).set_index("rule"), p, int(np.argmax(LOGIT_PRESETS[preset][1]))


def test_at_the_defaults_lossless_rules_and_sglangs_thresholds_sit_on_p_and_the_point_masses_do_not():
    at = open_page(PAGE, vr_preset="close", vr_temperature="1")
    assert not at.exception
    laws, p, _ = _laws(at, "close")
    for rule in ("rejection sampling", "greedy draft", "exact match", "SGLang thresholds (1, 1)"):
        assert laws.loc[rule, "TV(law, p)"] < 1e-12, rule
    # Medusa's defaults and TensorRT-LLM's top-1 emit a point mass: TV = 1 - p(that token).
    assert laws.loc["typical (Medusa, ε 0.09, δ 0.3)", "TV(law, p)"] > 0.1
    assert laws.loc["TensorRT-LLM relaxed (top-1, Δ 0)", "TV(law, p)"] == pytest.approx(1 - p.max(), abs=1e-12)


def test_sglangs_threshold_acc_moves_the_law_off_p_by_its_formula():
    at = open_page(PAGE, vr_preset="close", vr_temperature="1", vr_threshold_acc="0.5")
    laws, p, star = _laws(at, "close")
    # Kept with a = min(1, p(x*)/0.5); the rest of p scaled down: TV = a - p(x*).
    keep = min(1.0, p[star] / 0.5)
    assert laws.loc["SGLang thresholds (1, 0.5)", "TV(law, p)"] == pytest.approx(keep - p[star], abs=1e-12)
    # p(x*) = 0.45 here: at or above threshold_single 0.4 the draft token is always kept.
    assert 0.4 <= p[star] < 0.5
    at = open_page(PAGE, vr_preset="close", vr_temperature="1", vr_threshold_single="0.4")
    laws, _, _ = _laws(at, "close")
    assert laws.loc["SGLang thresholds (0.4, 1)", "TV(law, p)"] == pytest.approx(1 - p[star], abs=1e-12)


def test_medusas_epsilon_and_delta_move_the_threshold_as_the_formula_says():
    for epsilon, delta in (("0", "0"), ("1", "1"), ("0.2", "0.9")):
        at = open_page(PAGE, vr_preset="overconfident", vr_temperature="1", vr_epsilon=epsilon, vr_delta=delta)
        laws, p, star = _laws(at, "overconfident")
        entropy = -(p * np.log(p)).sum()
        emitted = star if p[star] > min(float(epsilon), float(delta) * np.exp(-entropy)) else int(np.argmax(p))
        tv = laws.loc[f"typical (Medusa, ε {float(epsilon):g}, δ {float(delta):g})", "TV(law, p)"]
        assert tv == pytest.approx(1 - p[emitted], abs=1e-12), (epsilon, delta)


def test_trtllm_relaxed_keeps_the_draft_token_within_top_k_and_delta():
    at = open_page(PAGE, vr_preset="overconfident", vr_temperature="1", vr_relaxed_topk="5", vr_relaxed_delta="1")
    laws, p, star = _laws(at, "overconfident")
    assert laws.loc["TensorRT-LLM relaxed (top-5, Δ 1)", "TV(law, p)"] == pytest.approx(1 - p[star], abs=1e-12)
    # The binary pair has two tokens: a top-K of 10 is cut to V = 2.
    at = open_page(PAGE, vr_preset="binary", vr_relaxed_topk="10", vr_relaxed_delta="0.5")
    laws, p, _ = _laws(at, "binary")
    assert laws.loc["TensorRT-LLM relaxed (top-2, Δ 0.5)", "TV(law, p)"] == pytest.approx(2 / 3, abs=1e-12)


def test_toy_language_rows_at_a_temperature_are_the_rows_to_the_power_one_over_t():
    target = toy_language.target_chain()[toy_language.WORDS.index("cat")]
    draft = toy_language.draft_chain("noise", 0.3)[toy_language.WORDS.index("cat")]
    for temperature in (1.0, 0.5):
        at = open_page(PAGE, vr_preset="toy", vr_context="cat", vr_temperature=f"{temperature:g}")
        assert not at.exception and not warnings(at)
        p = values(trace(page_charts(at)[2], "target p")["y"])
        expected_p, expected_q = target ** (1 / temperature), draft ** (1 / temperature)
        expected_p, expected_q = expected_p / expected_p.sum(), expected_q / expected_q.sum()
        np.testing.assert_allclose(p, expected_p, rtol=1e-12)
        bars = trace(page_charts(at)[0], "α")
        alpha = dict(zip(bars["x"], values(bars["y"]), strict=True))
        assert alpha["rejection sampling"] == pytest.approx(np.minimum(expected_p, expected_q).sum(), rel=1e-12)


def test_block_verification_stops_at_the_enumeration_cap():
    at = open_page(PAGE, vr_preset="close", k="12")
    assert not at.exception
    # V = 5: 5**8 = 390,625 blocks fit under 10**6, 5**9 do not.
    assert any("stops at k = 8" in info.value for info in at.info)
    block = page_charts(at)[3]
    np.testing.assert_array_equal(values(trace(block, "block verification")["x"]), np.arange(1, 9))


def test_bad_typed_logits_warn_with_the_literal_text_and_fall_back():
    at = open_page(PAGE, vr_preset="typed", lp="1,**bold**", lq="0,1")
    assert not at.exception
    messages = warnings(at)
    # In a code span, so the Markdown shows the stars instead of bold text.
    assert any("` **bold** ` is not a number" in w and "binary preset instead" in w for w in messages), messages
    binary = page_charts(open_page(PAGE, vr_preset="binary"))
    assert [f["data"] for f in page_charts(at)] == [f["data"] for f in binary]  # the page runs on the binary pair


def test_typed_logits_are_used():
    at = open_page(PAGE, vr_preset="typed", lp="0,0,0", lq="5,0,0")
    assert not at.exception and not warnings(at)
    bars = trace(page_charts(at)[0], "α")
    alpha = dict(zip(bars["x"], values(bars["y"]), strict=True))
    assert alpha["greedy draft"] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("query", "preset", "temperature", "k", "lossy"),
    [
        ({}, "binary", float(PARAMS["vr_temperature"].default), int(PARAMS["k"].default), {}),
        (
            {"vr_preset": "close", "vr_temperature": "0.7", "k": "3", "vr_relaxed_topk": "3", "vr_epsilon": "0.2"},
            "close",
            0.7,
            3,
            {"relaxed_topk": 3, "epsilon": 0.2},
        ),
    ],
    ids=["defaults", "close-pair"],
)
def test_every_chart_is_specmaths_for_the_links_pair(query, preset, temperature, k, lossy):
    """α of each lossless rule; α of each against T over 0 … 2 in steps of 0.05; the first token's
    law under every rule beside p (the lossy ones at the link's settings, their defaults else); the
    accepted tokens of block and token verification over k."""
    at = open_page(PAGE, **query)
    assert not at.exception and not warnings(at)
    lossless = {name: rule for name, rule in RULES.items() if rule.lossless}
    logits = LOGIT_PRESETS[preset]
    p, q = (specmath.with_temperature(row, temperature) for row in logits)
    bars, lines, laws, block = page_charts(at)

    alphas = trace(bars, "α")
    assert list(alphas["x"]) == [rule.title for rule in lossless.values()]
    np.testing.assert_allclose(
        values(alphas["y"]), [specmath.acceptance_probability(p, q, name) for name in lossless], rtol=1e-12
    )

    grid = np.round(np.linspace(0.0, 2.0, 41), 2)
    P = np.stack([specmath.with_temperature(logits[0], t) for t in grid])
    Q = np.stack([specmath.with_temperature(logits[1], t) for t in grid])
    for name, rule in lossless.items():
        np.testing.assert_allclose(values(trace(lines, rule.title)["x"]), grid)
        np.testing.assert_allclose(values(trace(lines, rule.title)["y"]), specmath.acceptance_probability(P, Q, name))

    np.testing.assert_allclose(values(trace(laws, "target p")["y"]), p, rtol=1e-12)
    for name, rule in RULES.items():
        # A whole-number setting (a top-K) is cut to the vocabulary size, as the page says.
        settings = {s.name: lossy.get(s.name, s.default) for s in rule.params}
        settings = {s.name: min(int(settings[s.name]), p.size) if s.integer else settings[s.name] for s in rule.params}
        title = rule.titled(settings) if rule.params else rule.title
        law = specmath.first_token_distribution(p, q, name, **settings)
        np.testing.assert_allclose(values(trace(laws, title)["y"]), law, rtol=1e-12, atol=1e-15, err_msg=title)

    longest = max(n for n in range(k + 1) if p.size**n <= 10**6)  # blocks enumerated exactly
    for verification in ("token", "block"):
        drawn = trace(block, f"{verification} verification")
        np.testing.assert_array_equal(values(drawn["x"]), np.arange(1, longest + 1))
        accepted = [specmath.expected_accepted_tokens(p, q, n, verification) for n in range(1, longest + 1)]
        np.testing.assert_allclose(values(drawn["y"]), accepted, rtol=1e-12)
