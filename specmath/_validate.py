"""Argument checks shared by the public functions.

Every check raises ``ValueError`` whose message starts with the argument's name, so that a
dashboard can show it to a person as it is.
"""

from __future__ import annotations

import math

import numpy as np

#: Largest allowed ``|sum(p) - 1|`` for a distribution. Values typed by hand with six decimals
#: pass; anything further off is a different distribution, not rounding.
SUM_TOLERANCE = 1e-6


def as_float_array(value, name: str) -> np.ndarray:
    """Convert ``value`` to a float array, naming ``name`` if it is not numeric.

    Text is refused even where it would parse (``"0.5"``): a number typed as text is a
    mistake to report, not to guess at. So is ``None`` (NumPy would make it NaN).
    """
    raw = np.asarray(value, dtype=object) if value is None else np.asarray(value)
    if raw.dtype.kind in "USO" and any(isinstance(v, (str, bytes)) or v is None for v in raw.flat):
        raise ValueError(f"{name} must be numeric, got {value!r:.80}")
    try:
        return raw.astype(float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric: {exc}") from None


def _describe_bad(arr: np.ndarray) -> str:
    if np.isnan(arr).any():
        return "NaN"
    return "an infinite value"


def as_distribution(value, name: str) -> np.ndarray:
    """Check that ``value`` is a 1-D probability vector; return it renormalized to sum 1.

    Renormalizing an input that already sums to 1 within :data:`SUM_TOLERANCE` makes the
    identities downstream (``alpha = 1 - TV``, a residual of total mass ``1 - alpha``) hold to
    rounding instead of to the tolerance.
    """
    arr = as_float_array(value, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of probabilities, got {arr.ndim}-D shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains {_describe_bad(arr)}; every probability must be a finite number")
    if (arr < 0).any():
        where = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(f"{name} has a negative entry ({arr[where]:g} at index {where}); probabilities must be >= 0")
    total = arr.sum()
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ValueError(f"{name} sums to {total:.9g}, not 1 (tolerance {SUM_TOLERANCE:g})")
    return arr / total


def as_distribution_pair(p, q) -> tuple[np.ndarray, np.ndarray]:
    """Check a target ``p`` and draft ``q`` over one vocabulary."""
    p = as_distribution(p, "p")
    q = as_distribution(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same length, got {p.size} and {q.size}")
    return p, q


def as_alpha(value, name: str = "alpha") -> np.ndarray:
    """Check acceptance rates: finite, within [0, 1]."""
    arr = as_float_array(value, name)
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN; it must be within [0, 1]")
    if ((arr < 0) | (arr > 1)).any():
        bad = arr[(arr < 0) | (arr > 1)].flat[0]
        raise ValueError(f"{name} must be within [0, 1], got {bad:g}")
    return arr


def as_draft_length(value, name: str = "k") -> np.ndarray:
    """Check draft lengths: non-negative integers (integral floats such as ``3.0`` accepted)."""
    arr = np.asarray(value)
    if arr.dtype.kind == "b":
        raise ValueError(f"{name} must be a non-negative integer, got a boolean")
    if arr.dtype.kind not in "iu":
        arr = as_float_array(value, name)
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} must be a non-negative integer, got {_describe_bad(arr)}")
        if (arr != np.round(arr)).any():
            bad = arr[arr != np.round(arr)].flat[0]
            raise ValueError(f"{name} must be an integer, got {bad:g}")
    if (arr < 0).any():
        raise ValueError(f"{name} must be non-negative, got {arr[arr < 0].flat[0]:g}")
    return arr.astype(np.int64)


def as_cost_ratio(value, name: str = "c") -> np.ndarray:
    """Check cost ratios: > 0, not NaN; ``inf`` (a free draft) allowed."""
    arr = as_float_array(value, name)
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN; it must be > 0")
    if (arr <= 0).any():
        raise ValueError(f"{name} must be > 0, got {arr[arr <= 0].flat[0]:g}")
    return arr


def as_count(value, name: str, cap: int, minimum: int = 1) -> int:
    """Check a size argument: an integer in ``[minimum, cap]`` (integral floats accepted)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and np.isfinite(value) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if value > cap:
        raise ValueError(f"{name} must be <= {cap:,} (a cap that bounds memory), got {value:,}")
    return value


def as_positive(value, name: str, *, allow_zero: bool = False) -> float:
    """Check a single finite number: > 0, or >= 0 with ``allow_zero``; return it as float."""
    arr = as_float_array(value, name)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a single number, got an array of shape {arr.shape}")
    x = float(arr)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x}")
    if x < 0 or (x == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, got {x:g}")
    return x


def scalar_or_array(arr: np.ndarray):
    """Return a NumPy scalar for 0-d results, the array otherwise (NumPy's own convention)."""
    return arr[()] if arr.ndim == 0 else arr
