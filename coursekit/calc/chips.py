"""Bounds, not adjectives: how four inference-chip philosophies serve one model (Module 3).

For a dense model of N parameters stored at b bytes each, spread over n identical chips with
perfect tensor parallelism (an optimistic assumption: real systems lose time to communication):

    chips to hold it       = ceil((N*b + KV bytes) / (usable memory per chip))
    prefill (TTFT) bound   = 2 N P / (n * peak FLOP/s * utilisation)          for a P-token prompt
    decode time per step   = (N*b + KV bytes read) / (n * memory bandwidth)   (batch-1 lower bound)

2N FLOPs per token for the forward pass is the standard estimate (Kaplan et al. 2020, arXiv:2001.08361);
decode at small batch streams every weight once per token, so bandwidth sets its floor
(Pope et al. 2022, "Efficiently Scaling Transformer Inference", arXiv:2211.05102).
Chip numbers come from coursekit.hardware, each with its spec sheet.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from coursekit import hardware
from coursekit.calc.kvcache import model_by_name, model_kv_bytes_per_session

# The four philosophies compared in Module 3 (the “Two Modes, Two Hardware Philosophies” course text, lesson 3), one representative chip each.
PHILOSOPHIES = {
    "SRAM-resident (Groq LPU)": hardware.GROQ_LPU,
    "Systolic array (TPU v5e)": hardware.TPU_V5E,
    "Custom ISA + scratchpads (Inferentia2)": hardware.INFERENTIA2,
    "General GPU (L40S)": hardware.L40S,
}

# source: NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 40 MB L2 cache per A100.
A100_L2_MB = 40.0


@dataclass(frozen=True)
class PublishedSpeed:
    """A vendor-reported per-user decode speed: a measurement of hardware *and* software together."""
    when: str
    model: str
    tokens_per_s: float
    software: str
    source: str


# Groq's 70B speeds, all on the same first-generation 14 nm GroqChip: only the software changed.
GROQ_70B_SPEEDS = (
    PublishedSpeed("2023-08", "Llama 2 70B", 100, "first public demo",
                   "Groq announcement, reported by Moor Insights & Strategy, 25 Aug 2023 ('more than 100 tokens per second')"),
    PublishedSpeed("2023-11", "Llama 2 70B", 300, "compiler and runtime updates",
                   "Groq press release, 7 Nov 2023 (300 tokens/s per user); also quoted by the “Two Modes, Two Hardware Philosophies” course text"),
    PublishedSpeed("2024-11", "Llama 3.1 70B", 250, "standard endpoint",
                   "Groq, 'Llama 3.1 70B speculative decoding' announcement, Nov 2024 (previous endpoint: 250 tokens/s)"),
    PublishedSpeed("2024-11", "Llama 3.1 70B", 1665, "speculative decoding",
                   "same announcement; Artificial Analysis independent benchmark: 1,665 output tokens/s"),
)


def software_speedups(speeds=GROQ_70B_SPEEDS) -> dict[str, float]:
    """Per model, fastest over slowest published speed on unchanged hardware."""
    by_model: dict[str, list[float]] = {}
    for s in speeds:
        by_model.setdefault(s.model, []).append(s.tokens_per_s)
    return {model: max(v) / min(v) for model, v in by_model.items()}


def chip_by_name(name: str) -> hardware.Chip:
    if name in hardware.BY_NAME:
        return hardware.BY_NAME[name]
    for label, chip in PHILOSOPHIES.items():
        if name == label:
            return chip
    raise KeyError(f"coursekit/calc/chips.py: no chip named {name!r} in coursekit.hardware "
                   f"(known: {', '.join(hardware.BY_NAME)})")


def eight_bit_tflops(chip: hardware.Chip) -> float | None:
    """The chip's dense 8-bit matrix rate: INT8 where printed, else FP8 (MI355X, GB200, Ironwood and
    Trainium2 print FP8 only). Either serves 1-byte weights; None where the chip prints neither."""
    return chip.int8_tops or chip.fp8_tflops


def chips_to_hold(total_bytes: float, chip_memory_gb: float, usable_frac: float = 1.0) -> int:
    """Smallest number of chips whose memory holds total_bytes (weights + KV)."""
    if chip_memory_gb <= 0 or not 0 < usable_frac <= 1:
        raise ValueError(f"coursekit/calc/chips.py: need chip memory > 0 and 0 < usable_frac <= 1, "
                         f"got {chip_memory_gb} GB, {usable_frac}")
    return max(1, math.ceil(total_bytes / (chip_memory_gb * 1e9 * usable_frac)))


def chips_to_hold_model(model: str, chip: str, bytes_per_param: float = 2, usable_frac: float = 1.0) -> int:
    """Chips needed just for a published model's weights (quiz-friendly: names, not objects)."""
    cfg, c = model_by_name(model), chip_by_name(chip)
    return chips_to_hold(cfg.n_params * bytes_per_param, c.memory_gb, usable_frac)


