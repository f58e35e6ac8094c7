"""Draft trees: the best token tree for a budget, SGLang's EAGLE tree, and when a bigger tree stops paying."""

import numpy as np
import streamlit as st

import engines
import specmath
from dashboard import acceptance, charts, engine_config, texts, ui
from dashboard.features import draft_trees, engine_views, hardware
from dashboard.params import PRECISIONS, TREE_MAX_BUDGET, TREE_MAX_DEPTH, TREE_SERVING_KEYS

ctx = ui.page()
BUDGETS = np.arange(1, TREE_MAX_BUDGET + 1)


def acceptance_vector(source: str) -> tuple[np.ndarray, str]:
    """The page's p_1, p_2, … and a label saying where they come from."""
    values = ctx.values
    choice = acceptance.chosen(values)
    if source == "chain":
        if choice.problem is not None:
            note = acceptance.sidebar_note(choice)
            getattr(st.sidebar, note[0])(note[1])
        if choice.measured:
            alpha, said = draft_trees.chain_alpha(choice.value)
            st.sidebar.caption(said)
            return np.array([alpha]), f"chain, α = {alpha:.3f} fitted to {choice.label}"
        alpha = values["alpha"]
        st.sidebar.caption(f"acceptance p₁ = α = {alpha:g}, one rank: every tree is a chain.")
        return np.array([alpha]), f"chain α = {alpha:g}"
    if choice.measured:
        st.sidebar.caption(f"The acceptance chosen above ({choice.label}) is used by the chain source only.")
    if source == "pair":
        keys = ("tree_target", "tree_chain_vocab", "tree_contexts", "seed")
        target, vocab, contexts, seed = (values[key] for key in keys)
        merged = min(contexts, vocab)
        st.sidebar.caption("Greedy decoding; the draft merges the target's contexts (the Simulator's chains).")
        label = f"toy pair: {target} chain of {vocab} tokens, draft of {merged} contexts, seed {seed}"
        return np.array(draft_trees.pair_acceptance(target, contexts, vocab, seed)), label
    if source == "typed":
        values, problem = draft_trees.parse_acceptance(ctx.values["acceptance"])
        if problem is None:
            return values, "typed vector (" + ", ".join(f"{v:g}" for v in values[:4]) + ", …)" * (values.size > 4)
        st.warning(f"The typed acceptance vector {problem}. Using the Sequoia vector instead.", icon="⚠️")
    st.sidebar.caption(specmath.presets.SEQUOIA_ACCEPTANCE_SOURCE)
    return np.array(specmath.SEQUOIA_ACCEPTANCE), "Sequoia's vector, JF68M draft for Llama-2-7B"


def verification_cost(kind: str, c: float):
    """The target's time T(m) for the chosen cost model (times relative to T(1) where not the
    roofline's seconds), and the line that says so under the speedup chart."""
    if kind == "free":
        return specmath.FreeVerification(1.0), f"free verification, T(m) = T(1), c = {c:g}"
    values = ctx.values
    if kind == "linear":
        beta = values["tree_beta"]
        return specmath.LinearOverhead(1.0, beta), f"T(m) = T(1) (1 + {beta:g} (m − 1)), c = {c:g}"
    model, gpu, precision, batch, context, tp, link, bandwidth, latency = (
        values[f"tree_{key}"] for key in ("target_model", "gpu", "precision", "batch", "context", *TREE_SERVING_KEYS)
    )
    # The Hardware page's serving of the target; the EAGLE head's step is the target's over c.
    serving = hardware.Serving(tp=tp, interconnect=link, link_bandwidth_gbs=bandwidth, link_latency_us=latency)
    setup = hardware.hardware_setup(
        hardware.Deployment(model, model, gpu, PRECISIONS[precision], context, serving=serving), batch
    )
    target, on = setup.target, hardware.gpus(gpu, tp)
    if not target.fits:
        holds = f"each of {tp} {gpu} GPUs holds" if tp > 1 else f"one {gpu} holds"
        st.warning(
            f"{model} at batch {batch} needs {target.memory_needed / 1e9:,.0f} GB per GPU, more than {holds}; "
            "the times assume it fits. Raise the target's GPUs."
        )
    return target, f"{model} on {on}, batch {batch}, context {context:,}, c = {c:g}"


