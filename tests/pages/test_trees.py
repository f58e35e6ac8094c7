"""The Draft trees page under AppTest: its numbers are specmath's, its flags SGLang's, its warnings clear."""

import dataclasses

import numpy as np
import pytest

import specmath
from dashboard.params import PRECISIONS
from engines.configs import sglang
from tests.app_helpers import metrics, open_page, page_charts, trace, values, warnings

TREES = "trees"
BUDGETS = np.arange(1, 129)


def _target(batch=16, model="Llama-3.1-8B", gpu="H100 SXM", precision="bf16", context=1024):
    gpu_spec = specmath.GPU_PRESETS[gpu]
    spec = specmath.MODEL_PRESETS[model]
    spec = dataclasses.replace(spec, bytes_per_parameter=PRECISIONS[precision])
    return specmath.Roofline(spec, gpu_spec, batch, context)


def _flags(at) -> str:
    (code,) = at.code
    return code.value


def _flag_values(at) -> dict[str, str]:
    return {flag: v for flag, v in sglang.read_flags(_flags(at)).items() if flag.startswith("--speculative")}


HEAD = "YOUR-EAGLE-HEAD-FOR-Llama-3.1-8B"  # the roofline's default target


def _eagle_speedups(steps, topk, batch=16, c=20, a=specmath.SEQUOIA_ACCEPTANCE):
    """The EAGLE tree's speedup at every num_draft_tokens SGLang takes (NaN elsewhere), by brute force."""
    target = _target(batch=batch)
    out = np.full(128, np.nan)
    for n in range(1, min(128, 1 + topk + (steps - 1) * topk**2) + 1):
        if topk == 1 and n != steps + 1:
            continue
        value, _ = specmath.eagle_tree(a, steps, topk, n)
        out[n - 1] = specmath.tree_speedup(value, n, steps, float(target(1)) / c, target)
    return out


@pytest.mark.parametrize(("budget", "depth"), [(32, 5), (32, 9), (100, 16), (2, 1)])
def test_sequoia_numbers_are_specmaths(budget, depth):
    at = open_page(TREES, budget=str(budget), depth=str(depth))
    assert not at.exception and not warnings(at)
    a = specmath.SEQUOIA_ACCEPTANCE
    value, _ = specmath.optimal_tree(a, budget, depth)
    m = metrics(at)
    assert m[f"Best tree F, m = {budget}, depth ≤ {depth}"] == f"{value:.3f}"
    assert m[f"Chain of {budget - 1} drafts F"] == f"{specmath.expected_tokens(a[0], budget - 1):.3f}"
    ndt = min(budget, 1 + 8 + 4 * 64)
    eagle, _ = specmath.eagle_tree(a, 5, 8, ndt)
    assert m[f"EAGLE tree F, {ndt} tokens"] == f"{eagle:.3f}"
    target = _target()
    t_draft = float(target(1)) / 20
    assert m[f"EAGLE speedup, {ndt} tokens"] == f"{specmath.tree_speedup(eagle, ndt, 5, t_draft, target):.2f}×"
    # The best (m, depth) by brute force over the table, each entry charged its depth limit.
    table = specmath.optimal_tree_table(a, 128, 16)
    best = max(
        (specmath.tree_speedup(table[mm, d], mm, d, t_draft, target), -mm, -d)
        for mm in range(1, 129)
        for d in range(depth + 1)
        if np.isfinite(table[mm, d])
    )
    assert m[f"Best (m, depth ≤ {depth})"] == f"({-best[1]}, {-best[2]}) → {best[0]:.2f}×"

    tokens, speed, tree = page_charts(at)
    best_name, eagle_name = f"best tree, depth ≤ {depth}", "EAGLE tree, topk 8, 5 steps"
    np.testing.assert_array_equal(values(trace(tokens, best_name)["y"]), table[1:, depth])
    chain_f = specmath.expected_tokens(a[0], BUDGETS - 1)
    np.testing.assert_allclose(values(trace(tokens, "chain of m − 1 drafts")["y"]), chain_f, rtol=1e-14)
    # The EAGLE tree at every num_draft_tokens SGLang takes at topk 8 and 5 steps; none elsewhere.
    eagle_f = [specmath.eagle_tree(a, 5, 8, int(n))[0] if n <= 1 + 8 + 4 * 64 else np.nan for n in BUDGETS]
    np.testing.assert_allclose(values(trace(tokens, eagle_name)["y"]).astype(float), eagle_f, rtol=1e-14)
    chain = values(trace(speed, "chain of m − 1 drafts")["y"])
    np.testing.assert_allclose(chain, specmath.general_speedup(a[0], BUDGETS - 1, t_draft, target), rtol=1e-14)
    eagle = values(trace(speed, eagle_name)["y"]).astype(float)
    np.testing.assert_allclose(eagle, _eagle_speedups(5, 8), rtol=1e-14)
    # Each budget's best tree speedup: the best over the depths up to the limit, by a loop.
    by_budget = [
        max(
            (specmath.tree_speedup(table[mm, d], mm, d, t_draft, target) for d in range(depth + 1)),
            key=lambda v: v if np.isfinite(v) else -np.inf,
        )
        for mm in range(1, 129)
    ]
    np.testing.assert_allclose(values(trace(speed, best_name)["y"]).astype(float), by_budget, rtol=1e-14)
    star = trace(speed, "best (m, depth)")
    assert (values(star["x"])[0], values(star["y"])[0]) == (-best[1], pytest.approx(best[0], rel=1e-14))
    nodes = trace(tree, "nodes")
    assert len(values(nodes["x"])) == budget
    assert values(nodes["customdata"])[:, 1].sum() == pytest.approx(value, rel=1e-12)


