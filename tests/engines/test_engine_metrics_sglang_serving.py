"""parse_engine_metrics on SGLang's bench_serving result, as users posted it (engines/sglang_serving.py)."""

import pytest

import engines
from tests.engines.test_engine_metrics import check, fixture, has_note

PR17098 = "sglang_bench_serving_pr17098.txt"


def test_pr17098_gives_the_servers_accept_length_and_no_counts():
    """Qwen3-8B with an EAGLE-3 head on MindSpore, 4 steps of top-1: 'Accept length: 2.14'."""
    m = engines.parse_engine_metrics(fixture(PR17098))
    check(m, engine="SGLang", format="SGLang bench_serving", mean_acceptance_length=2.14, tree_topk=1)
    check(m, k=None, drafts=None, draft_tokens=None, accepted=None, accept_rate=None, per_position=None)
    assert m.printed == (("sglang.bench_serving.accept_length", 2.14),)
    assert has_note(m, "the server's accept length since its counters were last reset", "k, drafts and accepted")


def test_the_last_of_several_results_is_used():
    first = fixture(PR17098)
    second = first.replace("2.14      \n", "3.05      \n")
    m = engines.parse_engine_metrics(first + second)
    check(m, mean_acceptance_length=3.05)
    assert has_note(m, "2 results with an accept length", "used the last")


def test_a_result_without_speculation_is_refused_with_what_it_lacks():
    """PR #15912: a LoRA server's result, with no 'Accept length:' line."""
    with pytest.raises(ValueError, match=r"missing 'Accept length: X'.*prints it only when the server is SGLang's"):
        engines.parse_engine_metrics(fixture("sglang_bench_serving_no_speculation_pr15912.txt"))


@pytest.mark.parametrize("value", ["0.50", "nan"])
def test_an_accept_length_below_one_is_refused(value):
    text = fixture(PR17098).replace("2.14      ", f"{value}      ")
    with pytest.raises(ValueError, match=rf"Accept length must be at least 1 .*got {value}"):
        engines.parse_engine_metrics(text)


def test_a_last_line_with_fewer_decimals_than_printed_may_be_cut_off():
    """bench_serving prints two decimals: '2.1' at the very end may be '2.14' cut short; '2.14' is whole."""
    head = fixture(PR17098).split("Accept length:")[0] + "Accept length:                           "
    check(engines.parse_engine_metrics(head + "2.14"), mean_acceptance_length=2.14)
    with pytest.raises(ValueError, match="on a last line without a line break and may be cut off"):
        engines.parse_engine_metrics(head + "2.1")


def test_vllms_bench_serve_result_without_speculation_is_not_taken_for_sglangs():
    """vLLM's bench serve prints the same head; without an SGLang backend the result is not this format's."""
    text = fixture(PR17098).split("```\nmindspore:\n")[1].replace("sglang    ", "vllm      ")
    text = text.replace("Accept length:                           2.14      \n", "")
    with pytest.raises(ValueError, match="none of the formats read has any of its words here"):
        engines.parse_engine_metrics(text)
