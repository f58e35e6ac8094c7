"""The home page: what the tool is, a card per page of the registry (the chapter's four views
first, on the first screen), then the formulas."""

import streamlit as st

import specmath
from dashboard import navigation, texts, ui
from dashboard.features import home
from dashboard.registry import PageInfo

#: Room for the widest formula below, the speedup's; narrower, the two columns of formulas stack.
FORMULA_MIN_WIDTH = 380
#: The narrowest card, where its title still fits on its line: narrower, the cards stack.
CARD_MIN_WIDTH = 260


def cards(pages: list[PageInfo], columns: int) -> None:
    """A card per page, ``columns`` to a row where there is room: its link, then what it shows."""
    grid = st.grid(columns, min_column_width=CARD_MIN_WIDTH)
    for page in pages:
        with grid.cell().container(border=True):
            navigation.page_link(page.id)
            st.caption(page.card)


st.title(f":material/bolt: {texts.APP_NAME}")
st.markdown(texts.INTRO)
st.subheader("The chapter's four views")
# Two to a row: four in a row beside the sidebar of a 1366 px screen cut their titles short.
cards(home.chapter_views(), 2)
st.caption(texts.CHAPTER)
st.subheader("More pages")
cards(home.other_pages(), 3)

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
