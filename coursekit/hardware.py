"""Published ceilings of the chips the course compares, each with the spec sheet it comes from.

Numbers are *dense* (no 2:4 structured sparsity) peak rates, because dense math is what an LLM's
matrix multiplies run. Vendors often headline the sparse figure, which is exactly 2x the dense one;
where a datasheet prints it, it is kept in its own `*_sparse_tflops` field, never mixed with the dense one.
Every entry names its variant, the document it comes from and that document's date (`date`).
The chips of 2024-2026 (AMD Instinct, TPU v4 to Ironwood, Trainium2, Cerebras, GB200 NVL72) are at the
end of the file, with the multi-chip systems whose figures vendors print per rack or per pod.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chip:
    name: str
    kind: str                 # "gpu", "tpu", "custom-asic", "sram-lpu", "wafer-sram"
    bf16_tflops: float        # dense BF16/FP16 matrix peak, TFLOP/s
    memory_gb: float          # capacity of the chip's main memory (HBM/GDDR, or on-die SRAM for Groq)
    memory_tbs: float         # bandwidth of that memory, TB/s (10^12 bytes/s)
    int8_tops: float | None = None   # dense INT8 peak, TOP/s, where published
    fp8_tflops: float | None = None  # dense FP8 peak, TFLOP/s, where published
    interconnect_gbs: float | None = None  # chip-to-chip bandwidth, GB/s, both directions added (as datasheets print it)
    source: str = ""
    date: str = ""                   # date of the source document ("2023", "March 2024", "9 April 2025")
    bf16_sparse_tflops: float | None = None  # BF16 peak with 2:4 (or the vendor's) structured sparsity, where printed
    fp8_sparse_tflops: float | None = None
    fp4_tflops: float | None = None          # dense FP4 (or MXFP4) peak, where published
    fp4_sparse_tflops: float | None = None
    link: str = ""                   # the scale-up link the interconnect figure is for (NVLink 5, ICI, ...)
    # How many point-to-point links the printed interconnect figure adds up. 1: a switch (NVSwitch) gives
    # every peer the whole figure. 7 (AMD's eight-GPU mesh): one link per peer, so a peer sees a seventh.
    # 4 or 6 (a 2D or 3D torus): one link per neighbour; farther chips are several hops away.
    # None: the vendor does not print the link count.
    peer_links: int | None = None

    @property
    def interconnect_one_way_gbs(self) -> float | None:
        """The scale-up link's bandwidth in each direction: half the both-ways figure datasheets print."""
        return None if self.interconnect_gbs is None else self.interconnect_gbs / 2

    @property
    def interconnect_peer_one_way_gbs(self) -> float | None:
        """Each way, what one peer (or torus neighbour) gets: point-to-point traffic, such as tensor
        parallelism's exchange with one partner, sees this; a collective over all links sees the sum."""
        if self.interconnect_gbs is None or self.peer_links is None:
            return None
        return self.interconnect_gbs / 2 / self.peer_links

    @property
    def ridge_point(self) -> float:
        """FLOPs per byte at which the roofline turns from bandwidth-bound to compute-bound."""
        return self.bf16_tflops * 1e12 / (self.memory_tbs * 1e12)


