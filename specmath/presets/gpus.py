"""The GPUs: each entry a :class:`~specmath.GPUSpec` with its numbers and its source.

Figures are the vendor's peak: memory bandwidth, dense BF16 (and FP8) tensor FLOP/s, *not* the
"with sparsity" figure datasheets print first (halved where a sheet prints only that), memory
capacity. Adding a GPU is one entry here and the datasheet lines it reads, kept verbatim under
``tests/fixtures/presets/gpus/<name>.txt`` (first line ``# `` and the entry's ``source``), which
tests/specmath/test_presets.py reads against the entry.
"""

from __future__ import annotations

from ..specs import GPUSpec

#: The NVIDIA H100 datasheet's table as a distributor's page copies it; the H100 entry and the
#: interconnects (interconnects.py) read it.
H100_PAGE = "https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html"

GPUS = [
    GPUSpec(
        "A100 80GB SXM",
        # NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf),
        # A100 80GB SXM column: "GPU Memory Bandwidth 2,039GB/s".
        memory_bandwidth=2_039e9,
        # Same datasheet: "BFLOAT16 Tensor Core 312 TFLOPS | 624 TFLOPS*", * = with sparsity.
        peak_flops=312e12,
        memory_bytes=80e9,  # same datasheet: "GPU Memory 80GB HBM2e"
        source="NVIDIA A100 datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)",
    ),
    GPUSpec(
        "A100 40GB",
        # The datasheet's table as copied in the fixture: "Memory Bandwidth | 1,555GB/s" for both the PCIe
        # and the SXM 40GB parts (the 80GB parts print 1,935 and 2,039), "A100 VRAM | 40GB HBM2".
        memory_bandwidth=1_555e9,
        # "312 TFLOPS / 624 TFLOPS*", * = with sparsity: the same dense BF16 peak as the 80GB part.
        peak_flops=312e12,
        memory_bytes=40e9,
        source=(
            "NVIDIA A100 datasheet figures for the 40GB parts as copied at"
            " https://www.thundercompute.com/blog/nvidia-a100-specs-full-guide (its specification table) and"
            " https://upb-pc2.atlassian.net/wiki/spaces/PC2DOK/pages/1900609/NVIDIA+A100+40GB+with+NVLINK (BF16)"
        ),
    ),
    GPUSpec(
        "H100 SXM",
        # NVIDIA H100 datasheet's table, H100 SXM column, as the page below copies it: "GPU メモリ帯域幅
        # | 3,350 GB/sec" (memory bandwidth).
        memory_bandwidth=3.35e12,
        # Same table: "BFLOAT16 Tensor コア | 1,979 TFLOPS*", "* Shown with sparsity. Specifications
        # 1/2 lower without sparsity": 989.5 dense (NVIDIA's Hopper whitepaper prints 989.4).
        peak_flops=989.5e12,
        memory_bytes=80e9,  # same table: "GPU メモリ | 80 GB"
        # Same table: "FP8 Tensor コア | 3,958 TFLOPS*", * = with sparsity: 1,979 dense.
        peak_flops_fp8=3958e12 / 2,
        source=f"NVIDIA H100 datasheet table, H100 SXM column, as copied at {H100_PAGE}",
    ),
    GPUSpec(
        "L4",
        # NVIDIA L4 Tensor Core GPU datasheet: "GPU memory bandwidth 300GB/s".
        memory_bandwidth=300e9,
        # Same datasheet: "BF16 Tensor Core 242 teraFLOPS*", * = with sparsity: 121 dense.
        peak_flops=121e12,
        memory_bytes=24e9,  # same datasheet: "GPU memory 24GB"
        source="NVIDIA L4 datasheet",
    ),
    GPUSpec(
        "RTX 4090",
        # NVIDIA Ada GPU Architecture whitepaper, Appendix A (GeForce RTX 4090):
        # "Memory Bandwidth 1008 GB/sec" (24 GB GDDR6X, 384-bit, 21 Gbps).
        memory_bandwidth=1_008e9,
        # Same table: "Peak BF16 Tensor TFLOPS with FP32 Accumulate 165.2/330.4" (dense/sparse).
        peak_flops=165.2e12,
        memory_bytes=24e9,  # same table: "Frame Buffer Memory Size and Type 24 GB GDDR6X"
        source="NVIDIA Ada GPU Architecture whitepaper, Appendix A",
    ),
]

