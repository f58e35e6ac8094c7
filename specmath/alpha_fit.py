r"""The i.i.d. alpha of an engine's acceptance counts, drafts shorter than k included.

An engine that changes its draft length as it runs (vLLM's
``num_speculative_tokens_per_batch_size``, see :mod:`specmath.schedule`; llama.cpp, which drafts
fewer tokens when its draft model is unsure) reports counts over drafts of several lengths,
while it names one k, the longest. The mean acceptance length of such a mix is below
what i.i.d. acceptance gives at k, and inverting it at k underestimates alpha. :func:`fit_alpha`
sees the mix in the counts (draft tokens / drafts < k, :func:`specmath.draft_lengths`) and fits
from the draft positions every draft reached instead.
"""

from __future__ import annotations

import math

import numpy as np

from ._validate import as_number, shown
from .calibration import AlphaFit, alpha_interval
from .iid_blocks import fit_alpha_from_acceptance_length
from .record_lengths import _accepted_equal, _accepted_extremes, _counts, _lengths

#: One-sided z of the test that a position was reached by fewer drafts than the one before it
#: (level 5 × 10⁻⁴): a conditional rate this far below alpha ends the positions every draft reached.
Z_SHORTER = 3.29


def _covered(per_position: np.ndarray, drafts: float, most: int) -> tuple[int, bool]:
    """How many leading positions every draft reached, at most ``most``; and whether a rate cut it short.

    Under i.i.d. acceptance, of the a_{i-1} drafts that accepted i - 1 tokens and all reached
    position i, a Binomial(a_{i-1}, alpha) number accept the i-th; a count more than
    :data:`Z_SHORTER` standard deviations below that, at the alpha the positions before fit,
    says some drafts ended before position i.
    """
    counts = per_position * drafts
    for i in range(1, most):
        alpha = float(fit_alpha_from_acceptance_length(1.0 + counts[:i].sum() / drafts, i))
        trials = counts[i - 1]
        expected = trials * alpha
        if counts[i] < expected - Z_SHORTER * math.sqrt(trials * alpha * (1.0 - alpha)) - 1.0:
            return i, True  # the 1.0: rates printed to three decimals move a count by up to drafts / 2000
    return most, False


def _bisect(gap, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The root of increasing ``gap`` on [low, high], to full double precision."""
    for _ in range(64):
        mid = 0.5 * (low + high)
        below = gap(mid) < 0
        low, high = np.where(below, mid, low), np.where(below, high, mid)
    return 0.5 * (low + high)


def _bracket(per_draft: float, mean_tokens: float, k: int) -> tuple[float, float]:
    r"""The alphas that give ``per_draft`` accepted tokens a draft when the drafts average
    ``mean_tokens`` tokens: all of that length (the least alpha), and of 1 and k tokens only (the most).

    Accepted tokens of a draft of L tokens, :math:`f(L) = \sum_{i \le L} \alpha^i`, are concave
    in L (each position adds less than the one before), so by Jensen's inequality any mix of
    lengths with mean :math:`\bar L` gives at most :math:`f(\bar L)` (interpolated between whole
    lengths, :func:`specmath.record_lengths._accepted_equal`) and at least the mix of the two
    extreme lengths with that mean (``_accepted_extremes``).
    """

    def equal(alpha):
        return _accepted_equal(alpha, mean_tokens, k) - per_draft

    def extremes(alpha):
        return _accepted_extremes(alpha, mean_tokens, k) - per_draft

    zeros, ones = np.zeros(()), np.ones(())
    return float(_bisect(equal, zeros, ones)), float(_bisect(extremes, zeros, ones))


def fit_alpha(
    accepted,
    drafts,
    k,
    *,
    draft_tokens=None,
    mean_acceptance_length=None,
    per_position=None,
    accept_rate=None,
    drafts_allowed=None,
    position_drafts=None,
    by_draft_length=None,
    confidence=0.95,
) -> AlphaFit:
    r"""The i.i.d. alpha, with its interval, of an engine's acceptance counts.

    **Drafts of length k** (the usual case, or a record that cannot tell): the mean acceptance
    length is inverted at k, :math:`\mathbb{E}[N] = (1 - \alpha^{k+1})/(1 - \alpha)`, with the
    score interval of :func:`alpha_interval` when the counts are known, no interval from a mean
    alone. The mean is 1 + accepted / drafts from counts, else the printed mean, else 1 + the sum
    of the per-position rates, else 1 + k × the engine's accepted / drafted share (noted: it
    assumes every draft was k long).

    **Shorter drafts** (draft tokens / drafts < k, drafts counted or inferred from the printed
    mean as accepted / (mean − 1) with its rounding, as :func:`draft_lengths` does and notes): a
    position i is in every draft only if
    :math:`i \le \lfloor \text{draft tokens} / \text{drafts} \rfloor`; where the record says how
    many drafts reached each position (``position_drafts``), the positions all of them reached are
    used. Otherwise, with per-position rates
    :math:`u_i` (vLLM's and llama.cpp's P(at least i accepted)), the fit keeps the leading m
    positions up to that bound whose conditional rates :math:`u_i / u_{i-1}` do not fall
    significantly below the alpha of the positions before them (which shorter drafts would
    cause), and fits the drafts cut to m positions: :math:`\sum_{i \le m} u_i \times` drafts
    accepted tokens in drafts of length m, an i.i.d. draft of length m whatever the longer
    drafts did. Without rates the mix is unknown, and the interval is the range of alphas the
    counts allow over every mix of lengths with that mean (:func:`_bracket`; sampling error not
    included). Either way the notes say so.

    Parameters
    ----------
    accepted, drafts, k, draft_tokens, mean_acceptance_length, per_position, accept_rate, drafts_allowed, \
