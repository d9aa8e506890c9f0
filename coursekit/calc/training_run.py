"""How long a training run takes, how well published runs used their chips, and how often to checkpoint.

Training compute: 6 N D FLOPs for N parameters and D tokens (Kaplan et al. 2020, arXiv:2001.08361:
2 N for the forward pass, 4 N for the backward). Model FLOPs utilisation, MFU = achieved model
FLOP/s / peak (Chowdhery et al. 2022, PaLM, arXiv:2204.02311, Appendix B).
Checkpoint interval: Young 1974 ("A first order approximation to the optimum checkpoint interval",
CACM 17(9)) gives tau = sqrt(2 C M) for checkpoint cost C and mean time between failures M; Daly 2006
("A higher order estimate of the optimum checkpoint interval for restart dumps", FGCS 22(3)) refines
it to sqrt(2 C M) - C when C < M/2. Failures of independent parts add their rates: n GPUs that each
fail every M_gpu hours fail together every M_gpu / n hours.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from coursekit import hardware
from coursekit.model_configs import LLAMA2_70B

SECONDS_PER_DAY = 86_400


def training_flops(n_params: float, n_tokens: float) -> float:
    return 6 * n_params * n_tokens


def step_seconds(n_params: float, tokens_per_step: float, n_gpus: int, peak_flops: float, mfu: float) -> float:
    """Wall time of one optimizer step at a given MFU."""
    if not 0 < mfu <= 1:
        raise ValueError(f"coursekit/calc/training_run.py: MFU must be in (0, 1], got {mfu}")
    return training_flops(n_params, tokens_per_step) / (n_gpus * peak_flops * mfu)


def training_days(n_params: float, n_tokens: float, n_gpus: int, peak_flops: float, mfu: float) -> float:
    return step_seconds(n_params, n_tokens, n_gpus, peak_flops, mfu) / SECONDS_PER_DAY


def mfu_from_gpu_hours(n_params: float, n_tokens: float, gpu_hours: float, peak_flops: float) -> float:
    """MFU a run achieved, from the GPU-hours it reports: 6 N D / (GPU-seconds x peak)."""
    return training_flops(n_params, n_tokens) / (gpu_hours * 3600 * peak_flops)


def mfu_from_throughput(tflops_per_gpu: float, peak_tflops: float) -> float:
    return tflops_per_gpu / peak_tflops


@dataclass(frozen=True)
class PublishedRun:
    name: str
    n_params: float
    n_tokens: float
    chip: hardware.Chip
    gpu_hours: float | None = None        # when the report gives GPU-hours
    tflops_per_gpu: float | None = None   # when it gives achieved TFLOP/s per GPU instead
    reported_mfu: float | None = None
    source: str = ""

    def mfu(self) -> float:
        if self.gpu_hours is not None:
            return mfu_from_gpu_hours(self.n_params, self.n_tokens, self.gpu_hours, self.chip.bf16_tflops * 1e12)
        return mfu_from_throughput(self.tflops_per_gpu, self.chip.bf16_tflops)


PUBLISHED_RUNS = [
    PublishedRun("Llama 2 70B", LLAMA2_70B.n_params, 2.0e12, hardware.A100_SXM_80GB, gpu_hours=1_720_320,
                 source="Touvron et al. 2023, Llama 2 (arXiv:2307.09288), Table 2 (GPU-hours, A100-80GB) and Section 2.1 (2T tokens)"),
    PublishedRun("Llama 3 405B (8,192 GPUs)", 405e9, 15.6e12, hardware.H100_SXM, tflops_per_gpu=430, reported_mfu=0.43,
                 source="Dubey et al. 2024, The Llama 3 Herd of Models (arXiv:2407.21783), Table 4: TP8 CP1 PP16 DP64, 430 TFLOPs/GPU, 43% BF16 MFU"),
    PublishedRun("Llama 3 405B (16,384 GPUs)", 405e9, 15.6e12, hardware.H100_SXM, tflops_per_gpu=400, reported_mfu=0.41,
                 source="Dubey et al. 2024 (arXiv:2407.21783), Table 4: TP8 CP1 PP16 DP128, 400 TFLOPs/GPU, 41% BF16 MFU"),
]
RUNS_BY_NAME = {run.name: run for run in PUBLISHED_RUNS}


def published_mfu(name: str) -> float:
    return RUNS_BY_NAME[name].mfu()


def tokens_per_second(n_tokens: float, gpu_hours: float, n_gpus: int) -> float:
    """Cluster throughput implied by a run's tokens, GPU-hours and GPU count."""
    return n_tokens / (gpu_hours * 3600 / n_gpus)


