"""parse_engine_metrics on llama.cpp's outputs as users posted them: each real fixture gives the counts a
person reads off it.

The fixtures' `#` headers name the post; the numbers in the comments are read off the fixture.
"""

import pytest

import engines
from engines import llamacpp_server
from engines._text import Doc
from tests.engines.test_engine_metrics import check, fixture, has_note

# --- llama-server's per-request line, f449e0553's layout (llama.cpp PR #24536's comment) ---------------


def test_pr24536_request_line_with_its_rates_on_the_same_line():
    # "draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92,
    # acceptance rate per position = (0.805, 0.632, 0.483)": 1 + 167 / d = 2.92 and the rates' sum 1.920
    # leave d = 87 (the statistics line beside it counts 87), k = 3 rates.
    text = fixture("llamacpp_server_pr24536.txt")
    found = llamacpp_server.parse(Doc(text))
    check(
        found.metrics,
        format="llama-server log",
        k=3,
        drafts=87,
        draft_tokens=259,
        accepted=167,
        emitted=254,
        mean_acceptance_length=1 + 167 / 87,
        per_position=(0.805, 0.632, 0.483),
        accept_rate=167 / 259,
    )
    assert not has_note(found.metrics, "incomplete")


def test_the_same_line_alone_is_read_through_the_dispatcher():
    line = next(x for x in fixture("llamacpp_server_pr24536.txt").splitlines() if x.startswith("0.06.896.015"))
    m = engines.parse_engine_metrics(line + "\n")
    check(m, format="llama-server log", k=3, drafts=87, accepted=167, draft_tokens=259)


@pytest.mark.parametrize(
    "cut",
    [
        "draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.9",
        "draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, accep",
        "draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, "
        "acceptance rate per position = (0.805, 0.6",
    ],
)
def test_pr24536_line_cut_short_is_incomplete_and_says_both_newer_layouts(cut):
    with pytest.raises(ValueError, match=r"is incomplete .*mean len = X\.XX.*mean acceptance length = X\.XX"):
        engines.parse_engine_metrics(cut)


# --- llama.cpp's per-drafter statistics line ------------------------------------------------------------


def test_pr24536_statistics_line_comes_last_and_is_used_with_k_from_the_request_line_before_it():
    # "statistics     draft-eagle3: #calls(b,g,a) =    1     87     87, … #gen tokens =    259, #acc tokens =
    # 167, #mean acc len = 2.92, #acc rate/pos = (0.805, 0.632, 0.483)": 87 steps, 259 draft tokens, 167
    # accepted; its rates' list has no k (it stops at the longest run accepted). The 'draft acceptance' line
    # before it counts the same 259 and 167 and has k = 3 (three rates), so the record takes k = 3 from it.
    m = engines.parse_engine_metrics(fixture("llamacpp_server_pr24536.txt"))
    check(
        m,
        engine="llama.cpp",
        format="llama.cpp speculative statistics",
        k=3,
        drafts=87,
        draft_tokens=259,
        accepted=167,
        emitted=254,
        mean_acceptance_length=1 + 167 / 87,
        per_position=(0.805, 0.632, 0.483),
        accept_rate=167 / 259,
    )
    assert has_note(m, "since the server started") and has_note(m, "longest run accepted", "k is not printed")
    assert has_note(m, "also holds llama-server log data")
    assert has_note(m, "k = 3 from the llama-server log data", "259 draft tokens, 167 accepted")


def test_a_statistics_line_whose_counts_differ_takes_nothing_from_the_request_line():
    # The same paste with the statistics line's #gen tokens made 260: the two lines no longer count the same
    # drafting, so the last record is used as it is, without a k.
    text = fixture("llamacpp_server_pr24536.txt").replace("#gen tokens =    259", "#gen tokens =    260")
    m = engines.parse_engine_metrics(text)
    check(m, format="llama.cpp speculative statistics", k=None, draft_tokens=260, accepted=167)
    assert not has_note(m, "from the llama-server log data")


