"""Speculative Decoding Explorer: the dashboard's entry page (the full dashboard lands with its own issue)."""

import streamlit as st

import specmath

st.set_page_config(page_title="Speculative Decoding Explorer", page_icon="⚡", layout="wide")
st.title("Speculative Decoding Explorer")
st.markdown(
    "An interactive view of the mathematics of speculative decoding: a small **draft** model "
    "proposes *k* tokens, the large **target** model checks them in one step, and rejection "
    "sampling keeps the output distributed exactly as the target's."
)
st.latex(r"S(\alpha, k, c) = \frac{(1 - \alpha^{k+1}) / (1 - \alpha)}{1 + k / c}")
best_k, best_speedup = specmath.optimal_k(0.8, 20)
st.metric("Best draft length at α = 0.8, c = 20", f"k = {best_k}", f"{best_speedup:.2f}× speedup")
