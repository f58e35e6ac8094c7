"""What the rejection-sampling page reports about a run: pure NumPy and SciPy."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

import specmath


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