def test_the_closing_notes_figure_sequoia_at_32_nodes_depth_9():
    at = open_page(TREES, budget="32", depth="9")
    assert metrics(at)["Best tree F, m = 32, depth ≤ 9"] == "3.501"


def test_a_chain_alpha_is_one_rank_the_best_tree_is_the_chain():
    at = open_page(TREES, tree_source="chain", alpha="0.7", budget="20", depth="9", c="10", tree_batch="1")
    assert not at.exception and not warnings(at)
    notes = " ".join(i.value for i in at.info)
    assert "at most 10 nodes" in notes and "topk = 1" in notes
    m = metrics(at)
    assert m["Best tree F, m = 10, depth ≤ 9"] == f"{specmath.expected_tokens(0.7, 9):.3f}"
    assert m["EAGLE tree F, 6 tokens"] == f"{specmath.expected_tokens(0.7, 5):.3f}"
    target = _target(batch=1)
    # A chain's tree speedup is the Hardware page's general speedup.
    expected = specmath.general_speedup(0.7, 5, float(target(1)) / 10, target)
    assert m["EAGLE speedup, 6 tokens"] == f"{expected:.2f}×"
    assert _flag_values(at)["--speculative-eagle-topk"] == "1"
    assert _flag_values(at)["--speculative-num-draft-tokens"] == "6"
    eagle = trace(page_charts(at)[0], "EAGLE tree, topk 1, 5 steps")
    assert eagle["mode"] == "markers"
    assert np.count_nonzero(np.isfinite(values(eagle["y"]).astype(float))) == 1


def test_topk_one_makes_num_draft_tokens_steps_plus_one():
    at = open_page(TREES, topk="1", steps="7", budget="40")
    assert not at.exception
    assert any("the EAGLE tree is the chain of 7 drafts" in i.value and "= 8" in i.value for i in at.info)
    assert _flags(at) == (
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B \\\n"
        f"--speculative-algorithm EAGLE \\\n--speculative-draft-model-path {HEAD} \\\n"
        "--speculative-num-steps 7 \\\n--speculative-eagle-topk 1 \\\n--speculative-num-draft-tokens 8"
    )
    value, _ = specmath.eagle_tree(specmath.SEQUOIA_ACCEPTANCE, 7, 1, 8)
    assert value == pytest.approx(specmath.expected_tokens(specmath.SEQUOIA_ACCEPTANCE[0], 7))
    assert metrics(at)["EAGLE tree F, 8 tokens"] == f"{value:.3f}"


