"""Module 7's formulas for training systems, built on Lab 2's cost model (coursekit/calc/parallelism.py).

Collectives (Thakur, Rabenseifner & Gropp 2005, "Optimization of Collective Communication Operations in
MPICH"; Patarasuk & Yuan 2009 for the bandwidth-optimal ring): a ring reduce-scatter and a ring all-gather
each take (p-1) steps of M/p bytes, (p-1) alpha + (p-1)/p M / beta; a ring all-reduce is the two in turn.
Gradient buckets (Li et al. 2020, "PyTorch Distributed: Experiences on Accelerating Data Parallel Training",
VLDB 13(12), arXiv:2006.15704, Section 3.2.3): DDP packs gradients into buckets (bucket_cap_mb = 25 by
default) in reverse order of the parameters and all-reduces each as soon as it is full, during backward.
ZeRO communication (Rajbhandari et al. 2020, arXiv:1910.02054, Section 7): stages 1 and 2 move what
plain data parallelism moves (a reduce-scatter plus an all-gather, 2 psi); stage 3 all-gathers the
parameters again for backward, 3 psi, 1.5x. FSDP (Zhao et al. 2023, "PyTorch FSDP", VLDB 16(12),
arXiv:2304.11277) gathers one unit's full parameters at a time and prefetches the next.
Megatron-LM (Shoeybi et al. 2019, arXiv:1909.08053, Section 3): per transformer layer, two all-reduces in
the forward pass (after attention's row-parallel projection and after the MLP's) and two in backward;
sequence parallelism (Korthikanti et al. 2022, arXiv:2205.05198) turns each into a reduce-scatter plus an
all-gather, the same bytes. Pipelines: GPipe (Huang et al. 2019, arXiv:1811.06965) runs all forwards then
all backwards; 1F1B (PipeDream-Flush, Narayanan et al. 2021, ICML, arXiv:2006.09503) alternates them after
a warm-up, the same bubble with at most p micro-batches of activations in flight.
PaLM's MFU (Chowdhery et al. 2022, arXiv:2204.02311, Appendix B): 238.3K tokens/s on 6,144 TPU v4 chips,
6N + 12 L H Q T FLOPs per token with N = 540.35B, L = 118 layers, H = 48 heads, Q = 256, T = 2,048.
"""
from __future__ import annotations

import math

from coursekit import hardware
from coursekit.calc import parallelism as par
from coursekit.calc import training_run as run

DDP_BUCKET_MB = 25          # torch.nn.parallel.DistributedDataParallel(bucket_cap_mb=25), Li et al. 2020


# ---- collectives ---------------------------------------------------------------------------------
def reduce_scatter_seconds(message_bytes: float, n: int, alpha_s: float, bandwidth_bytes_s: float) -> float:
    """Ring reduce-scatter: n-1 steps, each sending M/n bytes; every rank ends with 1/n of the sum."""
    if n <= 1:
        return 0.0
    return (n - 1) * alpha_s + (n - 1) / n * message_bytes / bandwidth_bytes_s


def all_gather_seconds(message_bytes: float, n: int, alpha_s: float, bandwidth_bytes_s: float) -> float:
    """Ring all-gather of a message of M bytes in all (M/n from each rank): the same cost as reduce-scatter."""
    return reduce_scatter_seconds(message_bytes, n, alpha_s, bandwidth_bytes_s)


def ring_bytes_sent_per_rank(message_bytes: float, n: int) -> float:
    """What each rank sends in a ring all-reduce: 2 (n-1)/n M, under twice the message at any n."""
    return 2 * (n - 1) / n * message_bytes


def tree_beats_ring_below(n: int, alpha_s: float, bandwidth_bytes_s: float) -> float:
    """Message size (bytes) below which the binomial tree's fewer latency terms beat the ring (0: never)."""
    rounds = math.ceil(math.log2(n)) if n > 1 else 0
    gain = (n - 1) - rounds                 # latency terms the tree saves (each side has a factor 2)
    cost = rounds - (n - 1) / n             # bandwidth terms the tree adds
    if gain <= 0 or cost <= 0:
        return 0.0
    return alpha_s * bandwidth_bytes_s * gain / cost


# ---- data parallelism: buckets and overlap ---------------------------------------------------------
def bucket_count(n_params: float, bucket_mb: float = DDP_BUCKET_MB, grad_bytes: float = 4) -> int:
    """Buckets DDP cuts the gradients into (FP32 gradients by default; MB here is 2**20 bytes, as DDP's)."""
    return max(1, math.ceil(n_params * grad_bytes / (bucket_mb * 2 ** 20)))


def exposed_comm_seconds(grad_bytes: float, n_buckets: int, n: int, alpha_s: float, bandwidth_bytes_s: float,
                         backward_s: float) -> float:
    """Communication left after backward ends, when bucket k is ready at (k+1)/B of the backward pass and
    the buckets' ring all-reduces run one at a time (one communication stream, as in DDP)."""
    if n_buckets < 1:
        raise ValueError(f"coursekit/calc/dist_training.py: need at least one bucket, got {n_buckets}")
    per_bucket = par.ring_allreduce_seconds(grad_bytes / n_buckets, n, alpha_s, bandwidth_bytes_s)
    done = 0.0
    for k in range(n_buckets):
        done = max(done, backward_s * (k + 1) / n_buckets) + per_bucket
    return done - backward_s


