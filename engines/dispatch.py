"""The entry point: every format's parser over one paste, and the report that comes last."""

from __future__ import annotations

import importlib
from dataclasses import replace

from . import sglang_bench
from ._text import Doc, Found, ReportError
from .record import EngineMetrics, EngineSweep

#: Only the last this many characters of a paste are read (bytes: the last four times as many
#: bytes are decoded first), which bounds time and memory whatever is pasted.
MAX_METRICS_CHARS = 2_000_000

#: The paste formats, by module name, in the order they are tried: the one list of them. A new
#: format is a module of this package (``FORMAT``, ``ENGINE``, ``NEEDS`` and ``parse``, see
#: :class:`engines._text.Needs`), its name here, a fixture and a test.
FORMAT_MODULES = (
    "vllm_v1",
    "vllm_v1_trimmed",
    "vllm_v0",
    "vllm_v1_early",
    "vllm_prometheus",
    "vllm_per_request",
    "vllm_bench",
    "vllm_offline",
    "sglang",
    "sglang_prometheus",
    "sglang_serving",
    "llamacpp",
    "llamacpp_server",
    "llamacpp_stats",
    "llamacpp_timings",
    "llamacpp_prometheus",
    "trtllm",
    "trtllm_bench",
)
#: Their modules, in that order.
FORMATS = tuple(importlib.import_module(f".{name}", __package__) for name in FORMAT_MODULES)
_PARSERS = tuple((f.FORMAT, f.parse) for f in FORMATS)


def _nearest(text: str) -> str | None:
    """What a paste no format read looks like: the format whose parts (its ``NEEDS``) it has most of,
    what it has of them and what it lacks; None if it has no part of any."""
    best = None
    for module in FORMATS:
        needs = module.NEEDS
        have, lack = needs.found(text)
        if have and (best is None or len(have) > len(best[1])):
            best = (needs.what, have, lack)
    if best is None:
        return None
    what, have, lack = best
    found = " and ".join(have) if len(have) < 3 else ", ".join(have[:-1]) + " and " + have[-1]
    said = f"it looks most like {what}: found {found}"
    return f"{said}, missing {', '.join(lack)}" if lack else said


def _read(text) -> tuple[str, list[str]]:
    notes = []
    if isinstance(text, (bytes, bytearray, memoryview)):
        raw = bytes(text)
        text = raw[-4 * MAX_METRICS_CHARS :].decode("utf-8", errors="replace")
    elif not isinstance(text, str):
        raise ValueError(f"text must be str or bytes, got {type(text).__name__}")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if len(text) > MAX_METRICS_CHARS:
        text = text[-MAX_METRICS_CHARS:]
        text = text[text.find("\n") + 1 :]  # drop the line the cut went through
        notes.append(f"only the last {MAX_METRICS_CHARS:,} characters were read; line numbers count from there")
    return text, notes


