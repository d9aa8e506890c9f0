"""The rule by which a parallel trainer's parameters are "identical" to single-process training.

float64 on CPU; reductions reorder sums, so equality is up to a tolerance derived from the reduction
(docs/TRAINING.md): max |p - r| <= C * N * steps * eps64 * max(1, max |r|), per parameter tensor.
A right trainer lands near 1e-14; averaging twice, a lost bucket or a wrong shard is off by 1e-6 or more.
"""
from __future__ import annotations

import torch

C = 1024
EPS64 = torch.finfo(torch.float64).eps


def tolerance(world: int, steps: int, reference: torch.Tensor) -> float:
    return C * world * steps * EPS64 * max(1.0, reference.abs().max().item())


def differences(params: dict, reference: dict, world: int, steps: int) -> list[str]:
    """Names of the parameters outside the rule, each with its difference and bound; empty when identical."""
    problems = []
    for name, ref in reference.items():
        if name not in params:
            problems.append(f"{name}: missing")
            continue
        diff = (params[name] - ref).abs().max().item()
        bound = tolerance(world, steps, ref)
        if not diff <= bound:  # `not <=` so a NaN counts as different
            problems.append(f"{name}: differs by {diff:.3g} > {bound:.3g}")
    return problems
