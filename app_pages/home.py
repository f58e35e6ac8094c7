"""The home page: what the tool is, the formulas, and a card per page of the registry."""

import streamlit as st

import specmath
from dashboard import navigation, texts, ui
from dashboard.registry import PAGES

#: Room for the widest formula below, the speedup's; narrower, the two columns of formulas stack.
FORMULA_MIN_WIDTH = 380

st.title(f":material/bolt: {texts.APP_NAME}")
st.markdown(texts.INTRO)
shared = navigation.shared_values()
best_k, best_speedup = specmath.optimal_k(shared["alpha"], shared["c"])
st.info(
    f"At α = {shared['alpha']:g} and c = {shared['c']:g} (set them on any page) the best draft length is "
    f"**k = {best_k}**: **{best_speedup:.2f}×** faster than plain decoding.",
    icon=":material/bolt:",
)

left, right = ui.side_by_side(FORMULA_MIN_WIDTH)
with left:
    st.markdown("**Acceptance rate**")
    st.latex(texts.FORMULAS["acceptance"])
    st.markdown("**Expected tokens per target call**")
    st.latex(texts.FORMULAS["expected_tokens"])
with right:
    st.markdown("**Speedup**")
    st.latex(texts.FORMULAS["speedup"])
    st.markdown("**Residual distribution after a rejection**")
    st.latex(texts.FORMULAS["residual"])
st.markdown(texts.CONVENTIONS)

st.subheader("Explore")
cards = [page for page in PAGES.values() if page.id != "home"]
for row in range(0, len(cards), 2):
    for column, page in zip(st.columns(2), cards[row : row + 2], strict=False):
        with column.container(border=True):
            st.markdown(f"#### {page.icon} {page.title}")
            st.markdown(page.card)
            navigation.page_link(page.id, label=f"Open {page.title}")
