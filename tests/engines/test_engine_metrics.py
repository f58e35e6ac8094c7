"""parse_engine_metrics: each engine's real format, noisy and cut-off pastes, wrong and hostile text.

The fixtures under tests/fixtures/engine_metrics/ are written in each engine's format with
made-up numbers; every expected record below is worked out by hand in the comments.
"""

import json
import random
import re
from pathlib import Path

import pytest

import engines
import specmath as sm
from engines import definitions, dispatch
from engines.sglang import DRAFTED, OVER_K1, fitting_k, rate_meaning
from tests.engines.test_fits import ISSUE_33

FIXTURES = Path(__file__).parents[1] / "fixtures" / "engine_metrics"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def check(m: engines.EngineMetrics, **expected):
    """Compare a record field by field; floats and per-position rates to rounding."""
    for field, want in expected.items():
        got = getattr(m, field)
        if isinstance(want, float):
            assert got == pytest.approx(want, rel=1e-12), field
        elif isinstance(want, tuple) and want and isinstance(want[0], float):
            assert got == pytest.approx(want, rel=1e-12), field
        else:
            assert got == want, field


def has_note(m: engines.EngineMetrics, *words: str) -> bool:
    return any(all(w in note for w in words) for note in m.notes)


# --- vLLM V1 log --------------------------------------------------------------------------------


def test_vllm_v1_single_line():
    # k = 3 (three rates); Drafted 600 / 3 = 200 drafts; 1 + 312 / 200 = 2.56 as printed;
    # per-position counts 150 + 100 + 62 = 312; 312 / 600 = 52.0 %.
    m = engines.parse_engine_metrics(fixture("vllm_v1_single.txt"))
    check(
        m,
        engine="vLLM",
        format="vLLM V1 log",
        k=3,
        drafts=200,
        draft_tokens=600,
        accepted=312,
        emitted=512,
        mean_acceptance_length=2.56,
        per_position=(0.75, 0.5, 0.31),
        notes=(),
    )


def test_vllm_v1_noisy_intervals_are_summed():
    # Three intervals with k = 4 among API-server noise, plus an idle one ("nan", line 10):
    #   400 / 4 = 100 drafts, 200 accepted (80, 60, 40, 20); 200 / 4 = 50, 60 (30, 15, 10, 5);
    #   1000 / 4 = 250, 500 (200, 150, 100, 50). Sums: 400 drafts, 1600 drafted, 760 accepted.
    # Mean 1 + 760 / 400 = 2.9; rates (310, 225, 150, 75) / 400.
    m = engines.parse_engine_metrics(fixture("vllm_v1_noisy.txt"))
    check(
        m,
        format="vLLM V1 log",
        k=4,
        drafts=400,
        draft_tokens=1600,
        accepted=760,
        emitted=1160,
        mean_acceptance_length=2.9,
        per_position=(0.775, 0.5625, 0.375, 0.1875),
    )
    assert has_note(m, "3 logging intervals", "summed")
    assert has_note(m, "drafted nothing", "line 10")


def test_vllm_v1_truncated_last_line_is_ignored():
    # Line 3 is cut inside its per-position list and has no line break; lines 1-2 (k = 2):
    #   200 / 2 = 100 drafts, 110 accepted (70, 40); 120 / 2 = 60 drafts, 72 accepted (45, 27).
    # Sums 160 drafts, 320 drafted, 182 accepted; mean 1 + 182 / 160; rates (115, 67) / 160.
    m = engines.parse_engine_metrics(fixture("vllm_v1_truncated.txt"))
    check(
        m,
        k=2,
        drafts=160,
        draft_tokens=320,
        accepted=182,
        emitted=342,
        mean_acceptance_length=2.1375,
        per_position=(0.71875, 0.41875),
    )
    assert has_note(m, "cut-off", "line 3")


def test_vllm_v1_older_layouts():
    middle = (
        "INFO 04-02 08:00:10 [metrics.py:80] SpecDecoding metrics: Draft acceptance rate: 62.5%, "
        "Mean acceptance length: 2.25, Accepted: 250 tokens, Drafted: 400 tokens, "
        "Per-position acceptance rate: 0.700, 0.550\n"
    )
    # k = 2, 400 / 2 = 200 drafts: 1 + 250 / 200 = 2.25, counts 140 + 110 = 250, 250 / 400 = 62.5 %.
    check(engines.parse_engine_metrics(middle), k=2, drafts=200, accepted=250, emitted=450, mean_acceptance_length=2.25)
    first = (
        "INFO 03-01 12:00:00 SpecDecoding metrics: Draft acceptance rate: 40.0%, Accepted: 48 tokens, "
        "Drafted: 120 tokens\n"
    )
    check(
        engines.parse_engine_metrics(first),
        k=None,
        drafts=None,
        draft_tokens=120,
        accepted=48,
        mean_acceptance_length=None,
    )


def test_vllm_v1_shorter_drafts_inferred_from_the_mean():
    # 50 draft tokens with k = 3 cannot be 50 / 3 drafts; 1 + 30 / d within 2.50 ± 0.005 and the
    # rates' sum 1.5 ± 0.0015 = 30 / d leave only d = 20 (counts 13, 10, 7).
    line = (
        "SpecDecoding metrics: Mean acceptance length: 2.50, Accepted throughput: 3.00 tokens/s, "
        "Drafted throughput: 5.00 tokens/s, Accepted: 30 tokens, Drafted: 50 tokens, "
        "Per-position acceptance rate: 0.650, 0.500, 0.350, Avg Draft acceptance rate: 60.0%\n"
    )
    m = engines.parse_engine_metrics(line)
    check(m, k=3, drafts=20, draft_tokens=50, accepted=30, emitted=50, mean_acceptance_length=2.5)
    assert has_note(m, "shorter than k")


def test_vllm_v1_drafts_a_line_does_not_fix_are_said_as_what_it_lacks_and_the_counts_it_fits():
    """Issue 33's line: 1144 / d within 1.43 ± 0.005 (the mean) and ± 0.002 (the four rates) fits
    d = 799 to 801, none of them Drafted / k = 550; the parser says so and infers nothing."""
    m = engines.parse_engine_metrics(ISSUE_33)
    check(m, k=4, drafts=None, draft_tokens=2200, accepted=1144, mean_acceptance_length=2.43)
    assert m.drafts_allowed == (799, 801)
    assert m.notes == (
        "line 1 does not print its number of drafts; the rounded mean and per-position rates it prints "
        "fit any of 799 to 801",
    )


def test_llama_server_steps_a_line_does_not_fix_are_said_with_the_counts_it_fits():
    # Issue 33's counts as llama-server prints them (server-context.cpp lines 646-650 at 0c1e57098).
    head = "I slot print_timing: id  1 | task 0 |"
    text = (
        f"{head} draft acceptance = 0.52000 ( 1144 accepted /  2200 generated), mean len =  2.43\n"
        f"{head.replace('I', 'T', 1)}      acc per pos = (0.696, 0.512, 0.133, 0.089)\n"
    )
    m = engines.parse_engine_metrics(text)
    check(m, format="llama-server log", k=4, drafts=None, draft_tokens=2200, accepted=1144)
    assert m.drafts_allowed == (799, 801)
    assert has_note(m, "line 1 does not print its number of verification steps", "fit any of 799 to 801")
    # Without the rates only the mean's rounding bounds them: 1144 / (1.43 ± 0.005).
    m = engines.parse_engine_metrics(text.split("\n")[0] + "\n")
    assert m.k is None and m.drafts_allowed == (798, 802)
    assert has_note(m, "line 1 does not print its number of verification steps; the rounded mean it prints fits")


