"""The paste reader of ``/metrics`` scrapes against prometheus_client's parsers read over whole scrapes.

engines finds the sample lines in a paste itself and reads each with prometheus_client's text
parser (engines/_prometheus.py, vllm_prometheus.py say why a whole paste is not handed to it).
Here, on well-formed scrapes, prometheus_client's parsers over the whole scrape (the text one and
the OpenMetrics one) are the reference: from the samples they return, the figures the reader
reports are computed again (the latest sample of each counter summed over label sets; SGLang's
gauges averaged) and must come out exactly equal.
The scrapes are the fixtures, prometheus_client's own exposition of vLLM's and SGLang's
metrics, and random ones from hypothesis in both text formats.
"""

import math
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Counter, Gauge
from prometheus_client import generate_latest as text_exposition
from prometheus_client.openmetrics.exposition import generate_latest as openmetrics_exposition
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics
from prometheus_client.parser import text_string_to_metric_families as parse_text
from prometheus_client.utils import floatToGoString

import engines

FIXTURES = Path(__file__).parents[1] / "fixtures" / "engine_metrics"

# Sample names as prometheus_client returns them: "vllm:" in the text format, "vllm_" as its
# OpenMetrics exposition writes them, with "_total" (its text parser adds it to a counter's
# samples that lack it) or without (no TYPE line); "_created" samples are not counts.
_COUNTER = re.compile(
    r"vllm[:_]spec_decode_(num_drafts|num_draft_tokens|num_accepted_tokens_per_pos|num_accepted_tokens)(?:_total)?"
)
_GAUGE = re.compile(r"sglang[:_]spec_accept_(length|rate)")


def families(text: str, openmetrics: bool) -> list:
    return list((parse_openmetrics if openmetrics else parse_text)(text))


def samples(fams: list) -> list:
    """Every sample, in the order of the text (families are yielded in order, samples within them)."""
    return [s for fam in fams for s in fam.samples]


def vllm_reference(fams: list) -> dict:
    """The figures of the vLLM reader, from prometheus_client's samples.

    The latest sample of each series (name, labels) is the snapshot; counts are summed over
    label sets, per-position counts by their ``position`` label.
    """
    latest = {}
    for s in samples(fams):
        m = _COUNTER.fullmatch(s.name)
        if m:
            latest[(m.group(1), frozenset(s.labels.items()))] = s.value
    totals: dict[str, int] = {}
    per_pos: dict[int, int] = {}
    for (short, labels), value in latest.items():
        assert float(value).is_integer(), (short, value)
        if short == "num_accepted_tokens_per_pos":
            position = int(dict(labels)["position"])
            per_pos[position] = per_pos.get(position, 0) + int(value)
        else:
            totals[short] = totals.get(short, 0) + int(value)
    drafts = totals.get("num_drafts")
    draft_tokens = totals.get("num_draft_tokens")
    accepted = totals.get("num_accepted_tokens")
    assert sorted(per_pos) == list(range(len(per_pos))), "the generated positions are 0 … k - 1"
    k = len(per_pos) or None
    if k is None and drafts and draft_tokens is not None and draft_tokens % drafts == 0:
        k = draft_tokens // drafts
    return {
        "drafts": drafts,
        "draft_tokens": draft_tokens,
        "accepted": accepted,
        "k": k,
        "per_position": tuple(per_pos[i] / drafts for i in range(len(per_pos))) if per_pos and drafts else None,
        "mean_acceptance_length": 1.0 + accepted / drafts if drafts and accepted is not None else None,
        "emitted": accepted + drafts if drafts and accepted is not None else None,
        "accept_rate": accepted / draft_tokens if accepted is not None and draft_tokens else None,
    }


def sglang_reference(fams: list) -> dict:
    """SGLang's gauges: the mean over label sets of the accept lengths (0 and NaN: no step) and rates."""
    lengths, rates = [], []
    for s in samples(fams):
        m = _GAUGE.fullmatch(s.name)
        if m and m.group(1) == "length" and not math.isnan(s.value) and s.value != 0:
            lengths.append(float(s.value))
        elif m and m.group(1) == "rate" and not math.isnan(s.value):
            rates.append(float(s.value))
    return {
        "mean_acceptance_length": sum(lengths) / len(lengths),
        "printed_rate": sum(rates) / len(rates) if rates else None,
        "k": None,
        "drafts": None,
        "accepted": None,
    }


def printed_rate(m: engines.EngineMetrics) -> float | None:
    """SGLang's accept rate as the record keeps it printed, whichever meaning its values were read with."""
    return next((value for key, value in m.printed if key.startswith("sglang.accept_rate")), None)


