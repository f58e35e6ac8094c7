"""Numbers rounded as the hovers print them, sent as float32 so a map's figure stays small."""

from __future__ import annotations

import numpy as np

#: The maps' hovers print a speedup to 3 decimals and c to 3 significant digits; the heatmaps
#: send them rounded so (:func:`as_shown`), and their hover formats are made from these.
SPEEDUP_DECIMALS = 3
C_DIGITS = 3


def as_shown(values: np.ndarray, *, decimals: int | None = None, digits: int | None = None) -> np.ndarray:
    """``values`` rounded as a hover prints them (``decimals`` places or ``digits`` significant
    digits), as float32.

    A map's hover numbers are most of its figure's bytes, and the browser parses and copies the
    figure several times per redraw: float32 halves them. Once rounded, every value sits within
    float32's relative error (6e-8) of its printed decimal, far from a rounding tie, so it prints
    exactly as the float64 value it came from (``tests/dashboard/test_charts`` checks every cell
    of the page's grid).
    """
    values = np.asarray(values, dtype=float)
    if digits is not None:
        # The scale that leaves `digits` significant digits before the decimal point; 0 stays 0.
        magnitude = np.floor(np.log10(np.abs(np.where(values == 0, 1.0, values))))
        scale = 10.0 ** (digits - 1 - magnitude)
        return (np.round(values * scale) / scale).astype(np.float32)
    return np.round(values, decimals or 0).astype(np.float32)