def test_vllm_v1_printed_mean_that_contradicts_the_counts_is_noted():
    # Counts say 600 / 3 = 200 drafts and 1 + 312 / 200 = 2.56; the line prints 2.90.
    text = fixture("vllm_v1_single.txt").replace("length: 2.56", "length: 2.90")
    m = engines.parse_engine_metrics(text)
    check(m, drafts=200, mean_acceptance_length=2.56)
    assert has_note(m, "do not match", "line 1")


def test_vllm_v1_lines_without_per_position_rates():
    # The last layout with no per-position list, closing with "Draft acceptance rate: X%".
    # Without rates neither k nor the drafts are known (1200 / d within 1.53 ± 0.005 allows
    # d = 782 … 786), so the mean is the printed ones weighted by Drafted:
    # (2.53 × 2000 + 2.20 × 1200) / 3200 = 7700 / 3200 = 2.40625.
    m = engines.parse_engine_metrics(fixture("vllm_v1_no_positions.txt"))
    check(
        m,
        format="vLLM V1 log",
        k=None,
        drafts=None,
        draft_tokens=3200,
        accepted=1800,
        emitted=None,
        mean_acceptance_length=2.40625,
        per_position=None,
    )
    assert has_note(m, "2 logging intervals", "summed")
    assert not has_note(m, "incomplete")
    # What the lines lack, and the drafts each one's rounded mean fits (line 4: 600 / (1.20 ± 0.005)).
    assert has_note(m, "lines 2, 4 do not print their number of drafts", "782 to 786 (line 2), 498 to 502 (line 4)")
    assert m.drafts_allowed == (782 + 498, 786 + 502)


def test_vllm_v1_last_line_without_a_line_break_is_read():
    # vllm_v1_no_newline.txt ends inside no line: its last line closes the middle layout's list.
    # k = 2: 400 / 2 = 200 drafts, 250 accepted (140, 110); 200 / 2 = 100 drafts, 100 accepted
    # (60, 40). Sums 300 drafts, 600 drafted, 350 accepted: mean 1 + 350 / 300; rates (200, 150) / 300.
    m = engines.parse_engine_metrics(fixture("vllm_v1_no_newline.txt"))
    check(
        m,
        k=2,
        drafts=300,
        draft_tokens=600,
        accepted=350,
        emitted=650,
        mean_acceptance_length=1 + 350 / 300,
        per_position=(200 / 300, 150 / 300),
    )
    assert not has_note(m, "cut-off")


@pytest.mark.parametrize("name", ["vllm_v1_single.txt", "vllm_v1_no_positions.txt", "vllm_v1_noisy.txt"])
def test_vllm_v1_final_line_break_changes_nothing(name):
    text = fixture(name)
    assert engines.parse_engine_metrics(text.rstrip("\n")) == engines.parse_engine_metrics(text.rstrip("\n") + "\n")


@pytest.mark.parametrize(
    ("end", "why"),
    [
        ("0.600, 0.4", "ends in '0.4', not a rate printed to three decimals"),
        ("0.600", r"add up to 0\.600, not the mean acceptance length minus 1 \(1\.00\)"),
    ],
)
def test_vllm_v1_list_cut_at_the_end_of_the_paste(end, why):
    # Line 2's list is cut where a list that closes the line still looks valid; its numbers give
    # the cut away, so line 1 alone is used (k = 2, 200 drafts, 250 accepted), or nothing at all.
    text = fixture("vllm_v1_no_newline.txt").replace("0.600, 0.400", end)
    m = engines.parse_engine_metrics(text)
    check(m, k=2, drafts=200, accepted=250, mean_acceptance_length=2.25, per_position=(0.7, 0.55))
    assert has_note(m, "cut-off", "line 2")
    with pytest.raises(ValueError, match=rf"line at line 1 is incomplete: its per-position (list|rates) .*{why}"):
        engines.parse_engine_metrics(text.splitlines()[1])


@pytest.mark.parametrize(
    ("text", "lacks"),
    [
        (
            "SpecDecoding metrics: Mean acceptance length: 2.53, Accepted: 1200 tokens, Drafted: 2000 tokens",
            "it lacks the closing 'Avg Draft acceptance rate: X%'",
        ),
        (
            "SpecDecoding metrics: Draft acceptance rate: 60.0%, Accepted: 1200 tokens, Drafted: 2000",
            "it lacks 'Drafted: N tokens'",
        ),
        (
            "SpecDecoding metrics: Draft acceptance rate: 62.5%, Mean acceptance length: 2.25, Accepted: 250 "
            "tokens, Drafted: 400 tokens",
            "it ends, with no line break, where its 'Per-position acceptance rate: …' list would begin",
        ),
    ],
)
def test_vllm_v1_incomplete_line_names_only_what_it_lacks(text, lacks):
    with pytest.raises(ValueError) as error:
        engines.parse_engine_metrics(text)
    message = str(error.value)
    assert message.endswith(f"line at line 1 is incomplete: {lacks}"), message


# --- vLLM V0 log --------------------------------------------------------------------------------


def test_vllm_v0_uses_the_latest_cumulative_report():
    # Latest of three: k = 4, 2000 draft tokens = 500 drafts, 1450 emitted -> mean 1450 / 500 = 2.9,
    # accepted prefixes 1450 - 500 = 950 (V0's own count, 1300, also counts tokens after a rejection);
    # efficiency 1450 / 2500 = 0.580, rate 1300 / 2000 = 0.650, as printed.
    m = engines.parse_engine_metrics(fixture("vllm_v0.txt"))
    check(
        m,
        engine="vLLM",
        format="vLLM V0 log",
        k=4,
        drafts=500,
        draft_tokens=2000,
        accepted=950,
        emitted=1450,
        mean_acceptance_length=2.9,
        per_position=None,
    )
    assert has_note(m, "3 reports", "latest")
    assert has_note(m, "(1300)", "earlier rejection")
    assert not has_note(m, "differs")


def test_vllm_v0_tokens_tokens_variant():
    # A release printed "Number of draft tokens tokens:". k = 5: 100 / 5 = 20 drafts, 50 emitted:
    # mean 2.5, prefixes 30.
    line = (
        "INFO 06-20 09:00:00 metrics.py:371] Speculative metrics: Draft acceptance rate: 0.400, "
        "System efficiency: 0.417, Number of speculative tokens: 5, Number of accepted tokens: 40, "
        "Number of draft tokens tokens: 100, Number of emitted tokens tokens: 50.\n"
    )
    check(engines.parse_engine_metrics(line), k=5, drafts=20, accepted=30, emitted=50, mean_acceptance_length=2.5)


# --- vLLM Prometheus ----------------------------------------------------------------------------


def test_prometheus_sums_engines():
    # engine 0: 1000 drafts, 3000 draft tokens, 1700 accepted (800, 550, 350);
    # engine 1: 500, 1500, 1000 (420, 330, 250). Sums 1500, 4500, 2700: mean 1 + 2700 / 1500 = 2.8,
    # k = 3 positions, rates (1220, 880, 600) / 1500.
    m = engines.parse_engine_metrics(fixture("vllm_prometheus.txt"))
    check(
        m,
        engine="vLLM",
        format="vLLM Prometheus",
        k=3,
        drafts=1500,
        draft_tokens=4500,
        accepted=2700,
        emitted=4200,
        mean_acceptance_length=2.8,
        per_position=(1220 / 1500, 880 / 1500, 600 / 1500),
    )
    assert has_note(m, "2 label sets")


