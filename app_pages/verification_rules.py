"""Verification rules: one logit pair at a temperature, under the chapter's rule and the engines'."""

import pandas as pd
import streamlit as st

from dashboard import charts, toy_language, ui
from dashboard.features import verification_rules as vr
from dashboard.presets import token_labels
from specmath.rules import RULES
from specmath.verification import MAX_BLOCK_ENUMERATION

ctx = ui.page()


def view() -> None:
    ctx.show(vr.PAIR)
    preset = ctx.values["vr_preset"]
    if preset == "toy":
        word = ctx.values["vr_context"]
        logits, labels, source = vr.toy_logits(word), toy_language.WORDS, f"toy language after “{word}”"
        name = f"toy_{toy_language.WORDS.index(word)}"
    else:
        logits = vr.typed_logits(ctx) if preset == "typed" else vr.LOGIT_PRESETS[preset]
        labels, source, name = token_labels(len(logits[0])), f"preset {preset}", preset
    ctx.show(vr.TEMPERATURE)
    ctx.show(vr.LOSSY)
    lossy = vr.lossy_settings({key: ctx.values[key] for key in vr.LOSSY.keys}, len(labels))
    temperature, k, c = ctx.values["vr_temperature"], ctx.values["k"], ctx.values["c"]
    p, q = vr.pair(logits, temperature)
    subtitle = f"{source}, T = {temperature:g}"
    if preset == "toy":
        st.caption(
            "The toy language's rows as log-probabilities: T divides them, so p and q are the rows raised "
            f"to 1/T and renormalized, and a word impossible after “{word}” stays impossible. The draft is "
            f"the Step through page's default, the target blurred toward uniform with weight {vr.TOY_DRAFT[1]:g}."
        )
        st.caption(vr.toy_pair_caption(word, p, q))
    else:
        st.caption(f"p = ({', '.join(f'{x:.3f}' for x in p)}), q = ({', '.join(f'{x:.3f}' for x in q)})")

    left, right = ui.side_by_side()
    with left:
        rule_alphas = vr.alphas(p, q)
        ui.chart(charts.rule_alphas(rule_alphas, subtitle), f"verification_alpha_{name}_T{temperature:g}", "vr_alphas")
        # The bars' numbers, to read off and compare (the exercises' answers quote them).
        numbers = ui.metric_row()
        for rule, alpha in rule_alphas.items():
            numbers.metric(f"α, {rule}", f"{alpha:.3f}")
    with right:
        ui.chart(
            charts.alpha_against_temperature(
                vr.TEMPERATURE_GRID, vr.alphas_over_temperature(logits), temperature, source
            ),
            f"verification_alpha_vs_T_{name}",
            "vr_alpha_vs_t",
        )

    laws = vr.first_token_laws(p, q, lossy)
    ui.chart(
        charts.first_token_laws(labels, p, laws, subtitle), f"verification_laws_{name}_T{temperature:g}", "vr_laws"
    )
    st.dataframe(vr.law_table(p, laws), hide_index=True)

    st.subheader(f"Tokens per iteration and speedup at k = {k}, c = {c:g}")
    st.dataframe(vr.speedup_table(p, q, k, c), hide_index=True)
    k_max = vr.longest_block_k(p.size, k)
    if k_max < k:
        st.info(
            f"Block verification is enumerated exactly over the V^k draft blocks: with V = {p.size} it "
            f"stops at k = {k_max}, the longest draft with V^k ≤ {MAX_BLOCK_ENUMERATION:,}."
        )
    curves = vr.block_against_token(tuple(p), tuple(q), k_max)
    ui.chart(
        charts.block_against_token(curves["k"], curves["token"], curves["block"], f"{subtitle}, k = 1 … {k_max}"),
        f"verification_block_{name}_T{temperature:g}_k{k_max}",
        "vr_block",
    )


ui.interactive(ctx, view)
st.subheader("What engines run")
# A static table wraps the sources; a data grid would hide its columns beyond the screen.
st.table(pd.DataFrame(vr.ENGINE_RULES), hide_index=True)
st.subheader("The rules")
lossless = ", ".join(rule.title for rule in RULES.values() if rule.lossless)
st.markdown(
    f"Lossless rules ({lossless}, and SGLang's thresholds at 1 and 1) emit exactly p; they differ in how "
    "often the draft token survives. The lossy rules follow the sidebar and keep the draft token more "
    "often than p allows; those that emit a point mass (the draft token or the target's most likely one) "
    "are off p at every setting unless p is one-hot (T = 0). "
    "Tokens per iteration = 1 + expected accepted tokens; speedup = tokens per iteration / (k/c + 1)."
)
st.table(vr.rules_table(), hide_index=True)
