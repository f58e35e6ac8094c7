"""The Simulator page: one cached run on the toy chains, and its sample as coloured Markdown
(how each token came to be)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import streamlit as st

import specmath
from dashboard.params import SIMULATOR_SEQUENCE, Section
from dashboard.presets import toy_chains

#: The page's parameters: the draft's strength is the widget of the chosen kind of draft.
TOY_LANGUAGE = Section(
    "Toy language", ("target", "chain_vocab", "draft", "contexts", "temperature", "noise", "tokens", "seed")
)
SECTIONS = (Section(None, ("k", "c")), TOY_LANGUAGE)

#: Streamlit Markdown colours per token kind, and the legend's words for them.
KIND_STYLES = {
    specmath.decode.START: ("gray", "start"),
    specmath.decode.ACCEPTED: ("blue", "accepted draft token"),
    specmath.decode.RESAMPLED: ("orange", "resampled at a rejection"),
    specmath.decode.BONUS: ("green", "bonus token from the target"),
}


def token_letters(vocab_size: int) -> list[str]:
    return [chr(ord("a") + i) for i in range(vocab_size)]


def coloured_sample(tokens: np.ndarray, kinds: np.ndarray, labels: Sequence[str]) -> str:
    """Markdown with each token coloured by kind and each iteration's block ended by ``|``.

    A run of tokens of one colour is one coloured span, which the browser parses each press: at the
    page's defaults 148 spans where one a token made 217 (the sample cost about 15 ms a press then;
    docs/performance.md).
    """
    runs: list[tuple[str, list[str]]] = []  # (colour, the run's labels); a separator is a run of its own
    for token, kind in zip(tokens.tolist(), kinds.tolist(), strict=True):
        colour = KIND_STYLES[kind][0]
        if runs and runs[-1][0] == colour and runs[-1][1] != ["|"]:
            runs[-1][1].append(labels[token])
        else:
            runs.append((colour, [labels[token]]))
        if kind in (specmath.decode.RESAMPLED, specmath.decode.BONUS, specmath.decode.START):
            runs.append(("gray", ["|"]))
    return " ".join(f":{c}[{'|' if words == ['|'] else '**' + ' '.join(words) + '**'}]" for c, words in runs)


def legend() -> str:
    return " · ".join(f":{colour}[**■ {words}**]" for colour, words in KIND_STYLES.values())


SEQUENCE_LENGTH = SIMULATOR_SEQUENCE

#: Tokens of the first sequence kept for the coloured sample.
SAMPLE_LENGTH = 160


@dataclass(frozen=True)
class SimulatorRun:
    """What the simulator page shows of one run (small: no full records)."""

    summary: specmath.decode.DecodeSummary
    emitted_counts: np.ndarray  # iterations that emitted n = 1 … k + 1 tokens
    sample_tokens: np.ndarray
    sample_kinds: np.ndarray
    stationary_alpha: float  # sum_s pi(s) alpha(s) under the target's stationary law


@st.cache_data(max_entries=16, show_spinner="Decoding…")
def simulate(target: str, draft: str, strength: float, vocab: int, k: int, tokens: int, seed: int) -> SimulatorRun:
    """Decode ``tokens`` tokens on the toy chains, as sequences of :data:`SEQUENCE_LENGTH`, and keep
    what the page shows."""
    chain, draft_chain = toy_chains(target, draft, strength, vocab, seed)
    sequences = max(1, tokens // SEQUENCE_LENGTH)
    records = specmath.speculative_decode(chain, draft_chain, k, SEQUENCE_LENGTH, rng=seed, n_sequences=sequences)
    pi = specmath.stationary_distribution(chain)
    return SimulatorRun(
        summary=specmath.decode_summary(records),
        emitted_counts=np.bincount(records.emitted, minlength=k + 2)[1:],
        sample_tokens=records.tokens[0, :SAMPLE_LENGTH].copy(),  # not a view of the whole text
        sample_kinds=records.kinds[0, :SAMPLE_LENGTH].copy(),
        stationary_alpha=float(pi @ specmath.state_acceptance(chain, draft_chain)),
    )
