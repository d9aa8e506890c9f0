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

from coursekit import hardware
from coursekit.calc.chips import chip_by_name
from coursekit.calc.kvcache import model_by_name, model_kv_bytes_per_session

TRAINING_STATE_BYTES = 16      # per parameter, mixed-precision Adam (ZeRO paper's 2 + 2 + 12)

TRAINING_SILICON = [hardware.H100_SXM, hardware.B200, hardware.GB200_GPU, hardware.MI300X, hardware.MI355X,
                    hardware.TPU_V4, hardware.TPU_V5P, hardware.TPU_IRONWOOD, hardware.TRAINIUM2]
INFERENCE_SILICON = [hardware.H100_SXM, hardware.GB200_GPU, hardware.MI325X, hardware.MI355X, hardware.TPU_V6E,
                     hardware.TPU_IRONWOOD, hardware.TRAINIUM2, hardware.INFERENTIA2, hardware.GROQ_LPU,
                     hardware.CEREBRAS_WSE3]


def min_chips(total_bytes: float, chip: hardware.Chip) -> int:
    return max(1, math.ceil(total_bytes / (chip.memory_gb * 1e9)))


def training_row(chip: hardware.Chip | str, n_params: float, n_tokens: float, n_chips: int, mfu: float = 0.4) -> dict:
    """Fewest chips that hold the fully sharded training state, and days to train on `n_chips` at `mfu`."""
    c = chip_by_name(chip) if isinstance(chip, str) else chip
    if not 0 < mfu <= 1 or n_chips < 1:
        raise ValueError(f"coursekit/calc/survey.py: need 0 < mfu <= 1 and n_chips >= 1, got {mfu!r}, {n_chips!r}")
    days = 6 * n_params * n_tokens / (n_chips * c.bf16_tflops * 1e12 * mfu) / 86_400
    return {"chip": c.name, "ridge": c.ridge_point, "min_chips_state": min_chips(n_params * TRAINING_STATE_BYTES, c),
            "days": days, "link_one_way_gbs": c.interconnect_one_way_gbs}


def training_days(chip: str, n_params: float, n_tokens: float, n_chips: int, mfu: float = 0.4) -> float:
    """Days to train (flat signature for quiz banks)."""
    return training_row(chip, n_params, n_tokens, n_chips, mfu)["days"]


def min_chips_for_training_state(chip: str, n_params: float) -> int:
    return min_chips(n_params * TRAINING_STATE_BYTES, chip_by_name(chip))


def serving_row(chip: hardware.Chip | str, model: str, bytes_per_param: float = 2, sessions: int = 0,
                context: int = 0) -> dict:
    """Fewest chips for the weights (+ `sessions` KV caches of `context` tokens), and the batch-1 decode
    bounds on exactly that many chips: bandwidth (weights read once per token) and compute (2N FLOPs)."""
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
