"""How much one page run may compute, so that a shared server stays quick for everyone.

A link can ask for any value the widgets offer, and a few combinations are far heavier than the
rest: a million tokens at k = 64 in the simulator, or 5,000 pairs of 1,000-token distributions.
Each cap here keeps one run near 0.5 s and under 100 MB on the 2-core reference machine
(``bench/bench_load.py`` prints the heaviest run each page allows), and the page says when it
applied one. The sampler needs no cap here: its largest sample count is within the budget, and
``specmath.speculative_sample_counts`` keeps its memory flat.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Simulator: generated tokens × (k + 1), about what the decoder's draws and records grow with.
SIMULATOR_WORK = 2_000_000
#: Acceptance vs divergence: pairs × vocabulary, the size of each of the two arrays drawn.
KL_ENTRIES = 500_000


@dataclass(frozen=True)
class Capped:
    """What a run computes for a request: ``value``, and why it is less than asked (or None)."""

    value: int
    note: str | None = None


def simulator_tokens(tokens: int, k: int, sequence_length: int) -> Capped:
    """Tokens the simulator generates for ``tokens`` asked at draft length ``k``.

    Whole sequences of ``sequence_length`` tokens, at least one, within :data:`SIMULATOR_WORK`.
    """
    most = max(sequence_length, SIMULATOR_WORK // (k + 1) // sequence_length * sequence_length)
    if tokens <= most:
        return Capped(tokens)
    return Capped(
        most,
        f"Generated {most:,} of the {tokens:,} tokens asked for: at k = {k} one run here stops at "
        f"tokens × (k + 1) = {SIMULATOR_WORK:,}, so that the server stays quick for everyone using it.",
    )


def kl_pairs(pairs: int, vocab: int, minimum: int) -> Capped:
    """Pairs the divergence experiment draws for ``pairs`` asked over ``vocab`` tokens (at least ``minimum``)."""
    most = max(minimum, KL_ENTRIES // vocab)
    if pairs <= most:
        return Capped(pairs)
    return Capped(
        most,
        f"Drew {most:,} of the {pairs:,} pairs asked for: with {vocab:,} tokens one run here stops at "
        f"pairs × vocabulary = {KL_ENTRIES:,}, so that the server stays quick for everyone using it.",
    )