def view() -> None:
    ctx.show(draft_trees.ACCEPTANCE)
    acceptance, label = acceptance_vector(ctx.values["tree_source"])  # its captions under its widgets
    for section in (draft_trees.TREE, draft_trees.EAGLE, draft_trees.COST):
        ctx.show(section)
    c, budget, depth, topk, steps = (ctx.values[key] for key in ("c", "budget", "depth", "topk", "steps"))
    target, cost = verification_cost(ctx.values["tree_cost"], c)
    t_draft = float(target(1)) / c

    key = tuple(acceptance.tolist())
    table = draft_trees.tree_table(key)
    shown = draft_trees.largest_feasible(table[:, depth], budget)
    if shown < budget:
        st.info(
            f"With {acceptance.size} rank(s) a tree of depth ≤ {depth} holds at most {shown} nodes: drawn with {shown}."
        )
    value, parents = draft_trees.best_tree(key, shown, depth)
    eagle = draft_trees.eagle_settings(budget, steps, topk, acceptance.size)
    if eagle.note:
        st.info(eagle.note)
    eagle_f = draft_trees.eagle_curve(key, eagle.steps, eagle.topk)[1:]
    chain_f = specmath.expected_tokens(acceptance[0], BUDGETS - 1)
    speedups = draft_trees.speedup_table(table, t_draft, target)
    best_s, best_d = (a[1:] for a in draft_trees.best_over_depth(speedups, depth))
    best = draft_trees.best_setting(speedups, depth)
    eagle_s = specmath.tree_speedup(eagle_f, BUDGETS, eagle.steps, t_draft, target)
    n = eagle.num_draft_tokens

    metrics_area = st.container()
    left, right = ui.side_by_side()
    name = f"trees_{ctx.values['tree_source']}_m{budget}_d{depth}"
    best_name, eagle_name = f"best tree, depth ≤ {depth}", f"EAGLE tree, topk {eagle.topk}, {eagle.steps} steps"
    with left:
        curves = {"chain": ("chain of m − 1 drafts", chain_f), "best": (best_name, table[1:, depth])}
        curves["eagle"] = (eagle_name, eagle_f)
        ui.chart(charts.tree_tokens(BUDGETS, curves, budget, label), f"{name}_tokens", "trees_tokens")
    with right:
        chain_s = specmath.tree_speedup(chain_f, BUDGETS, BUDGETS - 1, t_draft, target)
        curves = {
            "chain": ("chain of m − 1 drafts", chain_s),
            "best": (best_name, best_s),
            "eagle": (eagle_name, eagle_s),
        }
        ui.chart(
            charts.tree_speedups(BUDGETS, curves, best, budget, cost),
            f"{name}_speedup_{ctx.values['tree_cost']}_c{c:g}",
            "trees_speedup",
        )
    ranks, scores = draft_trees.node_scores(parents, acceptance)
    title = f"The best tree of {shown} nodes, depth ≤ {depth}: F = {value:.3f}"
    picture = charts.tree_picture(parents, ranks, scores, title, label)
    ui.chart(picture, f"{name}_tree", "trees_picture", charts.tree_picture_height(parents))

    row = ui.metric_row(metrics_area)
    row.metric(f"Best tree F, m = {shown}, depth ≤ {depth}", f"{value:.3f}")
    row.metric(f"Chain of {shown - 1} drafts F", f"{chain_f[shown - 1]:.3f}")
    row.metric(f"EAGLE tree F, {n} tokens", f"{eagle_f[n - 1]:.3f}")
    row.metric("p₁, first choice accepted", f"{acceptance[0]:.3f}")
    row = ui.metric_row(metrics_area)
    row.metric(f"Best speedup at m = {shown}", f"{best_s[shown - 1]:.2f}× (depth {best_d[shown - 1]})")
    row.metric(f"EAGLE speedup, {n} tokens", f"{eagle_s[n - 1]:.2f}×")
    row.metric(f"Best (m, depth ≤ {depth})", f"({best[0]}, {best[1]}) → {best[2]:.2f}×")
    row.metric(f"T_target({shown}) / T_target(1)", f"{float(target(shown) / target(1)):.2f}")

    st.subheader("SGLang flags")
    sglang_section(key, eagle, eagle_s, t_draft, target, (value, shown, depth))