def test_prometheus_latest_snapshot_without_total_and_in_exponent_form():
    # Two scrapes; the second wins series by series. prometheus_client prints 12000000.0 as
    # 1.2e+07. 1.8e7 accepted / 1.2e7 drafts -> mean 2.5; 3.6e7 / 1.2e7 -> k = 3.
    old = (
        "vllm:spec_decode_num_drafts 100.0\n"
        "vllm:spec_decode_num_draft_tokens 300.0\n"
        "vllm:spec_decode_num_accepted_tokens 150.0\n"
    )
    new = (
        "vllm:spec_decode_num_drafts 1.2e+07\n"
        "vllm:spec_decode_num_draft_tokens 3.6e+07\n"
        "vllm:spec_decode_num_accepted_tokens 1.8e+07\n"
        'vllm:spec_decode_num_accepted_tokens_per_pos{position="0"} 8e+06\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos{position="1"} 6e+06\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos{position="2"} 4e+06\n'
    )
    m = engines.parse_engine_metrics(old + "# scraped again\n" + new)
    check(
        m,
        k=3,
        drafts=12_000_000,
        draft_tokens=36_000_000,
        accepted=18_000_000,
        emitted=30_000_000,
        mean_acceptance_length=2.5,
        per_position=(2 / 3, 0.5, 1 / 3),
    )


def test_prometheus_label_values_may_hold_braces():
    # A label value holds any character but a line break (quotes and backslashes escaped): a "}"
    # in an adapter's name dropped engine 1's samples, leaving engine 0's 1000 drafts. Found by
    # the cross-check with prometheus_client (test_prometheus_cross_check.py); the sums are
    # test_prometheus_sums_engines' own.
    text = fixture("vllm_prometheus.txt").replace('engine="1"', 'engine="1",lora_name="{adapter} \\"v2\\""')
    check(
        engines.parse_engine_metrics(text),
        k=3,
        drafts=1500,
        draft_tokens=4500,
        accepted=2700,
        per_position=(1220 / 1500, 880 / 1500, 600 / 1500),
    )


def test_prometheus_help_text_is_not_a_sample():
    # "# HELP vllm:spec_decode_num_drafts_total 7" is a help text that reads like a sample: taken
    # for one, it added 7 drafts to the 1500 (a label set of its own). Found by the cross-check.
    text = fixture("vllm_prometheus.txt").replace("Number of spec decoding drafts.", "7")
    assert "# HELP vllm:spec_decode_num_drafts_total 7\n" in text
    m = engines.parse_engine_metrics(text)
    check(m, drafts=1500, mean_acceptance_length=2.8)
    assert has_note(m, "2 label sets")
    # SGLang's rate gauge with the help text "1.5": taken for a rate, it was refused as above 1.
    text = fixture("sglang_prometheus.txt")
    text = text.replace(text.splitlines()[5], "# HELP sglang:spec_accept_rate 1.5")
    assert "# HELP sglang:spec_accept_rate 1.5\n# TYPE sglang:spec_accept_rate gauge\n" in text
    check(engines.parse_engine_metrics(text), mean_acceptance_length=3.0, accept_rate=(0.7 + 0.6333333333333333) / 2)


# --- SGLang and llama.cpp -----------------------------------------------------------------------


def test_sglang_lines_weighted_by_running_requests():
    # (4 × 2.50 + 2 × 3.10 + 4 × 2.80) / (4 + 2 + 4) = 27.4 / 10 = 2.74; no counts printed.
    m = engines.parse_engine_metrics(fixture("sglang.txt"))
    check(
        m,
        engine="SGLang",
        format="SGLang log",
        k=None,
        drafts=None,
        draft_tokens=None,
        accepted=None,
        emitted=None,
        mean_acceptance_length=2.74,
        per_position=None,
    )
    assert has_note(m, "weighted by #running-req")


def test_sglang_grep_output_without_batch_sizes():
    # `grep -o 'accept len: [0-9.]*, accept rate: [0-9.]*'`: no batch sizes, so (3.03 + 2.97) / 2.
    m = engines.parse_engine_metrics("accept len: 3.03, accept rate: 0.76\naccept len: 2.97, accept rate: 0.74\n")
    check(m, format="SGLang log", mean_acceptance_length=3.0)
    assert has_note(m, "unweighted")


def test_sglang_old_accept_rate_is_accept_len_over_k_plus_1():
    """fastrl PR #4's lines (SGLang's 'Decode batch.' head): accept len 1.00, accept rate 0.11 on both.

    Nothing was accepted (L = 1), yet the rate is 0.11: it is L / (k + 1) = 1 / 9, k = 8. The record
    keeps the printed figure under its meaning and gives no accepted ÷ drafted until k is known."""
    m = engines.parse_engine_metrics(fixture("sglang_accept_rate_old.txt"))
    check(m, format="SGLang log", k=None, mean_acceptance_length=1.0, accept_rate=None)
    assert m.printed == (("sglang.accept_len", 1.0), ("sglang.accept_rate.over_k1", 0.11))
    assert has_note(m, "'Decode batch.'", "accept len ÷ (k + 1)", "k = 8")
    assert definitions.accept_rate(m.printed, 8) == 0.0  # (0.11 × 9 − 1) / 8 < 0: none accepted


def test_sglang_new_accept_rate_is_accepted_over_drafted():
    """sgl-kernel-npu PR #608's lines: (24 × 3.05 + 23 × 2.63 + 22 × 2.83) / 69 = 195.95 / 69 and
    (24 × 0.68 + 23 × 0.54 + 22 × 0.61) / 69 = 42.16 / 69; each (L − 1) / rate is 3.0 within the
    rounding (2.05 / 0.68 = 3.01, 1.63 / 0.54 = 3.02, 1.83 / 0.61 = 3.00), L / rate is no whole k + 1."""
    m = engines.parse_engine_metrics(fixture("sglang_accept_rate_new.txt"))
    check(m, format="SGLang log", k=None, mean_acceptance_length=195.95 / 69, accept_rate=42.16 / 69)
    assert [key for key, _ in m.printed] == ["sglang.accept_len", "sglang.accept_rate.drafted"]
    assert [value for _, value in m.printed] == pytest.approx([195.95 / 69, 42.16 / 69], rel=1e-12)
    assert has_note(m, "fit accepted ÷ drafted (SGLang 0.5.11 on) at k = 3 and no k as accept len ÷ (k + 1)")


@pytest.mark.parametrize(
    ("length", "rate", "meaning", "ks"),
    [
        (1.95, 0.49, OVER_K1, [3]),  # 1.95 / 4 = 0.4875: the 0.5.3.post3 line of the issue; (L − 1) / 0.49 = 1.94
        (2.85, 0.62, DRAFTED, [3]),  # 1.85 / 3 = 0.617; 2.85 / 0.62 = 4.6
        (3.0, 0.5, None, None),  # (3 − 1) / 4 = 3 / 6: both meanings fit (k = 4 and k = 5)
        (2.5, 0.9, None, None),  # (L − 1) / 0.9 = 1.67, L / 0.9 = 2.78: neither
    ],
)
def test_sglang_rate_meaning_from_the_printed_values(length, rate, meaning, ks):
    got, said = rate_meaning([(length, rate)])
    assert got == meaning
    if ks:
        assert fitting_k([(length, rate)], meaning) == ks
    else:
        assert "it is not used" in said
    m = engines.parse_engine_metrics(
        f"Decode batch, #running-req: 4, accept len: {length:.2f}, accept rate: {rate:.2f}, \n"
    )
    assert m.accept_rate == (rate if meaning == DRAFTED else None)


