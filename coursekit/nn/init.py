"""Random tensors that are the same on every CPU.

`torch.randn` in float32 takes a vectorised Box-Muller path whose log/sin/cos round differently with
AVX2, AVX-512 and the portable kernels (`ATEN_CPU_CAPABILITY=default`), so a model "built from seed 11"
had weights a few ulps apart from one machine to the next. Drawing in float64 takes torch's scalar path,
which gives the same bits everywhere; casting to the target dtype then rounds any last-bit difference
away. The decoder (Lab 3, Module 3) builds its weights here; Lab 5's visible expectations are literals
in its spec, checked within tolerance on every kernel set (tests/house/test_portable_floats.py).
"""
from __future__ import annotations

import torch


def portable_randn(*shape: int, generator: torch.Generator, scale: float = 1.0) -> torch.Tensor:
    """float32 N(0, scale^2) of `shape`: the same bits on every CPU and thread count for the same
    generator state. A float64 computation casts these up exactly, so it sees the same inputs."""
    draw = torch.randn(*shape, generator=generator, dtype=torch.float64)
    return (draw * scale).to(torch.float32)