# ---- sharding state -----------------------------------------------------------------------------
def zero_comm_bytes_per_rank(n_params: float, n: int, stage: int, weight_bytes: float = 2) -> float:
    """Bytes each rank sends per step: 2 psi (n-1)/n for stages 0-2, 3 psi (n-1)/n for stage 3."""
    if stage not in par.ZERO_STAGES:
        raise ValueError(f"coursekit/calc/dist_training.py: ZeRO stage must be one of {par.ZERO_STAGES}, got {stage!r}")
    factor = 3 if stage == 3 else 2
    return factor * (n - 1) / n * n_params * weight_bytes


def fsdp_peak_bytes(n_params: float, n: int, n_units: int, weight_bytes: float = 2) -> float:
    """Model-state bytes per rank under FSDP's full sharding at its peak: the shard of everything plus the
    gathered full weights of the unit running and of the one prefetched (activations not counted)."""
    unit = n_params / n_units * weight_bytes
    return par.zero_memory(n_params, n, 3)["total"] + 2 * unit * (n - 1) / n


def min_ranks_to_fit(n_params: float, stage: int, memory_gb: float, max_ranks: int = 1 << 20) -> int | None:
    """Fewest data-parallel ranks (a power of two) whose model states (ZeRO accounting) fit in memory_gb each;
    None when no number does (stages 0-2 keep the 16-bit weights, and stages 0-1 the gradients, whole on every rank)."""
    n = 1
    while n <= max_ranks:
        if par.zero_memory(n_params, n, stage)["total"] <= memory_gb * 1e9:
            return n
        n *= 2
    return None


def fsdp_peak_gb(n_params: float, n: int, n_units: int) -> float:
    return fsdp_peak_bytes(n_params, n, n_units) / 1e9


# ---- splitting the model ---------------------------------------------------------------------------
def megatron_collectives_per_layer(sequence_parallel: bool = False) -> dict:
    """Collectives per transformer layer per training step (forward + backward) in Megatron-style TP."""
    if sequence_parallel:
        return {"all-reduce": 0, "reduce-scatter": 4, "all-gather": 4}
    return {"all-reduce": 4, "reduce-scatter": 0, "all-gather": 0}


def tp_bytes_per_layer_per_rank(batch: int, seq: int, d_model: int, tp: int, bytes_per_element: float = 2) -> float:
    """Bytes each rank sends per layer per step: four ring all-reduces of b s h activations (or, with
    sequence parallelism, four reduce-scatters and four all-gathers: the same bytes)."""
    return 4 * ring_bytes_sent_per_rank(batch * seq * d_model * bytes_per_element, tp)


def pipeline_schedule(stages: int, microbatches: int, schedule: str = "1f1b", forward_s: float = 1.0,
                      backward_s: float = 2.0) -> dict:
    """Simulate one step of a pipeline: each stage runs its operations in the schedule's order, each as soon as
    its input is ready. Returns the operations (stage, kind, micro-batch, start, end), the makespan, the idle
    share and the most micro-batches whose activations a stage held at once."""
    if schedule not in ("gpipe", "1f1b"):
        raise ValueError(f"coursekit/calc/dist_training.py: schedule is 'gpipe' or '1f1b', got {schedule!r}")
    p, m = stages, microbatches
    orders = []
    for s in range(p):
        if schedule == "gpipe":
            order = [("F", i) for i in range(m)] + [("B", i) for i in range(m)]
        else:
            warm = min(p - s - 1, m)
            order = [("F", i) for i in range(warm)]
            f, b = warm, 0
            while b < m:
                if f < m:
                    order.append(("F", f))
                    f += 1
                order.append(("B", b))
                b += 1
        orders.append(order)
    end, free, pos, ops = {}, [0.0] * p, [0] * p, []
    while any(pos[s] < len(orders[s]) for s in range(p)):
        progressed = False
        for s in range(p):
            while pos[s] < len(orders[s]):
                kind, i = orders[s][pos[s]]
                if kind == "F":
                    dep = (s - 1, "F", i) if s > 0 else None
                else:                   # a backward needs the next stage's backward, or at the last stage its forward
                    dep = (s + 1, "B", i) if s < p - 1 else (s, "F", i)
                if dep is not None and dep not in end:
                    break
                start = max(free[s], end.get(dep, 0.0))
                finish = start + (forward_s if kind == "F" else backward_s)
                end[(s, kind, i)] = free[s] = finish
                ops.append((s, kind, i, start, finish))
                pos[s] += 1
                progressed = True
        if not progressed:
            raise RuntimeError("coursekit/calc/dist_training.py: the schedule deadlocked")
    makespan = max(free)
    busy = p * m * (forward_s + backward_s)
    in_flight = []
    for s in range(p):
        held, peak = 0, 0
        for kind, _ in orders[s]:
            held += 1 if kind == "F" else -1
            peak = max(peak, held)
        in_flight.append(peak)
    return {"ops": ops, "makespan": makespan, "bubble": 1 - busy / (p * makespan), "peak_in_flight": in_flight}


