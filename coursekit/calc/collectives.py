"""Measure all-reduce on this machine with torch.distributed and fit the alpha-beta model to it.

Two (or more) processes on loopback (127.0.0.1) all-reduce real tensors with the gloo backend; with
at least as many CUDA GPUs as processes the same code uses NCCL, one GPU per process. For a
p-process ring the model is T(M) = 2(p-1) alpha + 2(p-1)/p M / beta, a straight line in M, so a
least-squares line through the measurements gives alpha (from the intercept) and beta (from the slope).
"""
from __future__ import annotations

import os
import socket
import time

import torch


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loopback_usable() -> bool:
    """Whether local processes can meet on 127.0.0.1, so the lab measures, or skips its measurement instead
    of waiting `measure_allreduce`'s 120 s for workers that can never meet. Never under a grader
    (COURSE_GRADING, NBGRADER_EXECUTION): nothing graded reads a measurement, and the grading sandbox's
    network namespace has its loopback down. Binding 127.0.0.1 still works there (only connecting fails),
    so a bind alone said yes and the measurement cell timed out a submission (issue 36)."""
    if os.environ.get("COURSE_GRADING") or os.environ.get("NBGRADER_EXECUTION"):
        return False
    try:
        _free_port()
    except OSError:
        return False
    return _loopback_up()


def _loopback_up() -> bool:
    """Linux: the `lo` interface's IFF_UP flag, read without connecting (SIOCGIFFLAGS); elsewhere (no such
    ioctl, or the interface named lo0) taken as up."""
    try:
        import fcntl
        import struct

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            request = fcntl.ioctl(probe, 0x8913, struct.pack("256s", b"lo"))      # SIOCGIFFLAGS
        return bool(struct.unpack_from("H", request, 16)[0] & 0x1)              # IFF_UP
    except (ImportError, OSError):
        return True


def pick_backend(world_size: int) -> str:
    cuda = torch.cuda.is_available() and torch.cuda.device_count() >= world_size
    return "nccl" if cuda and os.environ.get("COURSE_DEVICE", "") != "cpu" else "gloo"


def _worker(rank: int, world_size: int, port: int, backend: str, sizes: list[int], repeats: int, queue) -> None:
    import torch.distributed as dist

    dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world_size,
                            timeout=__import__("datetime").timedelta(seconds=60))
    device = torch.device("cuda", rank) if backend == "nccl" else torch.device("cpu")
    try:
        rows = []
        for n_bytes in sizes:
            x = torch.ones(max(1, n_bytes // 4), dtype=torch.float32, device=device)
            dist.all_reduce(x)          # warm-up: connection set-up and buffer allocation
            times = []
            for _ in range(repeats):
                dist.barrier()
                if backend == "nccl":
                    torch.cuda.synchronize(device)
                start = time.perf_counter()
                dist.all_reduce(x)
                if backend == "nccl":
                    torch.cuda.synchronize(device)
                times.append(time.perf_counter() - start)
            # the sum of ones over the ranks: proof the reduction really happened
            correct = bool(torch.all(x == float(world_size) ** (repeats + 1)).item()) if world_size > 1 else True
            rows.append({"bytes": x.numel() * 4, "seconds": min(times), "correct": correct})
        if rank == 0:
            queue.put(rows)
    finally:
        dist.destroy_process_group()


def measure_allreduce(sizes: list[int], world_size: int = 2, repeats: int = 5, backend: str | None = None,
                      timeout_s: float = 120) -> dict:
    """All-reduce each size (bytes of FP32) among world_size local processes; the best of `repeats` runs."""
    import torch.multiprocessing as mp

    backend = backend or pick_backend(world_size)
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    port = _free_port()
    procs = [ctx.Process(target=_worker, args=(r, world_size, port, backend, list(sizes), repeats, queue), daemon=True)
             for r in range(world_size)]
    for p in procs:
        p.start()
    try:
        rows = queue.get(timeout=timeout_s)
    except Exception as exc:
        raise RuntimeError(f"coursekit/calc/collectives.py: the {backend} all-reduce among {world_size} processes "
                           f"gave no result within {timeout_s:.0f} s ({exc!r}); is 127.0.0.1 usable?") from exc
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.terminate()
    return {"backend": backend, "world_size": world_size, "rows": rows}


def fit_alpha_beta(message_bytes, seconds, world_size: int = 2) -> dict:
    """Line T = a + b M through the measurements, read as the ring model's alpha and beta.

    Weighted by 1/T^2 (least squares on relative error), so the microsecond-scale small messages that
    fix the intercept count as much as the large ones that fix the slope.
    """
    if len(message_bytes) < 2 or len(set(message_bytes)) < 2:
        raise ValueError("coursekit/calc/collectives.py: need at least two different message sizes to fit a line")
    w = [1 / t ** 2 for t in seconds]
    sw = sum(w)
    mean_m = sum(wi * m for wi, m in zip(w, message_bytes)) / sw
    mean_t = sum(wi * t for wi, t in zip(w, seconds)) / sw
    sxx = sum(wi * (m - mean_m) ** 2 for wi, m in zip(w, message_bytes))
    slope = sum(wi * (m - mean_m) * (t - mean_t) for wi, m, t in zip(w, message_bytes, seconds)) / sxx
    intercept = mean_t - slope * mean_m
    p = world_size
    return {"alpha_s": intercept / (2 * (p - 1)), "beta_bytes_s": 2 * (p - 1) / p / slope,
            "intercept_s": intercept, "slope_s_per_byte": slope}


def model_seconds(message_bytes: float, fit: dict) -> float:
    return fit["intercept_s"] + fit["slope_s_per_byte"] * message_bytes