def prefill_seconds(n_params: float, prompt_tokens: int, peak_tflops: float, n_chips: int = 1,
                    utilisation: float = 1.0) -> float:
    """Compute-bound lower bound on prefill time (utilisation < 1 models real MFU)."""
    return 2 * n_params * prompt_tokens / (n_chips * peak_tflops * 1e12 * utilisation)


def decode_step_seconds(weight_bytes: float, kv_bytes: float, bandwidth_tbs: float, n_chips: int = 1) -> float:
    """Bandwidth-bound lower bound on one decode step: every weight and cached byte read once."""
    return (weight_bytes + kv_bytes) / (n_chips * bandwidth_tbs * 1e12)


def chips_for_ttft(n_params: float, prompt_tokens: int, peak_tflops: float, ttft_target_s: float,
                   utilisation: float = 1.0) -> int:
    """Chips whose combined compute finishes the prefill within the TTFT target."""
    return max(1, math.ceil(2 * n_params * prompt_tokens / (ttft_target_s * peak_tflops * 1e12 * utilisation)))


def decode_tokens_per_s_bound(model: str, chip: str, bytes_per_param: float = 2, n_chips: int = 1,
                              context_tokens: int = 0) -> float:
    """Batch-1 tokens/s ceiling for one user of a published model on n_chips of one kind."""
    cfg, c = model_by_name(model), chip_by_name(chip)
    kv = model_kv_bytes_per_session(model, context_tokens) if context_tokens else 0.0
    return 1.0 / decode_step_seconds(cfg.n_params * bytes_per_param, kv, c.memory_tbs, n_chips)


def sram_chips_for_weights(n_params: float, bytes_per_param: float, sram_mb: float) -> int:
    """Chips an SRAM-resident design needs so the weights alone fit on-die."""
    return math.ceil(n_params * bytes_per_param / (sram_mb * 1e6))


@dataclass(frozen=True)
class ChipBound:
    philosophy: str
    chip: str
    bytes_per_param: float
    n_chips: int
    memory_gb_total: float
    prefill_s: float          # compute bound on prefill at the given utilisation
    decode_ms: float          # bandwidth bound on one decode step (batch 1)
    tokens_per_s_user: float  # 1 / decode step
    meets_ttft: bool          # prefill_s + one decode step <= target
    chips_for_target: int     # chips needed to hold the model AND meet the TTFT target
    max_batch: int | None = None  # sequences whose KV cache fits beside the weights (None: no context given)


def compare_philosophies(model: str = "Llama 2 70B", prompt_tokens: int = 2048, context_tokens: int = 4096,
                         concurrent_sessions: int = 1, ttft_target_s: float = 0.5,
                         prefill_utilisation: float = 0.5, usable_frac: float = 0.9,
                         bytes_per_param: dict[str, float] | None = None,
                         chips: dict[str, hardware.Chip] | list[str] | None = None) -> list[ChipBound]:
    """One row per philosophy: the smallest deployment that holds the model (+ KV for the sessions),
    and the TTFT / decode bounds that deployment can reach.

    bytes_per_param defaults to 8-bit weights (1 byte) for chips with a dense INT8 or FP8 path, since that
    is how each vendor serves a 70B model on its smallest footprint; pass a dict to override per chip.
    `max_batch` is how many sequences of `context_tokens` fit beside the weights on that deployment.
    `chips` replaces the four philosophies with any chips of coursekit.hardware (names, or label -> Chip).
    """
    cfg = model_by_name(model)
    kv = model_kv_bytes_per_session(model, context_tokens) * concurrent_sessions
    if chips is None:
        chosen = PHILOSOPHIES
    elif isinstance(chips, dict):
        chosen = chips
    else:
        chosen = {name: chip_by_name(name) for name in chips}
    rows = []
    for label, chip in chosen.items():
        bpp = (bytes_per_param or {}).get(label, 1.0 if eight_bit_tflops(chip) else 2.0)
        weights = cfg.n_params * bpp
        n = chips_to_hold(weights + kv, chip.memory_gb, usable_frac)
        peak = eight_bit_tflops(chip) if (bpp <= 1 and eight_bit_tflops(chip)) else chip.bf16_tflops
        pre = prefill_seconds(cfg.n_params, prompt_tokens, peak, n, prefill_utilisation)
        step = decode_step_seconds(weights, kv / max(concurrent_sessions, 1), chip.memory_tbs, n)
        # At batch 1 the compute floor (2N FLOPs per token) only matters when bandwidth is huge
        # (SRAM): take whichever floor is higher.
        step = max(step, prefill_seconds(cfg.n_params, 1, peak, n))
        need = max(n, chips_for_ttft(cfg.n_params, prompt_tokens, peak, ttft_target_s - step, prefill_utilisation))
        per_seq = model_kv_bytes_per_session(model, context_tokens) if context_tokens else 0.0
        fits = batch_that_fits(n * chip.memory_gb * 1e9 * usable_frac, weights, per_seq)
        rows.append(ChipBound(label, chip.name, bpp, n, n * chip.memory_gb, pre, step * 1e3, 1 / step,
                              pre + step <= ttft_target_s, need, fits))
    return rows


