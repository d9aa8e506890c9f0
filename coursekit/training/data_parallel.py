"""Milestone 1: data parallel, gradients all-reduced in buckets as backward fills them (Li et al., VLDB 2020).

Each rank runs forward and backward on its B/N rows. A hook on each parameter fires once its gradient
is fully accumulated; when every parameter of a bucket has fired, the bucket's gradients are copied into one
flat buffer, all-reduced (summed), divided by N once, and copied back. Buckets fill in reverse layer order,
so the last layers' all-reduce can run while earlier layers are still in backward (here it is synchronous:
gloo on one CPU has no second stream to overlap on; the counts are the same).
"""
from __future__ import annotations

import time

import torch

from coursekit.nn.decoder import DecoderConfig

from .comm import Communicator
from .memory import held_bytes
from .setup import (
    full_parameters,
    loss_of,
    make_buckets,
    make_model,
    make_optimizer,
    rows_of,
)


class BucketedAllReduce:
    def __init__(self, params, comm: Communicator, bucket_bytes: int):
        self.comm = comm
        self.buckets = make_buckets(list(params), bucket_bytes)
        self.bucket_of = {id(p): i for i, b in enumerate(self.buckets) for p in b}
        self.pending = [len(b) for b in self.buckets]
        for p in params:
            p.register_post_accumulate_grad_hook(self._grad_ready)

    def _grad_ready(self, p: torch.Tensor) -> None:
        i = self.bucket_of[id(p)]
        self.pending[i] -= 1
        if self.pending[i] == 0:
            self._flush(self.buckets[i])

    def _flush(self, bucket) -> None:
        flat = torch.cat([p.grad.reshape(-1) for p in bucket])
        self.comm.all_reduce(flat)
        flat /= self.comm.world  # the one and only averaging
        offset = 0
        for p in bucket:
            p.grad.copy_(flat[offset:offset + p.numel()].view_as(p.grad))
            offset += p.numel()

    def finish_step(self) -> None:
        if any(self.pending):
            raise RuntimeError(f"coursekit/training/data_parallel.py: buckets {[i for i, n in enumerate(self.pending) if n]}"
                               " never flushed (a parameter got no gradient)")
        self.pending = [len(b) for b in self.buckets]


def train_data_parallel(rank: int, world: int, comm: Communicator, config: DecoderConfig, batches: list,
                        steps: int, lr: float, bucket_bytes: int, seed: int = 0) -> dict:
    model = make_model(config, seed)
    params = list(model.parameters())
    reducer = BucketedAllReduce(params, comm, bucket_bytes)
    opt = make_optimizer(params, lr)
    started = time.perf_counter()
    for step in range(steps):
        opt.zero_grad(set_to_none=True)
        loss_of(model, rows_of(batches[step], rank, world)).backward()
        reducer.finish_step()
        opt.step()
    train_s = time.perf_counter() - started
    return {"params": full_parameters(model), "memory": held_bytes(model, opt), "train_s": train_s,
            "buckets": len(reducer.buckets)}