def test_llamacpp_summary():
    # n_predict 258 - n_accept 198 = 60 target steps; mean 258 / 60 = 4.3; 198 / 296 = 66.892 %.
    m = engines.parse_engine_metrics(fixture("llamacpp.txt"))
    check(
        m,
        engine="llama.cpp",
        format="llama.cpp summary",
        k=8,
        drafts=60,
        draft_tokens=296,
        accepted=198,
        emitted=258,
        mean_acceptance_length=4.3,
        per_position=None,
    )
    assert not has_note(m, "differs")


def test_llamacpp_cut_summary_leaves_the_previous_one():
    # First summary: 100 - 60 = 40 steps, mean 100 / 40 = 2.5. The second ends in a cut line.
    whole = "n_draft   = 4\nn_predict = 100\nn_drafted = 80\nn_accept  = 60\naccept    = 75.000%\n\n"
    cut = "n_draft   = 4\nn_predict = 200\nn_drafted = 150\nn_accept  = 9"
    m = engines.parse_engine_metrics(whole + cut)
    check(m, k=4, drafts=40, draft_tokens=80, accepted=60, emitted=100, mean_acceptance_length=2.5)
    assert has_note(m, "cut off")


# --- several formats, wrong and bad values ------------------------------------------------------


def test_two_engines_use_the_last_one():
    v1, sglang = fixture("vllm_v1_single.txt"), fixture("sglang.txt")
    m = engines.parse_engine_metrics(v1 + sglang)
    assert m.format == "SGLang log" and has_note(m, "vLLM V1 log", "comes last")
    m = engines.parse_engine_metrics(sglang + v1)
    assert m.format == "vLLM V1 log" and has_note(m, "SGLang log", "comes last")


def test_wrong_text_names_the_nearest_format_and_what_it_lacks():
    # The made-up prose has V1's two counts but not its marker.
    with pytest.raises(ValueError) as error:
        engines.parse_engine_metrics(fixture("wrong_text.txt"))
    assert str(error.value) == (
        "no speculative decoding metrics found in the text: it looks most like a vLLM V1 log line: found "
        "'Accepted: N tokens' and 'Drafted: N tokens', missing 'SpecDecoding metrics:'"
    )


def test_an_sglang_log_without_speculation_is_named_and_what_it_lacks_said():
    # sgl-project/sglang PR #13023's decode-batch lines: a server run without a draft.
    with pytest.raises(ValueError) as error:
        engines.parse_engine_metrics(fixture("sglang_no_speculation.txt"))
    assert str(error.value).endswith(
        "it looks most like an SGLang decode-batch log line: found 'Decode batch', missing 'accept len: X,'"
    )


@pytest.mark.parametrize(
    ("text", "nearest", "found", "missing"),
    [
        (
            "SpecDecoding metrics: Draft acceptance rate: 60.0%, Accepted: 1200 tokens, Drafted: 2000",
            "a vLLM V1 log line",
            "'SpecDecoding metrics:' and 'Accepted: N tokens'",
            "'Drafted: N tokens'",
        ),
        (
            "INFO Speculative metrics: Number of accepted tokens: 12, Number of draft tokens: 30",
            "a vLLM V0 log line",
            "'Speculative metrics:', 'Number of accepted tokens: N' and 'Number of draft tokens: N'",
            "'Number of emitted tokens: N.'",
        ),
        (
            "# TYPE vllm:spec_decode_num_drafts counter\n",  # a HELP/TYPE line only: no sample
            "a vLLM /metrics scrape",
            "'vllm:spec_decode_num_drafts'",
            "'vllm:spec_decode_num_draft_tokens', 'vllm:spec_decode_num_accepted_tokens'",
        ),
        (
            "n_draft   = 8\nn_predict = 258\n",
            "a llama.cpp speculative example's summary",
            "'n_draft = N'",
            "'n_drafted = N', 'n_accept = N'",
        ),
        (
            "slot print_timing: id  0 | task 0 |        eval time =    2296.72 ms /   256 tokens\n",
            "a llama-server log",
            "'print_timing'",
            "'draft acceptance [rate] = X (N accepted / N generated)'",
        ),
        (
            '[{"iter": 3, "iterLatencyMS": 12.5, "numActiveRequests": 4}]',
            None,
            None,
            None,
        ),
    ],
)
def test_a_refused_paste_names_the_nearest_format(text, nearest, found, missing):
    with pytest.raises(ValueError) as error:
        engines.parse_engine_metrics(text)
    message = str(error.value)
    if nearest is None:
        assert message.startswith("no speculative decoding metrics found in the text: none of the formats read")
        assert all(module.FORMAT in message for module in dispatch.FORMATS)
    else:
        assert f"it looks most like {nearest}: found {found}, missing {missing}" in message, message


@pytest.mark.parametrize(
    "text",
    [
        "SpecDecoding metrics: Mean acceptance len",
        "INFO Speculative metrics: Draft acceptance rate: 0.6",
        'vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 12',
        "[2025-06-02 09:14:05] Decode batch. #running-req: 4, #token: 2048, accept len: 2.",
        "n_draft   = 8\nn_predict = 258\nn_drafted = 29",
    ],
)
def test_half_a_line_says_it_is_incomplete(text):
    with pytest.raises(ValueError, match=r"no (complete )?speculative decoding (report|metrics) found"):
        engines.parse_engine_metrics(text)


NOISE = "INFO 05-14 10:20:01 [api_server.py:1881] Starting vLLM API server\nINFO:     127.0.0.1:1 - GET /health\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            NOISE + "SpecDecoding metrics: Draft acceptance rate: 116.7%, Accepted: 700 tokens, Drafted: 600 tokens\n",
            r"Accepted \(700\) exceeds Drafted \(600\) \(line 3\)",
        ),
        (
            "SpecDecoding metrics: Draft acceptance rate: 60.0%, Mean acceptance length: 2.20, Accepted: 120 "
            "tokens, Drafted: 200 tokens, Per-position acceptance rate: 1.200, 0.000\n",
            r"Per-position acceptance rate 0 must be within \[0, 1\], got 1\.2 \(line 1\)",
        ),
        (
            "Speculative metrics: Draft acceptance rate: 1.500, System efficiency: 0.500, Number of speculative "
            "tokens: 2, Number of accepted tokens: 30, Number of draft tokens: 20, Number of emitted tokens: 25.\n",
            r"Number of accepted tokens \(30\) exceeds Number of draft tokens \(20\)",
        ),
        (
            "Speculative metrics: Draft acceptance rate: 1.500, System efficiency: 0.500, Number of speculative "
            "tokens: 2, Number of accepted tokens: 10, Number of draft tokens: 20, Number of emitted tokens: 25.\n",
            r"Draft acceptance rate must be within \[0, 1\], got 1\.5",
        ),
        (
            "Speculative metrics: Draft acceptance rate: 0.500, System efficiency: 0.500, Number of speculative "
            "tokens: 2, Number of accepted tokens: 10, Number of draft tokens: 20, Number of emitted tokens: 45.\n",
            r"Number of emitted tokens \(45\) must be within \[drafts, drafts × \(k \+ 1\)\] = \[10, 30\]",
        ),
        ("vllm:spec_decode_num_drafts_total 12.5\n", r"vllm:spec_decode_num_drafts must be a non-negative whole count"),
        (
            'vllm:spec_decode_num_drafts_total 10.0\nvllm:spec_decode_num_accepted_tokens_per_pos{position="0"} 11.0\n',
            r"exceeds vllm:spec_decode_num_drafts \(10\): a rate above 1",
        ),
        ("Decode batch. #running-req: 4, accept len: 2.50, accept rate: 1.40, \n", r"accept rate must be within"),
        ("Decode batch. #running-req: 4, accept len: 0.50, accept rate: 0.10, \n", r"accept len must be at least 1"),
        ("n_drafted = 80\nn_accept  = 90\naccept    = 112.500%\n", r"n_accept \(90\) exceeds n_drafted \(80\)"),
        ("n_drafted = 80\nn_accept  = -5\n", r"n_accept = -5 is out of range: a count is a whole number from 0 "),
    ],
)
def test_impossible_values_name_the_field_and_line(text, message):
    with pytest.raises(ValueError, match=message):
        engines.parse_engine_metrics(text)