def parse_engine_metrics(text) -> EngineMetrics:
    """Read speculative decoding metrics pasted from a serving engine.

    Finds, anywhere in ``text`` (log noise, timestamps, several reports):

    * **vLLM V1 log** — ``SpecDecoding metrics: … Accepted: N tokens, Drafted: N tokens,
      Per-position acceptance rate: a, b, …`` (all three layouts vLLM has printed, and the last
      one without its per-position list, which then has no profile and no k). Each line
      is one logging interval, so Accepted and Drafted are **summed** over lines. The drafts of
      a line are inferred: Drafted / k when that agrees with the printed mean and rates,
      otherwise the unique whole number they allow. When every line's drafts are known,
      per-position rates are combined weighted by drafts and the mean is 1 + ΣAccepted /
      Σdrafts; otherwise the rates are the latest interval's and the mean is the Drafted-weighted
      mean of the printed ones. Lines that drafted nothing (``nan``) are skipped. With data
      parallelism each engine prints its own line after its ``Engine NNN:`` line; the lines of
      one interval are told apart by engine and summed all the same.
    * **vLLM V1 log (trimmed)** — ``Mean acceptance length: X`` and ``Per-position acceptance
      rate: a, b, …`` quoted without their ``SpecDecoding metrics:`` line: the latest pair, so
      k, the mean and the profile but no counts.
    * **vLLM V1 log (early)** — ``Speculative metrics: Draft acceptance rate: X, Number of
      accepted tokens: N, Number of draft tokens: N,`` (V1 builds before its rename): per
      interval, **summed**; no drafts, so no mean and no k.
    * **vLLM bench serve** — the ``Speculative Decoding`` section of ``vllm bench serve``
      (``Acceptance rate (%)``, ``Acceptance length``, ``Drafts``, ``Draft tokens``, ``Accepted
      tokens``, ``Position i:`` percentages), whole or trimmed by hand; one run, so the **last**
      section is used. A missing count is inferred where the printed values fix it.
    * **vLLM offline example** — ``examples/offline_inference/spec_decode.py``'s printout
      (``num_drafts``, ``num_draft_tokens``, ``num_accepted_tokens``, ``mean acceptance length``,
      ``acceptance at token i``), or only its mean as ``eagle.py`` of 0.8.0-0.8.4 printed it;
      the **last** printout is used.
    * **vLLM V0 log** — ``Speculative metrics: … Number of emitted tokens: N.`` Cumulative
      counters, so the **latest** line is used. drafts = draft tokens / k, the mean is
      emitted / drafts and accepted is emitted - drafts: V0's own accepted count includes
      tokens after an earlier rejection (it is kept in the notes).
    * **vLLM Prometheus** — ``vllm:spec_decode_num_drafts``, ``…_num_draft_tokens``,
      ``…_num_accepted_tokens``, ``…_num_accepted_tokens_per_pos{position="i"}``, with or
      without ``_total``. Cumulative counters: the **latest** sample of each series is used
      (one snapshot), summed across label sets other than ``position`` (engines, models).
    * **SGLang log** — decode-batch lines with ``accept len: X,`` (and ``accept rate``). Each
      line covers the same number of decode steps; the mean is the average of the lines'
      accept lengths **weighted by** ``#running-req`` (unweighted if a line lacks it). SGLang
      prints no counts, so only the mean is known.
    * **llama.cpp summary** — ``n_draft``, ``n_predict``, ``n_drafted``, ``n_accept``,
      ``accept = X%`` of the speculative examples; the **latest** summary is used, with
      drafts = n_predict - n_accept target steps.
    * **llama-server log** — ``draft acceptance [rate] = X (N accepted / N generated)`` per
      finished request (builds after llama.cpp PR #24536 go on with ``, mean acceptance length = X,
      acceptance rate per position = (…)``, later ``, mean len = X`` and the trace line
      ``acc per pos = (…)``), **summed** over requests.
    * **llama.cpp speculative statistics** — ``statistics NAME: #calls(b,g,a) = … #gen tokens = N,
      #acc tokens = N`` (and ``#mean acc len``, ``#acc rate/pos`` in newer builds), one line per
      drafter, cumulative since the server started: the **latest** line of each drafter is used and
      the drafters are **summed**; the steps are ``#calls a``.
    * **llama-server timings** — ``"draft_n": N, "draft_n_accepted": N`` of each response's
      ``timings``, **summed**; streamed chunks still under way are skipped. No steps, so no mean.
    * **llama-server /metrics** — ``llamacpp:spec_decode_num_drafts_total``,
      ``…_num_draft_tokens_total``, ``…_num_accepted_tokens_total`` and
      ``…_num_accepted_tokens_per_pos_total{position="i"}``, read as vLLM's scrape; all of them 0
      (a server that does not speculate) is no report. Counts of a million or more are printed to
      6 significant digits, which the notes say.
    * **vLLM per-request metrics** — ``"speculative_decoding": {"acceptance_histogram": […], …}``
      of each response (``--per-request-spec-decode-metrics``): the histograms are **summed**, so
      the per-position rates are exact; with ``detailed``'s ``per_step_drafted``, the drafts that
      reached each position are kept (``position_drafts``).
    * **TensorRT-LLM iteration stats** — ``specDecodingStats`` of each iteration, **summed**.
    * **trtllm-bench report** — the ``= DECODING STATISTICS (mode)`` block (``[DT]``, ``[ADT]``,
      ``[DAR]``, ``[AL]`` averages and percentiles over requests) or ``--report_json``'s
      ``"decoding_stats"``; the **last** report is used. With the average output length beside it,
      k = [DT] / (output − [ADT]) and the mean is 1 + [ADT] / (output − [ADT] − 1); the JSON's
      unrounded averages times its requests give the totals.

    If several formats occur, the one whose data comes last in the text is used, and the notes
    say so. A mean acceptance length is computed from counts where they allow (1 + accepted /
    drafts) and printed values that disagree with the counts are noted. A report missing its
    closing text (V1's ``Avg Draft acceptance rate: X%``, V0's final ``.``, SGLang's comma after
    the value, llama.cpp's ``accept = X%`` or line break) is treated as cut off and skipped, so a
    truncated last line leaves the earlier complete report in use. A V1 line of the layout that
    closes with its per-position list needs no line break after it when the list is whole: its
    last rate has its three decimals and the rates add up to the printed mean minus 1.

    The record used takes the fields it lacks (k, per-position rates) from the latest earlier
    record of the same engine whose counts agree with it (llama-server's request line before its
    statistics line, which prints no k), and says so in the notes.

    Parameters
    ----------
    text : str or bytes
        The pasted text; bytes are decoded as UTF-8 with undecodable bytes replaced. Only the
        last :data:`MAX_METRICS_CHARS` characters are read. Every pattern runs in time linear in
        the text, so any paste is answered quickly.

    Returns
    -------
    EngineMetrics
        One record; fields the format does not determine are None.

    Raises
    ------
    ValueError
        If no complete report is found (the message names the nearest format, what of it the text
        has and what it lacks, and what was incomplete), or a report is impossible: a count that is
        not a non-negative whole number, a rate outside [0, 1] (percentages outside [0, 100]), more
        accepted than drafted tokens.
        The message names the field and the line.
    """
    text, read_notes = _read(text)
    doc = Doc(text)
    found: list[tuple[int, str, Found | ReportError]] = []
    partial: list[str] = []
    for name, parse in _PARSERS:
        try:
            result = parse(doc)
        except ReportError as exc:
            found.append((exc.pos, name, exc))
            continue
        if isinstance(result, Found):
            found.append((result.pos, name, result))
        elif isinstance(result, str):
            partial.append(result)
    if not found:
        cap = f"; {read_notes[0]}" if read_notes else ""
        nearest = _nearest(text)
        if partial:
            said = "; ".join(([nearest] if nearest else []) + partial)
            raise ValueError(f"no complete speculative decoding report found in the text: {said}{cap}")
        if nearest is None:
            nearest = f"none of the formats read has any of its words here ({', '.join(f.FORMAT for f in FORMATS)})"
        raise ValueError(f"no speculative decoding metrics found in the text: {nearest}{cap}")
    found.sort(key=lambda f: f[0])
    _, name, result = found[-1]
    if isinstance(result, ReportError):
        raise ValueError(f"{name}: {result}") from None
    metrics = _borrow_missing(result.metrics, found[:-1])
    notes = list(metrics.notes)
    if found[:-1]:
        names = ", ".join(dict.fromkeys(n for _, n, _ in found[:-1]))
        notes.append(f"the text also holds {names} data; used the {name} data, which comes last")
        notes.extend(f"ignored {n} data: {r}" for _, n, r in found[:-1] if isinstance(r, ReportError))
    return replace(metrics, notes=tuple(notes + read_notes))