def test_pr23269_two_drafters_without_a_mean_are_summed():
    # ngram-mod: #calls a = 4, 256 draft tokens, 47 accepted; draft-mtp: #calls a = 796, 1585 draft tokens,
    # 1252 accepted. Sums: 800 steps, 1841 draft tokens, 1299 accepted; mean 1 + 1299 / 800 = 2.62375.
    m = engines.parse_engine_metrics(fixture("llamacpp_stats_pr23269.txt"))
    check(
        m,
        format="llama.cpp speculative statistics",
        k=None,
        drafts=800,
        draft_tokens=1841,
        accepted=1299,
        emitted=2099,
        mean_acceptance_length=2.62375,
        per_position=None,
        accept_rate=1299 / 1841,
    )
    assert has_note(m, "2 drafters (ngram-mod, draft-mtp)", "summed")


def test_statistics_are_cumulative_so_the_latest_line_of_a_drafter_is_its_total():
    lines = fixture("llamacpp_stats_pr23269.txt").splitlines()[1:3]
    earlier = lines[1].replace("796 796", "500 500").replace("= 1585", "= 1000").replace("= 1252", "= 800")
    m = engines.parse_engine_metrics("\n".join([earlier, *lines]) + "\n")
    check(m, drafts=800, draft_tokens=1841, accepted=1299)


def test_statistics_of_builds_whose_calls_a_skip_steps_that_accepted_nothing():
    # 63d93d173 returns before counting a step that accepted nothing: #calls a = #acc drafts = 60 of the
    # 100 drafts generated, all verified; the steps are taken as the 100 drafts.
    line = (
        "statistics draft: #calls(b,g,a) = 3 100 60, #gen drafts = 100, #acc drafts = 60, #gen tokens = 400, "
        "#acc tokens = 150\n"
    )
    m = engines.parse_engine_metrics(line)
    check(m, drafts=100, draft_tokens=400, accepted=150, mean_acceptance_length=2.5)
    assert has_note(m, "63d93d173", "#gen drafts")


# --- llama-server's response timings -------------------------------------------------------------------


def test_pr12603_timings_give_the_share_accepted_and_no_mean():
    # "draft_n": 347, "draft_n_accepted": 65, "predicted_n": 200: 65 / 347 accepted, 200 - 65 = 135 target steps.
    m = engines.parse_engine_metrics(fixture("llamacpp_timings_pr12603.txt"))
    check(
        m,
        engine="llama.cpp",
        format="llama-server timings",
        k=None,
        drafts=None,
        draft_tokens=347,
        accepted=65,
        emitted=None,
        mean_acceptance_length=None,
        per_position=None,
        accept_rate=65 / 347,
    )
    assert has_note(m, "not verification steps", "135 target steps")


def test_timings_of_streamed_chunks_under_way_are_skipped():
    body = fixture("llamacpp_timings_pr12603.txt").split("\n\n", 1)[1]
    flat = " ".join(body.split())
    chunk = '{"stop": false, "timings": ' + flat.replace("347", "100").replace('": 65', '": 20') + "}"
    last = '{"stop": true, "timings": ' + flat + "}"
    m = engines.parse_engine_metrics(f"data: {chunk}\ndata: {last}\n")
    check(m, draft_tokens=347, accepted=65)
    assert has_note(m, "streamed chunk")
    with pytest.raises(ValueError, match=r"streamed chunks still under way"):
        engines.parse_engine_metrics(f"data: {chunk}\n")


def test_timings_of_two_responses_are_summed():
    body = " ".join(fixture("llamacpp_timings_pr12603.txt").split("\n\n", 1)[1].split())
    m = engines.parse_engine_metrics(f'{{"timings": {body}}}\n{{"timings": {body}}}\n')
    check(m, draft_tokens=694, accepted=130)
    assert has_note(m, "2 responses", "summed")