HUGE = "1" + "0" * 24
#: A count of each format, and the report it is in (with {} for the count).
COUNTS = [
    (
        "Accepted",
        "SpecDecoding metrics: Draft acceptance rate: 60.0%, Mean acceptance length: 2.20, Accepted: {} "
        "tokens, Drafted: 200 tokens, Per-position acceptance rate: 0.600, 0.000\n",
    ),
    (
        "Number of accepted tokens",
        "Speculative metrics: Draft acceptance rate: 0.500, Number of speculative tokens: 2, "
        "Number of accepted tokens: {}, Number of draft tokens: 20, Number of emitted tokens: 25.\n",
    ),
    ("n_accept", "n_drafted = 80\nn_accept  = {}\n"),
    ("accepted", "draft acceptance rate = 0.50000 ({} accepted /   8 generated)\n"),
    ("#running-req", "Decode batch, #running-req: {}, #token: 512, accept len: 2.50, accept rate: 0.40, \n"),
    (
        "numAcceptedTokens",
        '{{"specDecodingStats":{{"numAcceptedTokens":{},"numDraftTokens":6,"numRequestsWithDraftTokens":2}}}}',
    ),
]


@pytest.mark.parametrize("value", ["-5", HUGE])
@pytest.mark.parametrize(("field", "report"), COUNTS)
def test_a_count_out_of_range_is_said_to_be_with_its_value(field, report, value):
    """Not "incomplete" or "lacks": the field is there, its value is what is wrong."""
    with pytest.raises(ValueError, match=rf"{re.escape(field)} = {re.escape(value)} is out of range: a count is"):
        engines.parse_engine_metrics(report.format(value))


# --- whatever is pasted -------------------------------------------------------------------------


def test_bytes_are_read_like_text():
    text = fixture("vllm_prometheus.txt")
    assert engines.parse_engine_metrics(text.encode()) == engines.parse_engine_metrics(text)
    assert engines.parse_engine_metrics(b"\xff\xfe" + fixture("llamacpp.txt").encode()).accepted == 198


