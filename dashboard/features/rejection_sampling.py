"""The Rejection sampling page: the editable (p, q) table and its compact URL form, the cached
rounds, and what a run reports against p (:class:`SamplingReport`).

Streamlit's widget binding cannot hold a table, so the two columns travel in the link by hand
(``?p=0.3,0.25,…&q=0.2,0.2,…``), and only while they differ from the chosen preset.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
from scipy import stats

import specmath
from dashboard import pq_input
from dashboard.params import Section
from dashboard.presets import preset_pair, token_labels
from dashboard.ui import PageContext

#: The page's parameters. The preset's description stands under its widget and the vocabulary's
#: widget only for the random preset; the sample count reruns alone (the page's fragment).
PRESET = Section("Sampling", ("preset",))
VOCAB = Section(None, ("vocab",))
COUNT = Section(None, ("n", "seed"))
SECTIONS = (PRESET, VOCAB, COUNT)

#: st.session_state key of the table's current starting point (see TableState).
TABLE_STATE = "pq_table"

#: The editor's column widths in pixels: each holds its header and a four-decimal value.
COLUMN_WIDTHS = {"token": 64, "p": 92, "q": 92}
#: The editor's whole width, its border included: the page never gives it less.
TABLE_WIDTH = sum(COLUMN_WIDTHS.values()) + 2


@dataclass
class TableState:
    """Where the editor starts from: the preset it belongs to, the cells, and a generation.

    The editor's widget key includes ``generation``: it changes only when the starting point is
    replaced (another preset, a normalization, a new address), so a person's edits survive
    ordinary reruns. ``address`` is the ``(p, q)`` text this page last left in the address bar
    (``None`` where it left none): when the address holds something else, Back, Forward or a link
    changed it, and the table follows the address.
    """

    signature: tuple
    labels: list[str]
    p: list[float]
    q: list[float]
    preset_text: tuple[str, str]
    generation: int = 0
    address: tuple[str | None, str | None] = (None, None)


def _from_link(raw_p: str | None, raw_q: str | None) -> tuple[list[float], list[float], str | None] | str:
    """Cells from the link, with a note if they were normalized, or why they cannot be used."""
    if raw_p is None or raw_q is None:
        return "The link gives only one of `p` and `q`; both are needed"
    p_cells, q_cells = pq_input.decode(raw_p), pq_input.decode(raw_q)
    if len(p_cells) != len(q_cells) and max(len(p_cells), len(q_cells)) <= pq_input.MAX_TYPED_VOCAB:
        return f"The link's `p` and `q` have {len(p_cells)} and {len(q_cells)} entries; they must match"
    labels = token_labels(len(p_cells))
    checks = [pq_input.check_distribution(cells, name, labels) for cells, name in ((p_cells, "p"), (q_cells, "q"))]
    fatal = [c.problem for c in checks if c.problem and not c.normalizable]
    if fatal:
        return "; ".join(f"The link's {problem}" for problem in fatal)
    values = [c.values / c.values.sum() for c in checks]
    note = "; ".join(f"The link's {c.problem}: normalized" for c in checks if c.problem) or None
    return values[0].tolist(), values[1].tolist(), note


def distribution_table(ctx: PageContext, preset: str, vocab: int | None, seed: int) -> TableState:
    """The table's starting point: the address's p and q when the address is new, else the preset."""
    # Only the random preset depends on the vocabulary and the seed: a new seed must not throw
    # away a table that came from a link or was typed in.
    signature = (preset, vocab, seed) if preset == "random" else (preset,)
    p, q = preset_pair(preset, vocab or 10, seed)
    fresh = TableState(
        signature, token_labels(p.size), p.tolist(), q.tolist(), (pq_input.encode(p), pq_input.encode(q))
    )
    state: TableState | None = st.session_state.get(TABLE_STATE)
    raw_p, raw_q = ctx.raw_param("p"), ctx.raw_param("q")
    if state is None or (raw_p, raw_q) != state.address:
        # A first visit, or an address this page did not write (Back, Forward, a link in the same
        # session): the view is the address's, so a table typed earlier gives way.
        if state is not None:
            fresh.generation = state.generation + 1
        if raw_p is not None or raw_q is not None:
            linked = _from_link(raw_p, raw_q)
            if isinstance(linked, str):
                ctx.notices.warning(f"{linked}; showing the preset instead.", icon="⚠️")
            else:
                fresh.p, fresh.q, note = linked
                fresh.labels = token_labels(len(fresh.p))
                if note:
                    ctx.notices.warning(f"{note}.", icon="⚠️")
        state = fresh
    elif state.signature != signature:
        fresh.generation = state.generation + 1
        fresh.address = state.address
        state = fresh
    st.session_state[TABLE_STATE] = state
    return state


def _sync_url(p_cells, q_cells, state: TableState) -> None:
    encoded = (pq_input.encode(p_cells), pq_input.encode(q_cells))
    if encoded == state.preset_text:
        for key in ("p", "q"):
            if key in st.query_params:
                del st.query_params[key]
        state.address = (None, None)
    else:
        st.query_params["p"], st.query_params["q"] = encoded
        state.address = encoded


def _shown(values: list[float]) -> list[str]:
    """The cells' text: four decimals, as the table's number columns used to show them."""
    return [f"{v:.4f}" for v in values]


def _typed(texts: list, values: list[float]) -> list:
    """Each cell's number where its text is still the one shown (the exact value behind the
    four decimals), else the text as typed, for :func:`pq_input.check_distribution` to read."""
    return [value if text == shown else text for text, shown, value in zip(texts, _shown(values), values, strict=True)]


def distribution_editor(state: TableState) -> tuple[np.ndarray, np.ndarray] | None:
    """The editable table; returns (p, q) when both are valid, else shows what to fix.

    The p and q cells are text read in Python (:func:`pq_input.read_cell`): Streamlit's number
    cells parse in the browser and stored 1e-3 as -13, 0,5 as 5 and a word as 0.
    """
    frame = pd.DataFrame({"token": state.labels, "p": _shown(state.p), "q": _shown(state.q)})
    edited = st.data_editor(
        frame,
        key=f"pq_editor_{state.generation}",
        hide_index=True,
        disabled=["token"],
        num_rows="fixed",
        column_config={
            "token": st.column_config.TextColumn("token", width=COLUMN_WIDTHS["token"]),
            "p": st.column_config.TextColumn("p (target)", alignment="right", width=COLUMN_WIDTHS["p"]),
            "q": st.column_config.TextColumn("q (draft)", alignment="right", width=COLUMN_WIDTHS["q"]),
        },
    )
    p_cells, q_cells = _typed(edited["p"].tolist(), state.p), _typed(edited["q"].tolist(), state.q)
    _sync_url(p_cells, q_cells, state)
    checks = [
        pq_input.check_distribution(cells, name, state.labels) for cells, name in ((p_cells, "p"), (q_cells, "q"))
    ]
    problems = [c for c in checks if c.problem]
    if not problems:
        return checks[0].values, checks[1].values
    st.error("Fix the table to run the sampler:\n\n" + "\n".join(f"- {c.problem}" for c in problems))
    if all(c.normalizable for c in problems):
        if st.button("Normalize to sum to 1", type="primary"):
            state.p, state.q = (list(c.values / c.values.sum()) for c in checks)
            state.generation += 1
            st.rerun()
    return None


@st.cache_data(max_entries=16, show_spinner=False)
def sample_counts(p: tuple[float, ...], q: tuple[float, ...], n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-token counts of accepted and of resampled rounds, in bounded memory."""
    return specmath.speculative_sample_counts(np.array(p), np.array(q), n, rng=seed)


