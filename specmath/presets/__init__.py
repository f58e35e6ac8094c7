"""Public numbers for models, GPUs and interconnects, each with its source.

:class:`~specmath.ModelSpec`, :class:`~specmath.GPUSpec` and :class:`~specmath.Interconnect`
(:mod:`specmath.specs`) are what :class:`~specmath.Roofline` needs. One registry each gives public
numbers with their sources: :mod:`.models`, :mod:`.gpus`, :mod:`.interconnects`, and measured
acceptance (:mod:`.acceptance`: published curves, acceptance against context); every entry's
source text is kept verbatim under tests/fixtures/presets/, against which tests/specmath/test_presets.py
checks it. The presets are read-only, and edited with :func:`dataclasses.replace`, e.g.
``replace(GPU_PRESETS["H100 SXM"], peak_flops=700e12)``.
"""

from __future__ import annotations

from types import MappingProxyType

from ..specs import GPUSpec, Interconnect, ModelSpec
from .acceptance import (
    ACCEPTANCE_CURVES,
    CONTEXT_POINTS,
    SEQUOIA_ACCEPTANCE,
    SEQUOIA_ACCEPTANCE_SOURCE,
    AcceptancePreset,
    ContextMeasurement,
)
from .gpus import GPUS
from .interconnects import INTERCONNECTS
from .models import MODELS


def _by_name(entries):
    """The entries by name, read-only; a name given twice is a mistake in the registry."""
    table = {entry.name: entry for entry in entries}
    if len(table) != len(entries):
        raise ValueError("two presets share a name")
    return MappingProxyType(table)


#: Model presets by name (read-only; edit a copy with :func:`dataclasses.replace`), in :mod:`.models`' order.
MODEL_PRESETS = _by_name(MODELS)

#: GPU presets by name (read-only; edit a copy with :func:`dataclasses.replace`).
GPU_PRESETS = _by_name(GPUS)

#: Interconnect presets by name, for tensor parallelism (read-only; type others as :class:`Interconnect`).
INTERCONNECT_PRESETS = _by_name(INTERCONNECTS)

#: Published acceptance-length curves by name (read-only), each an :class:`AcceptancePreset` with its source;
#: ``dict(ACCEPTANCE_PRESETS[name].lengths)`` is the curve {k: AL}.
ACCEPTANCE_PRESETS = _by_name(ACCEPTANCE_CURVES)

#: Acceptance measured against context length, by name (read-only): :class:`ContextMeasurement` records.
CONTEXT_MEASUREMENTS = _by_name(CONTEXT_POINTS)

__all__ = [
    "ACCEPTANCE_PRESETS",
    "CONTEXT_MEASUREMENTS",
    "GPU_PRESETS",
    "INTERCONNECT_PRESETS",
    "MODEL_PRESETS",
    "SEQUOIA_ACCEPTANCE",
    "SEQUOIA_ACCEPTANCE_SOURCE",
    "AcceptancePreset",
    "ContextMeasurement",
    "GPUSpec",
    "Interconnect",
    "ModelSpec",
]
