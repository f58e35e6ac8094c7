"""The Optimal draft length map: the best k and speedup over the whole (α, c) grid, its contour
lines, and the chapter's table, each computed once per max_k."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import specmath
from dashboard import charts
from dashboard.params import Section

#: The page's parameters: the sidebar's, and the map's colour switch above the map.
SIDEBAR = Section(None, ("alpha", "c", "max_k"))
VIEW = Section(None, ("view",))
SECTIONS = (SIDEBAR, VIEW)

#: The optimal-k map's grid: 101 acceptance rates (every 0.01) by 101 log-spaced cost ratios.
#: A finer grid made plotly.js's redraw of the map on each slider move several times slower.
GRID_ALPHA = np.linspace(0.0, 1.0, 101)
GRID_C = np.geomspace(1.0, 200.0, 101)


@st.cache_data(max_entries=64, show_spinner=False)
def optimal_k_grid(max_k: int) -> tuple[np.ndarray, np.ndarray]:
    """``optimal_k`` over the whole (alpha, c) grid in one broadcast call: (k*, speedup), shape (c, alpha)."""
    return specmath.optimal_k(GRID_ALPHA, GRID_C[:, None], max_k=max_k)


@st.cache_data(max_entries=64, show_spinner=False)
def map_contours(max_k: int) -> list[dict]:
    """The optimal-k map's best-speedup lines and labels: they move with max_k, not with α or c."""
    _, best = optimal_k_grid(max_k)
    return charts.speedup_contours(GRID_ALPHA, GRID_C, best)


#: The chapter's grid for its "Optimal draft length" table.
CHAPTER_ALPHAS = (0.6, 0.7, 0.8, 0.9)
CHAPTER_CS = (10, 20, 50)


@st.cache_data(max_entries=64, show_spinner=False)
def chapter_table(max_k: int) -> pd.DataFrame:
    """The chapter's optimal-k table from one broadcast call (rows in the chapter's order)."""
    alpha = np.repeat(CHAPTER_ALPHAS, len(CHAPTER_CS))
    c = np.tile(CHAPTER_CS, len(CHAPTER_ALPHAS))
    k, s = specmath.optimal_k(alpha, c, max_k=max_k)
    return pd.DataFrame({"α": alpha, "c": c, "optimal k": k, "speedup": s})
