r"""Block verification of one iteration on bigram chains, for many sequences at once.

Sun et al. 2024, "Block Verification Accelerates Speculative Decoding" (arXiv 2403.10444, ICLR
2025): the k draft tokens are checked jointly rather than one by one. Along the drafted path
:math:`x_1 \dots x_k` (contexts :math:`x_0 \dots x_{k-1}`), with :math:`T` the target chain and
:math:`D` the draft's,

.. math::

    w_0 = 1, \qquad w_i = \min\Big(1,\ w_{i-1} \frac{T(x_{i-1}, x_i)}{D(x_{i-1}, x_i)}\Big), \qquad
    h_i = \frac{m_i}{m_i + 1 - w_i}, \quad m_i = \sum_y \max\big(w_i T(x_i, y) - D(x_i, y),\ 0\big)

for i < k and :math:`h_k = w_k`. With :math:`\eta_i \sim U[0, 1)`, the accepted prefix is
:math:`\tau = \max\{i : \eta_i < h_i\}` (0 if none), and the iteration ends with a token drawn
from :math:`\propto \max(w_\tau T(x_\tau, \cdot) - D(x_\tau, \cdot), 0)`, or from
:math:`T(x_k, \cdot)` (the bonus) when :math:`\tau = k`. The output is the target chain's.

The uniforms are the ones :func:`specmath.decode._uniforms` draws for token verification, in
the same order, so both schemes consume a generator alike.
"""

from __future__ import annotations

import numpy as np

from ._kernels import RESIDUAL_MASS_TOLERANCE, row_cdfs

#: Sequences whose (rows, V) arrays are formed at a time: about 30 MB each at V = 64.
ROWS_AT_A_TIME = 1 << 16

#: ``Generator.random`` uniforms are multiples of 2**-53 (see ``decode.UNIT``).
UNIT = 2.0**53


def _stop_chances(weight: np.ndarray, target_rows: np.ndarray, draft_rows: np.ndarray) -> np.ndarray:
    """:math:`h = m / (m + 1 - w)`; 0 where the residual mass m is empty (nothing to stop on)."""
    mass = np.maximum(weight[:, None] * target_rows - draft_rows, 0.0).sum(axis=1)
    empty = mass <= RESIDUAL_MASS_TOLERANCE
    return np.where(empty, 0.0, mass / np.where(empty, 1.0, mass + 1.0 - weight))


def final_rows(weight, at, bonus, target, draft) -> np.ndarray:
    """The law of each iteration's last token: the block residual at ``at``, or the target's row."""
    rows = target[at]
    excess = np.maximum(weight[:, None] * rows - draft[at], 0.0)
    mass = excess.sum(axis=1, keepdims=True)
    # An empty residual is never stopped on (h = 0), except at tau = 0: there the target's row, as
    # the token rule's residual does.
    use = ~bonus[:, None] & (mass > RESIDUAL_MASS_TOLERANCE)
    return np.where(use, excess / np.where(use, mass, 1.0), rows)


def step(tables, target, draft, current, k, u_draft, u_check, j_final):
    r"""One block-verified iteration for the sequences at the tokens ``current``.

    ``tables`` is the decoder's ``_Tables`` (its draft search and ``T / D`` ratios); ``u_draft``
    (k, m) and ``j_final`` (m,) are integer uniforms ``u * 2**53``, ``u_check`` (m, k) the
    :math:`\eta_i`. Returns ``path`` (m, k + 2: ``current``, the k drafted tokens, then 0), the
    :math:`\eta`, :math:`\tau`, the last tokens, the weights :math:`w_1 \dots w_k` and the
    stopping chances :math:`h_1 \dots h_k` (each (m, k)).
    """
    m = current.size
    path = np.zeros((m, k + 2), dtype=np.int64)
    path[:, 0] = token = current
    for i in range(k):
        token = tables.draft.draw(token, u_draft[i])
        path[:, i + 1] = token
    contexts, drafted = path[:, :k], path[:, 1 : k + 1]
    weights = np.ones((m, k + 1))
    for i in range(k):
        weights[:, i + 1] = np.minimum(weights[:, i] * tables.ratio[contexts[:, i], drafted[:, i]], 1.0)
    stops = np.empty((m, k))
    final = np.empty(m, dtype=np.int64)
    tau = np.zeros(m, dtype=np.int64)
    if k:
        stops[:, -1] = weights[:, -1]
    for start in range(0, m, ROWS_AT_A_TIME):
        rows = slice(start, min(start + ROWS_AT_A_TIME, m))
        for i in range(k - 1):
            x = drafted[rows, i]
            stops[rows, i] = _stop_chances(weights[rows, i + 1], target[x], draft[x])
        passed = u_check[rows] < stops[rows]
        # The last position that passes; 0 when none does.
        tau[rows] = np.where(passed.any(axis=1), k - np.argmax(passed[:, ::-1], axis=1), 0) if k else 0
        index = np.arange(rows.start, rows.stop)
        at, bonus = path[index, tau[rows]], tau[rows] == k
        law = final_rows(weights[index, tau[rows]], at, bonus, target, draft)
        final[rows] = (row_cdfs(law) <= (j_final[rows] / UNIT)[:, None]).sum(axis=1)
    return path, u_check, tau, final, weights[:, 1:], stops