position_drafts, by_draft_length
        The engine's counts and printed figures, each None where it does not print it, as
        :func:`draft_lengths` takes them.
    confidence : float, default 0.95
        Level of the interval, in (0, 1).

    Returns
    -------
    specmath.calibration.AlphaFit
        ``k`` is the draft length fitted at (m for shorter drafts); ``notes`` say how.

    Examples
    --------
    The V1 line of 300 drafts of 4 and 500 of 2 at alpha = 0.70 (issue 33):

    >>> rates = (0.696, 0.512, 0.133, 0.089)
    >>> fit = fit_alpha(1144, None, 4, draft_tokens=2200, mean_acceptance_length=2.43, per_position=rates)
    >>> fit.k, round(fit.alpha, 3)
    (2, 0.707)
    """
    given_confidence, confidence = confidence, as_number(confidence, "confidence")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be within (0, 1), got {shown(given_confidence)}")
    counts = _counts(
        accepted,
        drafts,
        k,
        draft_tokens=draft_tokens,
        mean_acceptance_length=mean_acceptance_length,
        per_position=per_position,
        accept_rate=accept_rate,
        drafts_allowed=drafts_allowed,
        position_drafts=position_drafts,
        by_draft_length=by_draft_length,
    )
    lengths = _lengths(counts)
    k, mean, drafts, counted = lengths.k, lengths.acceptance_length, lengths.drafts, lengths.counted
    notes = list(lengths.notes)
    if not lengths.shorter:
        if counts.drafts and counts.accepted is not None:
            return alpha_interval(counts.accepted, counts.drafts, k, confidence)._replace(notes=tuple(notes))
        alpha = float(fit_alpha_from_acceptance_length(mean, k))
        return AlphaFit(alpha, alpha, alpha, k, has_interval=False, notes=tuple(notes))

    each = lengths.draft_length
    naive = float(fit_alpha_from_acceptance_length(mean, k))
    said = (
        f"Drafts averaged {each:.2f} tokens, fewer than k = {k}"
        + ("" if counted else f" ({counts.draft_tokens:,} draft tokens over the {drafts:,.0f} drafts assumed)")
        + ": some were shorter (a per-batch-size schedule, or an engine that drafts less when unsure). "
        f"Fitting the mean {mean:.2f} at k = {k} would give α = {naive:.3f}, too low."
    )
    rates = np.asarray(counts.per_position or (), dtype=float)
    if rates.size and np.isfinite(rates).all() and ((rates >= 0) & (rates <= 1)).all():
        bound = max(1, min(int(each + 1e-9), rates.size, k))
        known = counts.position_drafts
        if known is not None:  # the engine said how long each draft was
            m = max(1, next((i for i, n in enumerate(known) if n < drafts), len(known)))
            cut = False
        else:
            m, cut = _covered(rates, drafts, bound)
        whole = max(1, round(drafts))
        accepted = min(round(float(rates[:m].sum()) * drafts), m * whole)
        fit = alpha_interval(accepted, whole, m, confidence)
        reached = "position 1" if m == 1 else f"positions 1 to {m}"
        if known is not None:
            why = " (the engine's per-step drafted tokens say so)"
        elif cut:
            why = f"; the rate at position {m + 1} is too low for every draft to have reached it"
        else:
            why = f" (the counts allow at most {bound})"
        notes.append(
            f"{said} α is fitted from {reached}, which every draft reached{why}: {accepted:,} accepted tokens "
            f"in {whole:,} drafts cut to {m} token{'s' if m > 1 else ''}. The per-position rates past position "
            f"{m} count drafts that never got there."
        )
        return fit._replace(notes=tuple(notes))
    per_draft = counts.accepted / drafts if counts.accepted is not None else mean - 1.0
    low, high = _bracket(min(per_draft, each), each, k)
    notes.append(
        f"{said} With no per-position rates the mix of lengths is unknown: α is between {low:.3f} (every draft "
        f"{each:.2f} tokens long) and {high:.3f} (drafts of 1 and {k} tokens only), whatever the mix; the "
        "interval is that range (sampling error not included)."
    )
    return AlphaFit(0.5 * (low + high), low, high, k, notes=tuple(notes))
