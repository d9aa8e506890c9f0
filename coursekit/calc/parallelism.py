"""Memory and communication of distributed training (Module 2, Lab 2).

ZeRO accounting (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion
Parameter Models", arXiv:1910.02054, Section 3.1 and Figure 1): mixed-precision Adam keeps, per
parameter, 2 bytes of FP16/BF16 weights, 2 of gradients and K = 12 of optimizer state (FP32 master
weights, momentum and variance). Over N data-parallel GPUs:
    plain DP      (2 + 2 + K) psi
    stage 1 P_os  2 psi + 2 psi + K psi / N
    stage 2 P_g   2 psi + (2 + K) psi / N
    stage 3 P_p   (2 + 2 + K) psi / N            (FSDP's FULL_SHARD is the same partition)
Activations (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
Models", arXiv:2205.05198, Section 4): one layer stores s b h (34 + 5 a s / h) bytes in 16-bit
training; full recomputation keeps only the layer input, 2 s b h bytes, and pays one more forward.
All-reduce cost (Thakur, Rabenseifner & Gropp 2005, "Optimization of Collective Communication
Operations in MPICH"): ring 2 (p-1) alpha + 2 (p-1)/p M / beta; binomial tree (reduce then
broadcast) 2 ceil(log2 p) (alpha + M / beta).
Tensor parallelism (Shoeybi et al. 2019, Megatron-LM, arXiv:1909.08053): two all-reduces of the
layer's activations in the forward pass and two in the backward pass of every transformer layer.
Pipeline bubble (Huang et al. 2019, GPipe; Narayanan et al. 2021, arXiv:2104.04473): with p stages
and m micro-batches, (p-1) of every (m+p-1) slots are idle; interleaving v chunks divides the
bubble by v.
"""
from __future__ import annotations

import math

ZERO_STAGES = (0, 1, 2, 3)
ADAM_STATE_BYTES = 12      # ZeRO's K: FP32 master weights + momentum + variance


def _check_stage(stage: int) -> None:
    if stage not in ZERO_STAGES:
        raise ValueError(f"coursekit/calc/parallelism.py: ZeRO stage must be one of {ZERO_STAGES} "
                         f"(0 = plain data parallelism), got {stage!r}")


def zero_memory(n_params: float, n_gpus: int, stage: int, weight_bytes: float = 2, grad_bytes: float = 2,
                optimizer_bytes: float = ADAM_STATE_BYTES) -> dict:
    """Bytes per GPU for weights, gradients and optimizer state under ZeRO stage 0-3 over n_gpus."""
    _check_stage(stage)
    if n_gpus < 1:
        raise ValueError(f"coursekit/calc/parallelism.py: need at least one GPU, got {n_gpus}")
    weights = n_params * weight_bytes / (n_gpus if stage >= 3 else 1)
    grads = n_params * grad_bytes / (n_gpus if stage >= 2 else 1)
    optimizer = n_params * optimizer_bytes / (n_gpus if stage >= 1 else 1)
    return {"weights": weights, "grads": grads, "optimizer": optimizer, "total": weights + grads + optimizer}


def zero_total_gb(n_params: float, n_gpus: int, stage: int) -> float:
    """Quiz-friendly: total GB per GPU of the ZeRO paper's mixed-precision Adam accounting."""
    return zero_memory(n_params, n_gpus, stage)["total"] / 1e9


def activation_bytes_per_layer(seq: int, batch: int, d_model: int, n_heads: int, checkpointing: bool = False,
                               tensor_parallel: int = 1) -> float:
    """Activation bytes one transformer layer keeps for the backward pass (16-bit, no dropout savings).

    With tensor parallelism plus sequence parallelism every term is split t ways (Korthikanti Table 2).
    """
    if checkpointing:
        return 2 * seq * batch * d_model / tensor_parallel
    return seq * batch * d_model * (34 + 5 * n_heads * seq / d_model) / tensor_parallel


def activation_bytes(seq: int, batch: int, d_model: int, n_heads: int, n_layers: int,
                     checkpointing: bool = False, tensor_parallel: int = 1) -> float:
    return n_layers * activation_bytes_per_layer(seq, batch, d_model, n_heads, checkpointing, tensor_parallel)


def recompute_flops_factor(checkpointing: bool) -> float:
    """Training FLOPs relative to 6 N D: full recomputation adds one forward pass (2 N D): 8/6."""
    return 8 / 6 if checkpointing else 1.0


