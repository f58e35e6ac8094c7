"""The mathematics of speculative decoding: a pure, vectorized NumPy library.

Conventions: ``p`` is the target distribution, ``q`` the draft distribution, ``alpha`` the
acceptance rate, ``k`` the draft length and ``c`` the target step time divided by the draft
step time. Every function validates its arguments and raises ``ValueError`` naming the
argument and what is wrong.

>>> import specmath
>>> k, s = specmath.optimal_k(0.8, 20)
>>> int(k), round(float(s), 2)
(8, 3.09)
"""

from ._validate import SUM_TOLERANCE
from .distributions import (
    MAX_PAIR_ELEMENTS,
    RESIDUAL_MASS_TOLERANCE,
    Divergences,
    acceptance_probability,
    bretagnolle_huber_bound,
    divergences,
    kl_divergence,
    pinsker_bound,
    random_distribution_pairs,
    residual_distribution,
    tv_distance,
)
from .sampling import MAX_SAMPLES, speculative_sample
from .speedup import (
    MAX_DRAFT_LENGTH,
    expected_tokens,
    from_leviathan_cost,
    optimal_k,
    speedup,
    to_leviathan_cost,
)

__all__ = [
    "MAX_DRAFT_LENGTH",
    "MAX_PAIR_ELEMENTS",
    "MAX_SAMPLES",
    "RESIDUAL_MASS_TOLERANCE",
    "SUM_TOLERANCE",
    "Divergences",
    "acceptance_probability",
    "bretagnolle_huber_bound",
    "divergences",
    "expected_tokens",
    "from_leviathan_cost",
    "kl_divergence",
    "optimal_k",
    "pinsker_bound",
    "random_distribution_pairs",
    "residual_distribution",
    "speculative_sample",
    "speedup",
    "to_leviathan_cost",
    "tv_distance",
]
