"""Published ceilings of the chips the course compares, each with the spec sheet it comes from.

Numbers are *dense* (no 2:4 structured sparsity) peak rates, because dense math is what an LLM's
matrix multiplies run. Vendors often headline the sparse figure, which is exactly 2x the dense one.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chip:
    name: str
    kind: str                 # "gpu", "tpu", "custom-asic", "sram-lpu"
    bf16_tflops: float        # dense BF16/FP16 matrix peak, TFLOP/s
    memory_gb: float          # capacity of the chip's main memory (HBM/GDDR, or on-die SRAM for Groq)
    memory_tbs: float         # bandwidth of that memory, TB/s (10^12 bytes/s)
    int8_tops: float | None = None   # dense INT8 peak, TOP/s, where published
    fp8_tflops: float | None = None  # dense FP8 peak, TFLOP/s, where published
    interconnect_gbs: float | None = None  # chip-to-chip bandwidth, GB/s, both directions added (as datasheets print it)
    source: str = ""

    @property
    def ridge_point(self) -> float:
        """FLOPs per byte at which the roofline turns from bandwidth-bound to compute-bound."""
        return self.bf16_tflops * 1e12 / (self.memory_tbs * 1e12)


A100_SXM_80GB = Chip(
    "NVIDIA A100 SXM 80GB", "gpu", bf16_tflops=312, memory_gb=80, memory_tbs=2.039,
    int8_tops=624, interconnect_gbs=600,
    source="NVIDIA A100 Tensor Core GPU datasheet (2021): 312 TFLOPS BF16 dense, 2,039 GB/s HBM2e, NVLink 600 GB/s",
)
A100_40GB = Chip(
    "NVIDIA A100 40GB", "gpu", bf16_tflops=312, memory_gb=40, memory_tbs=1.555,
    int8_tops=624, interconnect_gbs=600,
    source="NVIDIA A100 Tensor Core GPU datasheet (2021): 1,555 GB/s HBM2 on the 40 GB part",
)
H100_SXM = Chip(
    "NVIDIA H100 SXM", "gpu", bf16_tflops=989, memory_gb=80, memory_tbs=3.35,
    int8_tops=1979, fp8_tflops=1979, interconnect_gbs=900,
    source="NVIDIA H100 Tensor Core GPU datasheet (2023): 989 TFLOPS BF16 dense (1,979 sparse), 3.35 TB/s HBM3, NVLink 900 GB/s",
)
H100_PCIE = Chip(
    "NVIDIA H100 PCIe", "gpu", bf16_tflops=756, memory_gb=80, memory_tbs=2.0,
    int8_tops=1513, fp8_tflops=1513, interconnect_gbs=600,
    source="NVIDIA H100 Tensor Core GPU datasheet (2023), H100 PCIe column: 756 TFLOPS BF16 dense (1,513 sparse), "
           "80 GB HBM2e at 2 TB/s (the SXM part has HBM3), NVLink bridge 600 GB/s",
)
H100_NVL = Chip(
    "NVIDIA H100 NVL (one GPU of the pair)", "gpu", bf16_tflops=835, memory_gb=94, memory_tbs=3.9,
    int8_tops=1670, fp8_tflops=1670, interconnect_gbs=600,
    source="NVIDIA H100 datasheet (2023), H100 NVL column: 94 GB HBM3 and 3.9 TB/s per GPU; sold as a bridged pair (188 GB)",
)
H200_SXM = Chip(
    "NVIDIA H200 SXM", "gpu", bf16_tflops=989, memory_gb=141, memory_tbs=4.8,
    int8_tops=1979, fp8_tflops=1979, interconnect_gbs=900,
    source="NVIDIA H200 Tensor Core GPU datasheet (2024): 141 GB HBM3e, 4.8 TB/s, same compute as H100 SXM",
)
L40S = Chip(
    "NVIDIA L40S", "gpu", bf16_tflops=362, memory_gb=48, memory_tbs=0.864,
    int8_tops=733, fp8_tflops=733, interconnect_gbs=64,
    source="NVIDIA L40S datasheet (2023): 362 TFLOPS BF16 dense (733 sparse), 48 GB GDDR6 at 864 GB/s, PCIe Gen4 x16 (64 GB/s)",
)
TPU_V5E = Chip(
    "Google TPU v5e", "tpu", bf16_tflops=197, memory_gb=16, memory_tbs=0.819,
    int8_tops=394, interconnect_gbs=200,
    source="Google Cloud TPU v5e documentation (2023): 197 TFLOPS BF16, 394 TOPS INT8, 16 GB HBM2 at 819 GB/s, ICI 1,600 Gbps (200 GB/s)",
)
INFERENTIA2 = Chip(
    "AWS Inferentia2", "custom-asic", bf16_tflops=190, memory_gb=32, memory_tbs=0.82,
    int8_tops=380, fp8_tflops=190, interconnect_gbs=192,
    source="AWS Neuron documentation, Inferentia2 architecture (2023): 190 TFLOPS FP16/BF16, 32 GB HBM at 820 GB/s, two NeuronCore-v2, NeuronLink 192 GB/s",
)
GROQ_LPU = Chip(
    "Groq LPU (GroqChip 1)", "sram-lpu", bf16_tflops=188, memory_gb=0.23, memory_tbs=80.0,
    int8_tops=750,
    source="Groq GroqChip product brief and Abts et al., ISCA 2020 'Think Fast: a Tensor Streaming Processor': 230 MB on-die SRAM at 80 TB/s, 188 TFLOPS FP16, 750 TOPS INT8",
)

ALL_CHIPS = [A100_40GB, A100_SXM_80GB, H100_PCIE, H100_SXM, H100_NVL, H200_SXM, L40S, TPU_V5E, INFERENTIA2, GROQ_LPU]
BY_NAME = {chip.name: chip for chip in ALL_CHIPS}


# ---- Module 2: training chips and the links between them --------------------------------------
# Tensor-core generations and interconnects for Module 2 (training). Sparse figures are 2x the dense
# ones on every datasheet below; only dense numbers are stored.

B200 = Chip(
    "NVIDIA B200 (DGX B200)", "gpu", bf16_tflops=2250, memory_gb=180, memory_tbs=8.0,
    fp8_tflops=4500, interconnect_gbs=1800,
    source="NVIDIA DGX B200 datasheet (2024): 8 GPUs, 72 PFLOPS FP8 training (with 2:4 sparsity, so "
           "4.5 PFLOPS dense FP8 and 2.25 PFLOPS dense BF16 per GPU), 1,440 GB HBM3e at 64 TB/s, NVLink 5 1.8 TB/s per GPU",
)

# Dense TF32 tensor-core peaks (TFLOP/s): the format A100 introduced so FP32 code runs on tensor cores.
# source: NVIDIA A100 datasheet (2021): TF32 156 (312 sparse); H100 SXM datasheet (2023): TF32 494.5 (989 sparse).
TF32_TFLOPS = {A100_SXM_80GB.name: 156, H100_SXM.name: 494.5}


@dataclass(frozen=True)
class Link:
    """One chip-to-chip or node-to-node link. Bandwidths are per GPU, stated one way AND both ways,
    because vendors headline the bidirectional sum for NVLink and the one-way rate for networks."""
    name: str
    scope: str                # "intra-node" or "inter-node"
    one_way_gbs: float        # GB/s (10^9 bytes/s) in each direction
    latency_us: float         # alpha: per-message start-up cost, microseconds (an order of magnitude)
    source: str = ""

    @property
    def bidirectional_gbs(self) -> float:
        return 2 * self.one_way_gbs


# Latencies are course assumptions, not datasheet figures: a few microseconds per hop is the order of
# magnitude NCCL's small-message all-reduce shows on both link kinds; only the bandwidths are quoted.
NVLINK3 = Link("NVLink 3 (A100)", "intra-node", one_way_gbs=300, latency_us=3,
               source="NVIDIA A100 datasheet (2021): NVLink 600 GB/s per GPU, both directions together")
NVLINK4 = Link("NVLink 4 (H100)", "intra-node", one_way_gbs=450, latency_us=3,
               source="NVIDIA H100 datasheet (2023): NVLink 900 GB/s per GPU, both directions together")
NVLINK5 = Link("NVLink 5 (B200)", "intra-node", one_way_gbs=900, latency_us=3,
               source="NVIDIA DGX B200 datasheet (2024): NVLink 5, 1.8 TB/s per GPU, both directions together")
IB_HDR = Link("InfiniBand HDR (200 Gb/s per GPU)", "inter-node", one_way_gbs=25, latency_us=5,
              source="NVIDIA DGX A100 user guide: eight 200 Gb/s HDR ports for compute, one per GPU; 200 Gb/s = 25 GB/s each way")
IB_NDR = Link("InfiniBand NDR (400 Gb/s per GPU)", "inter-node", one_way_gbs=50, latency_us=5,
              source="NVIDIA DGX H100 datasheet (2023): eight 400 Gb/s ConnectX-7 ports, one per GPU; 400 Gb/s = 50 GB/s each way")
PCIE_GEN4 = Link("PCIe Gen4 x16", "intra-node", one_way_gbs=32, latency_us=5,
                 source="PCI-SIG PCIe 4.0: 16 GT/s x 16 lanes, about 32 GB/s each way (the L40S datasheet's 64 GB/s is both ways)")

LINKS = [NVLINK3, NVLINK4, NVLINK5, IB_HDR, IB_NDR, PCIE_GEN4]
LINKS_BY_NAME = {link.name: link for link in LINKS}
TRAINING_CHIPS = [A100_SXM_80GB, H100_SXM, B200]

# One-way links the lessons quote for one-way transfers (a KV cache, a checkpoint, a draft model's tokens).
# NVLink 4 on the H100 SXM: 18 links x 50 GB/s = 900 GB/s counting both directions, 450 GB/s each way.
NVLINK4_H100 = NVLINK4
INFINIBAND_NDR = IB_NDR
PCIE5_X16 = Link("PCIe 5.0 x16", "intra-node", one_way_gbs=64, latency_us=5,
                 source="PCI-SIG PCIe 5.0: 32 GT/s x 16 lanes, about 64 GB/s each way")
ETHERNET_25G = Link("25 Gb/s Ethernet", "inter-node", one_way_gbs=25 / 8, latency_us=10,
                    source="IEEE 802.3by 25GBASE: 25 Gb/s each way")