HOSTILE = {
    "binary, 5 MB": lambda: random.Random(0).randbytes(5_000_000),
    "noise, 5 MB": lambda: NOISE * (5_000_000 // len(NOISE)),
    "one line of markers": lambda: "SpecDecoding metrics:" * 250_000,
    "accept len flood": lambda: "accept len: 2.5,\n" * 300_000,
    "llama.cpp flood": lambda: "n_draft = 1\nn_drafted = 2\nn_accept = 1\naccept = 50.000%\n" * 100_000,
    "prometheus flood": lambda: "".join(f'vllm:spec_decode_num_drafts{{e="{i}"}} 1.0\n' for i in range(100_000)),
    "open label brace": lambda: "vllm:spec_decode_num_drafts{" + "a" * 3_000_000,
    "open label quote": lambda: 'vllm:spec_decode_num_drafts{a="' + "{" * 3_000_000,
    "quoted braces": lambda: ('vllm:spec_decode_num_drafts{a="' + "{" * 30 + '"') * 60_000,
    "open exemplars": lambda: ('vllm:spec_decode_num_drafts 1.0 # {a="' + "x" * 100) * 15_000,
    "endless number": lambda: "SpecDecoding metrics: Accepted: " + "9" * 3_000_000 + " tokens",
    "endless rate list": lambda: "SpecDecoding metrics: Per-position acceptance rate: " + "0.5, " * 500_000,
    "carriage returns": lambda: "\r" * 5_000_000,
    "half a line": lambda: "SpecDecoding metrics: Mean acceptance length: 2.",
    "one line of trimmed V1 fields": lambda: "Mean acceptance length: 2.00, " * 100_000,
    "bench serve flood": lambda: "Acceptance rate (%): 50.00\n  Position 0: 50.00\n" * 100_000,
    "offline example flood": lambda: "num_accepted_tokens: 1\nacceptance at token 0: 0.50\n" * 100_000,
    "early V1 markers": lambda: "Speculative metrics: Number of accepted tokens: 1, " * 100_000,
    "not text": lambda: 12345,
}


# A hang guard, not a timing figure: the caps (MAX_METRICS_CHARS) keep each far below it.
@pytest.mark.timeout(60)
@pytest.mark.parametrize("make", HOSTILE.values(), ids=HOSTILE.keys())
def test_any_paste_is_answered_without_a_traceback_or_a_hang(make):
    try:
        result = engines.parse_engine_metrics(make())
    except ValueError:
        result = None
    assert result is None or isinstance(result, engines.EngineMetrics)


def test_long_paste_reads_only_the_end():
    text = fixture("vllm_v1_single.txt") * (5_000_000 // 288 + 1)  # 5 MB of one 288-character line
    m = engines.parse_engine_metrics(text)
    check(m, format="vLLM V1 log", k=3, mean_acceptance_length=2.56)
    assert m.draft_tokens <= 600 * engines.MAX_METRICS_CHARS // 288
    assert has_note(m, f"{engines.MAX_METRICS_CHARS:,} characters")


# --- issue 22: llama-server, OpenMetrics, SGLang gauges, TensorRT-LLM, trees ---------------------


def test_llama_server_old_lines_are_summed():
    # Two requests: 171 / 297 and 70 / 100 -> 241 accepted of 397 generated; no mean, no k.
    m = engines.parse_engine_metrics(fixture("llamacpp_server.txt"))
    check(
        m,
        engine="llama.cpp",
        format="llama-server log",
        k=None,
        drafts=None,
        draft_tokens=397,
        accepted=241,
        emitted=None,
        mean_acceptance_length=None,
        per_position=None,
        accept_rate=241 / 397,
        tree_topk=None,
    )
    assert has_note(m, "2 requests", "summed") and has_note(m, "no mean acceptance length")


def test_llama_server_new_lines_with_mean_and_positions():
    # Request 1: 1 + 171 / d = 2.71 ± 0.005 and the rates' sum 1.71 ± 0.0015 leave d = 100 (297 <= 3 d).
    # Request 2: 1 + 36 / d = 2.80 -> d = 20 (60 = 3 × 20). Sums: 120 drafts, 357 generated, 207 accepted;
    # mean 1 + 207 / 120 = 2.725; rates (0.75 × 100 + 0.85 × 20, …) / 120.
    m = engines.parse_engine_metrics(fixture("llamacpp_server_new.txt"))
    check(
        m,
        format="llama-server log",
        k=3,
        drafts=120,
        draft_tokens=357,
        accepted=207,
        emitted=327,
        mean_acceptance_length=2.725,
        per_position=(92 / 120, 67 / 120, 48 / 120),
        accept_rate=207 / 357,
    )
    # The flag of the version that prints the rates (llama.cpp 0c1e57098): --draft-max is removed there.
    assert has_note(m, "k is the number of per-position rates", "--spec-draft-n-max")
    assert not has_note(m, " --draft-max")


@pytest.mark.parametrize(
    "line",
    [
        "draft acceptance rate = 0.57576 (  171 accepted /   29",
        "draft acceptance = 0.57576 (  171 accepted /   297 generated), mean len =  2.7",
        "draft acceptance = 0.57576 (  171 accepted /   297 generated), mea",
    ],
)
def test_llama_server_cut_line_says_what_a_whole_one_reads(line):
    with pytest.raises(
        ValueError, match=r"llama-server 'draft acceptance' line at line 1 is incomplete \(a whole line"
    ):
        engines.parse_engine_metrics(line)


def test_llama_server_impossible_counts():
    with pytest.raises(ValueError, match=r"accepted \(300\) exceeds generated \(297\) \(line 1\)"):
        engines.parse_engine_metrics("draft acceptance rate = 1.01010 (  300 accepted /   297 generated)\n")


def test_openmetrics_underscore_names_and_eof():
    # vLLM issue 26191's counts: 4816 drafts, 33712 draft tokens (= 7 × 4816), 12208 accepted.
    m = engines.parse_engine_metrics(fixture("vllm_openmetrics.txt"))
    check(
        m,
        engine="vLLM",
        format="vLLM Prometheus",
        k=7,
        drafts=4816,
        draft_tokens=33712,
        accepted=12208,
        emitted=17024,
        mean_acceptance_length=1 + 12208 / 4816,
        per_position=None,
        accept_rate=12208 / 33712,
        notes=(),
    )
    cut = fixture("vllm_openmetrics.txt").replace("# EOF\n", "")
    assert has_note(engines.parse_engine_metrics(cut), "no '# EOF'", "cut off")
    # The same counters with the colon spelling read the same.
    colon = fixture("vllm_openmetrics.txt").replace("vllm_spec_decode", "vllm:spec_decode")
    assert engines.parse_engine_metrics(colon).accepted == 12208


def test_openmetrics_timestamps_and_exemplars_are_read_past():
    # OpenMetrics writes a timestamp in seconds, with a fraction, and a counter's sample may end
    # in an exemplar: such samples were dropped (the scrape read as nothing). Found by the
    # cross-check with prometheus_client; the counts are test_openmetrics_underscore_names_and_eof's.
    text = re.sub(r"^(vllm_.*)$", r"\1 1759147200.5", fixture("vllm_openmetrics.txt"), flags=re.MULTILINE)
    text = text.replace("4816.0 1759147200.5", '4816.0 1759147200.5 # {trace_id="4bf92f"} 1.0 1759147200.25')
    assert text.count(" 1759147200.5\n") == 5
    check(engines.parse_engine_metrics(text), k=7, drafts=4816, draft_tokens=33712, accepted=12208, notes=())


def test_issue_26191_figures():
    # 1 + 12208 / 4816 = 3.53 tokens per step: i.i.d. alpha ≈ 0.74; 12208 / 33712 = 36.2 % "draft acceptance".
    m = engines.parse_engine_metrics(fixture("vllm_openmetrics.txt"))
    alpha = sm.iid_blocks.fit_alpha_from_acceptance_length(m.mean_acceptance_length, m.k)
    assert alpha == pytest.approx(0.7435, abs=5e-4)
    assert m.accept_rate == pytest.approx(0.3621, abs=5e-5)
    assert sm.draft_acceptance_rate(alpha, 7) == pytest.approx(m.accept_rate, rel=1e-9)


def test_sglang_gauges():
    # Two ranks: accept length (3.1 + 2.9) / 2 = 3.0, rate (0.7 + 0.6333…) / 2 = 2/3; each rank's
    # (L − 1) / rate is 3, accepted ÷ drafted at k = 3, and L / rate fits no k + 1.
    m = engines.parse_engine_metrics(fixture("sglang_prometheus.txt"))
    check(
        m,
        engine="SGLang",
        format="SGLang Prometheus",
        k=None,
        drafts=None,
        draft_tokens=None,
        accepted=None,
        emitted=None,
        mean_acceptance_length=3.0,
        per_position=None,
        accept_rate=(0.7 + 0.6333333333333333) / 2,
        tree_topk=None,
    )
    underscored = fixture("sglang_prometheus.txt").replace("sglang:spec", "sglang_spec") + "# EOF\n"
    assert engines.parse_engine_metrics(underscored).mean_acceptance_length == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('sglang:spec_accept_length{tp_rank="0"} 0.5\n', r"sglang:spec_accept_length must be at least 1"),
        (
            'sglang:spec_accept_length{tp_rank="0"} 2.5\nsglang:spec_accept_rate 1.5\n',
            r"spec_accept_rate must be within",
        ),
        ('sglang:spec_accept_rate{tp_rank="0"} 0.5\n', r"needs sglang:spec_accept_length"),
    ],
)
def test_sglang_gauges_bad_values(text, message):
    with pytest.raises(ValueError, match=message):
        engines.parse_engine_metrics(text)


def test_sglang_tree_run_is_flagged():
    m = engines.parse_engine_metrics(fixture("sglang_tree.txt"))
    check(m, format="SGLang log", mean_acceptance_length=4.2, accept_rate=0.05, tree_topk=8)
    assert has_note(m, "--speculative-eagle-topk 8", "tree", "Draft trees")
    chain = fixture("sglang_tree.txt").replace("'speculative_eagle_topk': 8", "'speculative_eagle_topk': 1")
    m = engines.parse_engine_metrics(chain)
    assert m.tree_topk == 1 and not has_note(m, "tree")
    m = engines.parse_engine_metrics(
        "python -m sglang.launch_server --speculative-eagle-topk 4\n" + fixture("sglang.txt")
    )
    assert m.tree_topk == 4


def test_sglang_block_accept_len_is_not_a_second_report():
    line = (
        "Decode batch, #running-req: 4, #token: 100, token usage: 0.01, accept len: 2.50, accept rate: 0.30, "
        "block accept len: 2.80, cuda graph: True, #queue-req: 0, \n"
    )
    m = engines.parse_engine_metrics(line)
    check(m, mean_acceptance_length=2.5, accept_rate=0.3)
    assert not has_note(m, "averaged")


