r"""Mixtures of experts: how many experts a forward pass over several tokens wakes.

A mixture-of-experts layer routes each token to ``k`` of its ``E`` routed experts. A decoding
pass over ``T`` tokens (``batch`` sequences times the ``w`` positions each verifies) reads the
weights of every expert at least one of them picked, so the bytes a pass reads grow with the
batch and with the draft length long before compute binds: the main reason speculation pays
less on a mixture-of-experts target than on a dense model of the same active size.
"""

from __future__ import annotations

import numpy as np

from ._validate import as_draft_length, scalar_or_array, shown, shown_first

#: Cap on the number of routed experts (far above any published model: DeepSeek-V3 has 256).
MAX_EXPERTS = 1_000_000

#: Passes whose :math:`E^T` has at most this many bits are computed in integers, so exactly rounded
#: whatever the CPU: NumPy's ``log1p``/``expm1`` kernels differ in the last bit between SIMD paths
#: (8 experts, 2 per token, 2 tokens gave 3.4999999999999996 under AVX512_ICL). Larger passes use them.
MAX_EXACT_BITS = 4096

#: Cap on the tokens of one pass (:data:`~specmath.costs.MAX_BATCH` sequences of
#: :data:`~specmath.costs.MAX_CONTEXT` positions).
MAX_TOKENS = 10**14


def _as_counts(value, name: str, cap: int, minimum: int) -> np.ndarray:
    arr = as_draft_length(value, name, cap=cap)
    if (arr < minimum).any():
        raise ValueError(f"{name} must be >= {minimum}, got {shown_first(value, arr < minimum)}")
    return arr


def expected_active_experts(num_experts, experts_per_token, tokens):
    r"""Expected number of distinct routed experts ``tokens`` tokens activate, routing uniformly.

    .. math:: \mathbb{E}[A] = E\,\Bigl(1 - \bigl(1 - \tfrac{k}{E}\bigr)^{T}\Bigr)

    Each of the ``T`` tokens picks ``k`` of the ``E`` experts, every ``k``-subset alike and
    independently of the other tokens; one expert is missed by one token with probability
    :math:`1 - k/E`, by all of them with :math:`(1 - k/E)^T`, and the expectation sums that
    complement over the ``E`` experts (linearity of expectation). Where :math:`E^T` has at most
    :data:`MAX_EXACT_BITS` bits the value is computed in integers,
    :math:`(E^T - (E - k)^T) / E^{T - 1}`, and rounded once, so it is the float nearest the
    exact value on every CPU: 0 for ``T = 0``, ``k`` for ``T = 1``, ``E`` for ``k = E``. Larger
    passes go through ``log1p``/``expm1``, within a few units in the last place, which can
    differ in the last bit between CPUs. Real routers are not
    uniform (popular experts are picked more often), which wakes fewer experts than this; it is
    the usual upper-side model of serving studies. Shared experts, which every token uses, are
    not routed and not counted here (:class:`~specmath.ModelSpec` counts them in its dense part).

    Parameters
    ----------
    num_experts : array_like of int
        Routed experts per layer, ``E``, 1 to :data:`MAX_EXPERTS`.
    experts_per_token : array_like of int
        Experts each token is routed to, ``k``, 1 to ``num_experts``.
    tokens : array_like of int
        Tokens in the pass, ``T`` (batch times positions per sequence), 0 to :data:`MAX_TOKENS`.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        Shape ``broadcast(num_experts, experts_per_token, tokens)``, in ``[min(k, E), E]`` for
        ``T >= 1``.

    Examples
    --------
    >>> float(expected_active_experts(8, 2, 2))  # Mixtral: two tokens wake 3.5 of 8 experts
    3.5
    """
    e = _as_counts(num_experts, "num_experts", MAX_EXPERTS, 1)
    k = _as_counts(experts_per_token, "experts_per_token", MAX_EXPERTS, 1)
    t = _as_counts(tokens, "tokens", MAX_TOKENS, 0)
    try:
        e, k, t = np.broadcast_arrays(e, k, t)
    except ValueError:
        raise ValueError(
            f"num_experts, experts_per_token and tokens must broadcast, got shapes "
            f"{np.shape(num_experts)}, {np.shape(experts_per_token)} and {np.shape(tokens)}"
        ) from None
    too_many = k > e
    if too_many.any():
        where = int(np.flatnonzero(too_many.ravel())[0])
        raise ValueError(
            f"experts_per_token must be <= num_experts, got {shown(k.flat[where].item())} "
            f"for {shown(e.flat[where].item())} experts"
        )
    active = _active(e, k, t)
    small = (t.astype(float) * np.log2(e.astype(float))) <= MAX_EXACT_BITS
    if small.any():
        active[small] = [
            _exact(*ekt) for ekt in zip(e[small].tolist(), k[small].tolist(), t[small].tolist(), strict=True)
        ]
    return scalar_or_array(active)


def _exact(e: int, k: int, t: int) -> float:
    """``E (1 - (1 - k/E)^T)`` in integers, ``(E^T - (E - k)^T) / E^(T - 1)``, rounded once (``int / int``)."""
    if t == 0:
        return 0.0
    return (e**t - (e - k) ** t) / e ** (t - 1)


def _active(e, k, t):
    """The formula unchecked, for any real ``t >= 0`` (the roofline's ridge solves for a real width)."""
    e = np.asarray(e, dtype=float)
    # 1 - (1 - k/E)^T through log1p/expm1 keeps its digits when k/E is small and T large.
    with np.errstate(divide="ignore", invalid="ignore"):
        active = -e * np.expm1(t * np.log1p(-k / e))
    return np.where(np.asarray(k) == e, np.where(np.asarray(t) > 0, e, 0.0), active)
