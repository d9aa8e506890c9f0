"""Measure this machine's roofline (Lab 1's measured part, at full size) and print a table.

    .venv/bin/python benchmarks/m1_roofline.py [--device cpu|cuda|mps] [--sizes 256,512,...] [--copy-mib 1024]

Records go in benchmarks/RESULTS.md ("M1: measured roofline").
"""
from __future__ import annotations

import argparse
import os

from coursekit import hardware
from coursekit.calc.measure import measure_roofline
from coursekit.device import describe_device, pick_device


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--sizes", default=None, help="comma-separated square matmul sizes")
    parser.add_argument("--copy-mib", type=int, default=None, help="copy buffer size in MiB")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    device = pick_device(verbose=False, prefer=args.device)
    gpu = device.type != "cpu"
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else (
        [256, 512, 1024, 2048, 4096, 8192, 16384] if gpu else [128, 256, 512, 1024, 2048, 3072])
    copy_mib = args.copy_mib or (4096 if gpu else 512)
    r = measure_roofline(sizes, copy_mib * 2**20, device, repeats=args.repeats)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"device: {describe_device(device)}; 1-minute load average {load:.1f} (other work skews CPU timings)")
    print("| n | dtype | FLOP/byte | seconds | GFLOP/s |\n|---:|---|---:|---:|---:|")
    for row in r["matmuls"]:
        print(f"| {row['n']} | {row['dtype']} | {row['intensity']:.1f} | {row['seconds']:.3e} | {row['flops_per_s'] / 1e9:.1f} |")
    print(f"\ncopy {copy_mib} MiB: {r['bandwidth'] / 1e9:.1f} GB/s (read + write); measured ridge {r['ridge_point']:.1f} FLOP/byte")
    if device.type == "cuda":
        import torch

        name = torch.cuda.get_device_name(device)
        chip = hardware.H100_SXM if "H100" in name else hardware.H200_SXM if "H200" in name else None
        if chip:
            print(f"published {chip.name}: {chip.bf16_tflops} TFLOP/s, {chip.memory_tbs} TB/s -> measured "
                  f"{r['peak_flops'] / 1e12 / chip.bf16_tflops:.0%} of peak compute, "
                  f"{r['bandwidth'] / 1e12 / chip.memory_tbs:.0%} of peak bandwidth")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