@dataclass(frozen=True)
class SamplingReport:
    """Theory beside observation for one batch of speculative sampling rounds."""

    alpha: float
    one_minus_tv: float
    observed_acceptance: float
    max_deviation: float
    chi_square_pvalue: float
    n: int


def sampling_report(
    p: np.ndarray, q: np.ndarray, accepted_counts: np.ndarray, resampled_counts: np.ndarray
) -> SamplingReport:
    """Compare sampled token counts with the target ``p``.

    The chi-square goodness-of-fit test runs over the tokens with p > 0; a token with p = 0 that
    was emitted at all makes the p-value 0 (the output is then certainly not p).
    """
    counts = accepted_counts + resampled_counts
    n = int(counts.sum())
    support = p > 0
    if counts[~support].any():
        pvalue = 0.0
    elif support.sum() < 2:
        pvalue = 1.0  # one possible token: any sample fits
    else:
        pvalue = float(stats.chisquare(counts[support], p[support] * n / p[support].sum()).pvalue)
    return SamplingReport(
        alpha=float(specmath.acceptance_probability(p, q)),
        one_minus_tv=float(1.0 - specmath.tv_distance(p, q)),
        observed_acceptance=float(accepted_counts.sum() / n),
        max_deviation=float(np.abs(counts / n - p).max()),
        chi_square_pvalue=pvalue,
        n=n,
    )