def _agree(a: EngineMetrics, b: EngineMetrics) -> bool:
    """Whether two records count the same drafting: same engine, same draft and accepted tokens, same drafts."""
    if a.engine != b.engine or None in (a.draft_tokens, a.accepted, b.draft_tokens, b.accepted):
        return False
    drafts_differ = None not in (a.drafts, b.drafts) and a.drafts != b.drafts
    return a.draft_tokens == b.draft_tokens and a.accepted == b.accepted and not drafts_differ


def _borrow_missing(chosen: EngineMetrics, earlier: list) -> EngineMetrics:
    """The record used, with the k and per-position rates it lacks taken from the latest earlier record of
    the same engine whose counts agree with it (llama-server prints its request line, with k, before the
    statistics line, which has none); otherwise the record as it is."""
    if chosen.k is not None and chosen.per_position is not None:
        return chosen
    for _, name, other in reversed(earlier):
        if not isinstance(other, Found) or not _agree(chosen, other.metrics):
            continue
        got = other.metrics
        taken = {f: getattr(got, f) for f in ("k", "per_position") if getattr(chosen, f) is None and getattr(got, f)}
        if "k" in taken and len(chosen.per_position or ()) > taken["k"]:
            del taken["k"]  # a k shorter than the record's own rates is not its draft length
        if not taken:
            return chosen
        said = " and ".join("k = " + str(v) if f == "k" else "the per-position rates" for f, v in taken.items())
        note = (
            f"{said} from the {name} data before it, whose counts agree ({chosen.draft_tokens:,} draft tokens, "
            f"{chosen.accepted:,} accepted)"
        )
        return replace(chosen, **taken, notes=(*chosen.notes, note))
    return chosen


def parse_engine_sweep(text) -> EngineSweep:
    """Read a benchmark sweep: one run per batch size and draft setting.

    Reads SGLang's ``scripts/playground/bench_speculative.py`` output, one JSON object per line
    with ``batch_size``, ``steps``, ``topk``, ``num_draft_tokens``, ``acc_length`` and
    ``step_time`` (and ``completion_tokens``); other lines (the script's progress output) are
    passed over, and a line that is not whole JSON is skipped with a note. A setting run twice
    keeps its later run.

    Parameters
    ----------
    text : str or bytes
        The pasted lines; as :func:`parse_engine_metrics`, only the last
        :data:`MAX_METRICS_CHARS` characters are read.

    Returns
    -------
    EngineSweep
        The runs sorted by (batch, draft length, topk, draft tokens).

    Raises
    ------
    ValueError
        If no run is found, or a run's field is missing or impossible (a count that is not a whole
        number, a time that is not above 0, an accept length outside 1 to the tokens verified):
        the message names the field and the line.
    """
    text, read_notes = _read(text)
    sweep = sglang_bench.parse_sweep(text)
    return replace(sweep, notes=sweep.notes + tuple(read_notes))
