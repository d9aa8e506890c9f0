"""The "identical" rule of Lab 7 (docs/TRAINING.md): how close a parallel run's parameters must be to
single-process training's.

Every trainer runs in float64 on the CPU and updates with the same AdamW code (optim.py). What still
differs is the order of additions: the ranks' gradients are summed by a collective, in an order of its
own, where one process sums a whole batch. Each reordered float64 sum can differ by a few units in the
last place (2^-52 = 2.2e-16, relative); the difference passes through each step, and AdamW's update,
lr x m / sqrt(v), is insensitive to a relative error in the gradient to first order, except where a
gradient element is a near-cancelling sum (its error is then relative to the summands, not to it). So the
rule allows `IDENTICAL_RTOL` per rank per step: |got - want| <= tolerance x max(|want|, 1) for every
parameter element. Measured: 2.3e-15 (2 ranks) and 2.8e-15 (4 ranks) after 3 steps of the tests' 45K-
parameter decoder, 2.3e-13 and 2.7e-13 after 4 steps of the benchmark's 0.13M-parameter one (cancellation
shows there), at least 1,000 times under the bound; a trainer that averages twice is off by 5.6e-4, five
orders of magnitude over it.
"""
from __future__ import annotations

IDENTICAL_RTOL = 1e-10          # per rank per step: ~450,000 float64 ulps, for near-cancelling sums


def tolerance(world: int, steps: int) -> float:
    return IDENTICAL_RTOL * world * steps
