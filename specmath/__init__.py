"""The mathematics of speculative decoding: a pure, vectorized NumPy library.

Conventions: ``p`` is the target distribution, ``q`` the draft distribution, ``alpha`` the
acceptance rate, ``k`` the draft length and ``c`` the target step time divided by the draft
step time. Every function validates its arguments and raises ``ValueError`` naming the
argument and what is wrong. The caps those checks enforce (``MAX_DRAFT_LENGTH``, ``MAX_BATCH``, …)
and the tolerances are not exported here: each is a constant of the module whose functions
enforce it, named in their docstrings (``from specmath.speedup import MAX_DRAFT_LENGTH``).

>>> import specmath
>>> k, s = specmath.optimal_k(0.8, 20)
>>> int(k), round(float(s), 2)
(8, 3.09)
"""

from .acceptance_model import Acceptance, IidFit, acceptance
from .alpha_fit import fit_alpha
from .calibration import (
    AlphaFit,
    RooflineFit,
    alpha_interval,
    conditional_acceptance,
    cost_ratio_from_times,
    extend_profile,
    fit_roofline,
    profile_expected_tokens,
    profile_speedup,
)
from .context import ContextFalloff, ContextFit, fit_context_falloff
from .costs import (
    FreeVerification,
    LinearOverhead,
    Roofline,
    Tabulated,
    kv_shards,
)
from .decode import (
    ACCEPTED,
    BONUS,
    RESAMPLED,
    START,
    DecodeRecords,
    DecodeSummary,
    decode_summary,
    speculative_decode,
)
from .distributions import (
    Divergences,
    bretagnolle_huber_bound,
    divergences,
    kl_divergence,
    pinsker_bound,
    random_distribution_pairs,
    residual_distribution,
    tv_distance,
)
from .eagle import eagle_tree
from .general import DRAFTERS, general_speedup, operations_factor, optimal_k_general, tree_speedup
from .iid_blocks import fit_alpha_from_acceptance_length, simulate_iid_blocks, tokens_per_iteration_pmf
from .iteration import IterationTrace, speculative_iteration
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
    CONTEXT_MEASUREMENTS,
    GPU_PRESETS,
    INTERCONNECT_PRESETS,
    MODEL_PRESETS,
    SEQUOIA_ACCEPTANCE,
    SEQUOIA_ACCEPTANCE_SOURCE,
    AcceptancePreset,
    ContextMeasurement,
    GPUSpec,
    ModelSpec,
)
from .record_lengths import DraftLengths, draft_lengths, predicted_acceptance_rate
from .sampling import speculative_sample, speculative_sample_counts
from .schedule import BatchSweep, batch_k_schedule, profile_batch_sweep, roofline_batch_sweep
from .specs import Interconnect
from .speedup import (
    draft_acceptance_rate,
    expected_tokens,
    from_leviathan_cost,
    optimal_k,
    speedup,
    to_leviathan_cost,
)
from .sweep import (
    AcceptanceCurve,
    MeasuredSchedule,
    acceptance_curve,
    acceptance_curve_from_counts,
    measured_schedule,
    profile_from_curve,
)
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
    "ACCEPTED",
    "BONUS",
    "CONTEXT_MEASUREMENTS",
    "DRAFTERS",
    "GPU_PRESETS",
    "INTERCONNECT_PRESETS",
    "MODEL_PRESETS",
    "RESAMPLED",
    "SEQUOIA_ACCEPTANCE",
    "SEQUOIA_ACCEPTANCE_SOURCE",
    "START",
    "Acceptance",
    "AcceptanceCurve",
    "AcceptancePreset",
    "AlphaFit",
    "BatchSweep",
    "ContextFalloff",
    "ContextFit",
    "ContextMeasurement",
    "DecodeRecords",
    "DecodeSummary",
    "Divergences",
    "DraftLengths",
    "FreeVerification",
    "GPUSpec",
    "IidFit",
    "Interconnect",
    "IterationTrace",
    "LinearOverhead",
    "MeasuredSchedule",
    "ModelSpec",
    "Roofline",
    "RooflineFit",
    "Tabulated",
    "acceptance",
    "acceptance_curve",
    "acceptance_curve_from_counts",
    "acceptance_from_pair",
    "acceptance_probability",
    "alpha_interval",
    "batch_k_schedule",
    "bretagnolle_huber_bound",
    "conditional_acceptance",
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
    "extend_profile",
    "first_token_distribution",
    "fit_alpha",
    "fit_alpha_from_acceptance_length",
    "fit_context_falloff",
    "fit_roofline",
    "from_leviathan_cost",
    "general_speedup",
    "kl_divergence",
    "kv_shards",
    "measured_schedule",
    "operations_factor",
    "optimal_k",
    "optimal_k_general",
    "optimal_tree",
    "optimal_tree_table",
    "pinsker_bound",
    "predict_speedup",
    "predicted_acceptance_rate",
    "profile_batch_sweep",
    "profile_expected_tokens",
    "profile_from_curve",
    "profile_speedup",
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