@pytest.mark.parametrize(("steps", "topk", "budget"), [(3, 4, 20), (6, 2, 100), (2, 3, 13)])
def test_the_flags_are_the_fastest_eagle_tree_at_the_chosen_topk_and_steps(steps, topk, budget):
    at = open_page(TREES, steps=str(steps), topk=str(topk), budget=str(budget))
    ndt = min(budget, 1 + topk + (steps - 1) * topk**2)
    if ndt < budget:
        assert any(f"so num_draft_tokens is {ndt}" in i.value for i in at.info)
    value, _ = specmath.eagle_tree(specmath.SEQUOIA_ACCEPTANCE, steps, topk, ndt)
    assert metrics(at)[f"EAGLE tree F, {ndt} tokens"] == f"{value:.3f}"  # the budget's tree, as chosen
    speedups = _eagle_speedups(steps, topk)
    fastest = int(np.nanargmax(speedups)) + 1
    assert speedups[fastest - 1] > 1
    assert _flags(at) == (
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B \\\n"
        f"--speculative-algorithm EAGLE \\\n--speculative-draft-model-path {HEAD} \\\n"
        f"--speculative-num-steps {steps} \\\n--speculative-eagle-topk {topk} \\\n"
        f"--speculative-num-draft-tokens {fastest}"
    )


def test_the_default_flags_are_the_pages_own_best_eagle_tree():
    at = open_page(TREES)
    assert not at.exception and not warnings(at)
    speedups = _eagle_speedups(5, 8)
    fastest = int(np.nanargmax(speedups)) + 1
    assert (fastest, f"{speedups[fastest - 1]:.2f}") == (20, "2.55")
    assert _flag_values(at)["--speculative-num-draft-tokens"] == "20"
    (caption,) = [c.value for c in at.caption if c.value.startswith("SGLang builds the EAGLE tree")]
    assert "num_draft_tokens = 20" in caption and "speedup 2.55×" in caption
    assert f"Replace `{HEAD}`" in caption
    # The budget's own tree, 32 tokens, is slower, and the page says so beside the flags.
    assert metrics(at)["EAGLE speedup, 32 tokens"] == "1.87×" and "num_draft_tokens = 32: 1.87×" in caption


def test_a_budget_that_would_be_slower_gets_no_flags_of_its_own():
    """The example of issue 30: 128 tokens in 16 steps of topk 8 predicts 0.58×."""
    at = open_page(TREES, budget="128", depth="16", topk="8", steps="16")
    assert not at.exception and not warnings(at)
    assert metrics(at)["EAGLE speedup, 128 tokens"] == "0.58×"
    flags = _flag_values(at)
    speedups = _eagle_speedups(16, 8)
    fastest = int(np.nanargmax(speedups)) + 1
    assert flags["--speculative-num-draft-tokens"] == str(fastest) != "128"
    assert flags["--speculative-algorithm"] == "EAGLE" and flags["--speculative-draft-model-path"] == HEAD
    (caption,) = [c.value for c in at.caption if c.value.startswith("SGLang builds the EAGLE tree")]
    assert f"speedup {speedups[fastest - 1]:.2f}×" in caption
    assert "num_draft_tokens = 128: 0.58× (slower than plain decoding)" in caption


def test_where_every_eagle_tree_is_slower_no_flags_are_printed_and_the_page_says_what_helps():
    at = open_page(TREES, c="2", steps="8")
    assert not at.exception and not at.code
    assert np.nanmax(_eagle_speedups(8, 8, c=2)) < 1
    (warning,) = warnings(at)
    assert warning.startswith("**No SGLang flags: at topk 8 and 8 steps every EAGLE tree is slower")
    # The fastest number of steps at topk 8, by brute force, is named.
    steps, speedup = max(((s, np.nanmax(_eagle_speedups(s, 8, c=2))) for s in range(1, 17)), key=lambda t: t[1])
    assert speedup > 1 and f"with {steps} steps" in warning and f"{speedup:.2f}×" in warning
    assert "Fewer steps" in warning


