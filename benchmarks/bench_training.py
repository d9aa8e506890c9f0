"""Module 7's reference trainers on real gloo ranks: step time, communication share, bytes and memory per
rank, beside what the alpha-beta model predicts with this machine's own loopback.

First a small all-reduce sweep at each world size fits alpha (latency per message) and beta (bytes/s)
(coursekit/calc/collectives.py); then each trainer runs `--steps` steps of the course's decoder in
float64 on `--world` ranks. Per row: seconds per step (the slowest rank's), the share of it spent inside
collectives (the communicator's own clock), wire bytes per step and rank (the ring formulas), optimizer
state and gradient bytes per rank (counted from the tensors held), and the communication time the model
predicts for those bytes and calls. 4 ranks on 2 cores time-share the cores: compare rows of one world
size, not across.

    .venv/bin/python benchmarks/bench_training.py [--world 2 4] [--steps 4] [--d-model 64]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")   # spinning OpenMP threads on a shared CPU (tests/conftest.py)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from coursekit.calc.collectives import fit_alpha_beta, measure_allreduce  # noqa: E402 - after the sys.path set-up above
from coursekit.calc.parallelism import ring_allreduce_seconds  # noqa: E402 - after the sys.path set-up above
from coursekit.nn.decoder import DecoderConfig  # noqa: E402 - after the sys.path set-up above
from coursekit.training import data, runs  # noqa: E402 - after the sys.path set-up above
from coursekit.training.launch import run_ranks  # noqa: E402 - after the sys.path set-up above
from coursekit.training.optim import AdamW  # noqa: E402 - after the sys.path set-up above
from coursekit.training.reference import max_relative_difference, train_single  # noqa: E402 - after the sys.path set-up above
from coursekit.training.rule import tolerance  # noqa: E402 - after the sys.path set-up above

SIZES = [1 << 10, 1 << 14, 1 << 17, 1 << 20, 1 << 22]


def row(name: str, world: int, ranks: list[dict], steps: int, fit: dict, want: dict) -> list[str]:
    values = [r["value"] for r in ranks]
    step_s = max(v["seconds"] for v in values) / steps
    comm_s = max(sum(r["traffic"]["seconds"].values()) for r in ranks) / steps
    wire = ranks[0]["traffic"]["wire"]
    calls = sum(n for op, n in ranks[0]["traffic"]["calls"].items() if op != "barrier") / steps
    payload = values[0]["param_bytes"]
    # an all-reduce's worth of bytes per step (ZeRO: the same bytes in two halves), plus alpha per message
    predicted = ring_allreduce_seconds(payload, world, 0, fit["beta_bytes_s"]) + calls * (world - 1) * fit["alpha_s"]
    worst = max(max_relative_difference(v["params"], want) for v in values)
    return [name, str(world), f"{step_s * 1000:.0f}", f"{comm_s / step_s:.0%}", f"{comm_s * 1000:.0f}",
            f"{predicted * 1000:.0f}", f"{sum(wire.values()) / steps / 1e6:.2f}", f"{calls:.0f}",
            f"{values[0]['state_bytes'] / 1e6:.2f}", f"{values[0]['grad_bytes'] / 1e6:.2f}",
            f"{worst:.1e}" + ("" if worst <= tolerance(world, steps) else " (OVER)")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--world", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--d-model", type=int, default=64)
    parser.add_argument("--bucket-kb", type=int, default=256)
    args = parser.parse_args()
    config = DecoderConfig(vocab_size=256, d_model=args.d_model, n_layers=2, n_heads=4, n_kv_heads=2,
                           d_ff=3 * args.d_model, max_seq_len=128)
    batches = data.batches(config.vocab_size, args.steps, 8, 32, seed=1)
    want, _ = train_single(config, batches)
    header = ["trainer", "ranks", "ms/step", "comm share", "comm ms", "model ms", "wire MB/step", "msgs/step",
              "opt state MB", "grad MB", "max rel diff"]
    lines = []
    for world in args.world:
        started = time.perf_counter()
        sweep = measure_allreduce(SIZES, world_size=world, repeats=5)
        fit = fit_alpha_beta([r["bytes"] for r in sweep["rows"]], [r["seconds"] for r in sweep["rows"]], world)
        print(f"{world} ranks, loopback fit: alpha {fit['alpha_s'] * 1e6:.0f} us, beta {fit['beta_bytes_s'] / 1e9:.2f} GB/s "
              f"({time.perf_counter() - started:.1f} s)", flush=True)
        bucket = args.bucket_kb * 1024
        for name, fn, extra in (("data parallel", runs.data_parallel, (0, bucket)),
                                ("ZeRO-1", runs.sharded, (0, 1, bucket)), ("ZeRO-2", runs.sharded, (0, 2, bucket))):
            started = time.perf_counter()
            ranks = run_ranks(fn, world, config, batches, AdamW(), *extra, timeout_s=300)
            lines.append(row(name, world, ranks, args.steps, fit, want))
            print(f"  {name}: {time.perf_counter() - started:.1f} s", flush=True)
    widths = [max(len(x) for x in col) for col in zip(header, *lines)]
    print()
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for line in lines:
        print("| " + " | ".join(x.ljust(w) for x, w in zip(line, widths)) + " |")


if __name__ == "__main__":
    main()
