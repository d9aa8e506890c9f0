"""The course's published measurements of its reference engine, for a learner to set their own beside.

Recorded by `benchmarks/bench_serving.py` (benchmarks/RESULTS.md, "32 concurrent requests", 2026-11-27
09:39-09:43 UTC): the course's target/draft pair (0.85M parameters, float32), 96 ShareGPT-like requests
with 32 in flight, on a shared 2-core CPU. Throughput ratios to the naive engine (one request at a time),
median over 3 repeats, each request's tokens identical to the naive engine's.
"""
from __future__ import annotations

SOURCE = "benchmarks/RESULTS.md (bench_serving.py, 32 concurrent requests, 2 CPU cores, 2026-11-27)"
REFERENCE_X_NAIVE = {1: 0.99, 2: 7.52, 3: 7.74, 4: 7.22}   # milestone -> tokens/s over the naive engine's


def published_line(milestone: int) -> str:
    return (f"the course's reference at milestone {milestone}: {REFERENCE_X_NAIVE[milestone]:.2f}x the naive engine "
            f"with 32 requests in flight on 2 CPU cores ({SOURCE})")