def test_under_free_verification_the_placeholder_names_no_target():
    at = open_page(TREES, tree_cost="free")
    assert _flag_values(at)["--speculative-draft-model-path"] == "YOUR-EAGLE-HEAD-FOR-YOUR-TARGET"


def test_a_toy_pair_is_the_simulators_chains_under_greedy_decoding():
    at = open_page(TREES, tree_source="pair", tree_target="random", tree_chain_vocab="6", tree_contexts="2", seed="7")
    assert not at.exception and not warnings(at)
    chain = specmath.random_transition_matrix(6, 0.5, rng=7)  # the simulator's random target, seeded
    draft = specmath.draft_by_merging(chain, 2)  # its draft of 2 merged contexts
    a = specmath.acceptance_from_pair(chain, draft)
    assert metrics(at)["p₁, first choice accepted"] == f"{a[0]:.3f}"
    value, _ = specmath.optimal_tree(a, 32, 5)
    assert metrics(at)["Best tree F, m = 32, depth ≤ 5"] == f"{value:.3f}"


def test_typed_numbers_are_used():
    at = open_page(TREES, tree_source="typed", acceptance="0.5 0.3; 0.1", budget="12", depth="3")
    assert not at.exception and not warnings(at)
    value, _ = specmath.optimal_tree([0.5, 0.3, 0.1], 12, 3)
    assert metrics(at)["Best tree F, m = 12, depth ≤ 3"] == f"{value:.3f}"


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("0.6, 0.7", "sums to 1.3, more than 1"),
        ("0.5, banana", "entry 2 ` banana ` is not a number"),
        ("1.5", "entry 1 is 1.5"),
        ("", "has no numbers"),
        ("[x](//e.vil) 0.1", "entry 1 ` [x](//e.vil) ` is not a number"),
        (",".join(["0.01"] * 40), "has 40 entries"),
    ],
)
def test_a_bad_typed_vector_warns_and_falls_back_to_sequoia(typed, says):
    at = open_page(TREES, tree_source="typed", acceptance=typed)
    assert not at.exception
    (warning,) = warnings(at)
    assert says in warning and "Using the Sequoia vector instead" in warning
    value, _ = specmath.optimal_tree(specmath.SEQUOIA_ACCEPTANCE, 32, 5)
    assert metrics(at)["Best tree F, m = 32, depth ≤ 5"] == f"{value:.3f}"
    assert len(page_charts(at)) == 3


@pytest.mark.parametrize(
    ("key", "raw", "message"),
    [
        ("budget", "129", "is outside 2 to 128"),
        ("budget", "1", "is outside 2 to 128"),
        ("depth", "17", "is outside 1 to 16"),
        ("depth", "0", "is outside 1 to 16"),
        ("topk", "9", "is outside 1 to 8"),
        ("tree_source", "magic", "is not one of the offered values"),
    ],
)
def test_out_of_range_links_get_the_bad_link_warning(key, raw, message):
    at = open_page(TREES, **{key: raw})
    assert not at.exception
    assert any(f"`{key}" in w and message in w for w in warnings(at)), warnings(at)
    assert len(page_charts(at)) == 3


def test_a_larger_batch_makes_the_best_tree_smaller():
    small = metrics(open_page(TREES, tree_batch="1", depth="9"))["Best (m, depth ≤ 9)"]
    large = metrics(open_page(TREES, tree_batch="256", depth="9"))["Best (m, depth ≤ 9)"]
    budget = [int(text.split(",")[0].strip("(")) for text in (small, large)]
    assert budget[1] < budget[0], (small, large)