def assert_agrees(text: str, reference: dict, fmt: str) -> engines.EngineMetrics:
    m = engines.parse_engine_metrics(text)
    assert m.format == fmt
    got = {field: printed_rate(m) if field == "printed_rate" else getattr(m, field) for field in reference}
    assert got == reference  # exactly: the same integers, the same float operations in the same order
    return m


# --- The fixtures ----------------------------------------------------------------------------------


def without_note(text: str) -> str:
    """The fixture without its first line, a free comment OpenMetrics does not allow."""
    assert text.startswith("# ") and not text.startswith(("# HELP", "# TYPE"))
    return text.split("\n", 1)[1]


@pytest.mark.parametrize(
    ("name", "openmetrics", "fmt"),
    [
        ("vllm_prometheus.txt", False, "vLLM Prometheus"),
        ("vllm_openmetrics.txt", True, "vLLM Prometheus"),
        ("sglang_prometheus.txt", False, "SGLang Prometheus"),
    ],
)
def test_fixtures_agree(name, openmetrics, fmt):
    text = (FIXTURES / name).read_text(encoding="utf-8")
    reference_text = without_note(text) if openmetrics else text
    fams = families(reference_text, openmetrics)
    reference = (vllm_reference if fmt.startswith("vLLM") else sglang_reference)(fams)
    assert reference["mean_acceptance_length"] is not None
    assert_agrees(text, reference, fmt)
    assert_agrees(reference_text, reference, fmt)


def test_sglang_openmetrics_fixture_agrees():
    # The same gauges with OpenMetrics' sample names and its closing "# EOF".
    text = without_note((FIXTURES / "sglang_prometheus.txt").read_text(encoding="utf-8"))
    text = text.replace("sglang:spec", "sglang_spec") + "# EOF\n"
    assert_agrees(text, sglang_reference(families(text, openmetrics=True)), "SGLang Prometheus")


# --- prometheus_client's own exposition of vLLM's and SGLang's metrics -------------------------------

MODEL = "meta-llama/Llama-3.1-8B-Instruct"
# vLLM's label sets (vllm/v1/metrics/loggers.py: model_name, engine) and a LoRA-like name with
# the characters the text formats escape.
ENGINES = [
    {"model_name": MODEL, "engine": "0"},
    {"model_name": MODEL, "engine": "1"},
    {"model_name": 'adapter "a\\b"\nline two', "engine": "0"},
]


def vllm_registry(engines: list[dict], drafts: list[int], per_pos: list[list[int]]) -> CollectorRegistry:
    """vLLM's four counters (vllm/v1/spec_decode/metrics.py, SpecDecodingProm) as prometheus_client holds them."""
    registry = CollectorRegistry()
    names = list(engines[0])
    c_drafts = Counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", names, registry=registry)
    c_tokens = Counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", names, registry=registry)
    c_accepted = Counter("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", names, registry=registry)
    c_pos = Counter(
        "vllm:spec_decode_num_accepted_tokens_per_pos",
        "Accepted tokens per draft position.",
        [*names, "position"],
        registry=registry,
    )
    for labels, n, counts in zip(engines, drafts, per_pos, strict=True):
        c_drafts.labels(**labels).inc(n)
        c_tokens.labels(**labels).inc(n * len(counts))
        c_accepted.labels(**labels).inc(sum(counts))
        for i, count in enumerate(counts):
            c_pos.labels(**labels, position=str(i)).inc(count)
    return registry


@pytest.mark.parametrize("openmetrics", [False, True], ids=["text", "openmetrics"])
@pytest.mark.parametrize(
    ("drafts", "per_pos"),
    [
        # Small counts print as "1000.0"; 12,345,678 and more as "1.2345678e+07".
        ([1000, 500, 7], [[800, 550, 350], [420, 330, 250], [7, 0, 0]]),
        ([12_345_678, 98_765_432, 1], [[12_000_000, 9_999_999, 10], [98_000_000, 1, 0], [1, 1, 1]]),
        ([2**40, 3, 0], [[2**40, 2**39], [3, 1], [0, 0]]),
    ],
)
def test_prometheus_client_exposition_of_vllm_counters(openmetrics, drafts, per_pos):
    registry = vllm_registry(ENGINES, drafts, per_pos)
    text = (openmetrics_exposition if openmetrics else text_exposition)(registry).decode()
    assert ("vllm_spec_decode_num_drafts_total{" in text) == openmetrics
    assert "_created" in text
    reference_text = text
    if openmetrics:
        # prometheus_client 0.26.0 cannot read back its own OpenMetrics exposition of a counter
        # whose name has a colon and that has several label sets: HELP and TYPE keep "vllm:", the
        # samples say "vllm_", so each sample starts an untyped family, and the second label
        # set's "_total" after the first one's "_created" clashes with the first family.
        with pytest.raises(ValueError, match="Clashing name: vllm_spec_decode_num_drafts_total"):
            families(text, openmetrics)
        # With the metadata spelled as the samples are, the same scrape is a typed counter.
        reference_text = re.sub(r"^# (HELP|TYPE) vllm:", r"# \1 vllm_", text, flags=re.MULTILINE)
    reference = vllm_reference(families(reference_text, openmetrics))
    assert reference["drafts"] == sum(drafts) and reference["k"] == len(per_pos[0])
    m = assert_agrees(text, reference, "vLLM Prometheus")
    assert any("3 label sets" in note for note in m.notes)