def test_trtllm_iteration_stats_are_summed():
    # Iterations 120 and 122 (121 drafted nothing): 12 + 6 draft tokens, 6 + 4 accepted, 4 + 2 requests
    # with drafts -> 6 drafts of k = 3, mean 1 + 10 / 6; printed 2.5 and 3.0 agree per iteration.
    m = engines.parse_engine_metrics(fixture("trtllm_iteration_stats.txt"))
    check(
        m,
        engine="TensorRT-LLM",
        format="TensorRT-LLM iteration stats",
        k=3,
        drafts=6,
        draft_tokens=18,
        accepted=10,
        emitted=16,
        mean_acceptance_length=1 + 10 / 6,
        per_position=None,
        accept_rate=10 / 18,
    )
    assert has_note(m, "2 iterations") and has_note(m, "no draft tokens") and not has_note(m, "differs")
    # Python's print of LLM.get_stats() uses single quotes and spaces.
    single = (
        "{'iter': 5, 'specDecodingStats': {'numDraftTokens': 8, 'numAcceptedTokens': 5, "
        "'numRequestsWithDraftTokens': 2, 'acceptanceLength': 3.5}}\n"
    )
    check(engines.parse_engine_metrics(single), k=4, drafts=2, accepted=5, mean_acceptance_length=3.5)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"specDecodingStats":{"numAcceptedTokens":9,"numDraftTokens":6,"numRequestsWithDraftTokens":2}}',
            r"numAcceptedTokens \(9\) exceeds numDraftTokens \(6\)",
        ),
        (
            '{"specDecodingStats":{"numAcceptedTokens":1,"numDraftTokens":6,"numRequestsWithDraftTokens":0}}',
            r"numRequestsWithDraftTokens \(0\) must be within \[1, numDraftTokens\]",
        ),
        (
            '{"specDecodingStats":{"numAcceptedTokens":1.5,"numDraftTokens":6,"numRequestsWithDraftTokens":2}}',
            r"numAcceptedTokens = 1\.5 is not a whole number: a count is a whole number from 0 ",
        ),
        (
            '{"specDecodingStats":{"acceptanceLength":2.5,"numAcceptedTokens":6,"numDr',
            r"specDecodingStats at line 1 is incomplete \(a whole one is a \{…\} object",
        ),
    ],
)
def test_trtllm_bad_stats(text, message):
    with pytest.raises(ValueError, match=message):
        engines.parse_engine_metrics(text)


# --- llama-server /metrics ----------------------------------------------------------------------


def test_llama_server_metrics_scrape():
    # 1,000 drafts of 8, 4 and 2 tokens (600, 300, 100) at alpha = 0.8: 6,200 draft tokens, per
    # position round(600·0.8^i + 300·0.8^i [i <= 4] + 100·0.8^i [i <= 2]) = 800, 640, 461, 369, 197, …
    m = engines.parse_engine_metrics(fixture("llamacpp_metrics.txt"))
    check(
        m,
        engine="llama.cpp",
        format="llama-server /metrics",
        k=8,
        drafts=1000,
        draft_tokens=6200,
        accepted=2851,
        emitted=3851,
        mean_acceptance_length=3.851,
        per_position=(0.8, 0.64, 0.461, 0.369, 0.197, 0.157, 0.126, 0.101),
        accept_rate=2851 / 6200,
        notes=(),  # the prompt counter's 1.23457e+06 is not a speculative decoding count
    )
    fit = engines.fit_alpha(m)  # drafts of 6.2 tokens on average, some of 2: positions 1 and 2 only
    assert fit.k == 2 and fit.alpha == pytest.approx(0.8, abs=1e-3)


def test_llama_server_metrics_rounded_counts_are_said():
    text = fixture("llamacpp_metrics.txt")
    for name, old, new in (("drafts", "1000", "1.23457e+06"), ("draft_tokens", "6200", "7.65432e+06")):
        text = text.replace(
            f"llamacpp:spec_decode_num_{name}_total {old}", f"llamacpp:spec_decode_num_{name}_total {new}"
        )
    m = engines.parse_engine_metrics(text)
    assert (m.drafts, m.draft_tokens) == (1_234_570, 7_654_320)
    assert has_note(m, "llamacpp:spec_decode_num_drafts_total = 1.23457e+06", "6 significant digits")


def _rounded_scrape(drafts: str, first: int, accepted: str = "2.85100e+06") -> str:
    """A llama-server scrape whose totals are rounded as printed, its position 0 counted ``first``."""
    totals = {"drafts": drafts, "draft_tokens": "7.65432e+06", "accepted_tokens": accepted}
    counts = (first, 640_000, 461_000)
    return "".join(f"llamacpp:spec_decode_num_{name}_total {raw}\n" for name, raw in totals.items()) + "".join(
        f'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="{i}"}} {n}\n' for i, n in enumerate(counts)
    )


@pytest.mark.parametrize("first", [1_234_570, 1_234_573, 1_234_575])
def test_llama_server_position_counts_above_a_rounded_drafts_total_are_its_rounding(first):
    """A drafts total printed 1.23457e+06 (6 significant digits) counted up to 1,234,575: where every
    draft accepted its first token, position 0 counts that many, a rate of 1, not above it."""
    m = engines.parse_engine_metrics(_rounded_scrape("1.23457e+06", first))
    assert m.drafts == 1_234_570 and m.per_position[0] == 1.0
    assert m.per_position[1] == pytest.approx(640_000 / first, rel=1e-12)
    assert has_note(m, f"over {first:,} drafts", "rounded as printed") == (first > 1_234_570)


def test_llama_server_position_counts_beyond_the_rounding_are_refused():
    with pytest.raises(ValueError, match=r"\(1234576\) exceeds llamacpp:spec_decode_num_drafts_total \(1234570\)"):
        engines.parse_engine_metrics(_rounded_scrape("1.23457e+06", 1_234_576))
    # Written whole (below a million), the total is exact: one more is a rate above 1.
    with pytest.raises(ValueError, match=r"\(999999\) exceeds llamacpp:spec_decode_num_drafts_total \(999998\)"):
        engines.parse_engine_metrics(_rounded_scrape("999998", 999_999, accepted="2.1e+06"))


def test_llama_server_metrics_of_a_server_that_does_not_speculate():
    zeros = "".join(
        f"llamacpp:spec_decode_num_{name}_total 0\n" for name in ("draft_tokens", "accepted_tokens", "drafts")
    )
    with pytest.raises(ValueError, match="are all 0: speculative decoding is off or nothing was drafted yet"):
        engines.parse_engine_metrics("llamacpp:prompt_tokens_total 1200\n" + zeros)


def test_llama_server_metrics_cut_last_line_is_skipped():
    m = engines.parse_engine_metrics(fixture("llamacpp_metrics.txt").rstrip("\n"))
    assert m.k == 7 and has_note(m, "skipped the last line")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("llamacpp:spec_decode_num_drafts_total -3\n", r"llamacpp:spec_decode_num_drafts_total must be a non-negative"),
        ("llamacpp:spec_decode_num_drafts_total 1e300\n", r"must be a non-negative whole count, got 1e300"),
        (
            "llamacpp:spec_decode_num_draft_tokens_total 10\nllamacpp:spec_decode_num_accepted_tokens_total 12\n",
            r"llamacpp:spec_decode_num_accepted_tokens_total \(12\) exceeds llamacpp:spec_decode_num_draft_tokens_t",
        ),
        (
            "llamacpp:spec_decode_num_drafts_total 10\n"
            'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="x"} 3\n',
            r'needs a label position="i" \(i = 0, 1, …\), got \'x\'',
        ),
        (
            "llamacpp:spec_decode_num_drafts_total 10\n"
            'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="0"} 30\n',
            r"\(30\) exceeds llamacpp:spec_decode_num_drafts_total \(10\): a rate above 1",
        ),
    ],
)
def test_llama_server_metrics_impossible_values(text, message):
    with pytest.raises(ValueError, match=message):
        engines.parse_engine_metrics(text)


