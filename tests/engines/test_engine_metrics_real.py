"""parse_engine_metrics on vLLM output as users really posted it.

Each fixture here is a verbatim excerpt of a GitHub post, named in its first line; each test
asserts the counts a person reads off it, and works out in a comment what follows from them.
"""

import re

import pytest

import engines
from tests.engines.test_engine_metrics import check, fixture, has_note


def percent(*values: float) -> tuple[float, ...]:
    return tuple(v / 100 for v in values)


# --- vllm bench serve --------------------------------------------------------------------------

MTP8_POSITIONS = percent(76.17, 61.58, 51.25, 42.43, 36.40, 30.94, 27.22, 23.65)


def test_bench_serve_uses_the_last_of_two_runs():
    """PR #48892: MTP 1, then MTP 8; the second is the run the paste ends with."""
    m = engines.parse_engine_metrics(fixture("vllm_bench_serve_pr48892.txt"))
    # Printed: 43.71 %, 4.50, Drafts 11043, Draft tokens 88344 = 8 × 11043, Accepted 38611.
    check(m, engine="vLLM", format="vLLM bench serve", k=8, drafts=11043, draft_tokens=88344, accepted=38611)
    check(m, emitted=38611 + 11043, mean_acceptance_length=1 + 38611 / 11043, accept_rate=38611 / 88344)
    assert round(m.mean_acceptance_length, 2) == 4.50 and round(100 * m.accept_rate, 2) == 43.71
    check(m, per_position=MTP8_POSITIONS)
    assert has_note(m, "2 'Speculative Decoding' sections", "used the last")
    assert not has_note(m, "differs") and not has_note(m, "shorter")


def test_bench_serve_first_run_alone():
    text = fixture("vllm_bench_serve_pr48892.txt").split("vs MTP 8:")[0]
    m = engines.parse_engine_metrics(text)
    # MTP 1: one position, so every draft is one token: Drafts = Draft tokens = 26407.
    check(m, k=1, drafts=26407, draft_tokens=26407, accepted=22021, per_position=(0.8339,))
    assert round(m.mean_acceptance_length, 2) == 1.83 and round(100 * m.accept_rate, 2) == 83.39


def test_bench_serve_trailing_spaces_change_nothing():
    """vLLM pads each value to ten characters ("{:<10}"); the fixture keeps the padding."""
    text = fixture("vllm_bench_serve_pr48892.txt")
    assert "43.71     \n" in text
    stripped = "\n".join(line.rstrip() for line in text.split("\n"))
    assert engines.parse_engine_metrics(stripped) == engines.parse_engine_metrics(text)


def _trim(text: str, *drop: str) -> str:
    """The paste as users trim it: the named lines gone, the positions' indentation lost."""
    lines = [line for line in text.split("\n") if not line.lstrip().startswith(drop)]
    return "\n".join(re.sub(r"^\s+(Position)", r"\1", line) for line in lines)


def test_bench_serve_without_drafts_infers_them_from_the_counts():
    text = _trim(fixture("vllm_bench_serve_pr48892.txt"), "Drafts:")
    m = engines.parse_engine_metrics(text)
    # Accepted 38611 and Draft tokens 88344 stay; the printed 4.50 and the positions (sum 3.4964)
    # fit 38611 / drafts for drafts in a narrow range that holds 88344 / 8 = 11043 only.
    check(m, k=8, drafts=11043, draft_tokens=88344, accepted=38611, per_position=MTP8_POSITIONS)
    assert has_note(m, "Drafts is not in the paste", "11,043")


def test_bench_serve_trimmed_to_rate_length_tokens_and_positions():
    """As users post it: rate, length, draft tokens and bare 'Position i:' lines only."""
    text = _trim(fixture("vllm_bench_serve_pr48892.txt"), "Drafts:", "Accepted tokens:", "Per-position", "---", "===")
    m = engines.parse_engine_metrics(text)
    # Drafts = 88344 / 8 = 11043 taken as full drafts; accepted is 43.71 % ± 0.005 % of 88344
    # = 38611.2 … 38620.0, and (4.50 - 1) ± 0.005 of 11043 and the positions' sum narrow it to
    # 38,611 … 38,615: not one count, so accepted is left unknown and the printed mean is used.
    check(m, k=8, drafts=11043, draft_tokens=88344, accepted=None, mean_acceptance_length=4.50)
    check(m, accept_rate=0.4371, per_position=MTP8_POSITIONS)
    assert has_note(m, "taken as Draft tokens / k") and has_note(m, "38,611 to 38,615")


def test_bench_serve_impossible_counts_are_refused():
    text = fixture("vllm_bench_serve_pr48892.txt").replace("38611", "98611")
    with pytest.raises(ValueError, match=r"Accepted tokens \(98611\) exceeds Draft tokens \(88344\)"):
        engines.parse_engine_metrics(text)