@pytest.mark.parametrize("openmetrics", [False, True], ids=["text", "openmetrics"])
def test_prometheus_client_exposition_of_sglang_gauges(openmetrics):
    # sgl-project/sglang's gauges (observability/metrics_collector.py), one label set per rank.
    registry = CollectorRegistry()
    names = ["model_name", "engine_type", "tp_rank", "pp_rank"]
    length = Gauge("sglang:spec_accept_length", "Mean acceptance length.", names, registry=registry)
    rate = Gauge("sglang:spec_accept_rate", "Speculative acceptance rate.", names, registry=registry)
    for rank, (x, r) in enumerate([(3.1, 0.7), (2.9000000000000004, 0.6), (1.0, 0.0), (0.0, math.nan)]):
        labels = {"model_name": MODEL, "engine_type": "unified", "tp_rank": str(rank), "pp_rank": "0"}
        length.labels(**labels).set(x)
        rate.labels(**labels).set(r)
    text = (openmetrics_exposition if openmetrics else text_exposition)(registry).decode()
    reference = sglang_reference(families(text, openmetrics))
    assert reference["mean_acceptance_length"] == (3.1 + 2.9000000000000004 + 1.0) / 3
    assert_agrees(text, reference, "SGLang Prometheus")


# --- Random well-formed scrapes ----------------------------------------------------------------------

# Label values: anything, with the three characters both formats escape and the ones that
# delimit labels, samples and comments.
label_values = st.text(
    st.characters(codec="utf-8", exclude_characters="\r") | st.sampled_from('"\\\n{},=# \t'), max_size=12
)
label_names = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,11}", fullmatch=True).filter(
    lambda s: s not in {"position", "le", "quantile"} and not s.startswith("__")
)
HELP = {
    "num_drafts": "Number of spec decoding drafts.",
    "num_draft_tokens": "Number of draft tokens.",
    "num_accepted_tokens": "Number of accepted tokens.",
    "num_accepted_tokens_per_pos": "Accepted tokens per draft position.",
    "length": "Mean acceptance length of speculative decoding (accepted drafts + bonus token per forward).",
    "rate": "Speculative acceptance rate (`accepted drafts / proposed drafts` in batch).",
}


def escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


@st.composite
def whole_number_text(draw, n: int, openmetrics: bool) -> str:
    """A count as an exposition may print it: "1234.0", "1.2345678e+07", "1234", "1.234E3", "1234."."""
    digits = str(n)
    kept = digits.rstrip("0") or "0"
    mantissa = kept[0] + ("." + kept[1:] if len(kept) > 1 else "")
    exponent = len(digits) - 1 if n else 0
    forms = [floatToGoString(n), digits, f"{digits}.0", f"{mantissa}e+{exponent:02d}", f"{mantissa}E{exponent}"]
    if not openmetrics:
        forms.append(f"{digits}.")
    return draw(st.sampled_from(forms))


@st.composite
def float_text(draw, x: float) -> str:
    """A gauge as an exposition may print it: Go's form ("NaN", "1e-05"), Python's ("nan"), "1E-05"."""
    forms = {floatToGoString(x), repr(x)} | ({repr(x).upper()} if math.isfinite(x) else set())
    return draw(st.sampled_from(sorted(forms)))


