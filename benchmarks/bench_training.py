"""Module 7: the reference trainers on real gloo ranks over loopback, beside the alpha-beta model.

First a sweep of all-reduce sizes fits this machine's loopback to t = 2(N-1) alpha + 2(N-1)/N S / beta
(ring all-reduce; Patarasuk & Yuan 2009). Then each trainer at 2 and 4 ranks: step time (the slowest
rank's), communication share (time inside the communicator / step time), bytes per step per rank on the
ring, memory per rank, and the communication time the fitted model predicts from the counted calls and bytes.
The single-process baseline on the whole batch is the plain alternative; the ratio is step time over it.
Parameters are checked identical to the baseline (coursekit/training/identical.py) before a row is printed.

    .venv/bin/python benchmarks/bench_training.py [--worlds 2 4] [--steps 4] [--d-model 64]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")   # spinning OpenMP threads on a shared CPU (tests/conftest.py)

import torch

from coursekit.nn.decoder import DecoderConfig
from coursekit.training.data_parallel import train_data_parallel
from coursekit.training.identical import differences
from coursekit.training.launch import launch
from coursekit.training.pipeline import train_pipeline
from coursekit.training.setup import make_batches
from coursekit.training.single import train_single
from coursekit.training.zero import train_zero

SIZES = [2 ** k for k in range(10, 25, 2)]   # 1 KiB .. 16 MiB


def sweep(rank, world, comm, sizes, repeats):
    out = {}
    for size in sizes:
        x = torch.zeros(size // 4, dtype=torch.float32)
        comm.all_reduce(x)   # warm-up: connections and buffers
        times = []
        for _ in range(repeats):
            comm.barrier()
            t0 = time.perf_counter()
            comm.all_reduce(x)
            times.append(time.perf_counter() - t0)
        out[size] = statistics.median(times)
    return out


def fit_alpha_beta(world: int, repeats: int) -> tuple[float, float]:
    """(alpha seconds per message step, beta bytes/s) by least squares over the slowest rank's medians."""
    ranks = launch(sweep, world, SIZES, repeats, timeout_s=60)
    xs = [2 * (world - 1) / world * s for s in SIZES]
    ys = [max(res[s] for res, _ in ranks) for s in SIZES]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    intercept = my - slope * mx
    return max(intercept, 0.0) / (2 * (world - 1)), 1 / slope


def predicted_comm_s(counts: dict, world: int, alpha: float, beta: float) -> float:
    steps_per_call = {"all_reduce": 2 * (world - 1), "reduce_scatter": world - 1, "all_gather": world - 1}
    return sum(c["calls"] * steps_per_call.get(op, 1) * alpha + c["wire_bytes"] / beta
               for op, c in counts.items() if op != "barrier")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worlds", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--bucket-kb", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--micro-batches", type=int, nargs="+", default=[2, 8])
    args = ap.parse_args()
    cfg = DecoderConfig(vocab_size=256, d_model=args.d_model, n_layers=4, n_heads=4, n_kv_heads=2,
                        d_ff=3 * args.d_model, max_seq_len=64)
    batches = make_batches(cfg, args.steps, batch=8, seq=32)
    lr, bucket = 1e-3, args.bucket_kb * 1024
    timing: dict = {}
    torch.set_num_threads(1)
    reference = train_single(cfg, batches, args.steps, lr, timing=timing)
    base_step = timing["train_s"] / args.steps
    n_params = sum(t.numel() for t in reference.values())
    print(f"model: d_model={cfg.d_model}, {n_params:,} parameters (float64, {n_params * 8 / 1e6:.2f} MB), "
          f"batch 8 x 32 tokens, {args.steps} steps, buckets {args.bucket_kb} KiB; "
          f"single process {base_step * 1e3:.1f} ms/step (1 thread)")
    trainers = {"data parallel": (train_data_parallel, ()), "ZeRO-1": (train_zero, (1,)), "ZeRO-2": (train_zero, (2,))}
    header = (f"{'trainer':14} {'N':>2} {'step ms':>8} {'x single':>8} {'comm %':>7} {'MB/step':>8} "
              f"{'pred comm ms':>12} {'meas comm ms':>12} {'opt MB':>7} {'grad MB':>7} {'all MB':>7} {'wall s':>6}")
    for world in args.worlds:
        t0 = time.perf_counter()
        alpha, beta = fit_alpha_beta(world, args.repeats)
        print(f"\nN={world}: loopback all-reduce fit alpha = {alpha * 1e6:.0f} us per step, "
              f"beta = {beta / 1e9:.2f} GB/s ({time.perf_counter() - t0:.1f} s)")
        print(header)
        for name, (fn, extra) in trainers.items():
            t0 = time.perf_counter()
            ranks = launch(fn, world, cfg, batches, args.steps, lr, bucket, *extra, timeout_s=120)
            wall = time.perf_counter() - t0
            for res, _ in ranks:
                problems = differences(res["params"], reference, world, args.steps)
                if problems:
                    raise SystemExit(f"{name} at N={world} is not identical: {problems[:3]}")
            step = max(res["train_s"] for res, _ in ranks) / args.steps
            slowest, counts = max(ranks, key=lambda rc: rc[0]["train_s"])
            comm_s = sum(c["seconds"] for c in counts.values()) / args.steps
            wire = sum(c["wire_bytes"] for c in counts.values()) / args.steps
            pred = predicted_comm_s(counts, world, alpha, beta) / args.steps
            mem = slowest["memory"]
            print(f"{name:14} {world:>2} {step * 1e3:8.1f} {step / base_step:8.2f} {100 * comm_s / step:6.0f}% "
                  f"{wire / 1e6:8.3f} {pred * 1e3:12.1f} {comm_s * 1e3:12.1f} {mem['optimizer_state'] / 1e6:7.3f} "
                  f"{mem['grads'] / 1e6:7.3f} {mem['all_tensors'] / 1e6:7.3f} {wall:6.1f}")
        for m in args.micro_batches:
            t0 = time.perf_counter()
            ranks = launch(train_pipeline, world, cfg, batches, args.steps, lr, m, timeout_s=120)
            held = {name: t for res, _ in ranks for name, t in res["params"].items()}
            if differences(held, reference, world, args.steps):
                raise SystemExit(f"pipeline at N={world}, m={m} is not identical")
            step = max(res["step_s"] for res, _ in ranks) / args.steps
            bubble = statistics.mean(res["bubble"] for res, _ in ranks)
            sent = max(sum(c["payload_bytes"] for op, c in counts.items() if op == "send") for _, counts in ranks)
            print(f"pipeline 1F1B m={m:<2} N={world}: step {step * 1e3:.1f} ms ({step / base_step:.2f}x single), "
                  f"measured idle share {bubble:.2f} vs (p-1)/(m+p-1) = {(world - 1) / (m + world - 1):.2f}, "
                  f"{sent / args.steps / 1e6:.3f} MB sent/step by the busiest stage, "
                  f"{time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
