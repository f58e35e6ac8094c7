"""The engine configurations the pages print, as Chromium shows them: Hardware's configs in each
engine's tab (vLLM's ``--speculative-config``, SGLang's flags, TensorRT-LLM's YAML, llama.cpp's
flags) and the synthetic-acceptance tabs, each the text the server built for the address (what
the configs hold is the page tests', ``tests/pages/test_hardware.py``), the download, and
Calibrate's draft acceptance rate."""

from __future__ import annotations

import json
import re

from dashboard import texts
from dashboard.features.calibrate_examples import EXAMPLES
from dashboard.params import PARAMS
from dashboard.registry import hardware_tab
from engines.configs import sglang, vllm
from tests.app_helpers import shown
from tests.browser.helpers import PAGES, AppTab, served

#: The Hardware page's tab with the engines' configs.
ENGINES_TAB = hardware_tab("engines")

#: How the configs' own vLLM command starts (the synthetic run's adds "rejection_sample_method").
SERVE = "vllm serve "


def default(key: str):
    return PARAMS[key].default


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


def assert_codes_as_served(tab: AppTab) -> None:
    """Every code block holds, character for character, the text the server built for the address."""
    assert [text.strip() for text in code_blocks(tab)] == [
        text.strip() for text in served("hardware", tab.params()).codes
    ]


def test_hardware_shows_the_configs_the_server_built_and_downloads_them(tab: AppTab):
    tab.open(PAGES["hardware"], ENGINES_TAB)
    assert tab.exceptions() == []
    assert_codes_as_served(tab)
    config = vllm_config(tab)
    assert config["method"] == default("method")
    flags = sglang_flags(tab)  # one flag a line, joined by " \\", as a shell reads them
    assert flags["--speculative-algorithm"] == sglang.ALGORITHMS[default("method")]
    assert int(flags["--speculative-num-draft-tokens"]) == int(flags["--speculative-num-steps"]) + 1  # with the root
    button = tab.page.locator('[data-testid="stDownloadButton"]', has_text="Download the schedule as JSON")
    assert button.count() == 1 and button.is_visible()
    with tab.page.expect_download() as download:
        button.click()
    document = json.loads(download.value.path().read_text(encoding="utf-8"))
    assert document["vllm_speculative_config"] == config  # the file holds the config shown
    assert document["num_speculative_tokens_per_batch_size"] == config["num_speculative_tokens_per_batch_size"]


def test_a_link_with_method_ngram_shows_the_servers_configs_and_rule_messages(tab: AppTab):
    assert "ngram" in PARAMS["method"].options and default("method") != "ngram"
    tab.open(PAGES["hardware"], f"{ENGINES_TAB}&method=ngram")
    assert tab.exceptions() == []
    assert_codes_as_served(tab)
    # Each warning's text follows its icon's name, "rule" (blank while the icon font loads).
    messages = [re.sub(r"^\s*(rule)?\s*", "", w) for w in tab.warnings()]
    assert messages == [shown(w) for w in served("hardware", tab.params()).warnings]
    assert vllm_config(tab)["method"] == "ngram"


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
    """A person sees one engine's blocks at a time, each the server's text for the address."""
    tab.open(PAGES["hardware"], ENGINES_TAB)
    assert tab.exceptions() == []
    sent = {text.strip() for text in served("hardware", tab.params()).codes}
    visible = visible_codes(tab)  # the first tab of each group: vLLM's config and its synthetic run
    assert any(text.startswith(SERVE) and "rejection_sample_method" not in text for text in visible)
    assert any(text.startswith("vllm serve ") and '"rejection_sample_method": "synthetic"' in text for text in visible)
    assert not any(text.startswith("speculative_config:") for text in visible)
    assert set(visible) <= sent
    for label, group, start in (
        ("TensorRT-LLM", 0, "speculative_config:"),
        ("llama.cpp", 0, "llama-server -m "),
        ("SGLang", 1, "SGLANG_SIMULATE_ACC_LEN="),
    ):
        select_tab(tab, label, group)
        visible = visible_codes(tab)
        assert any(text.startswith(start) for text in visible), (label, visible)
        assert set(visible) <= sent, label
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