class Layout:
    """How one scrape spaces and names things; OpenMetrics allows one way only."""

    def __init__(self, draw, openmetrics: bool, prefix: str):
        self.openmetrics = openmetrics
        blank = st.sampled_from([" ", "\t", "  ", " \t "])
        optional = st.sampled_from(["", " ", "\t"])
        self.sep = (lambda: " ") if openmetrics else (lambda: draw(blank))
        self.pad = (lambda: "") if openmetrics else (lambda: draw(optional))
        self.draw = draw
        # prometheus_client's OpenMetrics exposition writes "vllm:" in HELP and TYPE and "vllm_"
        # in sample names; a scrape may also spell both alike, either way.
        self.sample_prefix = draw(st.sampled_from([prefix + ":", prefix + "_"]))
        self.meta_prefix = draw(st.sampled_from([prefix + ":", self.sample_prefix]))
        self.metadata = draw(st.booleans())
        # OpenMetrics types a family only where its sample names are the family's name and a
        # suffix; prometheus_client's own "vllm:" / "vllm_" pair leaves the samples untyped.
        self.typed = self.metadata and (not openmetrics or self.meta_prefix == self.sample_prefix)
        # One scrape, one time: OpenMetrics refuses a group whose timestamps go backwards.
        if openmetrics:  # seconds, as prometheus_client's OpenMetrics exposition writes them
            stamps = st.sampled_from(["1759147200", "1759147200.5", "1759147200.123456789", "1.7591472e+09"])
        else:  # milliseconds
            stamps = st.sampled_from(["1759147200000", "0", "-1000"])
        self.stamp = draw(st.none() | stamps)

    def labels(self, labels: list[tuple[str, str]]) -> str:
        if not labels:
            return ""
        pad = self.pad
        inner = ",".join(f'{pad()}{k}{pad()}={pad()}"{escape(v)}"{pad()}' for k, v in labels)
        trailing = self.draw(st.sampled_from(["", ","])) if not self.openmetrics else ""
        return pad() + "{" + inner + trailing + pad() + "}"

    def timestamp(self) -> str:
        return "" if self.stamp is None else self.sep() + self.stamp

    def line(self, name: str, labels: list[tuple[str, str]], value: str, exemplar: bool = False) -> str:
        text = self.pad() + name + self.labels(labels) + self.sep() + value + self.timestamp()
        if exemplar:
            text += ' # {trace_id="' + self.draw(st.from_regex(r"[0-9a-f]{1,16}", fullmatch=True)) + '"} 1.0'
        return text + self.pad()


def render(draw, layout: Layout, series: dict, kinds: dict) -> str:
    """One scrape: ``series`` maps a metric's short name to [(labels, value text)], in order."""
    lines = []
    for short in draw(st.permutations(list(series))):
        kind, base = kinds[short]
        counter = kind == "counter"
        # A counter's samples: prometheus_client writes "_total" (and "_created"); a scrape
        # without TYPE lines or made by hand may not, and OpenMetrics requires it of a counter.
        suffix = "_total" if layout.openmetrics and counter and layout.metadata else ""
        if counter and not suffix:
            suffix = draw(st.sampled_from(["", "_total"]))
        # An untyped OpenMetrics family ends where another name starts, and may not come back.
        created = counter and suffix == "_total" and (layout.typed or not layout.openmetrics) and draw(st.booleans())
        exemplars = counter and layout.typed and layout.openmetrics
        if layout.metadata:
            meta_name = layout.meta_prefix + base
            if not layout.openmetrics and counter and suffix and draw(st.booleans()):
                meta_name += suffix  # prometheus_client's text exposition names the family with "_total"
            # A HELP text may be anything, a number too: it is not a sample.
            help_text = draw(st.sampled_from([HELP[short], "0", "1.5e+07 1759147200000"]))
            lines.append(f"# HELP {meta_name} {help_text}")
            lines.append(f"# TYPE {meta_name} {kind}")
        for labels, value in draw(st.permutations(series[short])):
            name = layout.sample_prefix + base
            lines.append(layout.line(name + suffix, labels, value, exemplar=exemplars and draw(st.booleans())))
            if created:  # OpenMetrics keeps a label set's samples together
                lines.append(layout.line(name + "_created", labels, "1.7591472e+09"))
        if not layout.openmetrics and draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "  ", "# a comment"])))
    # A metric the readers must pass over; OpenMetrics allows it between families only.
    other = layout.line(layout.sample_prefix + "num_requests_running", [], "3.0")
    lines.insert(0 if layout.openmetrics else draw(st.integers(0, len(lines))), other)
    if layout.openmetrics or draw(st.booleans()):
        lines.append("# EOF")
    return "\n".join(lines) + "\n"