A100_SXM_80GB = Chip(
    "NVIDIA A100 SXM 80GB", "gpu", bf16_tflops=312, memory_gb=80, memory_tbs=2.039,
    int8_tops=624, interconnect_gbs=600, peer_links=1,
    source="NVIDIA A100 Tensor Core GPU datasheet (2021): 312 TFLOPS BF16 dense, 2,039 GB/s HBM2e, NVLink 600 GB/s",
    date="2021",
)
A100_40GB = Chip(
    "NVIDIA A100 40GB", "gpu", bf16_tflops=312, memory_gb=40, memory_tbs=1.555,
    int8_tops=624, interconnect_gbs=600,
    source="NVIDIA A100 Tensor Core GPU datasheet (2021): 1,555 GB/s HBM2 on the 40 GB part",
    date="2021",
)
H100_SXM = Chip(
    "NVIDIA H100 SXM", "gpu", bf16_tflops=989, memory_gb=80, memory_tbs=3.35,
    int8_tops=1979, fp8_tflops=1979, interconnect_gbs=900, peer_links=1,
    source="NVIDIA H100 Tensor Core GPU datasheet (2023): 989 TFLOPS BF16 dense (1,979 sparse), 3.35 TB/s HBM3, NVLink 900 GB/s",
    date="2023",
)
H100_PCIE = Chip(
    "NVIDIA H100 PCIe", "gpu", bf16_tflops=756, memory_gb=80, memory_tbs=2.0,
    int8_tops=1513, fp8_tflops=1513, interconnect_gbs=600,
    source="NVIDIA H100 Tensor Core GPU datasheet (2023), H100 PCIe column: 756 TFLOPS BF16 dense (1,513 sparse), "
           "80 GB HBM2e at 2 TB/s (the SXM part has HBM3), NVLink bridge 600 GB/s",
    date="2023",
)
# H100 NVL: the per-card figures below come from the later datasheet revision, not the March 2023 launch
# sheet, which gave the bridged pair's totals (and a higher per-GPU compute rate). The revision is dated 2024,
# the year it was NVIDIA's current sheet; the month is not confirmed from a primary copy.
H100_NVL = Chip(
    "NVIDIA H100 NVL (one GPU of the pair)", "gpu", bf16_tflops=835, memory_gb=94, memory_tbs=3.9,
    int8_tops=1670, fp8_tflops=1670, interconnect_gbs=600,
    source="NVIDIA H100 Tensor Core GPU datasheet, the later revision whose H100 NVL column is one card: 1,671 "
           "TFLOPS BF16 with sparsity (835 dense), 3,341 FP8 with sparsity, 94 GB HBM3 at 3.9 TB/s, NVLink bridge "
           "600 GB/s; sold as a bridged pair (188 GB). The launch material (GTC, 21 March 2023) printed the pair "
           "instead: 188 GB, 7.8 TB/s, 3,958 TFLOPS BF16 with sparsity (1,979 per GPU, more than the 1,671 above)",
    date="2024 (datasheet revision; announced 21 March 2023)",
)
H200_SXM = Chip(
    "NVIDIA H200 SXM", "gpu", bf16_tflops=989, memory_gb=141, memory_tbs=4.8,
    int8_tops=1979, fp8_tflops=1979, interconnect_gbs=900, peer_links=1,
    source="NVIDIA H200 Tensor Core GPU datasheet (2024): 141 GB HBM3e, 4.8 TB/s, same compute as H100 SXM",
    date="2024",
)
L40S = Chip(
    "NVIDIA L40S", "gpu", bf16_tflops=362, memory_gb=48, memory_tbs=0.864,
    int8_tops=733, fp8_tflops=733, interconnect_gbs=64,
    source="NVIDIA L40S datasheet (2023): 362 TFLOPS BF16 dense (733 sparse), 48 GB GDDR6 at 864 GB/s, PCIe Gen4 x16 (64 GB/s)",
    date="2023",
)
TPU_V5E = Chip(
    "Google TPU v5e", "tpu", bf16_tflops=197, memory_gb=16, memory_tbs=0.819,
    int8_tops=393, interconnect_gbs=400, peer_links=4,
    source="Google Cloud TPU v5e documentation (2023): 197 TFLOPS BF16, 393 TOPS INT8, 16 GB HBM2 at 819 GB/s, "
           "ICI 400 GB/s per chip both ways over four 2D-torus links (its first edition printed 1,600 Gbps, 200 GB/s, one way)",
    date="2023",
)
INFERENTIA2 = Chip(
    "AWS Inferentia2", "custom-asic", bf16_tflops=190, memory_gb=32, memory_tbs=0.82,
    int8_tops=380, fp8_tflops=190, interconnect_gbs=192,
    source="AWS Neuron documentation, Inferentia2 architecture (2023): 190 TFLOPS FP16/BF16, 32 GB HBM at 820 GB/s, two NeuronCore-v2, NeuronLink 192 GB/s",
    date="2023",
)
GROQ_LPU = Chip(
    "Groq LPU (GroqChip 1)", "sram-lpu", bf16_tflops=188, memory_gb=0.23, memory_tbs=80.0,
    int8_tops=750,
    source="Groq GroqChip product brief and Abts et al., ISCA 2020 'Think Fast: a Tensor Streaming Processor': 230 MB on-die SRAM at 80 TB/s, 188 TFLOPS FP16, 750 TOPS INT8",
    date="2020",
)

# The 2023-2024 chips the course was first written around (the whole table, ALL_CHIPS, is at the end).
CLASSIC_CHIPS = [A100_40GB, A100_SXM_80GB, H100_PCIE, H100_SXM, H100_NVL, H200_SXM, L40S, TPU_V5E, INFERENTIA2, GROQ_LPU]


