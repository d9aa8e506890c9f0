"""One model on how many chips: the 2024-2026 silicon of Modules 2 and 3, side by side, in numbers.

Training (Module 2): a model's training state at 16 bytes per parameter (BF16 weights and gradients, FP32
master copy and two Adam moments; Rajbhandari et al. 2020), fully sharded (ZeRO-3), sets the fewest chips
that can hold it; 6 N D FLOPs at a stated MFU set the days on a given fleet (Kaplan et al. 2020).
Inference (Module 3): the weights (plus the KV cache of the sessions served) set the fewest chips; a
batch-1 decode step reads every weight once, so n chips' bandwidth bounds tokens/s from above, and 2N
FLOPs per token on n chips' compute bounds it too (Pope et al. 2022). For SRAM designs (Groq, Cerebras)
the capacity, not the bandwidth, is the constraint: the bandwidth bound is so high that links between
chips, pipeline depth and software decide the speed, which the roofline alone does not show.
Chip figures come from coursekit.hardware with their sources; dense BF16 peaks throughout.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from coursekit import hardware
from coursekit.calc.chips import chip_by_name
from coursekit.calc.kvcache import model_by_name, model_kv_bytes_per_session

TRAINING_STATE_BYTES = 16      # per parameter, mixed-precision Adam (ZeRO paper's 2 + 2 + 12)


@dataclass(frozen=True)
class Mfu:
    """Achieved MFU is a property of a platform's chip *and* software, not of its datasheet: one assumed
    value per platform, the range to plan across, and the published measurement behind it, if any."""
    assumed: float
    low: float
    high: float
    measured: str             # the measurement the range rests on, or why there is none


_NVIDIA = Mfu(0.40, 0.30, 0.43, "none published for a large run; assumed at the H100's measured level, "
                                "lower while a new chip's software matures")
_AMD = Mfu(0.30, 0.20, 0.40, "SemiAnalysis, 'MI300X vs H100 vs H200 Benchmark Part 1: Training' (December "
                             "2024): on AMD's public software the MI300X's on-paper lead over the H100 was not "
                             "realised; matching the H100's delivered rate is 40% x 989 / 1,307 = 30% MFU")
# source: each `measured` string; ranges are the course's assumptions around them.
MFU_BY_PLATFORM = {
    hardware.H100_SXM.name: Mfu(0.40, 0.38, 0.43, "Llama 3 405B on 16,384 H100s: 38-43% BF16 MFU (Dubey et al. 2024)"),
    hardware.B200.name: _NVIDIA,
    hardware.GB200_GPU.name: _NVIDIA,
    hardware.GB300_GPU.name: _NVIDIA,
    hardware.MI300X.name: _AMD,
    hardware.MI355X.name: Mfu(0.30, 0.20, 0.40, "none published; assumed at the MI300X's level (same software stack)"),
    hardware.TPU_V4.name: Mfu(0.46, 0.40, 0.50, "PaLM 540B on 6,144 TPU v4 chips: 46.2% MFU (Chowdhery et al. 2022)"),
    hardware.TPU_V5P.name: Mfu(0.50, 0.40, 0.65, "MaxText's published benchmarks (Google, 2024): 64-71% MFU on v5p "
                                                "for 32B-1,160B models on synthetic data, a best case"),
    hardware.TPU_IRONWOOD.name: Mfu(0.45, 0.35, 0.60, "none published; assumed between TPU v4's run and v5p's benchmark"),
    hardware.TRAINIUM2.name: Mfu(0.35, 0.25, 0.45, "none published; assumed below the H100's while AWS's Neuron "
                                                  "software is younger than CUDA"),
}


def assumed_mfu(chip: hardware.Chip | str) -> Mfu:
    name = chip if isinstance(chip, str) else chip.name
    try:
        return MFU_BY_PLATFORM[name]
    except KeyError:
        raise KeyError(f"coursekit/calc/survey.py: no MFU assumption for {name!r}; pass mfu= "
                       f"(known: {', '.join(MFU_BY_PLATFORM)})") from None

TRAINING_SILICON = [hardware.H100_SXM, hardware.B200, hardware.GB200_GPU, hardware.GB300_GPU, hardware.MI300X,
                    hardware.MI355X,
                    hardware.TPU_V4, hardware.TPU_V5P, hardware.TPU_IRONWOOD, hardware.TRAINIUM2]
INFERENCE_SILICON = [hardware.H100_SXM, hardware.GB200_GPU, hardware.GB300_GPU, hardware.MI325X, hardware.MI355X, hardware.TPU_V6E,
                     hardware.TPU_IRONWOOD, hardware.TRAINIUM2, hardware.INFERENTIA2, hardware.GROQ_LPU,
                     hardware.CEREBRAS_WSE3]


def min_chips(total_bytes: float, chip: hardware.Chip) -> int:
    return max(1, math.ceil(total_bytes / (chip.memory_gb * 1e9)))


def training_row(chip: hardware.Chip | str, n_params: float, n_tokens: float, n_chips: int,
                 mfu: float | None = None) -> dict:
    """Fewest chips that hold the fully sharded training state, and days to train on `n_chips` at `mfu`
    (default: the platform's assumed MFU, with days at the ends of its range too)."""
    c = chip_by_name(chip) if isinstance(chip, str) else chip
    if mfu is None:
        a = assumed_mfu(c)
        mfu, low, high = a.assumed, a.low, a.high
    else:
        low = high = mfu
    if not 0 < mfu <= 1 or n_chips < 1:
        raise ValueError(f"coursekit/calc/survey.py: need 0 < mfu <= 1 and n_chips >= 1, got {mfu!r}, {n_chips!r}")

    def days(m: float) -> float:
        return 6 * n_params * n_tokens / (n_chips * c.bf16_tflops * 1e12 * m) / 86_400

    return {"chip": c.name, "ridge": c.ridge_point, "min_chips_state": min_chips(n_params * TRAINING_STATE_BYTES, c),
            "mfu": mfu, "days": days(mfu), "days_best": days(high), "days_worst": days(low),
            "link_one_way_gbs": c.interconnect_one_way_gbs, "link_peer_one_way_gbs": c.interconnect_peer_one_way_gbs}


def training_days(chip: str, n_params: float, n_tokens: float, n_chips: int, mfu: float | None = 0.4) -> float:
    """Days to train (flat signature for quiz banks)."""
    return training_row(chip, n_params, n_tokens, n_chips, mfu)["days"]


def min_chips_for_training_state(chip: str, n_params: float) -> int:
    return min_chips(n_params * TRAINING_STATE_BYTES, chip_by_name(chip))


def serving_row(chip: hardware.Chip | str, model: str, bytes_per_param: float = 2, sessions: int = 0,
                context: int = 0) -> dict:
    """Fewest chips for the weights (+ `sessions` KV caches of `context` tokens), and the batch-1 decode
    bounds on exactly that many chips: bandwidth (weights read once per token) and compute (2N FLOPs).

    Both bounds add up every chip's rate, as tensor parallelism does. A model split *by layer* over wafers
    (Cerebras) or a pipeline of chips reads its layers one chip after another, so for one token only one
    chip's bandwidth works at a time: for those the bound is n times too generous (4x for 70B on 4 wafers)."""
    c = chip_by_name(chip) if isinstance(chip, str) else chip
    cfg = model_by_name(model)
    weights = cfg.n_params * bytes_per_param
    kv = sessions * model_kv_bytes_per_session(model, context) if sessions and context else 0.0
    n = min_chips(weights + kv, c)
    bandwidth_tps = n * c.memory_tbs * 1e12 / weights
    compute_tps = n * c.bf16_tflops * 1e12 / (2 * cfg.n_params)
    return {"chip": c.name, "kind": c.kind, "ridge": c.ridge_point, "chips": n,
            "bandwidth_bound_tps": bandwidth_tps, "compute_bound_tps": compute_tps,
            "decode_bound_tps": min(bandwidth_tps, compute_tps)}


def chips_to_serve(chip: str, model: str, bytes_per_param: float = 2) -> int:
    """Fewest chips whose memory holds a published model's weights (flat signature for quiz banks)."""
    return serving_row(chip, model, bytes_per_param)["chips"]


def batch1_decode_bound(chip: str, model: str, bytes_per_param: float = 2) -> float:
    """Batch-1 tokens/s ceiling on the fewest chips that hold the weights (flat signature for quiz banks)."""
    return serving_row(chip, model, bytes_per_param)["decode_bound_tps"]


def chip_memory_gb(chip: str) -> float:
    """A chip's memory capacity in GB (flat signature for quiz banks)."""
    return chip_by_name(chip).memory_gb


def chip_bf16_tflops(chip: str) -> float:
    return chip_by_name(chip).bf16_tflops


def chip_ridge(chip: str) -> float:
    return chip_by_name(chip).ridge_point


def min_chips_for_weights(chip: str, n_params: float, bytes_per_param: float = 2) -> int:
    """Fewest chips whose memory holds the weights alone (quiz banks: the 'forgot the optimizer' answer)."""
    return min_chips(n_params * bytes_per_param, chip_by_name(chip))