GPUS += [
    GPUSpec(
        "H200 SXM",
        # NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column: "GPU Memory 141GB", "GPU Memory
        # Bandwidth 4.8TB/s", "BFLOAT16 Tensor Core 1,979 TFLOPS*", "FP8 Tensor Core 3,958
        # TFLOPS*", * = with sparsity: half of each dense.
        memory_bandwidth=4.8e12,
        peak_flops=1979e12 / 2,
        peak_flops_fp8=3958e12 / 2,
        memory_bytes=141e9,
        source="NVIDIA H200 datasheet (H200 SXM column; sparse figures halved)",
    ),
    GPUSpec(
        "B200 (HGX)",
        # NVIDIA HGX B200 specifications, per GPU: "FP8/FP6 Tensor Core 9 PFLOPS", "FP16/BF16
        # Tensor Core 4.5 PFLOPS" (with sparsity), "GPU Memory | Bandwidth 180GB HBM3E | 7.7TB/s".
        memory_bandwidth=7.7e12,
        peak_flops=4.5e15 / 2,
        peak_flops_fp8=9e15 / 2,
        memory_bytes=180e9,
        source="NVIDIA HGX B200 specifications (per GPU; sparse figures halved)",
    ),
    GPUSpec(
        "MI300X",
        # AMD Instinct MI300X data sheet: "Peak BFloat16 1307.4 TFLOPs" and "Peak FP8 2614.9
        # TFLOPs" dense (twice that with structured sparsity), "Memory Bandwidth 5.3 TB/s",
        # "Memory Capacity 192 GB HBM3".
        memory_bandwidth=5.3e12,
        peak_flops=1307.4e12,
        peak_flops_fp8=2614.9e12,
        memory_bytes=192e9,
        source="AMD Instinct MI300X data sheet",
    ),
    GPUSpec(
        "L40S",
        # NVIDIA L40S datasheet: "GPU Memory 48GB GDDR6 with ECC", "Memory Bandwidth 864GB/s",
        # "BFLOAT16 Tensor Core 362.05 | 733*", "FP8 Tensor Core 733 | 1,466*" TFLOPS (* sparsity).
        memory_bandwidth=864e9,
        peak_flops=362.05e12,
        peak_flops_fp8=733e12,
        memory_bytes=48e9,
        source="NVIDIA L40S datasheet",
    ),
    GPUSpec(
        "GH200 (96GB)",
        # NVIDIA GH200 Grace Hopper Superchip datasheet, GH200 column (the GPU's figures): "BFLOAT16
        # Tensor Core 1,979 teraFLOPS* | 990 teraFLOPS", "FP8 Tensor Core 3,958 teraFLOPS* | 1,979
        # teraFLOPS" (* with sparsity: the dense figures as printed), "96GB HBM3 | 144GB HBM3e",
        # "Up to 4TB/s | Up to 4.9TB/s": the 96 GB part.
        memory_bandwidth=4e12,
        peak_flops=990e12,
        peak_flops_fp8=1979e12,
        memory_bytes=96e9,
        source=(
            "NVIDIA GH200 Grace Hopper Superchip datasheet (grace-datasheet-gh200-grace-hopper-superchip-3773000), "
            "Product Specifications table, GH200 column, as copied in atineoSE/coding-model-seeks-gpu at "
            "ff052946489e8bb55dce164802bdb7c01251fde6, pipeline/pipeline/sources/gh200_specs.md"
        ),
    ),
]

GPUS += [
    GPUSpec(
        "H100 PCIe",
        # The H100 datasheet's table as the page below copies it (H100 SXM's source), its H100 PCIe
        # column: "GPU メモリ帯域幅 | ... | 2000 GB/sec" (memory bandwidth), "GPU メモリ | ... | 80 GB".
        memory_bandwidth=2000e9,
        # Same column: "BFLOAT16 Tensor コア | ... | 1,513 TFLOPS*", "FP8 Tensor コア | ... | 3,026
        # TFLOPS*", "* Shown with sparsity. Specifications 1/2 lower without sparsity": 756.5 and 1,513 dense.
        peak_flops=1513e12 / 2,
        peak_flops_fp8=3026e12 / 2,
        memory_bytes=80e9,
        source=f"NVIDIA H100 datasheet table, H100 PCIe column, as copied at {H100_PAGE}",
    ),
]
