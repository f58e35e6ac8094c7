r"""One acceptance value for every function that takes alpha: an i.i.d. alpha, a per-position profile, or a curve.

The chapter's model accepts every draft position with one probability alpha, whatever came before
it. Drafters measured in serving do not: an EAGLE-type head's rates fall with position, and the
engines print the evidence in three forms, which :func:`acceptance` takes:

- ``alpha=``: the chapter's i.i.d. alpha, :math:`u_i = \alpha^i`;
- ``per_position=``: the **unconditional** rates :math:`u_i = P(A \ge i)`, position 1 first, the
  share of drafts whose first i tokens were all accepted (A is the accepted prefix). This is what
  vLLM V1 prints as "Per-position acceptance rate" and counts in
  ``vllm:spec_decode_num_accepted_tokens_per_pos``: ``observe_draft`` adds 1 to positions
  0 … A − 1 of every draft and the log divides by the drafts (``vllm/v1/spec_decode/metrics.py``
  lines 38-44 and 96-98 at vllm-project/vllm commit ee4ceaae5953d367d8edd2132fd86d6c42506e1e,
  lines 38-44 and 93-94 at 016a8587); llama-server's "acc per pos" is the same
  (``tools/server/server-context.cpp`` lines 3961-3970 at ggml-org/llama.cpp 0c1e57098), and so are
  the rates vLLM's and llama.cpp's synthetic acceptance take (:mod:`engines.configs.synthetic`);
- ``conditional=``: the **conditional** rates :math:`c_i = u_i / u_{i-1}`, the chance position i
  is accepted once position i − 1 was, :math:`u_i = \prod_{j \le i} c_j`;
- ``lengths=``: a measured mean acceptance-length curve :math:`\{k: L(k)\}` (tokens per
  verification step, bonus token included), such as InferenceX's golden curves, turned into a
  profile by :func:`~specmath.sweep.profile_from_curve`, :math:`u_i = L(i) - L(i - 1)`, made to lie in
  [0, 1] and not increase; :attr:`Acceptance.adjusted` says whether that changed anything.

Whichever form, the value holds the profile :math:`u_1 \ldots u_m` it implies, and a draft of k
tokens emits :math:`\mathbb{E}[N_k] = 1 + \sum_{i \le k} u_i` tokens a step
(:meth:`Acceptance.lengths`: the accepted prefix of a k-token draft is min(A, k)), positions past m following
:func:`~specmath.calibration.extend_profile` for a profile and counting 0 for a curve
(:meth:`Acceptance.profile`). An ``alpha=`` value computes with the chapter's closed form itself,
so every function gives for it exactly what it gives for the float, bit for bit.

Draft trees (:mod:`specmath.trees`, :mod:`specmath.eagle`) do not take this value: a tree's
acceptance is one probability per sibling rank (Sequoia's :math:`p_r`, the same at every depth),
and a chain's measurements say only how rank 1 fares at each depth, nothing of ranks 2, 3, ….
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from . import _kernels
from ._validate import MAX_DRAFT_LENGTH, as_alpha, as_draft_length, as_float_array, shown


class IidFit(NamedTuple):
    """The i.i.d. alpha that best fits an acceptance's lengths, and how far it is off (:meth:`Acceptance.fitted_alpha`).

    Attributes
    ----------
    alpha : float
        The fitted alpha, in [0, 1].
    fitted_k : tuple of int
        The draft lengths whose lengths were fitted.
    k : tuple of int
        Every draft length the acceptance measures: a curve's k, or 1 … m for a profile.
    lengths : tuple of float
        :math:`L(k)` at each: a curve's measured values, a profile's :math:`1 + \\sum_{i \\le k} u_i`.
    predicted : tuple of float
        :math:`\\mathbb{E}_\\alpha[N_k]` at each k.
    error : tuple of float
        ``predicted / lengths - 1`` at each k: above 0, the i.i.d. alpha promises more than was measured.
    """

    alpha: float
    fitted_k: tuple[int, ...]
    k: tuple[int, ...]
    lengths: tuple[float, ...]
    predicted: tuple[float, ...]
    error: tuple[float, ...]


@dataclass(frozen=True)
class Acceptance:
    """How a drafter's tokens are accepted, position by position: build it with :func:`acceptance`.

    Immutable and hashable (a cache can key on it). Pass it wherever a function takes ``alpha``.

    Attributes
    ----------
    per_position : tuple of float
        The unconditional profile :math:`u_1 \\ldots u_m`, :math:`u_i = P(A \\ge i)`, position 1
        first, non-increasing in [0, 1]. For an i.i.d. alpha it is ``(alpha,)``, which
        :func:`~specmath.calibration.extend_profile` extends to :math:`\\alpha^i`.
    alpha : float or None
        The i.i.d. alpha when the value was built from one; None for a profile or a curve.
    curve : tuple of (int, float)
        The measured :math:`(k, L(k))` pairs when built from ``lengths=``, ascending in k; else empty.
    adjusted : bool
        Whether the curve's rises had to be clipped to [0, 1] or pooled to stop them rising
        (:func:`~specmath.sweep.profile_from_curve`): then :meth:`lengths` differs from the curve
        where the adjustment reached.
    given : str
        The keyword it was built from: ``"alpha"``, ``"per_position"``, ``"conditional"`` or ``"lengths"``.
    """

    per_position: tuple[float, ...]
    alpha: float | None = None
    curve: tuple[tuple[int, float], ...] = ()
    adjusted: bool = False
    given: str = "per_position"

    def __post_init__(self):
        # Built by hand rather than by acceptance(): the same checks, so no value holds an impossible profile.
        from .calibration import _as_profile

        if self.given not in ("alpha", "per_position", "conditional", "lengths"):
            raise ValueError(f"given must name acceptance()'s keyword, got {shown(self.given):.80}")
        if not isinstance(self.per_position, tuple):
            raise ValueError(f"per_position must be a tuple of rates, got {type(self.per_position).__name__}")
        _as_profile(self.per_position)
        if self.alpha is not None and self.per_position != (self.alpha,):
            raise ValueError(f"per_position must be (alpha,) for an i.i.d. alpha, got {shown(self.per_position):.80}")

    @property
    def measured(self) -> int | None:
        """Positions the value states (a curve's largest k); None for an i.i.d. alpha, which states them all."""
        return None if self.alpha is not None else len(self.per_position)

    @property
    def conditional(self) -> tuple[float, ...]:
        r"""The conditional rates :math:`c_i = u_i / u_{i-1}` (:math:`u_0 = 1`) of the stated positions; NaN where
        :math:`u_{i-1} = 0`."""
        from .calibration import conditional_acceptance

        return tuple(float(c) for c in conditional_acceptance(self.per_position))

    def profile(self, k_max) -> np.ndarray:
        r"""The unconditional profile :math:`u_1 \ldots u_{k_{\max}}`, extended past the stated positions.

        :math:`\alpha^i` for an i.i.d. alpha; a profile's positions, then
        :func:`~specmath.calibration.extend_profile`'s extrapolation (the last conditional rate, on and on); a
        curve's positions, then 0: a curve says nothing past its largest k, and pooling its noisy
        rises (:func:`~specmath.sweep.profile_from_curve`) often ends it in a flat block, whose
        conditional rate of 1 would promise every later token. So a curve's :meth:`lengths` stay at
        :math:`L(k_{\max})` past it, a lower bound, and no search picks a k it did not measure
        for the tokens it cannot vouch for.
        """
        from .calibration import extend_profile

        if self.alpha is not None:
            k_max = int(as_draft_length(k_max, "k_max"))
            return self.alpha ** np.arange(1, k_max + 1)
        if self.curve:
            k_max = int(as_draft_length(k_max, "k_max"))
            u = np.array(self.per_position[:k_max])
            return np.concatenate((u, np.zeros(k_max - u.size)))
        return extend_profile(self.per_position, k_max)

    def lengths(self, k):
        r"""The mean acceptance length :math:`L(k) = \mathbb{E}[N_k]` at draft length k: the curve the value implies.

        :func:`~specmath.expected_tokens` of the float for an i.i.d. alpha (bit for bit), else
        :math:`1 + \sum_{i \le k} u_i`, since the accepted prefix A of a k-token draft is
        :math:`\min(A, k)` and :math:`\mathbb{E}[\min(A, k)] = \sum_{i \le k} P(A \ge i)`.

        Parameters
        ----------
        k : array_like of int
            Draft lengths, 0 to :data:`~specmath.speedup.MAX_DRAFT_LENGTH`.

        Returns
        -------
        numpy.float64 or numpy.ndarray
        """
        k = as_draft_length(k)
        result = self._tokens(k)
        return result[()] if result.ndim == 0 else result

    def _tokens(self, k: np.ndarray) -> np.ndarray:
        """E[N_k] as a float array of k's shape, k already checked."""
        if self.alpha is not None:
            return np.asarray(_kernels.expected_tokens(as_alpha(self.alpha), k), dtype=float)
        # E[min(A, k)] = sum_{i <= k} P(A >= i): the accepted prefix of a k-token draft is min(A, k).
        cumulative = np.concatenate(([0.0], np.cumsum(self.profile(max(int(k.max(initial=0)), 1)))))
        return 1.0 + cumulative[k]

    def fitted_alpha(self, k=None) -> IidFit:
        r"""The i.i.d. alpha whose lengths come closest to this value's, and its error at every measured k.

        The criterion is least squares on the mean acceptance length over the draft lengths ``k``,

        .. math:: \hat\alpha = \operatorname*{arg\,min}_{\alpha \in [0, 1]}
                  \sum_{k} \bigl(\mathbb{E}_\alpha[N_k] - L(k)\bigr)^2,

        :math:`L(k)` being the curve's measured values (not the adjusted ones) or a profile's
        :math:`1 + \sum_{i \le k} u_i`. With one k it is the exact inversion of
        :func:`~specmath.iid_blocks.fit_alpha_from_acceptance_length` (a length past k + 1 fits alpha = 1);
        with several, a grid of 4,097 alphas finds the basin and bisection on the derivative
        finishes it. An i.i.d. value returns its own alpha.

        Parameters
        ----------
        k : array_like of int, optional
            The draft lengths to fit, among those measured; default every one of them
            (``k=1`` is "the alpha that fits L(1)").

        Returns
        -------
        specmath.acceptance_model.IidFit

        Examples
        --------
        >>> fit = acceptance(lengths={1: 1.84, 2: 2.52, 4: 3.41, 8: 4.06}).fitted_alpha(k=1)
        >>> round(fit.alpha, 4), round(fit.predicted[-1], 2), round(fit.error[-1], 3)  # k = 8: 22 % high
        (0.84, 4.95, 0.219)
        """
        from .iid_blocks import fit_alpha_from_acceptance_length

        if self.curve:
            ks = np.array([kk for kk, _ in self.curve], dtype=np.int64)
            measured = np.array([length for _, length in self.curve])
        else:
            ks = np.arange(1, (self.measured or 1) + 1)
            measured = self._tokens(ks)
        if k is None:
            chosen = ks
        else:
            chosen = np.unique(as_draft_length(np.atleast_1d(k), "k"))
            missing = np.setdiff1d(chosen, ks)
            if chosen.size == 0 or missing.size:
                raise ValueError(
                    f"k must be among the measured draft lengths {ks.tolist()}, got {shown(k):.80}"
                    + (f" ({missing.tolist()} not measured)" if missing.size else "")
                )
        targets = measured[np.searchsorted(ks, chosen)]
        if self.alpha is not None:
            alpha = self.alpha
        elif chosen.size == 1:
            kk = int(chosen[0])
            alpha = float(fit_alpha_from_acceptance_length(min(max(float(targets[0]), 1.0), kk + 1.0), kk))
        else:
            alpha = _least_squares_alpha(chosen, targets)
        predicted = _kernels.expected_tokens(np.float64(alpha), ks)
        return IidFit(
            alpha,
            tuple(int(x) for x in chosen),
            tuple(int(x) for x in ks),
            tuple(float(x) for x in measured),
            tuple(float(x) for x in predicted),
            tuple(float(x) for x in predicted / measured - 1.0),
        )


def _least_squares_alpha(ks: np.ndarray, lengths: np.ndarray) -> float:
    """argmin over [0, 1] of sum_k (E_alpha[N_k] - L_k)^2: the grid's best, then bisection on the derivative."""
    grid = np.linspace(0.0, 1.0, 4097)
    sse = ((_kernels.expected_tokens(grid[:, None], ks) - lengths) ** 2).sum(axis=1)
    best = int(np.argmin(sse))
    powers = np.arange(1, int(ks.max()) + 1)

    def slope(a: float) -> float:
        # d E[N_k] / d alpha = sum_{i <= k} i alpha^(i - 1); the sum's sign is the SSE's slope's.
        d_tokens = np.cumsum(powers * a ** (powers - 1))[ks - 1]
        return float((_kernels.expected_tokens(np.float64(a), ks) - lengths) @ d_tokens)

    lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]
    if slope(lo) >= 0:
        return float(lo)
    if slope(hi) <= 0:
        return float(hi)
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if slope(mid) < 0 else (lo, mid)
    return float(0.5 * (lo + hi))


