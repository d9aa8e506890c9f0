"""Measure this machine's own roofline: matmul FLOP/s across sizes, and memory bandwidth from a
large copy. Runs on whatever `coursekit.device.pick_device()` picks; GPU work is queued
asynchronously, so every timing synchronizes before reading the clock.
"""
from __future__ import annotations

import math
import time

from coursekit.calc.roofline import matmul_bytes, matmul_flops
from coursekit.device import pick_device, synchronize


def default_dtype(device):
    """The precision each device's matrix units are built for: BF16 on CUDA, FP16 on Apple GPUs,
    FP32 on CPUs (most CPUs have no fast BF16 path, so BF16 would measure emulation)."""
    import torch

    return {"cuda": torch.bfloat16, "mps": torch.float16}.get(torch.device(device).type, torch.float32)


def time_call(fn, device, repeats: int = 3, warmup: int = 1, min_seconds: float = 0.01,
              budget_seconds: float = 0.2, max_blocks: int = 50) -> float:
    """Seconds one fn() call takes: the fastest of at least `repeats` timed blocks, after `warmup` calls.

    Each block loops fn() enough times to last about `min_seconds`, so tiny kernels are not lost in
    timer and launch noise. Blocks continue past `repeats` until `budget_seconds` have been spent
    (at most `max_blocks`): on a machine shared with other work, a short kernel needs several tries
    to get one undisturbed run. The fastest block is the least disturbed one (the advice of Python's
    timeit), which is what a ceiling measurement wants.
    """
    if repeats < 1:
        raise ValueError(f"coursekit/calc/measure.py: repeats must be >= 1, got {repeats}")
    for _ in range(warmup):
        fn()
    synchronize(device)
    start = time.perf_counter()
    fn()
    synchronize(device)
    inner = max(1, math.ceil(min_seconds / max(time.perf_counter() - start, 1e-9)))
    best, spent, blocks = math.inf, 0.0, 0
    while blocks < repeats or (spent < budget_seconds and blocks < max_blocks):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        synchronize(device)
        elapsed = time.perf_counter() - start
        best, spent, blocks = min(best, elapsed / inner), spent + elapsed, blocks + 1
    return best


def measure_matmul(sizes, device=None, dtype=None, repeats: int = 3) -> list[dict]:
    """Square n x n x n matmuls: achieved FLOP/s and the intensity (all bytes counted) of each."""
    import torch

    device = torch.device(device) if device is not None else pick_device(verbose=False)
    dtype = dtype or default_dtype(device)
    element = torch.empty((), dtype=dtype).element_size()
    rows = []
    for n in sizes:
        a = torch.randn(n, n, device=device, dtype=dtype)
        b = torch.randn(n, n, device=device, dtype=dtype)
        out = torch.empty(n, n, device=device, dtype=dtype)
        seconds = time_call(lambda a=a, b=b, out=out: torch.matmul(a, b, out=out), device, repeats)
        flops, moved = matmul_flops(n, n, n), matmul_bytes(n, n, n, element)
        rows.append({"n": n, "dtype": str(dtype).replace("torch.", ""), "flops": flops, "bytes": moved,
                     "intensity": flops / moved, "seconds": seconds, "flops_per_s": flops / seconds})
        del a, b, out
    return rows


def measure_bandwidth(n_bytes: int = 256 * 2**20, device=None, repeats: int = 3) -> dict:
    """Copy a buffer of `n_bytes` into another: each copy reads n_bytes and writes n_bytes.

    The buffer must be far larger than the caches (tens of MB on CPUs, ~50 MB L2 on an H100),
    or the copy measures cache bandwidth instead of main memory.
    """
    import torch

    device = torch.device(device) if device is not None else pick_device(verbose=False)
    count = n_bytes // 4
    src = torch.ones(count, device=device, dtype=torch.float32)
    dst = torch.empty_like(src)
    seconds = time_call(lambda: dst.copy_(src), device, repeats)
    moved = 2.0 * count * 4
    return {"buffer_bytes": count * 4, "bytes_moved": moved, "seconds": seconds, "bytes_per_s": moved / seconds}


def measure_roofline(sizes, n_bytes: int, device=None, repeats: int = 3) -> dict:
    """Both measurements plus the ceilings they imply: the best matmul FLOP/s seen and the copy
    bandwidth. Measured ceilings are lower bounds on the true peaks."""
    import torch

    device = torch.device(device) if device is not None else pick_device(verbose=False)
    matmuls = measure_matmul(sizes, device, repeats=repeats)
    copy = measure_bandwidth(n_bytes, device, repeats)
    peak = max(row["flops_per_s"] for row in matmuls)
    return {"device": str(device), "matmuls": matmuls, "copy": copy, "peak_flops": peak,
            "bandwidth": copy["bytes_per_s"], "ridge_point": peak / copy["bytes_per_s"]}
