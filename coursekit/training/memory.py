"""Bytes a rank holds, measured from its tensors (not from anything the trainer reports)."""
from __future__ import annotations

import gc
import warnings

import torch


def _storage_bytes(tensors) -> int:
    seen, total = set(), 0
    for t in tensors:
        if t is None or not isinstance(t, torch.Tensor):
            continue
        s = t.untyped_storage()
        if s.data_ptr() in seen or s.nbytes() == 0:
            continue
        seen.add(s.data_ptr())
        total += s.nbytes()
    return total


def optimizer_state_tensors(optimizer: torch.optim.Optimizer) -> list[torch.Tensor]:
    return [v for state in optimizer.state.values() for v in state.values()
            if isinstance(v, torch.Tensor) and v.numel() > 1]  # the 1-element `step` counters are not state


def held_bytes(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> dict[str, int]:
    """Parameters, gradients and optimizer state of this rank, each counted once per storage, and every
    tensor alive in the process (a gc scan), which a full copy hidden elsewhere cannot escape."""
    params = list(model.parameters())
    with warnings.catch_warnings():  # isinstance probes deprecated torch aliases that warn
        warnings.simplefilter("ignore")
        alive = [o for o in gc.get_objects() if isinstance(o, torch.Tensor)]
    return {"params": _storage_bytes(params),
            "grads": _storage_bytes(p.grad for p in params),
            "optimizer_state": _storage_bytes(optimizer_state_tensors(optimizer)),
            "all_tensors": _storage_bytes(alive)}