def _one_d(value, name: str) -> np.ndarray:
    arr = as_alpha(value, name)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of rates, position 1 first, got {shown(value):.80}")
    if arr.size > MAX_DRAFT_LENGTH:
        raise ValueError(f"{name} has {arr.size} positions; at most {MAX_DRAFT_LENGTH:,}")
    return arr


def _curve_pairs(lengths) -> tuple[np.ndarray, np.ndarray]:
    """A {k: L} mapping or a sequence of (k, L) pairs as two arrays, ascending in k."""
    pairs = list(lengths.items()) if isinstance(lengths, dict) else lengths
    try:
        table = np.asarray(pairs, dtype=object)
    except ValueError:
        table = None
    if table is None or table.ndim != 2 or table.shape[1] != 2 or table.shape[0] == 0:
        raise ValueError(
            "lengths must be a non-empty {k: mean acceptance length} mapping or a sequence of (k, length) pairs, "
            f"got {shown(lengths):.80}"
        )
    ks = as_draft_length(table[:, 0].tolist(), "lengths' k")
    values = as_float_array(table[:, 1].tolist(), "lengths' mean acceptance length")
    order = np.argsort(ks, kind="stable")
    return ks[order], values[order]


def acceptance(*, alpha=None, per_position=None, conditional=None, lengths=None) -> Acceptance:
    r"""An acceptance value from exactly one of an i.i.d. alpha, a per-position profile or a measured curve.

    .. math:: u_i = \alpha^i, \qquad u_i = \textstyle\prod_{j \le i} c_j, \qquad u_i = L(i) - L(i - 1)

    (the last spread evenly between measured lengths, clipped and pooled as
    :func:`~specmath.sweep.profile_from_curve` does), and :math:`\mathbb{E}[N_k] = 1 + \sum_{i \le k} u_i`.
    The module docstring cites which engine prints which form.

    Parameters
    ----------
    alpha : float, optional
        The chapter's i.i.d. acceptance rate, one value in [0, 1].
    per_position : sequence of float, optional
        Unconditional rates :math:`u_i = P(\text{at least } i \text{ accepted})`, position 1 first,
        non-increasing in [0, 1]: vLLM's and llama.cpp's "per-position acceptance rate" as printed.
    conditional : sequence of float, optional
        Conditional rates :math:`c_i = P(\text{position } i \text{ accepted} \mid \text{position } i - 1 \text{ was})`,
        position 1 first, each in [0, 1].
    lengths : mapping of int to float, or sequence of (int, float)
        Mean acceptance length :math:`L(k)` (bonus token included) at each measured draft length k >= 1.

    Returns
    -------
    Acceptance

    Examples
    --------
    >>> import specmath
    >>> acc = specmath.acceptance(per_position=[0.8, 0.6, 0.4])
    >>> [round(c, 3) for c in acc.conditional]
    [0.8, 0.75, 0.667]
    >>> float(acc.lengths(3)), float(specmath.speedup(acc, 3, 20))
    (2.8, 2.4347826086956523)
    >>> float(specmath.speedup(specmath.acceptance(alpha=0.8), 3, 20)) == float(specmath.speedup(0.8, 3, 20))
    True
    """
    given = {name: value for name, value in
             (("alpha", alpha), ("per_position", per_position), ("conditional", conditional), ("lengths", lengths))
             if value is not None}  # fmt: skip
    if len(given) != 1:
        named = ", ".join(given) or "none"
        raise ValueError(f"acceptance takes exactly one of alpha, per_position, conditional, lengths; got {named}")
    if alpha is not None:
        a = as_alpha(alpha)
        if a.ndim != 0:
            raise ValueError(f"alpha must be a single value here (pass an array of floats to vectorize), got {a.shape}")
        return Acceptance((float(a),), alpha=float(a), given="alpha")
    if per_position is not None:
        from .calibration import _as_profile

        return Acceptance(tuple(float(u) for u in _as_profile(per_position)), given="per_position")
    if conditional is not None:
        rates = _one_d(conditional, "conditional")
        return Acceptance(tuple(float(u) for u in np.cumprod(rates)), given="conditional")
    from .sweep import profile_from_curve

    ks, values = _curve_pairs(lengths)
    profile, adjusted = profile_from_curve(ks, values)
    curve = tuple((int(kk), float(v)) for kk, v in zip(ks, values, strict=True))
    return Acceptance(tuple(float(u) for u in profile), curve=curve, adjusted=adjusted, given="lengths")


def split(value, name: str = "alpha") -> tuple[np.ndarray | None, Acceptance | None]:
    """An i.i.d. alpha as the checked float array the chapter's formulas take, or a profile's Acceptance.

    ``(alpha, None)`` for floats, arrays and ``acceptance(alpha=…)`` (its float, so the float path runs
    bit for bit); ``(None, value)`` for an Acceptance with a profile.
    """
    if isinstance(value, Acceptance):
        if value.alpha is not None:
            return as_alpha(value.alpha, name), None
        return None, value
    return as_alpha(value, name), None