# --- the offline example ------------------------------------------------------------------------

PR26498_LAST = (0.71, 0.50, 0.36, 0.26, 0.18, 0.13, 0.10, 0.07, 0.04, 0.02)


def test_offline_example_uses_the_last_printout():
    """PR #26498: two spec_decode.py printouts of K=10; the SpecBench one comes last."""
    m = engines.parse_engine_metrics(fixture("vllm_offline_pr26498.txt"))
    check(m, format="vLLM offline example", k=10, drafts=20468, draft_tokens=204680, accepted=48266)
    check(m, emitted=48266 + 20468, mean_acceptance_length=1 + 48266 / 20468, per_position=PR26498_LAST)
    check(m, accept_rate=48266 / 204680)
    assert round(m.mean_acceptance_length, 2) == 3.36
    assert has_note(m, "2 offline example printouts") and has_note(m, "total_num_output_tokens (68,596)")


def test_offline_example_first_printout_alone():
    text = fixture("vllm_offline_pr26498.txt").split("####")[0]
    m = engines.parse_engine_metrics(text)
    check(m, k=10, drafts=4687, draft_tokens=46870, accepted=12368, mean_acceptance_length=1 + 12368 / 4687)
    assert round(m.mean_acceptance_length, 2) == 3.64 and m.per_position[0] == 0.74


def test_offline_example_with_shorter_ngram_drafts():
    """PR #24344's ngram run: 4960 draft tokens over 993 drafts is under 5 each."""
    m = engines.parse_engine_metrics(fixture("vllm_offline_ngram_pr24344.txt"))
    check(m, k=5, drafts=993, draft_tokens=4960, accepted=3562, mean_acceptance_length=1 + 3562 / 993)
    check(m, per_position=(0.81, 0.74, 0.70, 0.68, 0.66))
    assert round(m.mean_acceptance_length, 2) == 4.59  # printed; "seq normalized … 2.96" is not it
    assert has_note(m, "not k × num_drafts", "shorter than k = 5")


def test_offline_example_of_v0_9_has_no_counts():
    """eagle.py of v0.9.0 printed the mean and 'acceptance at token i:X' without a space, no counts."""
    printout = fixture("vllm_offline_pr26498.txt").split("####")[0]
    printout = re.sub(r"(?m)^(total_num_output_tokens|num_\w+): \d+\n", "", printout)
    printout = printout.replace("token 0: ", "token 0:").replace(": 0.", ":0.")
    m = engines.parse_engine_metrics(printout)
    check(m, k=10, drafts=None, accepted=None, mean_acceptance_length=3.64)
    assert m.per_position == (0.74, 0.54, 0.41, 0.30, 0.22, 0.16, 0.12, 0.08, 0.05, 0.02)


def test_offline_example_mean_only():
    m = engines.parse_engine_metrics(fixture("vllm_offline_mean_only.txt"))
    check(m, format="vLLM offline example", k=None, drafts=None, accepted=None, mean_acceptance_length=2.13)
    assert has_note(m, "only the mean acceptance length")


# --- vLLM V1 lines: trimmed, early, data-parallel, real ones --------------------------------------


def test_v1_fields_quoted_without_their_line():
    """Issue #55605: only 'Mean acceptance length' and 'Per-position acceptance rate' were kept."""
    m = engines.parse_engine_metrics(fixture("vllm_v1_trimmed_issue55605.txt"))
    check(m, format="vLLM V1 log (trimmed)", k=4, mean_acceptance_length=5.0, per_position=(1.0, 1.0, 1.0, 1.0))
    check(m, drafts=None, draft_tokens=None, accepted=None)
    assert has_note(m, "no counts")


def test_v1_fields_of_v0_8_5_mean_without_the_bonus_token():
    """vLLM 0.8.5's mean is accepted / drafts (metrics.py:76@v0.8.5): it equals the rates' sum."""
    m = engines.parse_engine_metrics(
        "Mean acceptance length: 4.00\nPer-position acceptance rate: 1.000, 1.000, 1.000, 1.000\n"
    )
    check(m, k=4, mean_acceptance_length=5.0)
    assert has_note(m, "0.8.5")


def test_early_v1_line_under_the_v0_prefix():
    """PR #15902's 'BEFORE' line: a rate and two counts, no drafts."""
    m = engines.parse_engine_metrics(fixture("vllm_v1_early_pr15902.txt"))
    check(m, format="vLLM V1 log (early)", draft_tokens=66, accepted=66, accept_rate=1.0)
    check(m, k=None, drafts=None, mean_acceptance_length=None, per_position=None)