def sglang_section(key, eagle, eagle_s, t_draft, target, best_tree) -> None:
    """SGLang's flags for the fastest EAGLE tree at the chosen topk and steps, or, where every such
    tree is slower than plain decoding, why not and what would be faster."""
    n, speedup = draft_trees.fastest_eagle(eagle_s)
    chosen = eagle.num_draft_tokens
    mine = f"Your budget gives num_draft_tokens = {chosen}: {eagle_s[chosen - 1]:.2f}×"
    mine += " (slower than plain decoding)." if eagle_s[chosen - 1] < 1 else "."
    value, shown, depth = best_tree
    tree = f"The best tree of {shown} nodes at depth ≤ {depth}, which SGLang cannot build: F = {value:.3f}."
    if speedup <= 1:
        curves = {steps: draft_trees.eagle_curve(key, steps, eagle.topk)[1:] for steps in range(1, TREE_MAX_DEPTH + 1)}
        by_steps = {steps: specmath.tree_speedup(f, BUDGETS, steps, t_draft, target) for steps, f in curves.items()}
        steps, tokens, best = draft_trees.fastest_steps(by_steps)
        if best > 1:
            better = f"At topk {eagle.topk} with {steps} steps and {tokens} draft tokens EAGLE would be {best:.2f}×."
        else:
            better = f"At topk {eagle.topk} no number of steps beats plain decoding here."
        st.warning(
            texts.TREES_SLOWER.format(topk=eagle.topk, steps=eagle.steps, speedup=speedup, tokens=n, better=better),
            icon=":material/speed:",
        )
        st.caption(f"{mine} {tree}")
        return
    # The roofline's target, GPUs and batch are the server's; the other cost models name none.
    roofline = ctx.values["tree_cost"] == "roofline"
    model = ctx.values["tree_target_model"] if roofline else None
    name = engine_config.hub_name(specmath.MODEL_PRESETS[model]) if model else None
    head = draft_trees.draft_head_placeholder(name)
    served = {"target": name}
    if roofline:
        served |= {"tensor_parallel_size": ctx.values["tree_tp"], "batch": ctx.values["tree_batch"]}
    best = draft_trees.EagleSettings(eagle.steps, eagle.topk, n)
    # SGLang's tab first: it is the engine that builds this tree.
    configs = engines.tree_configs(best.steps, best.topk, best.num_draft_tokens, head, **served)
    engine_views.show_configs(configs, default="SGLang")
    f_best = draft_trees.eagle_curve(key, eagle.steps, eagle.topk)[n]
    st.caption(
        f"{texts.TREES_FLAGS.format(head=head, topk=eagle.topk, steps=eagle.steps)} Their tree: "
        f"num_draft_tokens = {n}, F = {f_best:.3f}, speedup {speedup:.2f}×. {mine} {tree}"
    )


ui.interactive(ctx, view)
st.markdown(texts.TREES_MODEL)
st.latex(texts.TREE_FORMULAS["tokens"])
st.latex(texts.TREE_FORMULAS["speedup"])
st.markdown(texts.TREES_EXPLAINER)
