"""Simulator: speculative decoding run token by token on a toy language."""

import streamlit as st

import specmath
from dashboard import charts, limits, texts, ui
from dashboard.features import simulator

ctx = ui.page()


def view() -> None:
    ctx.show(simulator.TOY_LANGUAGE)
    k, c, target, vocab, draft, tokens, seed = (
        ctx.values[key] for key in ("k", "c", "target", "chain_vocab", "draft", "tokens", "seed")
    )
    strength = ctx.shown_for(simulator.TOY_LANGUAGE, "draft")
    if draft == "merged" and strength > vocab:
        st.sidebar.caption(f"Only {vocab} contexts exist: the draft is the target itself.")

    capped = limits.simulator_tokens(tokens, k, simulator.SEQUENCE_LENGTH)
    if capped.note:
        st.info(capped.note)
    run = simulator.simulate(target, draft, float(strength), vocab, k, capped.value, seed)
    s = run.summary
    metrics_area = st.container()  # above the charts, filled after them (see ui.interactive)
    left, right = ui.side_by_side()
    with left:
        ui.chart(
            charts.tokens_per_call(
                run.emitted_counts, specmath.tokens_per_iteration_pmf(s.alpha_fit, k), s.alpha_fit, k
            ),
            f"tokens_per_call_{target}_{draft}{strength:g}_k{k}_seed{seed}",
            "simulator_tokens_per_call",
        )
    with right:
        ui.chart(
            charts.position_acceptance(s.unconditional, s.conditional, s.alpha_fit),
            f"position_acceptance_{target}_{draft}{strength:g}_k{k}_seed{seed}",
            "simulator_position_acceptance",
        )

    predicted_tokens = specmath.expected_tokens(s.acceptance_rate, k)
    row = ui.metric_row(metrics_area)
    row.metric("Tokens per call, measured", f"{s.tokens_per_call:.3f}")
    row.metric("Tokens per call, closed form", f"{predicted_tokens:.3f}", help="E[N] at the per-token acceptance")
    row.metric("Per-token acceptance", f"{s.acceptance_rate:.3f}", help="accepted / draft positions checked")
    row = ui.metric_row(metrics_area)  # a row of its own: the α and the speedups the counts above imply
    row.metric("α fitted from mean length", f"{s.alpha_fit:.3f}", help="the α whose E[N] is the measured mean")
    row.metric(f"Speedup at c = {c:g}, measured", f"{s.tokens_per_call / (1 + k / c):.2f}×")
    row.metric(f"Speedup at c = {c:g}, closed form", f"{specmath.speedup(s.acceptance_rate, k, c):.2f}×")

    st.subheader("A generated sample")
    st.markdown(simulator.legend())
    st.markdown(simulator.coloured_sample(run.sample_tokens, run.sample_kinds, simulator.token_letters(vocab)))
    st.caption(
        f"The first {len(run.sample_tokens)} tokens of sequence 1; “|” ends each target call. "
        f"Average α(s) over visited contexts {s.alpha_visited:.3f}; over the target's stationary law "
        f"{run.stationary_alpha:.3f}."
    )


ui.interactive(ctx, view)
st.markdown(texts.SIMULATOR_EXPLAINER)