def test_early_v1_lines_are_summed_over_intervals():
    line = fixture("vllm_v1_early_pr15902.txt").split("\n")[3]
    second = line.replace("1.000", "0.500").replace(": 66,", ": 40,", 1).replace("tokens: 66", "tokens: 80")
    m = engines.parse_engine_metrics(f"{line}\n{second}\n")
    check(m, draft_tokens=66 + 80, accepted=66 + 40, accept_rate=106 / 146)
    assert has_note(m, "2 logging intervals")


def test_two_engines_in_one_interval():
    """PR #24049: engines 000 and 001 each log their line in the same interval (14:28:09)."""
    m = engines.parse_engine_metrics(fixture("vllm_v1_dp_pr24049.txt"))
    # Engine 000: 110 drafted / k 5 = 22 drafts (1 + 17/22 = 1.77); engine 001: 75 / 5 = 15 (2.80).
    check(m, k=5, drafts=22 + 15, draft_tokens=110 + 75, accepted=17 + 27, mean_acceptance_length=1 + 44 / 37)
    rates_0, rates_1 = (0.318, 0.182, 0.091, 0.091, 0.091), (0.533, 0.333, 0.333, 0.333, 0.267)
    check(m, per_position=tuple((a * 22 + b * 15) / 37 for a, b in zip(rates_0, rates_1, strict=True)))
    assert has_note(m, "2 engines (000, 001) over 1 logging interval")
    assert not has_note(m, "logging intervals found")


def test_two_engines_over_two_intervals():
    text = fixture("vllm_v1_dp_pr24049.txt")
    body = text.split("\n", 1)[1]
    m = engines.parse_engine_metrics(text + body.replace("14:28:09", "14:28:19"))
    check(m, drafts=2 * 37, accepted=2 * 44)
    assert has_note(m, "4 lines from 2 engines (000, 001) over 2 logging intervals")


def test_engines_of_one_interval_without_drafts_combine_their_rates_by_drafted():
    """Made-up counts: 2001 and 2003 drafted are not multiples of k = 2, so no line fixes its drafts."""
    line = (
        "SpecDecoding metrics: Mean acceptance length: 2.00, Accepted throughput: 1.00 tokens/s, Drafted throughput: "
        "2.00 tokens/s, Accepted: {a} tokens, Drafted: {d} tokens, Per-position acceptance rate: {r}, Avg Draft "
        "acceptance rate: 50.0%\n"
    )
    text = "".join(
        f"Engine 00{i}: Avg prompt throughput: 1.0 tokens/s\n" + line.format(a=a, d=d, r=r)
        for i, (a, d, r) in enumerate(((1001, 2001, "0.600, 0.400"), (1003, 2003, "0.800, 0.200")))
    )
    m = engines.parse_engine_metrics(text)
    check(m, drafts=None, draft_tokens=4004, accepted=2004)
    check(m, per_position=((0.6 * 2001 + 0.8 * 2003) / 4004, (0.4 * 2001 + 0.2 * 2003) / 4004))
    assert has_note(m, "latest interval's 2 engines' lines weighted by Drafted")


def test_real_v1_lines_of_the_current_layout():
    """vllm-ascend issue #13640: two intervals of k = 7 (161 = 7 × 23, 385 = 7 × 55)."""
    m = engines.parse_engine_metrics(fixture("vllm_v1_ascend_issue13640.txt"))
    check(m, format="vLLM V1 log", k=7, drafts=23 + 55, draft_tokens=161 + 385, accepted=44 + 106)
    check(m, mean_acceptance_length=1 + 150 / 78)
    assert has_note(m, "2 logging intervals found")


def test_real_v1_line_with_throughputs_closing_with_its_list():
    """PR #24127's layout: throughputs inside, the per-position list last (295 = 5 × 59)."""
    m = engines.parse_engine_metrics(fixture("vllm_v1_throughput_pr24127.txt"))
    check(m, k=5, drafts=59, draft_tokens=295, accepted=262, mean_acceptance_length=1 + 262 / 59)
    check(m, per_position=(0.983, 0.949, 0.915, 0.881, 0.712))
    assert round(m.mean_acceptance_length, 2) == 5.44 and m.notes == ()


def test_real_v0_line():
    """Issue #7301: 53716 draft tokens of k = 4 are 13429 drafts, which emitted 34244 tokens."""
    m = engines.parse_engine_metrics(fixture("vllm_v0_issue7301.txt"))
    check(m, format="vLLM V0 log", k=4, drafts=13429, draft_tokens=53716, emitted=34244, accepted=34244 - 13429)
    check(m, mean_acceptance_length=34244 / 13429)
    assert has_note(m, "(32594)")
