"""The engine configurations the pages print, as Chromium shows them: Hardware's k schedule in
each engine's tab (vLLM's ``--speculative-config``, SGLang's flags, TensorRT-LLM's YAML,
llama.cpp's flags), the synthetic-acceptance tabs, and Calibrate's draft acceptance rate."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import yaml

import engines
import specmath
from dashboard import texts
from dashboard.features import hardware
from dashboard.features.calibrate_examples import EXAMPLES
from dashboard.params import PARAMS, PRECISIONS
from engines.configs import drafter_mismatch, sglang, vllm
from tests.browser.helpers import PAGES, AppTab

#: How the configs' own vLLM command starts (the synthetic run's adds "rejection_sample_method").
SERVE = "vllm serve "


def default(key: str):
    return PARAMS[key].default


def hardware_at_defaults() -> tuple[list[list[int]], int]:
    """specmath's k schedule over batches 1 … the largest and SGLang's best chain at the chosen
    batch, for the Hardware page's default models, GPU, precision, context and α."""
    assert default("bandwidth") == 0 and default("peak") == 0  # 0: the GPU preset's own figures
    gpu = specmath.GPU_PRESETS[default("gpu")]
    target, draft = (
        replace(specmath.MODEL_PRESETS[default(key)], bytes_per_parameter=PRECISIONS[default("precision")])
        for key in ("target_model", "draft_model")
    )
    alpha, context, overhead_s = default("alpha"), default("context"), default("overhead_ms") / 1e3
    max_k = int(hardware.HARDWARE_K[-1])
    sweep = specmath.roofline_batch_sweep(
        alpha, draft, target, gpu, np.arange(1, default("max_batch") + 1), context, overhead_s, max_k=max_k
    )
    schedule = [list(entry) for entry in specmath.batch_k_schedule(sweep.batch, sweep.k, sweep.speedup)]
    batch = default("batch")
    k, speedup = specmath.optimal_k_general(
        alpha,
        specmath.Roofline(draft, gpu, batch, context, overhead_s),
        specmath.Roofline(target, gpu, batch, context, overhead_s),
        max_k=max_k,
    )
    return schedule, k if speedup > 1 else 0


def code_blocks(tab: AppTab) -> list[str]:
    return tab.page.locator('[data-testid="stCode"] code').all_inner_texts()


def visible_codes(tab: AppTab) -> list[str]:
    """The code blocks a person sees: those of the selected tab of each tab group."""
    blocks = tab.page.locator('[data-testid="stCode"] code')
    return [blocks.nth(i).inner_text().strip() for i in range(blocks.count()) if blocks.nth(i).is_visible()]


def select_tab(tab: AppTab, label: str, group: int) -> None:
    """Click the tab ``label`` of the ``group``-th tab group (0: the configs, 1: the synthetic runs)."""
    before = visible_codes(tab)
    tab.page.get_by_role("tab", name=label, exact=True).nth(group).click()
    tab.page.wait_for_function(
        "before => JSON.stringify([...document.querySelectorAll('[data-testid=\"stCode\"] code')]"
        ".filter(e => e.checkVisibility()).map(e => e.innerText.trim())) !== before",
        arg=json.dumps(before),
    )


def vllm_config(tab: AppTab) -> dict:
    """The ``--speculative-config`` JSON of the configs' one ``vllm serve`` command, as a shell reads it."""
    configs = [vllm.read_flag(text.strip()) for text in code_blocks(tab) if text.strip().startswith(SERVE)]
    (config,) = [config for config in configs if "rejection_sample_method" not in config]
    return config


def sglang_flags(tab: AppTab) -> dict[str, str]:
    """The ``--speculative-*`` flags of SGLang's fixed-chain command, one ``--flag value`` a line joined
    by `` \\``, as {flag: value}."""
    (block,) = [
        text.strip() for text in code_blocks(tab)
        if text.strip().startswith("python -m sglang.launch_server ") and "--speculative-adaptive" not in text
    ]  # fmt: skip
    lines = [line.strip().removesuffix("\\").strip() for line in block.splitlines()]
    return dict(line.split(" ", 1) for line in lines if line.startswith("--speculative"))


def test_hardware_defaults_show_specmaths_schedule_as_vllm_and_sglang_configs(tab: AppTab):
    schedule, sglang_k = hardware_at_defaults()
    assert len(schedule) > 1 and sglang_k > 0  # a schedule that changes k, and a chain that pays
    tab.open(PAGES["hardware"])
    assert tab.exceptions() == []
    config = vllm_config(tab)
    assert config["method"] == default("method")
    assert config["num_speculative_tokens"] == max(k for _, _, k in schedule)
    assert config["num_speculative_tokens_per_batch_size"] == schedule
    flags = sglang_flags(tab)
    assert flags["--speculative-algorithm"] == sglang.ALGORITHMS[default("method")]
    assert flags["--speculative-num-steps"] == str(sglang_k)
    assert flags["--speculative-eagle-topk"] == "1"
    assert flags["--speculative-num-draft-tokens"] == str(sglang_k + 1)  # SGLang counts the root
    button = tab.page.locator('[data-testid="stDownloadButton"]', has_text="Download the schedule as JSON")
    assert button.count() == 1 and button.is_visible()
    with tab.page.expect_download() as download:
        button.click()
    document = json.loads(download.value.path().read_text(encoding="utf-8"))
    assert document["num_speculative_tokens_per_batch_size"] == schedule
    assert document["vllm_speculative_config"] == config


