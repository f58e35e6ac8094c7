"""parse_engine_metrics on trtllm-bench's acceptance report: its --report_json as a user committed it, and its
printed DECODING STATISTICS block rendered from the same numbers (no printed block was found posted).

The numbers in the comments are read off the fixtures.
"""

import pytest

import engines
from tests.engines.test_engine_metrics import check, fixture, has_note

# trtllm_bench_report.txt: "num_requests": 200, "avg_output_length": 1024.0, and the averages
# [DT] 920.28, [ADT] 717.24, [DAR] 0.8019896741987088, [AL] 3.4059690225961265 (MTP, 3 next-n layers).
N, OUTPUT, DT, ADT = 200, 1024.0, 920.28, 717.24


def test_report_json_gives_the_totals_the_averages_sum_to():
    # 200 × 920.28 = 184,056 draft tokens, 200 × 717.24 = 143,448 accepted; iterations 200 × (1024 − 717.24)
    # = 61,352, of which 200 are the requests' context steps: 61,152 verification steps; k = 184,056 / 61,352
    # = 3, the config's num_nextn_predict_layers.
    m = engines.parse_engine_metrics(fixture("trtllm_bench_report.txt"))
    check(
        m,
        engine="TensorRT-LLM",
        format="trtllm-bench report",
        k=3,
        drafts=61_152,
        draft_tokens=184_056,
        accepted=143_448,
        emitted=143_448 + 61_152,
        mean_acceptance_length=1 + 143_448 / 61_152,
        per_position=None,
        accept_rate=143_448 / 184_056,
    )
    assert has_note(m, "(MTP)", "averages over its requests, not totals")
    assert has_note(m, "the printed [AL] average, 3.40597")  # trtllm-bench's own, a mean over requests
    assert not has_note(m, "incomplete")


def test_printed_block_gives_k_and_the_mean_from_the_averages_but_no_totals():
    # "Average Output Length (tokens): 1024.0000", "[DT] AVERAGE: 920.28", "[ADT] AVERAGE: 717.24": the same
    # k = 920.28 / 306.76 = 3 and mean 1 + 717.24 / 305.76 as the JSON of the same run; totals only roughly.
    m = engines.parse_engine_metrics(fixture("trtllm_bench_decoding_statistics.txt"))
    check(
        m,
        format="trtllm-bench report",
        k=3,
        drafts=None,
        draft_tokens=None,
        accepted=None,
        mean_acceptance_length=1 + ADT / (OUTPUT - ADT - 1),
        accept_rate=ADT / DT,
    )
    assert has_note(m, "200 requests: about 143,448 accepted draft tokens over 61,152 drafts")
    assert has_note(m, "the printed [AL] average, 3.41")


def test_printed_block_alone_has_only_its_acceptance_length():
    # Without the REQUEST DETAILS above it there is no output length: no k, and the mean is "[AL] AVERAGE: 3.41".
    text = fixture("trtllm_bench_decoding_statistics.txt")
    block = text[text.index("= DECODING STATISTICS") - 60 :]
    m = engines.parse_engine_metrics(block)
    check(m, k=None, drafts=None, mean_acceptance_length=3.41, accept_rate=ADT / DT)
    assert has_note(m, "average output length", "is not in the paste")


def test_printed_block_cut_before_its_acceptance_length_is_incomplete():
    text = fixture("trtllm_bench_decoding_statistics.txt")
    with pytest.raises(ValueError, match=r"DECODING STATISTICS block at line \d+ is incomplete"):
        engines.parse_engine_metrics(text[: text.index("[AL] AVERAGE")])


def test_more_accepted_than_drafted_is_refused_naming_both():
    text = fixture("trtllm_bench_decoding_statistics.txt").replace("[ADT] AVERAGE: 717.24", "[ADT] AVERAGE: 990.00")
    with pytest.raises(ValueError, match=r"\[ADT\] average \(990\) exceeds the \[DT\] average \(920\.28\)"):
        engines.parse_engine_metrics(text)


def test_the_json_report_fits_alpha_from_its_counts():
    m = engines.parse_engine_metrics(fixture("trtllm_bench_report.txt"))
    fit = engines.fit_alpha(m)
    assert fit.k == 3 and fit.drafts == 61_152 and fit.accepted == 143_448