# ---- Module 2: training chips and the links between them --------------------------------------
# Tensor-core generations and interconnects for Module 2 (training). Sparse figures are 2x the dense
# ones on every datasheet below; only dense numbers are stored.

B200 = Chip(
    "NVIDIA B200 (DGX B200)", "gpu", bf16_tflops=2250, memory_gb=180, memory_tbs=8.0,
    fp8_tflops=4500, interconnect_gbs=1800, peer_links=1,
    source="NVIDIA DGX B200 datasheet (2024): 8 GPUs, 72 PFLOPS FP8 training (with 2:4 sparsity, so "
           "4.5 PFLOPS dense FP8 and 2.25 PFLOPS dense BF16 per GPU), 1,440 GB HBM3e at 64 TB/s, NVLink 5 1.8 TB/s per GPU",
    date="2024",
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


# ---- The chips of 2024-2026 ---------------------------------------------------------------------
# One entry per chip *variant*, per chip (never per board, instance or rack), from the vendor's own
# datasheet, announcement or documentation, with its date. TPUs print no sparse peak (their matrix units
# do not use 2:4 sparsity); a vendor that prints only a sparse figure is divided by 2 and says so.
GIB = 1.073741824  # GB per GiB: Google and AWS print some capacities in GiB
# Convention: memory_gb is decimal GB (10^9 bytes), the unit bandwidths and datasheets use. A capacity is
# taken in the unit its cited source prints, and converted with GIB where that unit is GiB: TPU v4 and
# Trainium2, and (since issue 39) TPU v5p, v6e and TPU7x, whose Cloud TPU documentation tables label HBM
# capacity per chip in GiB (95, 32 and 192; the v5p page adds that 95 GiB is what a program can allocate
# of 96 GiB fitted). Earlier Google pages, the v6e page and the Ironwood launch blog print the same numbers
# with "GB"; the course follows the tables that name the unit. AMD's datasheets print GB (192, 256, 288 GB
# HBM3/HBM3E); only AMD's ROCm GPU-specifications table lists the same numbers as "VRAM (GiB)". The course
# keeps the datasheet unit, as it does for NVIDIA (whose "80 GB" parts also hold whole GiB stacks): reading
# AMD alone in GiB would hand it 7% that NVIDIA's figures are not given. Moved by the conversion: the fewest
# chips for a 70B training state (16 bytes per parameter) on TPU v5p, 12 -> 11 (175B: 30 -> 28; 405B:
# 69 -> 64), and on TPU7x for 175B, 15 -> 14 (405B: 34 -> 32).

MI300X = Chip(
    "AMD Instinct MI300X", "gpu", bf16_tflops=1307.4, memory_gb=192, memory_tbs=5.3,
    bf16_sparse_tflops=2614.9, fp8_tflops=2614.9, fp8_sparse_tflops=5229.8, int8_tops=2614.9,
    interconnect_gbs=896, peer_links=7, link="AMD Infinity Fabric (7 links x 128 GB/s)",
    source="AMD Instinct MI300X accelerator datasheet (launch, 6 December 2023), OAM module, 750 W: 1,307.4 TFLOPS "
           "BF16/FP16 dense (2,614.9 with sparsity), 2,614.9 FP8 dense, 192 GB HBM3 at 5.3 TB/s, peak aggregate "
           "Infinity Fabric 896 GB/s",
    date="6 December 2023",
)
MI325X = Chip(
    "AMD Instinct MI325X", "gpu", bf16_tflops=1307.4, memory_gb=256, memory_tbs=6.0,
    bf16_sparse_tflops=2614.9, fp8_tflops=2614.9, fp8_sparse_tflops=5229.8, int8_tops=2614.9,
    interconnect_gbs=896, peer_links=7, link="AMD Infinity Fabric (7 links x 128 GB/s)",
    source="AMD, 'AMD Instinct MI325X accelerators' (Advancing AI, 10 October 2024) and its datasheet, OAM, "
           "1,000 W: the MI300X's CDNA 3 compute (1,307.4 TFLOPS BF16 dense) with 256 GB HBM3E at 6 TB/s",
    date="10 October 2024",
)
MI355X = Chip(
    "AMD Instinct MI355X", "gpu", bf16_tflops=2500, memory_gb=288, memory_tbs=8.0,
    bf16_sparse_tflops=5000, fp8_tflops=5000, fp8_sparse_tflops=10000, fp4_tflops=10000,
    interconnect_gbs=1075.2, peer_links=7, link="AMD Infinity Fabric (7 links x 153.6 GB/s)",
    source="AMD, Instinct MI350 Series announcement (Advancing AI, 12 June 2025) and MI355X datasheet, "
           "liquid-cooled OAM, 1,400 W: 2.5 PFLOPS BF16/FP16 dense (5 with sparsity), 5 PFLOPS FP8 dense, "
           "10 PFLOPS MXFP4/MXFP6 dense, 288 GB HBM3E at 8 TB/s, 1,075 GB/s aggregate Infinity Fabric",
    date="12 June 2025",
)
TPU_V4 = Chip(
    "Google TPU v4", "tpu", bf16_tflops=275, memory_gb=32 * GIB, memory_tbs=1.2,
    int8_tops=275, interconnect_gbs=None, link="ICI, 6 links per chip, 3D torus of 4,096 chips",
    source="Google Cloud TPU v4 documentation (system architecture) and Jouppi et al., 'TPU v4: An Optically "
           "Reconfigurable Supercomputer for Machine Learning...', ISCA 2023 (arXiv:2304.01433, April 2023): "
           "275 TFLOPS BF16 or INT8, 32 GiB HBM2 at 1,200 GB/s, 4,096-chip pod; the documentation prints a "
           "pod all-reduce bandwidth (1.1 PB/s), not a per-chip ICI figure, so none is stored",
    date="April 2023",
)
TPU_V5P = Chip(
    "Google TPU v5p", "tpu", bf16_tflops=459, memory_gb=95 * GIB, memory_tbs=2.765,
    int8_tops=918, fp8_tflops=459, interconnect_gbs=1200, peer_links=6, link="ICI, 3D torus, 8,960-chip pod",
    source="Google Cloud, 'Introducing Cloud TPU v5p and AI Hypercomputer' (6 December 2023) and the Cloud "
           "TPU v5p documentation: 459 TFLOPS BF16, 918 TOPS INT8, FP8 printed at the BF16 rate (459), 95 GiB HBM2e "
           "(102 GB; the documentation's table labels it GiB) at 2,765 GB/s, ICI 1,200 GB/s per chip both ways (4,800 Gbps), the sum of its six torus links",
    date="6 December 2023",
)
TPU_V6E = Chip(
    "Google TPU v6e (Trillium)", "tpu", bf16_tflops=918, memory_gb=32 * GIB, memory_tbs=1.638,
    int8_tops=1836, fp8_tflops=918, interconnect_gbs=800, peer_links=4, link="ICI, 2D torus, 256-chip pod",
    source="Google Cloud TPU v6e documentation (Trillium; announced 14 May 2024, generally available "
           "December 2024): 918 TFLOPS BF16, 1,836 TOPS INT8, FP8 printed at the BF16 rate (918), 32 GiB HBM (34.4 GB; GiB in the Cloud TPU7x "
           "documentation's table of v5p, v6e and TPU7x, 'GB' on the older v6e page) at 1,638 GB/s, ICI 800 GB/s per chip both ways, "
           "the sum of its four torus links",
    date="December 2024",
)
TPU_IRONWOOD = Chip(
    "Google TPU7x (Ironwood)", "tpu", bf16_tflops=2307, memory_gb=192 * GIB, memory_tbs=7.2,
    fp8_tflops=4614, interconnect_gbs=1200, link="ICI, 3D torus, 9,216-chip pod",
    source="Google, 'Ironwood: The first Google TPU for the age of inference' (9 April 2025): 4,614 TFLOPS "
           "FP8 per chip, 192 GB HBM (the Cloud TPU7x documentation's table: 192 GiB, 206 GB, "
           "the unit the course uses) at 7.2 TB/s (later Google talks quote 7.3-7.4 TB/s; the course keeps the "
           "launch figure), ICI printed as '1.2 Tbps' both ways, which the course reads as 1.2 TB/s (terabytes: "
           "the blog's unit is a typo, 1.2 terabits would be slower than TPU v5e's ICI), 9,216-chip pod (42.5 "
           "EFLOPS FP8); BF16 2,307 TFLOPS from the Cloud TPU7x documentation (generally available November 2025)",
    date="9 April 2025",
)
TRAINIUM2 = Chip(
    "AWS Trainium2", "custom-asic", bf16_tflops=667, memory_gb=96 * GIB, memory_tbs=2.9,
    bf16_sparse_tflops=2563, fp8_tflops=1299, fp8_sparse_tflops=2563,
    interconnect_gbs=1280, link="NeuronLink-v3 (2D torus of 16 chips per instance, 64 per UltraServer)",
    source="AWS Neuron documentation, 'Trainium2 Architecture' (Trn2 generally available 3 December 2024): "
           "eight NeuronCore-v3, 667 TFLOPS BF16/FP16 dense, 1,299 FP8 dense, 2,563 with structured sparsity "
           "(about 2x the FP8 dense rate and 4x the BF16 dense one), 96 GiB HBM at 2.9 TB/s, NeuronLink-v3 1.28 TB/s per chip "
           "(AWS does not say one way or both; the course reads it as both, like NVLink)",
    date="3 December 2024",
)
# Cerebras prints one compute figure, "125 petaflops of peak AI performance", without saying dense or
# sparse (its compiler exploits unstructured sparsity); the course treats it as an upper bound on dense
# FP16. The memory is on-wafer SRAM, not HBM: 44 GB at 21 PB/s. So the roofline reads differently: its ridge
# point is ~6 FLOP/byte, against hundreds for HBM chips. Batch-1 decode (~1 FLOP/byte) is still below it,
# so decode is bandwidth-bound here too, but on SRAM, thousands of times faster than HBM; a batch of a few
# sequences crosses the ridge. A model larger than the SRAM must either span several wafers (inference:
# 70B at BF16 = 140 GB needs 4) or stream its weights in from external MemoryX over a far slower link
# (training), and then that link, not the SRAM, is the roof.
CEREBRAS_WSE3 = Chip(
    "Cerebras WSE-3", "wafer-sram", bf16_tflops=125_000, memory_gb=44, memory_tbs=21_000,
    link="on-wafer fabric (214 Pb/s); systems join over SwarmX",
    source="Cerebras, 'Cerebras Systems Unveils World's Fastest AI Chip with 4 Trillion Transistors' (13 March "
           "2024): WSE-3 in the CS-3 system, 900,000 cores, 44 GB on-chip SRAM at 21 PB/s, 125 PFLOPS peak AI "
           "compute (dense or sparse not stated; taken as an upper bound)",
    date="13 March 2024",
)
GB200_GPU = Chip(
    "NVIDIA GB200 NVL72 (one Blackwell GPU)", "gpu", bf16_tflops=2500, memory_gb=186, memory_tbs=8.0,
    bf16_sparse_tflops=5000, fp8_tflops=5000, fp8_sparse_tflops=10000, fp4_tflops=10000, fp4_sparse_tflops=20000,
    interconnect_gbs=1800, peer_links=1, link="NVLink 5 through NVLink Switch, 72 GPUs in one domain",
    source="NVIDIA GB200 NVL72 product page and datasheet (announced GTC, 18 March 2024): per rack 1,440 PFLOPS "
           "FP4, 720 FP8, 360 FP16/BF16 (all with sparsity), 13.4 TB HBM3e at 576 TB/s, NVLink 130 TB/s; "
           "divided here by the 72 GPUs (dense = sparse / 2)",
    date="18 March 2024",
)

# Blackwell Ultra: the B200's compute with 288 GB per GPU, as much HBM as AMD's MI355X (June 2025), three
# months earlier. NVIDIA prints rack totals; per GPU here, and its dense rates are the sparse ones / 2.
GB300_GPU = Chip(
    "NVIDIA GB300 NVL72 (one Blackwell Ultra GPU)", "gpu", bf16_tflops=2500, memory_gb=288, memory_tbs=8.0,
    # FP4: 1,080 PFLOPS dense per rack is not half the 1,440 sparse one, so only the dense figure is kept.
    bf16_sparse_tflops=5000, fp8_tflops=5000, fp8_sparse_tflops=10000, fp4_tflops=15000,
    interconnect_gbs=1800, peer_links=1, link="NVLink 5 through NVLink Switch, 72 GPUs in one domain",
    source="NVIDIA, 'NVIDIA Blackwell Ultra AI Factory Platform Paves Way for Age of AI Reasoning' (GTC, 18 March "
           "2025) and the GB300 NVL72 product page: per rack 1,440 PFLOPS FP4 with sparsity (1,080 dense), 720 "
           "FP8 and 360 FP16/BF16 with sparsity, up to 21 TB HBM3e (288 GB per Blackwell Ultra GPU) at up to "
           "576 TB/s, NVLink 130 TB/s; divided here by the 72 GPUs",
    date="18 March 2025",
)

CURRENT_CHIPS = [MI300X, MI325X, MI355X, TPU_V4, TPU_V5P, TPU_V6E, TPU_IRONWOOD, TRAINIUM2, CEREBRAS_WSE3, GB200_GPU,
                 GB300_GPU]

# Every chip the course knows, by name: labs and lessons accept any of these.
ALL_CHIPS = [*CLASSIC_CHIPS, B200, *CURRENT_CHIPS]
BY_NAME = {chip.name: chip for chip in ALL_CHIPS}


@dataclass(frozen=True)
class System:
    """Many chips sold or scheduled as one machine (a rack, an UltraServer, a pod). Its totals are
    computed from the per-chip entry; `printed` holds the vendor's own totals so a test checks they agree."""
    name: str
    chip: Chip
    n_chips: int
    scale_up: str             # what joins the chips (one fast domain, or a torus)
    printed: dict             # the vendor's per-system figures, same units as the properties below
    source: str
    date: str

    @property
    def bf16_pflops(self) -> float:
        return self.chip.bf16_tflops * self.n_chips / 1000

    @property
    def fp8_pflops(self) -> float | None:
        return None if self.chip.fp8_tflops is None else self.chip.fp8_tflops * self.n_chips / 1000

    @property
    def memory_tb(self) -> float:
        return self.chip.memory_gb * self.n_chips / 1000

    @property
    def memory_tbs(self) -> float:
        return self.chip.memory_tbs * self.n_chips

    @property
    def link_tbs_both_ways(self) -> float | None:
        return None if self.chip.interconnect_gbs is None else self.chip.interconnect_gbs * self.n_chips / 1000


GB200_NVL72 = System(
    "NVIDIA GB200 NVL72 rack", GB200_GPU, 72, "one NVLink 5 domain of 72 GPUs (NVLink Switch trays)",
    printed={"fp8_pflops": 720 / 2, "bf16_pflops": 360 / 2, "memory_tb": 13.4, "memory_tbs": 576, "link_tbs_both_ways": 130},
    source=GB200_GPU.source, date=GB200_GPU.date,
)
GB300_NVL72 = System(
    "NVIDIA GB300 NVL72 rack", GB300_GPU, 72, "one NVLink 5 domain of 72 GPUs (NVLink Switch trays)",
    printed={"fp8_pflops": 720 / 2, "bf16_pflops": 360 / 2, "memory_tb": 21, "memory_tbs": 576, "link_tbs_both_ways": 130},
    source=GB300_GPU.source, date=GB300_GPU.date,
)
TRN2_ULTRASERVER = System(
    "AWS Trn2 UltraServer", TRAINIUM2, 64, "four Trn2 instances of 16 chips joined by NeuronLink",
    printed={"fp8_pflops": 83.2, "memory_tb": 6 * 1.099511627776, "memory_tbs": 185},
    source="AWS, 'Amazon EC2 Trn2 instances and Trn2 UltraServers' (re:Invent, 3 December 2024): 64 Trainium2 "
           "chips, 83.2 PFLOPS FP8 dense, 6 TB (TiB) HBM, 185 TB/s HBM bandwidth; a Trn2 instance is 16 chips, "
           "20.8 PFLOPS FP8, 46 TB/s",
    date="3 December 2024",
)
TRN2_INSTANCE = System(
    "AWS trn2.48xlarge", TRAINIUM2, 16, "16 chips in a NeuronLink 2D torus",
    printed={"fp8_pflops": 20.8, "memory_tbs": 46},
    source=TRN2_ULTRASERVER.source, date=TRN2_ULTRASERVER.date,
)
IRONWOOD_POD = System(
    "Google TPU7x (Ironwood) pod", TPU_IRONWOOD, 9216, "ICI 3D torus with optical circuit switches",
    printed={"fp8_pflops": 42_500},
    source=TPU_IRONWOOD.source, date=TPU_IRONWOOD.date,
)
TPU_V5P_POD = System(
    "Google TPU v5p pod", TPU_V5P, 8960, "ICI 3D torus with optical circuit switches",
    printed={}, source=TPU_V5P.source, date=TPU_V5P.date,
)
TPU_V4_POD = System(
    "Google TPU v4 pod", TPU_V4, 4096, "ICI 3D torus with optical circuit switches",
    printed={"bf16_pflops": 1100}, source=TPU_V4.source, date=TPU_V4.date,
)
SYSTEMS = [GB200_NVL72, GB300_NVL72, TRN2_INSTANCE, TRN2_ULTRASERVER, TPU_V4_POD, TPU_V5P_POD, IRONWOOD_POD]