def test_a_link_with_method_ngram_puts_ngram_in_the_config(tab: AppTab):
    assert "ngram" in PARAMS["method"].options and default("method") != "ngram"
    schedule, sglang_k = hardware_at_defaults()
    tab.open(PAGES["hardware"], "method=ngram")
    assert tab.exceptions() == []
    # The engines' rules about n-grams (TensorRT-LLM, llama.cpp), as specmath writes them, and nothing else.
    configs = engines.engine_configs([tuple(e) for e in schedule], "ngram", None, sglang_k, default("batch"))
    rules = [w for c in configs for w in c.warnings]
    rules += [w for run in engines.synthetic_runs(
        default("alpha"), schedule, "ngram", None, sglang_k, default("batch"), target="t", context=1,
        predicted_speedup=2.0) for w in run.warnings]  # fmt: skip
    # First that the page costs a draft model run k times (its default kind) but configures a lookup.
    rules.insert(0, drafter_mismatch(default("drafter_kind"), "ngram"))
    # Each warning's text follows its icon's name, "rule" (blank while the icon font loads).
    shown = [re.sub(r"^\s*(rule)?\s*", "", w) for w in tab.warnings()]
    assert shown == [rule.replace("`", "") for rule in rules]
    config = vllm_config(tab)
    assert config["method"] == "ngram"
    assert "model" not in config  # n-grams come from the prompt: no draft model to load
    assert config["num_speculative_tokens_per_batch_size"] == schedule  # the method changes no cost
    flags = sglang_flags(tab)
    assert flags["--speculative-algorithm"] == "NGRAM"
    assert flags["--speculative-num-draft-tokens"] == str(sglang_k + 1)


def test_calibrate_example_with_vllms_acceptance_rate_explains_it(tab: AppTab):
    (name,) = [name for name, text in EXAMPLES.items() if "Avg Draft acceptance rate" in text]
    example = EXAMPLES[name]
    accepted = int(re.search(r"Accepted: (\d+) tokens", example).group(1))
    drafted = int(re.search(r"Drafted: (\d+) tokens", example).group(1))
    tab.open(PAGES["calibrate"])
    heading = tab.page.get_by_role("heading", name=texts.ACCEPT_RATE_HEADING, exact=True)
    assert heading.count() == 0  # the typed counts at the defaults have no acceptance rate to explain
    before = tab.signature()
    tab.page.get_by_role("button", name=name, exact=True).click()
    tab.settle(changed_from=before)
    assert tab.exceptions() == []
    assert tab.page.locator('textarea[aria-label="Engine output"]').input_value() == example
    assert heading.count() == 1 and heading.is_visible()
    metric = tab.page.locator('[data-testid="stMetric"]', has_text="Engine's draft acceptance rate")
    shown = metric.locator('[data-testid="stMetricValue"]').inner_text().strip()
    assert shown == f"{100 * accepted / drafted:.1f}%", shown


def test_each_engines_tab_shows_its_config_and_its_synthetic_run(tab: AppTab):
    schedule, sglang_k = hardware_at_defaults()
    tab.open(PAGES["hardware"])
    assert tab.exceptions() == []
    shown = visible_codes(tab)  # the first tab of each group: vLLM's config and its synthetic run
    assert any(text.startswith(SERVE) and "rejection_sample_method" not in text for text in shown)
    assert any(text.startswith("vllm serve ") and '"rejection_sample_method": "synthetic"' in text for text in shown)
    assert not any(text.startswith("speculative_config:") for text in shown)
    select_tab(tab, "TensorRT-LLM", 0)
    (yaml_file,) = [text for text in visible_codes(tab) if text.startswith("speculative_config:")]
    config = yaml.safe_load(yaml_file)["speculative_config"]
    assert config["draft_len_schedule"] == {hi: k for _, hi, k in schedule if k}
    assert config["max_draft_len"] == schedule[0][2]
    select_tab(tab, "llama.cpp", 0)
    (flags,) = [text for text in visible_codes(tab) if text.startswith("llama-server -m ")]
    assert f"--spec-draft-n-max {sglang_k}" in flags
    select_tab(tab, "SGLang", 1)
    assert any(text.startswith("SGLANG_SIMULATE_ACC_LEN=") for text in visible_codes(tab))
    assert tab.exceptions() == []


def test_calibrates_rule_link_opens_the_verification_rules_page_on_its_pair(tab: AppTab):
    """The paragraph on the verification rule links to the page that shows it, set up for the point."""
    (name,) = [name for name, text in EXAMPLES.items() if "Avg Draft acceptance rate" in text]
    tab.open(PAGES["calibrate"])
    before = tab.signature()
    tab.page.get_by_role("button", name=name, exact=True).click()
    tab.settle(changed_from=before)
    before = tab.signature()
    tab.page.get_by_role("link", name="Open Verification rules on the close pair at T = 1").click()
    tab.page.wait_for_url(lambda url: "/Verification_rules?" in url)
    tab.settle(changed_from=before)
    assert tab.exceptions() == [] and tab.warnings() == []
    # The link's T = 1 is the default, which the address leaves out once the page binds it.
    assert tab.params() == {"vr_preset": ["close"]}
    assert tab.slider_values()[PARAMS["vr_temperature"].label] == "1.00"


def test_draft_trees_opens_on_sglangs_tab_the_engine_that_builds_the_tree(tab: AppTab):
    tab.open(PAGES["trees"])
    assert tab.exceptions() == []
    (flags,) = [text for text in visible_codes(tab) if text.startswith("python -m sglang.launch_server --model-path")]
    assert f"--speculative-eagle-topk {default('topk')}" in flags
    select_tab(tab, "vLLM", 0)
    assert not visible_codes(tab)  # vLLM has no token tree: a note, nothing to paste