# --- vLLM per-request metrics --------------------------------------------------------------------


def test_vllm_per_request_metrics_are_summed_over_requests():
    # Three requests' histograms, [21, 12, 21, 4, 7] + [19, 15, 30, 4, 7] + [19, 15, 21, 1, 9]
    # = [59, 42, 72, 9, 23]: 205 steps, 0·59 + 42 + 2·72 + 3·9 + 4·23 = 305 accepted; drafted 210 +
    # 210 + 200; drafts with at least 1, 2, 3, 4 accepted: 146, 104, 32, 23. Each step drafted 4 or
    # 2 tokens: 105 drafts of 4, 100 of 2.
    m = engines.parse_engine_metrics(fixture("vllm_per_request.jsonl"))
    check(
        m,
        engine="vLLM",
        format="vLLM per-request metrics",
        k=4,
        drafts=205,
        draft_tokens=620,
        accepted=305,
        emitted=510,
        mean_acceptance_length=1 + 305 / 205,
        per_position=(146 / 205, 104 / 205, 32 / 205, 23 / 205),
        accept_rate=305 / 620,
        position_drafts=(205, 205, 105, 105),
        by_draft_length=((2, 100, 131), (4, 105, 174)),  # the steps of each length and what they accepted
    )
    assert has_note(m, "3 requests found") and has_note(m, "drafts of 2 to 4 tokens")
    fit = engines.fit_alpha(m)  # every draft reached positions 1 and 2, as each step's drafted tokens say
    assert fit.k == 2 and (fit.accepted, fit.drafts) == (146 + 104, 205) and fit.low < 0.7 < fit.high
    assert "per-step drafted tokens say so" in fit.notes[0]


def test_vllm_per_request_summary_mode_and_a_streamed_chunk():
    stats = {
        "mean_acceptance_length": 1.2325581395348837,
        "draft_acceptance_rate": 0.07751937984496124,
        "acceptance_histogram": [39, 1, 0, 3],
        "num_spec_steps": 43,
        "num_accepted_draft_tokens": 10,
        "num_draft_tokens": 129,
        "num_spec_tokens": 3,
    }  # PR #48915's example
    chunk = 'data: {"choices": [], "metrics": {"speculative_decoding": ' + json.dumps(stats) + "}}\n\ndata: [DONE]\n"
    m = engines.parse_engine_metrics(chunk)
    check(m, k=3, drafts=43, draft_tokens=129, accepted=10, per_position=(4 / 43, 3 / 43, 3 / 43))
    assert m.position_drafts is None and m.notes == ()
    assert engines.fit_alpha(m)[:3] == sm.alpha_interval(10, 43, 3)[:3]  # 129 = 43 × 3: full drafts


def test_vllm_per_request_whole_responses_with_nulls():
    # A whole response is written with model_dump() (vllm 0.34.0, chat_completion/api_router.py:75-76):
    # the per-step arrays missing from to_dict are null, at the summary level and for a detailed
    # request with no verify step (stats.py:419), and so are the timing metrics when off.
    def response(**stats):
        base = {"per_step_accepted": None, "per_step_drafted": None}
        timing = dict.fromkeys(("time_to_first_token_ms", "generation_time_ms", "queue_time_ms"))
        return json.dumps({"id": "cmpl-1", "metrics": timing | {"speculative_decoding": base | stats}}) + "\n"

    summary = response(acceptance_histogram=[1, 2, 1], num_spec_steps=4, num_draft_tokens=8, num_spec_tokens=2)
    m = engines.parse_engine_metrics(summary)
    check(m, k=2, drafts=4, draft_tokens=8, accepted=4, per_position=(3 / 4, 1 / 4))
    assert m.position_drafts is None and m.by_draft_length is None
    detailed = response(
        acceptance_histogram=[1, 2, 1],
        num_draft_tokens=5,
        num_spec_tokens=2,
        per_step_accepted=[1, 0, 2, 1],
        per_step_drafted=[1, 1, 2, 1],
    )
    no_step = response(acceptance_histogram=[0, 0, 0], num_spec_steps=0, num_draft_tokens=0, num_spec_tokens=2)
    m = engines.parse_engine_metrics(detailed + no_step)
    assert m.drafts == 4 and m.position_drafts == (4, 1) and m.by_draft_length == ((1, 3, 2), (2, 1, 2))


def _per_request(**stats):
    base = {"acceptance_histogram": [2, 1, 1], "num_draft_tokens": 8, "num_spec_tokens": 2}
    return '{"metrics": {"speculative_decoding": ' + json.dumps(base | stats) + "}}\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_per_request(acceptance_histogram=[2, 1]), r"acceptance_histogram has 2 entries; num_spec_tokens = 2 needs 3"),
        (_per_request(num_spec_steps=5), r"num_spec_steps = 5 is not what acceptance_histogram counts, 4"),
        (_per_request(acceptance_histogram=[2, -1, 1]), r"acceptance_histogram\[1\] must be a whole count"),
        (_per_request(acceptance_histogram=[2, 1.5, 1]), r"acceptance_histogram\[1\] must be a whole count"),
        (_per_request(acceptance_histogram=[2, True, 1]), r"acceptance_histogram\[1\] must be a whole count"),
        (_per_request(num_draft_tokens=2), r"num_draft_tokens = 2 must be within \[accepted, steps × k\] = \[3, 8\]"),
        (_per_request(num_spec_tokens=0), r"num_spec_tokens must be within 1 to 1024, got 0"),
        (_per_request(num_spec_tokens="2"), r"num_spec_tokens must be a whole count"),
        (
            _per_request(per_step_accepted=[0, 1, 2, 0], per_step_drafted=[2, 2, 2]),
            r"per_step_drafted and per_step_accepted must have num_spec_steps = 4 entries",
        ),
        (
            _per_request(per_step_accepted=[0, 1, 2, 0], per_step_drafted=[2, 2, 1, 3]),
            r"a step accepted more than it drafted, or drafted more than k = 2",
        ),
        (
            _per_request(per_step_accepted=[0, 1, 1, 0], per_step_drafted=[2, 2, 2, 2]),
            r"per_step_accepted counts \[2, 2, 0\] steps by accepted tokens, not acceptance_histogram's \[2, 1, 1\]",
        ),
        ('{"metrics": {"speculative_decoding": {"acceptance_histogram": [2, 1', r"is not a whole JSON object"),
        (
            '"speculative_decoding": {"acceptance_histogram": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
            r"is not a whole JSON object",
        ),
        (_per_request(acceptance_histogram=[0, 0, 0], num_draft_tokens=0), r"show no verification steps"),
    ],
)
def test_vllm_per_request_bad_values(text, message):
    with pytest.raises(ValueError, match=message):
        engines.parse_engine_metrics(text)


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.txt")), ids=lambda p: p.name)
def test_every_whole_fixture_has_all_the_parts_its_format_needs(path):
    """A format's NEEDS names the parts a whole report has: the report read from a real fixture has each."""
    text = path.read_text()
    try:
        m = engines.parse_engine_metrics(text)
    except ValueError:
        return  # a fixture of a refused paste
    (module,) = [f for f in dispatch.FORMATS if f.FORMAT == m.format]
    assert module.NEEDS.found(text)[1] == []