def batch_that_fits(memory_bytes: float, weight_bytes: float, kv_bytes_per_seq: float) -> int | None:
    """Sequences whose KV cache fits in `memory_bytes` beside the weights, as Module 4's
    levers.batch_that_fits counts them; None when sequences take no cache (no context given)."""
    if kv_bytes_per_seq <= 0:
        return None
    return max(0, math.floor((memory_bytes - weight_bytes) / kv_bytes_per_seq))


def decode_step_seconds_batched(n_params: float, bytes_per_param: float, kv_bytes_per_seq: float, batch: int,
                                peak_tflops: float, bandwidth_tbs: float, n_chips: int = 1) -> float:
    """One decode step for `batch` sequences: the slower of reading weights + every sequence's KV
    (bandwidth) and 2N FLOPs per sequence (compute). Weights are read once for the whole batch,
    which is why batching raises throughput until the compute floor takes over."""
    memory_s = (n_params * bytes_per_param + kv_bytes_per_seq * batch) / (n_chips * bandwidth_tbs * 1e12)
    compute_s = 2 * n_params * batch / (n_chips * peak_tflops * 1e12)
    return max(memory_s, compute_s)


def decode_step_seconds_per_part(n_params: float, bytes_per_param: float, kv_bytes_per_seq: float, batch: int,
                                 peak_tflops: float, bandwidth_tbs: float, n_chips: int = 1) -> dict:
    """The same decode step modelled per part, as the operations actually run one after another: the weight
    matmuls on their own roofline (weights read once, 2N FLOPs per sequence) plus attention on its own
    (every sequence's KV cache read; about 1 FLOP per byte of cache with one query head per KV head, about
    the group size with grouped-query attention, e.g. 8 for Llama 2 70B: still far below an HBM chip's
    ridge, so bandwidth-bound). Each part can only hide
    its own memory time behind its own compute, so the sum is >= decode_step_seconds_batched's single max.

    Which the course uses: lessons and labs use the single max (decode_step_seconds_batched,
    roofline.decode_step's "seconds"), an optimistic bound that is exact while the whole step is
    bandwidth-bound (small batches). Once the weight matmuls turn compute-bound (large batches) the KV reads
    can no longer hide behind them, and the per-part sum here is the better estimate (the scaling book's
    inference chapter models it this way). tests/library/calc/test_decode_per_part.py pins when the two differ."""
    bw, peak = n_chips * bandwidth_tbs * 1e12, n_chips * peak_tflops * 1e12
    weights_s = max(n_params * bytes_per_param / bw, 2 * n_params * batch / peak)
    attention_s = kv_bytes_per_seq * batch / bw
    single_max = decode_step_seconds_batched(n_params, bytes_per_param, kv_bytes_per_seq, batch, peak_tflops,
                                             bandwidth_tbs, n_chips)
    return {"weights_s": weights_s, "attention_s": attention_s, "seconds": weights_s + attention_s,
            "single_max_s": single_max}


def decode_throughput(model: str, chip: str, batch: int, n_chips: int = 1, bytes_per_param: float = 2,
                      context_tokens: int = 0, usable_frac: float = 0.9) -> float:
    """Upper bound on generated tokens/s of a deployment decoding `batch` sequences at once.

    With a context, the batch is capped at what fits beside the weights in `usable_frac` of the chips'
    memory (compare_philosophies sizes deployments with the same 0.9): a batch that does not fit is not
    served, so its throughput is not this deployment's. Without a context no cache is counted at all."""
    cfg, c = model_by_name(model), chip_by_name(chip)
    kv = model_kv_bytes_per_session(model, context_tokens) if context_tokens else 0.0
    fits = batch_that_fits(n_chips * c.memory_gb * 1e9 * usable_frac, cfg.n_params * bytes_per_param, kv)
    if fits is not None:
        if fits < 1:
            raise ValueError(f"coursekit/calc/chips.py: {model} at {bytes_per_param} bytes per weight plus one "
                             f"{context_tokens}-token cache does not fit on {n_chips} x {c.name}")
        batch = min(batch, fits)
    peak = eight_bit_tflops(c) if (bytes_per_param <= 1 and eight_bit_tflops(c)) else c.bf16_tflops
    return batch / decode_step_seconds_batched(cfg.n_params, bytes_per_param, kv, batch, peak, c.memory_tbs, n_chips)


def cost_per_million_tokens(price_per_chip_hour: float, n_chips: int, tokens_per_s: float) -> float:
    """Dollars per million generated tokens for a deployment billed per chip-hour."""
    if tokens_per_s <= 0:
        raise ValueError(f"coursekit/calc/chips.py: tokens_per_s must be positive, got {tokens_per_s}")
    return price_per_chip_hour * n_chips / (tokens_per_s * 3600) * 1e6


def ridge_point_of(chip: str, int8: bool = False) -> float:
    """FLOPs per byte where a chip turns compute-bound (dense BF16 or INT8 peak over memory bandwidth)."""
    c = chip_by_name(chip)
    peak = eight_bit_tflops(c) if int8 and eight_bit_tflops(c) else c.bf16_tflops
    return peak / c.memory_tbs
