"""The links between GPUs, for tensor parallelism: each entry an :class:`~specmath.Interconnect`
with its numbers and its sources (bandwidth from the datasheet, latency from a measurement).
"""

from __future__ import annotations

from ..specs import Interconnect

INTERCONNECTS = [
    Interconnect(
        "NVLink (H100 SXM)",
        # NVIDIA H100 datasheet, H100 SXM column: "Interconnect NVIDIA NVLink: 900GB/s", both
        # directions together: 450 GB/s each way.
        bandwidth=450e9,
        # NVIDIA/nccl issue #1259 (2024-04-22): all_reduce_perf on an HGX 8x H100 node, NCCL
        # 2.20.5, CUDA graphs, NVLSTree, 2 GPUs: "the latency is approximately 6us" (128 B-64 KiB).
        latency_s=6e-6,
        source="NVIDIA H100 datasheet (NVLink 900 GB/s bidirectional); NVIDIA/nccl issue #1259 (6 µs all-reduce)",
    ),
    Interconnect(
        "PCIe 5.0 x16",
        # NVIDIA H100 datasheet, H100 NVL/PCIe column: "PCIe Gen5: 128GB/s", both directions: 64 GB/s each way.
        bandwidth=64e9,
        # NVIDIA/nccl issue #1530: all_reduce_perf on 8 RTX 4090 over PCIe (NCCL_ALGO=TREE), 8 bytes: 42.56 us.
        latency_s=42.56e-6,
        source="NVIDIA H100 datasheet (PCIe Gen5 128 GB/s bidirectional); NVIDIA/nccl issue #1530 (42.56 µs)",
    ),
]
