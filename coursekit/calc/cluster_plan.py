"""Lab 2's scenario: check a TP x PP x DP layout for a 100B-parameter run and price it.

Memory per GPU: weights and gradients split over TP x PP, Adam state also over DP (ZeRO stage 1, as
Megatron's distributed optimizer does); activations of one micro-batch across all layers with
sequence parallelism (with 1F1B the first stage holds p micro-batches of its L/p layers: Korthikanti
et al. 2022, Section 4.2). Time: 6 N D at an assumed MFU. Every input is an argument, so the lab can
show each choice's arithmetic and a student can change it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from coursekit import hardware
from coursekit.calc import parallelism as par
from coursekit.calc import training_run as run


@dataclass(frozen=True)
class Shape:
    n_layers: int
    d_model: int
    n_heads: int
    seq: int

    @property
    def n_params(self) -> float:
        """12 L h^2: attention (4 h^2) plus a 4h MLP (8 h^2) per layer; embeddings left out."""
        return 12 * self.n_layers * self.d_model ** 2


# The scenario (course assumptions, stated so they can be changed): a GPT-3-like dense shape of about
# 100B parameters, 20 tokens per parameter (Hoffmann et al. 2022), 4M-token global batches.
MODEL_100B = Shape(n_layers=80, d_model=10240, n_heads=80, seq=4096)
N_PARAMS = 100e9
N_TOKENS = 2e12
TOKENS_PER_STEP = 2 ** 22
# Llama 3 405B's BF16 MFU (38-43%, Dubey et al. 2024, Table 4), rounded down for a smaller team. The
# plan reads it as the share of peak the executed FLOPs reach, so full recomputation's extra forward
# pass (4/3 of 6 N D) costs time on top.
PLAN_MFU = 0.40
# Course assumption for the exercise, not a quote: on-demand-like rental prices per GPU-hour.
# Module 4 treats prices properly; change these to your provider's.
PRICE_PER_GPU_HOUR = {hardware.A100_SXM_80GB.name: 1.80, hardware.H100_SXM.name: 3.00, hardware.B200.name: 5.00}
BUDGET_USD = 10e6
# source: Dubey et al. 2024 (arXiv:2407.21783), Section 3.3.1: Meta's training storage sustains 2 TB/s.
STORAGE_WRITE_GBS = 2000
# per-GPU MTBF implied by Llama 3's 419 unexpected interruptions in 54 days on 16,384 GPUs
GPU_MTBF_HOURS = run.gpu_mtbf_from_observed(run.LLAMA3_FAILURES["days"], run.LLAMA3_FAILURES["gpus"],
                                            run.LLAMA3_FAILURES["unexpected"])
INTER_NODE = {hardware.A100_SXM_80GB.name: hardware.IB_HDR, hardware.H100_SXM.name: hardware.IB_NDR,
              hardware.B200.name: hardware.IB_NDR}
INTRA_NODE = {hardware.A100_SXM_80GB.name: hardware.NVLINK3, hardware.H100_SXM.name: hardware.NVLINK4,
              hardware.B200.name: hardware.NVLINK5}
GPUS_PER_NODE = 8


def evaluate(chip: hardware.Chip, tp: int, pp: int, dp: int, checkpointing: bool = True, micro_batch: int = 1,
             shape: Shape = MODEL_100B, n_params: float = N_PARAMS, n_tokens: float = N_TOKENS,
             mfu: float = PLAN_MFU, precision: str = "bf16") -> dict:
    """Everything Lab 2's scenario reports for one layout, each number from a named formula."""
    n_gpus = tp * pp * dp
    seqs_per_step = TOKENS_PER_STEP // shape.seq
    microbatches = max(1, seqs_per_step // (dp * micro_batch))
    states = n_params / (tp * pp) * (2 + 2 + par.ADAM_STATE_BYTES / dp)
    acts = par.activation_bytes(shape.seq, micro_batch, shape.d_model, shape.n_heads, shape.n_layers,
                                checkpointing, tp)
    peak = (chip.fp8_tflops if precision == "fp8" else chip.bf16_tflops) * 1e12
    flop_factor = par.recompute_flops_factor(checkpointing)
    days = run.training_days(n_params, n_tokens, n_gpus, peak, mfu) * flop_factor
    tp_link = INTRA_NODE[chip.name] if tp <= GPUS_PER_NODE else INTER_NODE[chip.name]
    tp_comm = (par.tp_layer_comm_seconds(micro_batch, shape.seq, shape.d_model, tp, tp_link.latency_us * 1e-6,
                                         tp_link.one_way_gbs * 1e9) * shape.n_layers / pp * microbatches)
    step = run.step_seconds(n_params, TOKENS_PER_STEP, n_gpus, peak, mfu) * flop_factor
    ckpt_s = run.checkpoint_seconds(n_params, STORAGE_WRITE_GBS)
    mtbf_s = run.cluster_mtbf_hours(GPU_MTBF_HOURS, n_gpus) * 3600
    interval = run.young_interval(ckpt_s, mtbf_s)
    gpu_hours = n_gpus * days * 24
    return {
        "gpus": n_gpus, "memory_gb": (states + acts) / 1e9, "states_gb": states / 1e9, "activations_gb": acts / 1e9,
        "fits": states + acts <= chip.memory_gb * 1e9, "microbatches": microbatches,
        # whole micro-batches per DP rank: when dp x micro_batch does not divide the stated batch, a step runs
        # fewer sequences than stated (never silently: the lab prints this shortfall)
        "sequences_per_step": microbatches * dp * micro_batch, "stated_sequences": seqs_per_step,
        "batch_shortfall": 1 - microbatches * dp * micro_batch / seqs_per_step,
        "bubble": par.pipeline_bubble_fraction(pp, microbatches), "tp_link": tp_link.name,
        "tp_comm_share": tp_comm / step, "dp_allreduce_s": par.dp_grad_allreduce_seconds(n_params / (tp * pp), dp, INTER_NODE[chip.name]),
        "step_s": step, "days": days, "gpu_hours": gpu_hours,
        "cost_usd": gpu_hours * PRICE_PER_GPU_HOUR[chip.name],
        "checkpoint_s": ckpt_s, "cluster_mtbf_h": mtbf_s / 3600, "checkpoint_interval_s": interval,
        "waste": run.wasted_fraction(interval, ckpt_s, mtbf_s),
    }


def layouts(chip: hardware.Chip, n_gpus: int, tps=(4, 8, 16), pps=(1, 2, 4, 8), checkpointing=(True, False)) -> list[dict]:
    """Every TP x PP x DP split of n_gpus over the given degrees (PP must divide the layers), evaluated."""
    rows = []
    for ckpt in checkpointing:
        for tp in tps:
            for pp in pps:
                if n_gpus % (tp * pp) == 0 and MODEL_100B.n_layers % pp == 0:
                    dp = n_gpus // (tp * pp)
                    rows.append({"tp": tp, "pp": pp, "dp": dp, "checkpointing": ckpt, **evaluate(chip, tp, pp, dp, ckpt)})
    return rows


def best_layout(rows: list[dict]) -> dict:
    """The fitting layout with TP inside a node that loses least to the bubble and exposed TP traffic."""
    ok = [r for r in rows if r["fits"] and r["tp"] <= GPUS_PER_NODE]
    if not ok:
        raise ValueError("coursekit/calc/cluster_plan.py: no layout fits in memory; add GPUs or pipeline stages")
    return min(ok, key=lambda r: r["days"] / (1 - r["bubble"]) + r["days"] * r["tp_comm_share"])


def gpus_for_days(chip: hardware.Chip, days: float, checkpointing: bool = True, mfu: float = PLAN_MFU) -> int:
    """GPUs (a whole number of 8-GPU nodes) that finish the run within `days`."""
    one = run.training_days(N_PARAMS, N_TOKENS, 1, chip.bf16_tflops * 1e12, mfu) * par.recompute_flops_factor(checkpointing)
    return GPUS_PER_NODE * math.ceil(one / days / GPUS_PER_NODE)


def fat_tree_endpoints(k: int, levels: int) -> int:
    """Endpoints a fat tree of k-port switches connects at full bisection (Al-Fares et al. 2008): k^2/2 in
    two levels, k^3/4 in three."""
    if levels not in (2, 3):
        raise ValueError(f"coursekit/calc/cluster_plan.py: levels must be 2 or 3, got {levels}")
    return k ** 2 // 2 if levels == 2 else k ** 3 // 4
