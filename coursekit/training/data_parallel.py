"""Milestone 1 of Lab 7, the course's reference: data parallelism with bucketed gradient all-reduce.

Every rank holds the whole model and trains on its slice of the global batch (data.shard). Gradients are
summed across ranks in buckets of about `bucket_bytes`, as PyTorch DDP does (Li et al., VLDB 2020): the
parameters are grouped in reverse order of definition (about the order backward produces their
gradients), a hook on each parameter counts it ready once its gradient is accumulated, and the bucket's
all-reduce is launched from that hook as soon as the bucket's last gradient lands, while backward goes on
with earlier layers. (Here the all-reduce is synchronous, so it does not yet overlap the rest of backward;
DDP's asynchronous handles are the next step the lesson measures.) Dividing the sum by the world size
gives the mean over the global batch, so the update equals single-process training's.
"""
from __future__ import annotations

import torch
from torch import nn

from coursekit.training.comm import Communicator


def make_buckets(params: list[nn.Parameter], bucket_bytes: int) -> list[list[nn.Parameter]]:
    """Parameters in reverse order, cut into buckets of at least `bucket_bytes` (the last may be smaller)."""
    buckets, current, size = [], [], 0
    for p in reversed(params):
        current.append(p)
        size += p.numel() * p.element_size()
        if size >= bucket_bytes:
            buckets.append(current)
            current, size = [], 0
    if current:
        buckets.append(current)
    return buckets


class DataParallel:
    """Wraps a replicated model: `backward(loss)` leaves every rank with the global mean gradient."""

    def __init__(self, model: nn.Module, comm: Communicator, bucket_bytes: int = 1 << 20):
        self.model, self.comm = model, comm
        self.buckets = make_buckets([p for p in model.parameters() if p.requires_grad], bucket_bytes)
        self._bucket_of = {id(p): i for i, bucket in enumerate(self.buckets) for p in bucket}
        self._ready = [0] * len(self.buckets)
        self._flushed = 0
        for p in model.parameters():
            if p.requires_grad:
                p.register_post_accumulate_grad_hook(self._on_grad)

    def _on_grad(self, p: nn.Parameter) -> None:
        i = self._bucket_of[id(p)]
        self._ready[i] += 1
        if self._ready[i] == len(self.buckets[i]):
            self._flush(i)

    def _flush(self, i: int) -> None:
        bucket = self.buckets[i]
        flat = torch.cat([p.grad.reshape(-1) for p in bucket])
        self.comm.all_reduce(flat)
        flat /= self.comm.world
        offset = 0
        for p in bucket:
            p.grad.copy_(flat[offset:offset + p.numel()].view_as(p))
            offset += p.numel()
        self._flushed += 1

    def backward(self, loss: torch.Tensor) -> None:
        self._ready, self._flushed = [0] * len(self.buckets), 0
        loss.backward()
        if self._flushed != len(self.buckets):
            stuck = [i for i, n in enumerate(self._ready) if n < len(self.buckets[i])]
            raise RuntimeError(f"buckets {stuck} were never flushed: a parameter got no gradient this step")
