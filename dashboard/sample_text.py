"""The simulator's generated sample as coloured Markdown: how each token came to be."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import specmath

#: Streamlit Markdown colours per token kind, and the legend's words for them.
KIND_STYLES = {
    specmath.START: ("gray", "start"),
    specmath.ACCEPTED: ("blue", "accepted draft token"),
    specmath.RESAMPLED: ("orange", "resampled at a rejection"),
    specmath.BONUS: ("green", "bonus token from the target"),
}


def token_letters(vocab_size: int) -> list[str]:
    return [chr(ord("a") + i) for i in range(vocab_size)]


def coloured_sample(tokens: np.ndarray, kinds: np.ndarray, labels: Sequence[str]) -> str:
    """Markdown with each token coloured by kind and each iteration's block ended by ``|``."""
    parts = []
    for token, kind in zip(tokens.tolist(), kinds.tolist(), strict=True):
        colour = KIND_STYLES[kind][0]
        parts.append(f":{colour}[**{labels[token]}**]")
        if kind in (specmath.RESAMPLED, specmath.BONUS, specmath.START):
            parts.append(":gray[|]")
    return " ".join(parts)


def legend() -> str:
    return " · ".join(f":{colour}[**■ {words}**]" for colour, words in KIND_STYLES.values())