def simulated_bubble(stages: int, microbatches: int, schedule: str = "1f1b") -> float:
    return pipeline_schedule(stages, microbatches, schedule)["bubble"]


def peak_activations_in_flight(stages: int, microbatches: int, schedule: str = "1f1b") -> int:
    """Micro-batches of activations the first stage holds at once: m for GPipe, min(p, m) for 1F1B."""
    return pipeline_schedule(stages, microbatches, schedule)["peak_in_flight"][0]


# ---- at scale: MFU of published runs --------------------------------------------------------------
PALM_540B = {"n_params": 540.35e9, "layers": 118, "heads": 48, "head_dim": 256, "seq": 2048,
             "tokens_per_s": 238.3e3, "chips": 6144, "reported_mfu": 0.462}
# Dubey et al. 2024 (arXiv:2407.21783), Table 4, the long-context row: TP8 CP16 PP16 DP8 on 16,384 H100s,
# 131,072-token sequences, 380 TFLOP/s per GPU, 38% BF16 MFU (the other two rows are in training_run).
LLAMA3_LONG_CONTEXT = run.PublishedRun("Llama 3 405B (16,384 GPUs, 131K context)", 405e9, 15.6e12,
                                       hardware.H100_SXM, tflops_per_gpu=380, reported_mfu=0.38,
                                       source="Dubey et al. 2024 (arXiv:2407.21783), Table 4: TP8 CP16 PP16 DP8, 380 "
                                              "TFLOPs/GPU, 38% BF16 MFU")
MFU_RUNS = [*run.PUBLISHED_RUNS[1:], LLAMA3_LONG_CONTEXT]


def flops_per_token_with_attention(n_params: float, layers: int, heads: int, head_dim: int, seq: int) -> float:
    """PaLM Appendix B's model FLOPs per token: 6N for the matmuls plus 12 L H Q T for attention."""
    return 6 * n_params + 12 * layers * heads * head_dim * seq


def mfu_from_tokens_per_second(tokens_per_s: float, flops_per_token: float, chips: int, peak_flops: float) -> float:
    return tokens_per_s * flops_per_token / (chips * peak_flops)


def palm_mfu() -> float:
    """PaLM 540B's MFU recomputed from its Appendix B figures and TPU v4's 275 TFLOP/s BF16 peak."""
    p = PALM_540B
    per_token = flops_per_token_with_attention(p["n_params"], p["layers"], p["heads"], p["head_dim"], p["seq"])
    return mfu_from_tokens_per_second(p["tokens_per_s"], per_token, p["chips"], hardware.TPU_V4.bf16_tflops * 1e12)


def mfu_percent_from_tflops(tflops_per_gpu: float, chip: str = hardware.H100_SXM.name) -> float:
    """Quiz-friendly: achieved TFLOP/s per GPU over the named chip's dense BF16 peak, in percent."""
    chips = {c.name: c for c in hardware.TRAINING_CHIPS}
    return 100 * tflops_per_gpu / chips[chip].bf16_tflops


def mfu_budget(single_chip_mfu: float, bubble: float, exposed_comm_share: float) -> float:
    """A run's MFU when a chip that reaches single_chip_mfu alone also idles for the bubble and for
    communication not hidden behind compute (shares of the step)."""
    return single_chip_mfu * (1 - bubble) * (1 - exposed_comm_share)


# ---- quiz-friendly views ---------------------------------------------------------------------------
def ring_allreduce_ms(message_mb: float, n: int, alpha_us: float, bandwidth_gbs: float) -> float:
    return par.ring_allreduce_seconds(message_mb * 1e6, n, alpha_us * 1e-6, bandwidth_gbs * 1e9) * 1e3


def tree_allreduce_ms(message_mb: float, n: int, alpha_us: float, bandwidth_gbs: float) -> float:
    return par.tree_allreduce_seconds(message_mb * 1e6, n, alpha_us * 1e-6, bandwidth_gbs * 1e9) * 1e3


def zero_comm_ratio(stage: int) -> float:
    """Stage's communication over plain data parallelism's (any model, any n > 1)."""
    return zero_comm_bytes_per_rank(1.0, 2, stage) / zero_comm_bytes_per_rank(1.0, 2, 0)


def zero_total_gb_per_rank(n_params: float, n: int, stage: int) -> float:
    return par.zero_total_gb(n_params, n, stage)


def bubble_percent(stages: int, microbatches: int) -> float:
    return 100 * par.pipeline_bubble_fraction(stages, microbatches)


def tp_mb_per_layer(batch: int, seq: int, d_model: int, tp: int) -> float:
    return tp_bytes_per_layer_per_rank(batch, seq, d_model, tp) / 1e6
