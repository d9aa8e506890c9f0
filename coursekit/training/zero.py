"""Milestone 2 of Lab 7, the course's reference: a sharded optimizer, ZeRO stages 1 and 2.

Rajbhandari et al. (SC 2020): with N data-parallel ranks, each keeps the optimizer state of 1/N of the
parameters (stage 1), and also only the gradients of that 1/N (stage 2). The parameters live in one flat
buffer, cut into the same buckets data parallelism uses; each bucket is padded to a multiple of N and
rank r owns slice r of every bucket. A step is then: reduce-scatter each bucket's gradients (rank r
receives the sum of slice r: (N-1)/N of the bytes an all-reduce sends), average, update the owned slice
with its own AdamW moments, and all-gather the updated slices back into every rank's flat buffer (the
other (N-1)/N). Same traffic as an all-reduce, 1/N of the optimizer's memory.

Stage 1 keeps every parameter's full gradient until the step, then reduce-scatters. Stage 2
reduce-scatters each bucket from the backward hook as soon as its last gradient lands and frees the full
gradients at once: a rank holds one bucket of full gradients at a time, plus its 1/N slice.
"""
from __future__ import annotations

import math

import torch
from torch import nn

from coursekit.training.comm import Communicator
from coursekit.training.data_parallel import make_buckets
from coursekit.training.optim import AdamW


class ShardedOptimizer:
    def __init__(self, model: nn.Module, comm: Communicator, opt: AdamW, stage: int = 1,
                 bucket_bytes: int = 1 << 20):
        if stage not in (1, 2):
            raise ValueError(f"ZeRO stage {stage}: this trainer shards stage 1 or 2 (stage 3 shards parameters too)")
        self.comm, self.opt, self.stage = comm, opt, stage
        params = [p for p in model.parameters() if p.requires_grad]
        self.buckets = make_buckets(params, bucket_bytes)
        world, dtype = comm.world, params[0].dtype
        # bucket i occupies flat[starts[i]:starts[i] + lengths[i]], its length padded to a multiple of world
        self.lengths = [math.ceil(sum(p.numel() for p in b) / world) * world for b in self.buckets]
        self.starts = [sum(self.lengths[:i]) for i in range(len(self.buckets))]
        self.flat = torch.zeros(sum(self.lengths), dtype=dtype)
        for bucket, start in zip(self.buckets, self.starts):
            offset = start
            for p in bucket:                          # each parameter becomes a view into the flat buffer
                self.flat[offset:offset + p.numel()].copy_(p.data.reshape(-1))
                p.data = self.flat[offset:offset + p.numel()].view_as(p)
                offset += p.numel()
        self.grad_slices = [torch.zeros(n // world, dtype=dtype) for n in self.lengths]
        self.state = [opt.state(g) for g in self.grad_slices]     # 1/N of the moments
        self._bucket_of = {id(p): i for i, b in enumerate(self.buckets) for p in b}
        self._ready = [0] * len(self.buckets)
        self._scattered = 0
        self.step_count = 0
        if stage == 2:
            for p in params:
                p.register_post_accumulate_grad_hook(self._on_grad)

    def _owned(self, i: int) -> slice:
        piece = self.lengths[i] // self.comm.world
        start = self.starts[i] + self.comm.rank * piece
        return slice(start, start + piece)

    def _on_grad(self, p: nn.Parameter) -> None:
        i = self._bucket_of[id(p)]
        self._ready[i] += 1
        if self._ready[i] == len(self.buckets[i]):
            self._scatter(i)
            for q in self.buckets[i]:
                q.grad = None                         # stage 2: the full gradients go as soon as they are sent

    def _scatter(self, i: int) -> None:
        full = torch.zeros(self.lengths[i], dtype=self.flat.dtype)
        offset = 0
        for p in self.buckets[i]:
            full[offset:offset + p.numel()] = p.grad.reshape(-1)
            offset += p.numel()
        self.comm.reduce_scatter(self.grad_slices[i], full)
        self.grad_slices[i] /= self.comm.world
        self._scattered += 1

    def backward(self, loss: torch.Tensor) -> None:
        self._ready, self._scattered = [0] * len(self.buckets), 0
        loss.backward()
        if self.stage == 1:
            for i in range(len(self.buckets)):
                self._scatter(i)
        if self._scattered != len(self.buckets):
            raise RuntimeError("a bucket's gradients were never reduce-scattered: a parameter got no gradient")

    @torch.no_grad()
    def step(self) -> None:
        self.step_count += 1
        for i in range(len(self.buckets)):
            owned = self._owned(i)
            self.opt.update(self.flat[owned], self.grad_slices[i], self.state[i], self.step_count)
            bucket = self.flat[self.starts[i]:self.starts[i] + self.lengths[i]]
            self.comm.all_gather(bucket, bucket[owned.start - self.starts[i]:owned.stop - self.starts[i]].clone())

    def zero_grad(self) -> None:
        for bucket in self.buckets:
            for p in bucket:
                p.grad = None

    def state_bytes(self) -> int:
        """Bytes of optimizer state this rank holds (the moments of its slices)."""
        return sum(t.numel() * t.element_size() for s in self.state for t in s.values())