@pytest.mark.parametrize(("cost", "beta"), [("free", None), ("linear", "0.2")])
def test_the_free_and_linear_cost_models_weigh_the_trees(cost, beta):
    """Under free verification only the draft steps cost (the chain's speedup is the chapter's);
    under the linear model each verified position adds β of a target step."""
    query = {"tree_cost": cost, "budget": "32", "depth": "9"} | ({"tree_beta": beta} if beta else {})
    at = open_page(TREES, **query)
    assert not at.exception and not warnings(at)
    target = specmath.FreeVerification(1.0) if cost == "free" else specmath.LinearOverhead(1.0, float(beta))
    a = specmath.SEQUOIA_ACCEPTANCE
    _, speed, _ = page_charts(at)
    chain = values(trace(speed, "chain of m − 1 drafts")["y"])
    if cost == "free":
        np.testing.assert_allclose(chain, specmath.speedup(a[0], BUDGETS - 1, 20), rtol=1e-14)
    ratio = 1 + float(beta) * (BUDGETS - 1) if beta else np.ones(BUDGETS.size)
    expected = specmath.expected_tokens(a[0], BUDGETS - 1) / ((BUDGETS - 1) / 20 + ratio)
    np.testing.assert_allclose(chain, expected, rtol=1e-14)
    value, _ = specmath.optimal_tree(a, 32, 9)
    m = metrics(at)
    assert m["Best tree F, m = 32, depth ≤ 9"] == f"{value:.3f}"
    table = specmath.optimal_tree_table(a, 32, 9)
    best = max((specmath.tree_speedup(table[32, d], 32, d, 1 / 20, target), d) for d in range(1, 10))
    assert m["Best speedup at m = 32"] == f"{best[0]:.2f}× (depth {best[1]})"
    t32 = float(target(32)) / float(target(1))
    assert m["T_target(32) / T_target(1)"] == f"{t32:.2f}"
    assert "tree_gpu" not in at.session_state  # the roofline's widgets are not shown


@pytest.mark.parametrize("tp", ["8", "1"])
def test_a_target_on_several_gpus_is_costed_at_its_tensor_parallelism(tp):
    """DeepSeek-V3 in FP8 on 8 H200s: the roofline at TP 8 over NVLink (specmath's), where on one
    H200 it does not fit and the page says so."""
    link = "NVLink (H100 SXM)"
    query = {"tree_target_model": "DeepSeek-V3", "tree_gpu": "H200 SXM", "tree_precision": "fp8", "tree_tp": tp}
    at = open_page(TREES, **query, tree_interconnect=link, budget="32", depth="9")
    assert not at.exception
    h200 = specmath.GPU_PRESETS["H200 SXM"]
    h200 = dataclasses.replace(h200, peak_flops=h200.peak_flops_fp8)  # FP8 weights at the FP8 peak
    spec = dataclasses.replace(specmath.MODEL_PRESETS["DeepSeek-V3"], bytes_per_parameter=1.0)
    target = specmath.Roofline(spec, h200, 16, 1024, 0.0, int(tp), specmath.INTERCONNECT_PRESETS[link])
    assert metrics(at)["T_target(32) / T_target(1)"] == f"{float(target(32) / target(1)):.2f}"
    _, speed, _ = page_charts(at)
    a = specmath.SEQUOIA_ACCEPTANCE
    chain = specmath.expected_tokens(a[0], BUDGETS - 1)
    expected = specmath.tree_speedup(chain, BUDGETS, BUDGETS - 1, float(target(1)) / 20, target)
    np.testing.assert_allclose(values(trace(speed, "chain of m − 1 drafts")["y"]), expected, rtol=1e-14)
    assert target.fits == (tp == "8")
    assert any("more than one H200 SXM holds" in w for w in warnings(at)) == (tp == "1")
    # SGLang's command serves the target on its GPUs.
    flags = sglang.read_flags(_flags(at))
    assert flags["python -m sglang.launch_server --model-path"] == "deepseek-ai/DeepSeek-V3"
    assert flags.get("--tp-size", "1") == tp
