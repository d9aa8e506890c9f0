"""All-reduce between two local processes (gloo on CPU; NCCL when there are two GPUs), the alpha-beta
fit, and the published links (Module 2, Lab 2). The plain alternative measured in the same run is the
in-process sum the all-reduce computes (x + x on one tensor), so the ratio is what communication costs
on top of the arithmetic. Prints markdown tables for benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/m2_allreduce.py [--quick] [--backend gloo|nccl]
"""
from __future__ import annotations

import argparse
import time

import torch

from coursekit import hardware
from coursekit.calc import collectives, parallelism as par


def local_sum_seconds(n_bytes: int, repeats: int) -> float:
    x = torch.ones(max(1, n_bytes // 4))
    torch.set_num_threads(1)           # one core, like each gloo process's reduction
    best = float("inf")
    for _ in range(3 * repeats):
        start = time.perf_counter()
        torch.add(x, x, out=x)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--backend", choices=["gloo", "nccl"])
    args = ap.parse_args()
    sizes = [2 ** k for k in (range(12, 23, 2) if args.quick else range(12, 27, 2))]
    repeats = 3 if args.quick else 10
    result = collectives.measure_allreduce(sizes, world_size=2, repeats=repeats, backend=args.backend)
    rows = result["rows"]
    fit = collectives.fit_alpha_beta([r["bytes"] for r in rows], [r["seconds"] for r in rows], 2)
    print(f"backend {result['backend']}, 2 processes on 127.0.0.1, best of {repeats}; "
          f"fit alpha {fit['alpha_s'] * 1e6:.1f} us, beta {fit['beta_bytes_s'] / 1e9:.2f} GB/s\n")
    print("| bytes | all-reduce (us) | fit (us) | local x + x (us) | all-reduce / local | NVLink 4 model (us) | IB NDR model (us) | correct |")
    print("|---:|---:|---:|---:|---:|---:|---:|:---:|")
    for r in rows:
        local = local_sum_seconds(r["bytes"], repeats)
        print(f"| {r['bytes']:,} | {r['seconds'] * 1e6:,.1f} | {collectives.model_seconds(r['bytes'], fit) * 1e6:,.1f} | "
              f"{local * 1e6:,.1f} | {r['seconds'] / local:,.0f} | {par.allreduce_on_link(r['bytes'], 2, hardware.NVLINK4) * 1e6:,.1f} | "
              f"{par.allreduce_on_link(r['bytes'], 2, hardware.IB_NDR) * 1e6:,.1f} | {r['correct']} |")


if __name__ == "__main__":
    main()
