"""Argument checks shared by the public functions.

Every check raises ``ValueError`` whose message starts with the argument's name and shows the
offending value as the caller gave it (``1.0000001``, not a rounded ``1``), so that a dashboard
can show it to a person as it is.
"""

from __future__ import annotations

import math

import numpy as np

#: Largest allowed ``|sum(p) - 1|`` for a distribution. Values typed by hand with six decimals
#: pass; anything further off is a different distribution, not rounding. Callers outside specmath
#: import it from :mod:`specmath.verification`, whose rules enforce it.
SUM_TOLERANCE = 1e-6

#: Longest draft length any function takes (``k``, ``max_k``, a profile's positions). Far beyond
#: any useful draft, it bounds the work that grows with k (a law over k + 1 outcomes, a search
#: over 1 … max_k) and is checked before the conversion to int64, which wraps 2**63 to negative.
#: Callers outside specmath import it from :mod:`specmath.speedup`, whose functions enforce it.
MAX_DRAFT_LENGTH = 1024


def shown(value) -> str:
    """``value`` as the caller wrote it, for a message: NumPy floats as they print, the rest by repr."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.floating):
        return str(value)
    if isinstance(value, np.generic):
        return repr(value.item())
    return repr(value)


def shown_first(value, bad: np.ndarray) -> str:
    """The caller's first element where ``bad`` (same shape as ``np.asarray(value)``) holds, shown."""
    return shown(np.asarray(value).flat[int(np.flatnonzero(bad)[0])])


#: What an array of each NumPy kind that is not real numbers should have been.
_NOT_REAL = {
    "b": "numeric, not a boolean",
    "c": "real, not complex",
    "U": "numeric, not text",
    "S": "numeric, not text",
}


def _not_real(raw: np.ndarray) -> str | None:
    """What ``raw`` should be instead, if it holds text, None, booleans or complex numbers."""
    if raw.dtype.kind in _NOT_REAL:
        return _NOT_REAL[raw.dtype.kind]
    if raw.dtype.kind == "O":
        for v in raw.flat:
            if v is None:
                return "numeric, not None"
            if isinstance(v, (str, bytes)):
                return _NOT_REAL["U"]
            if isinstance(v, (bool, np.bool_)):
                return _NOT_REAL["b"]
            if isinstance(v, (complex, np.complexfloating)):
                return _NOT_REAL["c"]
    return None


def as_float_array(value, name: str) -> np.ndarray:
    """Convert ``value`` to a float array, naming ``name`` if it is not real numbers.

    Text is refused even where it would parse (``"0.5"``): a number typed as text is a
    mistake to report, not to guess at. So are ``None`` (NumPy would make it NaN), booleans
    (NumPy would make them 0 and 1) and complex numbers (NumPy would drop the imaginary part).
    """
    raw = np.asarray(value, dtype=object) if value is None else np.asarray(value)
    needed = _not_real(raw)
    if needed is not None:
        raise ValueError(f"{name} must be {needed}, got {shown(value):.80}")
    try:
        return raw.astype(float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric, got {shown(value):.80}") from None


def as_number(value, name: str) -> float:
    """Check a single real number (any value, inf and NaN included: callers check the range)."""
    arr = as_float_array(value, name)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a single number, got an array of shape {arr.shape}")
    return float(arr)


def as_rng(value, name: str = "rng") -> np.random.Generator:
    """Check a source of randomness and return it as :func:`numpy.random.default_rng` does.

    A Generator is used as is; an integer seed, a sequence of them, a SeedSequence or a
    BitGenerator seeds a new one; None seeds one from the operating system. A boolean is
    refused though NumPy would take it as the seed 0 or 1.
    """
    if not isinstance(value, (bool, np.bool_)):
        try:
            return np.random.default_rng(value)
        except (TypeError, ValueError):
            pass
    raise ValueError(
        f"{name} must be a numpy.random.Generator, a non-negative integer seed or None, got {shown(value):.80}"
    )


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
        raise ValueError(
            f"{name} has a negative entry ({shown_first(value, arr < 0)} at index {where}); probabilities must be >= 0"
        )
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
    outside = (arr < 0) | (arr > 1)
    if outside.any():
        raise ValueError(f"{name} must be within [0, 1], got {shown_first(value, outside)}")
    return arr


def as_draft_length(value, name: str = "k", cap: int = MAX_DRAFT_LENGTH) -> np.ndarray:
    """Check draft lengths: integers in ``[0, cap]`` (integral floats such as ``3.0`` accepted).

    The cap is checked on the value as given, before the conversion to int64, which would
    wrap ``2**63`` and beyond to negative numbers. Other counts (widths, batch sizes) pass
    their own cap.
    """
    arr = np.asarray(value)
    if arr.dtype.kind == "b":
        raise ValueError(f"{name} must be a non-negative integer, not a boolean, got {shown(value):.80}")
    if arr.dtype.kind not in "iu":
        arr = as_float_array(value, name)
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} must be a non-negative integer, got {shown_first(value, ~np.isfinite(arr))}")
        fractional = arr != np.round(arr)
        if fractional.any():
            raise ValueError(f"{name} must be an integer, got {shown_first(value, fractional)}")
    if (arr < 0).any():
        raise ValueError(f"{name} must be non-negative, got {shown_first(value, arr < 0)}")
    if (arr > cap).any():
        raise ValueError(f"{name} must be <= {cap:,}, got {shown_first(value, arr > cap)}")
    return arr.astype(np.int64)


def as_cost_ratio(value, name: str = "c") -> np.ndarray:
    """Check cost ratios: > 0, not NaN; ``inf`` (a free draft) allowed."""
    arr = as_float_array(value, name)
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN; it must be > 0")
    if (arr <= 0).any():
        raise ValueError(f"{name} must be > 0, got {shown_first(value, arr <= 0)}")
    return arr


def as_count(value, name: str, cap: int, minimum: int = 1) -> int:
    """Check a size argument: an integer in ``[minimum, cap]`` (integral floats accepted)."""
    given = value
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and np.isfinite(value) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer, got {shown(given):.80}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {shown(given)}")
    if value > cap:
        raise ValueError(f"{name} must be <= {cap:,} (a cap that bounds memory), got {shown(given)}")
    return value


def as_positive(value, name: str, *, allow_zero: bool = False) -> float:
    """Check a single finite number: > 0, or >= 0 with ``allow_zero``; return it as float."""
    x = as_number(value, name)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {shown(value)}")
    if x < 0 or (x == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, got {shown(value)}")
    return x


def scalar_or_array(arr: np.ndarray):
    """Return a NumPy scalar for 0-d results, the array otherwise (NumPy's own convention)."""
    return arr[()] if arr.ndim == 0 else arr