@st.composite
def vllm_scrapes(draw) -> tuple[str, bool]:
    openmetrics = draw(st.booleans())
    layout = Layout(draw, openmetrics, "vllm")
    names = draw(st.lists(label_names, max_size=3, unique=True))
    label_sets = draw(st.lists(st.tuples(*[label_values] * len(names)), min_size=1, max_size=4, unique=True))
    with_positions = draw(st.booleans())
    series = {"num_drafts": [], "num_draft_tokens": [], "num_accepted_tokens": []}
    if with_positions:
        series["num_accepted_tokens_per_pos"] = []

    def count(n: int) -> str:
        return draw(whole_number_text(n, openmetrics))

    for values in label_sets:
        labels = list(zip(names, values, strict=True))
        k = draw(st.integers(1, 8))
        drafts = draw(st.integers(0, 10**6) | st.integers(0, 10**12))
        # Accepted prefixes: position i is reached at most as often as position i - 1.
        per_pos = sorted(draw(st.lists(st.integers(0, drafts), min_size=k, max_size=k)), reverse=True)
        series["num_drafts"].append((labels, count(drafts)))
        series["num_draft_tokens"].append((labels, count(drafts * k)))
        series["num_accepted_tokens"].append((labels, count(sum(per_pos))))
        if with_positions:
            for i, c in enumerate(per_pos):
                pos_labels = draw(st.permutations([*labels, ("position", str(i))]))
                series["num_accepted_tokens_per_pos"].append((pos_labels, count(c)))
    kinds = {short: ("counter", "spec_decode_" + short) for short in series}
    return render(draw, layout, series, kinds), openmetrics


@st.composite
def sglang_scrapes(draw) -> tuple[str, bool]:
    openmetrics = draw(st.booleans())
    layout = Layout(draw, openmetrics, "sglang")
    names = draw(st.lists(label_names, max_size=3, unique=True))
    label_sets = draw(st.lists(st.tuples(*[label_values] * len(names)), min_size=1, max_size=4, unique=True))
    series = {"length": [], "rate": []}
    for i, values in enumerate(label_sets):
        labels = list(zip(names, values, strict=True))
        # 0 and NaN: an interval without a speculative step; at least one label set has one.
        idle = st.sampled_from([0.0, math.nan]) if i else st.nothing()
        length = draw(st.floats(1.0, 64.0) | idle)
        rate = draw(st.floats(0.0, 1.0) | st.just(math.nan))
        series["length"].append((labels, draw(float_text(length))))
        series["rate"].append((labels, draw(float_text(rate))))
    kinds = {short: ("gauge", "spec_accept_" + short) for short in series}
    return render(draw, layout, series, kinds), openmetrics


@given(vllm_scrapes())
def test_random_vllm_scrapes_agree(scrape):
    text, openmetrics = scrape
    assert_agrees(text, vllm_reference(families(text, openmetrics)), "vLLM Prometheus")


@given(sglang_scrapes())
def test_random_sglang_scrapes_agree(scrape):
    text, openmetrics = scrape
    assert_agrees(text, sglang_reference(families(text, openmetrics)), "SGLang Prometheus")


# --- Where the two part: why specmath does not use prometheus_client at run time --------------------


def test_a_scrape_cut_mid_line_is_refused_by_prometheus_client_and_read_by_specmath():
    # A paste that stops inside a label set, as a terminal's scrollback or a copy cut short leaves it.
    text = (FIXTURES / "vllm_prometheus.txt").read_text(encoding="utf-8")
    cut_at = text.index('position="2"} 250.0')  # engine 1's last per-position sample
    cut = text[: cut_at + len('position="')]
    with pytest.raises(ValueError):
        families(cut, openmetrics=False)
    # specmath keeps every complete sample: what prometheus_client reads from the whole lines.
    whole_lines = cut[: cut.rindex("\n") + 1]
    reference = vllm_reference(families(whole_lines, openmetrics=False))
    assert reference["per_position"] == (1220 / 1500, 880 / 1500, 350 / 1500)
    assert_agrees(cut, reference, "vLLM Prometheus")


def test_a_sample_line_prometheus_client_refuses_is_named_not_guessed_at():
    # A label set with a bare word: prometheus_client's text parser refuses the line, and so does the reader.
    scrape = (FIXTURES / "vllm_prometheus.txt").read_text()
    line = next(line for line in scrape.splitlines() if line.startswith("vllm:spec_decode_num_drafts_total{"))
    bad = scrape.replace(line, line.replace("{", "{weird,", 1))
    number = bad.splitlines().index(line.replace("{", "{weird,", 1)) + 1
    with pytest.raises(ValueError, match=rf"line {number} is not a Prometheus sample: Invalid labels: weird,"):
        engines.parse_engine_metrics(bad)
