"""The engines' configs and synthetic-acceptance runs as the pages show them: a tab per engine,
each with the engine's rule messages above what to paste.

What the configs say is written by :mod:`engines.configs` (pure, with its sources);
this module only lays it out, so the Hardware, Calibrate and Draft trees pages show it alike.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

import engines
from dashboard import texts
from engines.configs import drafter_mismatch

#: The icon of an engine's rule message: the engine's rule for the settings chosen, not a
#: complaint about the link or the input.
RULE_ICON = ":material/rule:"

#: The keys of the containers holding the engines' configs and synthetic runs (Streamlit gives
#: each the CSS class ``st-key-<key>``): what is inside is the engines' own text, with its sources.
CONFIGS_KEY, SYNTHETIC_KEY = "engine_configs", "engine_synthetic"

#: The key of the container of the page's warning that the configs' method drafts as another kind
#: of drafter than the one costed (:func:`engines.configs.drafter_mismatch`): a rule
#: about the engines' methods applied to the settings chosen, like the engines' own.
METHOD_KEY = "engine_method"


def _rules_and_blocks(warnings: Sequence[str], blocks: Sequence[engines.ConfigBlock]) -> None:
    """An engine's rule messages, then each block to paste under its title."""
    for warning in warnings:
        st.warning(warning, icon=RULE_ICON)
    for block in blocks:
        st.markdown(f"**{block.title}**")
        st.code(block.text, language=block.language, wrap_lines=True)


def show_configs(configs: Sequence[engines.EngineConfig], default: str | None = None) -> None:
    """One tab per engine: its warnings, each block to paste under its title, then its notes.

    A config with nothing to paste shows its notes as the reason (an info box), so a tab is never
    empty. ``default`` names the engine whose tab opens first (the first one if None).
    """
    tabs = st.container(key=CONFIGS_KEY).tabs([config.engine for config in configs], default=default)
    for tab, config in zip(tabs, configs, strict=True):
        with tab:
            _rules_and_blocks(config.warnings, config.blocks)
            for note in config.notes:
                (st.caption if config.blocks else st.info)(note)
            st.caption(f"Flags, defaults and rules read from {config.source}, cited in engines.configs.")


def show_drafter_mismatch(drafter: str, method: str) -> None:
    """A warning where ``method`` drafts as another kind than ``drafter``, the kind the page costed."""
    if message := drafter_mismatch(drafter, method):
        st.container(key=METHOD_KEY).warning(message, icon=RULE_ICON)


def show_synthetic(runs: Sequence[engines.SyntheticRun], batch: int, k: int, speedup: float) -> None:
    """The synthetic-acceptance block: why, then per engine the settings, the benchmark and what to compare."""
    st.subheader(texts.SYNTHETIC_HEADING)
    if not runs:
        st.info(texts.SYNTHETIC_NONE.format(batch=batch))
        return
    st.markdown(texts.SYNTHETIC_INTRO.format(batch=batch, k=k, length=runs[0].mean_length, speedup=speedup))
    for tab, run in zip(st.container(key=SYNTHETIC_KEY).tabs([run.engine for run in runs]), runs, strict=True):
        with tab:
            _rules_and_blocks(run.warnings, run.blocks)
            st.markdown(run.compare)
