"""The links between GPUs, for tensor parallelism: each entry an :class:`~specmath.Interconnect`
with its numbers and its sources (bandwidth from the datasheet, latency from a measurement).

Each entry's source text is kept verbatim under ``tests/fixtures/presets/interconnects/<name>.txt``
(first line ``# `` and the entry's ``source``; a line ``#>`` says where the block after it is from),
which tests/specmath/test_presets.py reads against the entry.
"""

from __future__ import annotations

from ..specs import Interconnect
from .gpus import H100_PAGE as _H100_PAGE

INTERCONNECTS = [
    Interconnect(
        "NVLink (H100 SXM)",
        # NVIDIA H100 datasheet, H100 SXM column (as the page below copies it): "NVLink: 900GB/秒",
        # both directions together: 450 GB/s each way.
        bandwidth=450e9,
        # NVIDIA/nccl issue #1259 (2024-04-22): all_reduce_perf on an HGX 8x H100 node, NCCL
        # 2.20.5, CUDA graphs, NVLSTree, 2 GPUs: "the latency is approximately 6us" (128 B-64 KiB).
        latency_s=6e-6,
        source=(
            f"NVIDIA H100 datasheet, H100 SXM column, as copied at {_H100_PAGE} (NVLink 900 GB/s, both directions); "
            "NVIDIA/nccl issue #1259, its description (all-reduce of 2 H100s, approximately 6 us)"
        ),
    ),
    Interconnect(
        "PCIe 5.0 x16",
        # NVIDIA H100 datasheet (as the page below copies it): "PCIe Gen5: 128GB/秒", both directions:
        # 64 GB/s each way.
        bandwidth=64e9,
        # NVIDIA/nccl issue #1530: all_reduce_perf on 8 RTX 4090 over PCIe (NCCL_ALGO=TREE), 8 bytes: 42.56 us.
        latency_s=42.56e-6,
        source=(
            f"NVIDIA H100 datasheet, as copied at {_H100_PAGE} (PCIe Gen5 128 GB/s, both directions); NVIDIA/nccl "
            "issue #1530, its description (TREE all-reduce of 8 bytes on 8 RTX 4090s over PCIe, 42.56 us)"
        ),
    ),
    Interconnect(
        "NVLink 5 (HGX B200)",
        # NVIDIA's HGX B200 figure as a distributor's page gives it: "Fifth-generation NVLink technology
        # provides 1.8TB/s of bidirectional bandwidth per GPU": 900 GB/s each way.
        bandwidth=900e9,
        # NVIDIA/nccl issue #1940 (2025-12-12): all_reduce_perf on 8 B200s, NCCL 2.27's symmetric memory, tuned:
        # "With an 8-byte workload, the best latency I can achieve is around 3 us" (the same tuning on 8 H800s or
        # H200s: about 2.3 us; the H100 entry's 6 us is an untuned 2-GPU NVLSTree run).
        latency_s=3e-6,
        source=(
            "https://esaitech.com/blogs/insights/nvidia-hgx-b200-servers-architecture-performance-ai-capabilities "
            "(NVLink 5 1.8 TB/s per GPU, both directions); NVIDIA/nccl issue #1940, its description (all-reduce "
            "of 8 bytes on 8 B200s, around 3 us)"
        ),
    ),
]