def ring_allreduce_seconds(message_bytes: float, n: int, alpha_s: float, bandwidth_bytes_s: float) -> float:
    """Ring all-reduce: reduce-scatter then all-gather, 2(n-1) steps of M/n bytes each."""
    if n < 1 or bandwidth_bytes_s <= 0:
        raise ValueError(f"coursekit/calc/parallelism.py: need n >= 1 and bandwidth > 0, got {n}, {bandwidth_bytes_s}")
    if n == 1:
        return 0.0
    return 2 * (n - 1) * alpha_s + 2 * (n - 1) / n * message_bytes / bandwidth_bytes_s


def tree_allreduce_seconds(message_bytes: float, n: int, alpha_s: float, bandwidth_bytes_s: float) -> float:
    """Binomial-tree reduce then broadcast: 2 ceil(log2 n) rounds, each sending the whole message."""
    if n <= 1:
        return 0.0
    return 2 * math.ceil(math.log2(n)) * (alpha_s + message_bytes / bandwidth_bytes_s)


def allreduce_on_link(message_bytes: float, n: int, link) -> float:
    """Ring all-reduce time on a coursekit.hardware.Link (one-way bandwidth, its assumed latency)."""
    return ring_allreduce_seconds(message_bytes, n, link.latency_us * 1e-6, link.one_way_gbs * 1e9)


def tp_layer_comm_seconds(batch: int, seq: int, d_model: int, tp: int, alpha_s: float, bandwidth_bytes_s: float,
                          bytes_per_element: float = 2) -> float:
    """Megatron tensor parallelism: 4 ring all-reduces of b*s*h activations per layer (2 forward, 2 backward)."""
    message = batch * seq * d_model * bytes_per_element
    return 4 * ring_allreduce_seconds(message, tp, alpha_s, bandwidth_bytes_s)


def tp_layer_compute_seconds(batch: int, seq: int, d_model: int, tp: int, peak_flops: float, mfu: float = 1.0) -> float:
    """FLOPs of one layer's forward + backward (6 x 12 h^2 per token, attention scores left out) over tp GPUs."""
    return 6 * 12 * d_model ** 2 * batch * seq / (tp * peak_flops * mfu)


def pipeline_bubble_fraction(stages: int, microbatches: int, interleave: int = 1) -> float:
    """Share of a pipeline step the GPUs sit idle (GPipe / 1F1B; interleaving v chunks divides the bubble by v)."""
    if stages < 1 or microbatches < 1 or interleave < 1:
        raise ValueError(f"coursekit/calc/parallelism.py: stages, micro-batches and interleave must be >= 1, "
                         f"got {stages}, {microbatches}, {interleave}")
    bubble = (stages - 1) / interleave
    return bubble / (microbatches + bubble)


def dp_grad_allreduce_seconds(n_params: float, dp: int, link, grad_bytes: float = 2) -> float:
    """Data parallelism's once-per-step gradient all-reduce of the whole (or per-TP/PP-shard) gradient."""
    return allreduce_on_link(n_params * grad_bytes, dp, link)


# ---- quiz-friendly views (banks call functions with plain arguments and use one number) ----------
def zero_part_bytes(n_params: float, n_gpus: int, stage: int, part: str) -> float:
    """One component ('weights', 'grads', 'optimizer' or 'total') of zero_memory."""
    return zero_memory(n_params, n_gpus, stage)[part]


def checkpointing_saving(seq: int, d_model: int, n_heads: int) -> float:
    """How many times less activation memory full checkpointing keeps (per layer, any batch)."""
    return activation_bytes_per_layer(seq, 1, d_model, n_heads) / activation_bytes_per_layer(seq, 1, d_model, n_heads, True)


def bubble_over_ideal(stages: int, microbatches: int) -> float:
    """The bubble relative to the ideal compute time, (p-1)/m (Narayanan et al.'s form), not the idle share."""
    return (stages - 1) / microbatches


def tp_comm_over_compute(d_model: int, tp: int, link_name: str, peak_tflops: float = 989, mfu: float = 0.4,
                         seq: int = 4096) -> float:
    """Ratio of one layer's TP all-reduce time on a named link to its compute time at the given MFU."""
    from coursekit import hardware

    link = hardware.LINKS_BY_NAME[link_name]
    comm = tp_layer_comm_seconds(1, seq, d_model, tp, link.latency_us * 1e-6, link.one_way_gbs * 1e9)
    return comm / tp_layer_compute_seconds(1, seq, d_model, tp, peak_tflops * 1e12, mfu)


def link_allreduce_ms(message_mb: float, n: int, link_name: str) -> float:
    from coursekit import hardware

    return allreduce_on_link(message_mb * 1e6, n, hardware.LINKS_BY_NAME[link_name]) * 1e3
