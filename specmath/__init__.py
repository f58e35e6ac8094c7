"""The mathematics of speculative decoding: a pure, vectorized NumPy library.

Conventions: ``p`` is the target distribution, ``q`` the draft distribution, ``alpha`` the
acceptance rate, ``k`` the draft length and ``c`` the target step time divided by the draft
step time. Every function validates its arguments and raises ``ValueError`` naming the
argument and what is wrong. The caps those checks enforce (``MAX_DRAFT_LENGTH``, ``MAX_BATCH``, …)
and the tolerances are not exported here: each is a constant of the module whose functions
enforce it, named in their docstrings (``from specmath.speedup import MAX_DRAFT_LENGTH``).

What is here is what a notebook calls, one way for each thing:

- functions, and :func:`acceptance`, the one acceptance value every ``alpha`` argument takes (an
  i.i.d. alpha, a per-position profile, conditional rates or a measured curve), so a profile has
  no functions of its own: ``speedup(acceptance(per_position=u), k, c)``;
- the classes a user builds: :class:`Acceptance` (the type :func:`acceptance` returns, for
  ``isinstance`` and annotations), the cost models :class:`Roofline`, :class:`FreeVerification`,
  :class:`LinearOverhead` and :class:`Tabulated` (a ``target_cost`` is one of them),
  :class:`ModelSpec`, :class:`GPUSpec` and :class:`Interconnect` (a model or a GPU of one's own,
  or a preset edited with :func:`dataclasses.replace`) and :class:`ContextFalloff` (a fall-off
  with context, fitted or guessed);
- the registries a notebook starts from: ``MODEL_PRESETS``, ``GPU_PRESETS``,
  ``INTERCONNECT_PRESETS``, ``ACCEPTANCE_PRESETS`` and ``SEQUOIA_ACCEPTANCE`` (the tree
  functions' per-rank acceptance).

Not here, and importable from their modules, each named in the Returns section of the function
that gives it: the types functions return (``specmath.calibration.AlphaFit``, ``BatchSweep`` in
:mod:`specmath.schedule`, …), the presets' record types (:mod:`specmath.presets`), the decode
outcome codes and the drafter kinds (:mod:`specmath.decode`, :mod:`specmath.general`), and the
building blocks :class:`Acceptance` is made of (``extend_profile`` and ``conditional_acceptance``
in :mod:`specmath.calibration`, ``profile_from_curve`` in :mod:`specmath.sweep`, the vectorized
``fit_alpha_from_acceptance_length`` in :mod:`specmath.iid_blocks`).

>>> import specmath
>>> k, s = specmath.optimal_k(0.8, 20)
>>> int(k), round(float(s), 2)
(8, 3.09)
"""

from .acceptance_model import Acceptance, acceptance
from .alpha_fit import fit_alpha
from .calibration import alpha_interval, cost_ratio_from_times, fit_roofline
from .context import ContextFalloff, fit_context_falloff
from .costs import (
    FreeVerification,
    LinearOverhead,
    Roofline,
    Tabulated,
    kv_shards,
)
from .decode import decode_summary, speculative_decode
from .distributions import (
    bretagnolle_huber_bound,
    divergences,
    kl_divergence,
    pinsker_bound,
    random_distribution_pairs,
    residual_distribution,
    tv_distance,
)
from .eagle import eagle_tree
from .general import general_optimal_k, general_speedup, operations_factor, tree_speedup
from .iid_blocks import simulate_iid_blocks, tokens_per_iteration_pmf
from .iteration import speculative_iteration
from .markov import (
    draft_by_merging,
    draft_by_noise,
    draft_by_temperature,
    random_transition_matrix,
    state_acceptance,
    stationary_distribution,
    two_regime_transition_matrix,
)
from .moe import expected_active_experts
from .predict import predict_speedup
from .presets import (
    ACCEPTANCE_PRESETS,
    GPU_PRESETS,
    INTERCONNECT_PRESETS,
    MODEL_PRESETS,
    SEQUOIA_ACCEPTANCE,
    GPUSpec,
    ModelSpec,
)
from .record_lengths import draft_lengths, predicted_acceptance_rate
from .sampling import speculative_sample, speculative_sample_counts
from .schedule import batch_k_schedule, roofline_batch_sweep
from .specs import Interconnect
from .speedup import (
    draft_acceptance_rate,
    expected_tokens,
    from_leviathan_cost,
    optimal_k,
    speedup,
    to_leviathan_cost,
)
from .sweep import acceptance_curve, acceptance_curve_from_counts, measured_schedule
from .trees import (
    acceptance_from_pair,
    optimal_tree,
    optimal_tree_table,
    tree_expected_tokens,
)
from .verification import (
    acceptance_probability,
    expected_accepted_tokens,
    first_token_distribution,
    with_temperature,
)

__all__ = [
    "ACCEPTANCE_PRESETS",
    "GPU_PRESETS",
    "INTERCONNECT_PRESETS",
    "MODEL_PRESETS",
    "SEQUOIA_ACCEPTANCE",
    "Acceptance",
    "ContextFalloff",
    "FreeVerification",
    "GPUSpec",
    "Interconnect",
    "LinearOverhead",
    "ModelSpec",
    "Roofline",
    "Tabulated",
    "acceptance",
    "acceptance_curve",
    "acceptance_curve_from_counts",
    "acceptance_from_pair",
    "acceptance_probability",
    "alpha_interval",
    "batch_k_schedule",
    "bretagnolle_huber_bound",
    "cost_ratio_from_times",
    "decode_summary",
    "divergences",
    "draft_acceptance_rate",
    "draft_by_merging",
    "draft_by_noise",
    "draft_by_temperature",
    "draft_lengths",
    "eagle_tree",
    "expected_accepted_tokens",
    "expected_active_experts",
    "expected_tokens",
    "first_token_distribution",
    "fit_alpha",
    "fit_context_falloff",
    "fit_roofline",
    "from_leviathan_cost",
    "general_optimal_k",
    "general_speedup",
    "kl_divergence",
    "kv_shards",
    "measured_schedule",
    "operations_factor",
    "optimal_k",
    "optimal_tree",
    "optimal_tree_table",
    "pinsker_bound",
    "predict_speedup",
    "predicted_acceptance_rate",
    "random_distribution_pairs",
    "random_transition_matrix",
    "residual_distribution",
    "roofline_batch_sweep",
    "simulate_iid_blocks",
    "speculative_decode",
    "speculative_iteration",
    "speculative_sample",
    "speculative_sample_counts",
    "speedup",
    "state_acceptance",
    "stationary_distribution",
    "to_leviathan_cost",
    "tokens_per_iteration_pmf",
    "tree_expected_tokens",
    "tree_speedup",
    "tv_distance",
    "two_regime_transition_matrix",
    "with_temperature",
]