# ---- failures and checkpoints -------------------------------------------------------------------
# source: Dubey et al. 2024 (arXiv:2407.21783), Section 3.3.4: during a 54-day snapshot of Llama 3 405B
# pre-training on 16,384 H100s there were 466 job interruptions, 419 of them unexpected.
LLAMA3_FAILURES = {"days": 54, "gpus": 16_384, "interruptions": 466, "unexpected": 419}


def cluster_mtbf_hours(gpu_mtbf_hours: float, n_gpus: int) -> float:
    """Independent failures add rates: the cluster fails n times as often as one GPU."""
    return gpu_mtbf_hours / n_gpus


def gpu_mtbf_from_observed(days: float, n_gpus: int, failures: int) -> float:
    """Per-GPU MTBF (hours) implied by a cluster's failure count over a period."""
    return days * 24 * n_gpus / failures


def llama3_cluster_mtbf_hours() -> float:
    f = LLAMA3_FAILURES
    return f["days"] * 24 / f["unexpected"]


def young_interval(checkpoint_s: float, mtbf_s: float) -> float:
    return math.sqrt(2 * checkpoint_s * mtbf_s)


def daly_interval(checkpoint_s: float, mtbf_s: float) -> float:
    """Daly's first-order refinement; it reduces to checkpointing every MTBF when C >= M/2."""
    if checkpoint_s >= mtbf_s / 2:
        return mtbf_s
    return math.sqrt(2 * checkpoint_s * mtbf_s) - checkpoint_s


def wasted_fraction(interval_s: float, checkpoint_s: float, mtbf_s: float, restart_s: float = 0.0) -> float:
    """First-order share of wall time lost: writing checkpoints (C/tau) plus, per failure, half an
    interval of recomputed work and the restart ((tau/2 + R)/M)."""
    return checkpoint_s / interval_s + (interval_s / 2 + restart_s) / mtbf_s


def checkpoint_bytes(n_params: float, bytes_per_param: float = 16) -> float:
    """A full training checkpoint holds weights plus optimizer state (ZeRO's 16 bytes per parameter)."""
    return n_params * bytes_per_param


def checkpoint_seconds(n_params: float, write_gbs: float, bytes_per_param: float = 16) -> float:
    return checkpoint_bytes(n_params, bytes_per_param) / (write_gbs * 1e9)


# ---- quiz-friendly views ------------------------------------------------------------------------
def young_interval_minutes(checkpoint_s: float, mtbf_hours: float) -> float:
    return young_interval(checkpoint_s, mtbf_hours * 3600) / 60


def young_waste_percent(checkpoint_s: float, mtbf_hours: float) -> float:
    mtbf = mtbf_hours * 3600
    return 100 * wasted_fraction(young_interval(checkpoint_s, mtbf), checkpoint_s, mtbf)


def days_on_chip(n_params: float, n_tokens: float, n_gpus: int, chip: str, mfu_percent: float) -> float:
    """Training days on a named chip from coursekit.hardware at its dense BF16 peak."""
    chips = {c.name: c for c in hardware.TRAINING_CHIPS}
    return training_days(n_params, n_tokens, n_gpus, chips[chip].bf16_tflops * 1e12, mfu_percent / 100)
