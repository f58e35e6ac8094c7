"""Every acceptance preset against its cited source, kept verbatim under tests/fixtures/presets/acceptance/.

A fixture's first line is ``# `` and its presets' ``source``; what follows is the source's own
text: an InferenceX golden YAML as committed, or the table of vLLM PR #32030's description. The
tests read the numbers and the settings off that text; no number of a preset is typed again here.
"""

import itertools
import re
from pathlib import Path

import pytest
import yaml

import specmath as sm
from specmath.presets.acceptance import INFERENCEX_CURVES, VLLM_TEST_CURVES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "presets" / "acceptance"


def _texts_by_source() -> dict[str, str]:
    """Each fixture's text (its header line dropped) by the source its header cites."""
    texts = {}
    for path in sorted(FIXTURES.glob("*.txt")):
        header, _, text = path.read_text(encoding="utf-8").partition("\n")
        assert header.startswith("# "), path.name
        assert header[2:] not in texts, f"two fixtures cite {header[2:]!r}"
        texts[header[2:]] = text
    return texts


TEXTS = _texts_by_source()


def test_every_preset_cites_a_fixture_and_every_fixture_is_cited():
    cited = {preset.source for preset in sm.ACCEPTANCE_PRESETS.values()}
    assert cited == set(TEXTS)


def test_the_registry_holds_every_list_entry_once_by_name():
    assert list(sm.ACCEPTANCE_PRESETS) == [p.name for p in (*INFERENCEX_CURVES, *VLLM_TEST_CURVES)]


@pytest.mark.parametrize("name", list(sm.ACCEPTANCE_PRESETS))
def test_a_preset_is_plain_data_for_a_curve(name):
    preset = sm.ACCEPTANCE_PRESETS[name]
    curve = dict(preset.lengths)
    ks = list(curve)
    assert ks == sorted(ks) and len(ks) == len(preset.lengths)
    # AL counts the bonus token: at least 1 and at most k + 1 tokens per target pass.
    assert all(type(k) is int and 1 <= al <= k + 1 for k, al in curve.items())
    if preset.per_position is not None:
        u = preset.per_position
        assert len(u) == max(ks) and all(a >= b for a, b in itertools.pairwise(u))


# --- InferenceX's golden curves -------------------------------------------------------------------


def _golden(preset):
    """The preset's fixture text and the YAML it holds."""
    text = TEXTS[preset.source]
    return text, yaml.safe_load(text)


def _temperature(text: str, mode: str) -> float:
    """The temperature the YAML's comments give the thinking mode: its own line's, else the file's."""
    own = re.search(rf"^# {mode}\s*:\s*(?:temperature=|temp )([\d.]+)", text, re.M)
    shared = re.search(r"^# dataset: .*\btemperature: ([\d.]+)", text, re.M)
    return float((own or shared).group(1))


@pytest.mark.parametrize("preset", INFERENCEX_CURVES, ids=lambda p: p.name)
def test_a_golden_curve_reads_as_its_yaml(preset):
    text, table = _golden(preset)
    mode = "thinking_on" if preset.thinking else "thinking_off"
    assert list(table) == [preset.model]
    assert dict(preset.lengths) == table[preset.model][mode]
    assert preset.temperature == _temperature(text, mode)
    run = re.search(r"^# Source GitHub Actions run: (\S+)$", text, re.M).group(1)
    assert preset.source.endswith(f"(source run {run})")
    assert f"({preset.hardware}, {preset.engine} " in text
    assert "dataset: coding" in text and "SPEED-Bench" in text and "coding" in preset.dataset
    draft = re.search(r"draft: ([\w./-]+)\)", text)
    if draft:  # the YAML names the draft checkpoint: the head does too
        assert draft.group(1) in preset.head


def test_every_golden_curve_in_every_yaml_is_a_preset():
    inferencex = {source: text for source, text in TEXTS.items() if source.startswith("SemiAnalysisAI/InferenceX")}
    in_files = {
        (source, mode)
        for source, text in inferencex.items()
        for modes in yaml.safe_load(text).values()
        for mode in modes
    }
    as_presets = {(p.source, "thinking_on" if p.thinking else "thinking_off") for p in INFERENCEX_CURVES}
    assert as_presets == in_files
    assert len(inferencex) == 9 and len(in_files) == 14


# --- vLLM's acceptance-length test ----------------------------------------------------------------

ROW = re.compile(r"^\| `([^`]+)` \| `([^`]+)` \| ([\d.]+) \| \[([\d., ]+)\] \|$", re.M)


@pytest.mark.parametrize("preset", VLLM_TEST_CURVES, ids=lambda p: p.name)
def test_a_vllm_test_head_reads_as_its_row(preset):
    text = TEXTS[preset.source]
    rows = {verifier: (drafter, al, rates) for verifier, drafter, al, rates in ROW.findall(text)}
    drafter, al, rates = rows[preset.model]
    k = int(re.search(r"Runs inference with (\d+) speculative tokens", text).group(1))
    assert preset.head.endswith(f"({drafter})")
    assert dict(preset.lengths) == {k: float(al)}
    assert preset.per_position == tuple(float(r) for r in rates.split(","))
    # vLLM's per-position rates are unconditional: they sum to AL - 1, up to three roundings to 0.01.
    assert abs(1 + sum(preset.per_position) - float(al)) <= 3 * 0.005 + 1e-12


def test_the_vllm_table_has_no_row_left_out():
    (text,) = {TEXTS[p.source] for p in VLLM_TEST_CURVES}
    assert {verifier for verifier, *_ in ROW.findall(text)} == {p.model for p in VLLM_TEST_CURVES}
