"""Milestone 2: ZeRO-1 and ZeRO-2 (Rajbhandari et al., SC 2020) on top of the data-parallel buckets.

Each bucket's parameters are viewed as one flat vector padded to a multiple of N and cut into N chunks;
rank r owns chunk r of every bucket: it alone keeps AdamW's two moments for it and updates it. A step is
reduce-scatter (each rank receives the summed gradient of its chunk), the owner's AdamW update, and an
all-gather of the updated chunks: the same (N-1)/N + (N-1)/N bytes as one ring all-reduce.
ZeRO-1 reduce-scatters after backward and so holds every gradient for the whole backward; ZeRO-2 does it from
the backward hook as each bucket fills and frees that bucket's gradients at once, keeping only its chunk.
"""
from __future__ import annotations

import os
import time

import torch

from coursekit.nn.decoder import DecoderConfig

from .checkpoint import load_shard, save_shard
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


class ShardedBucket:
    def __init__(self, params, comm: Communicator):
        self.params, self.comm = params, comm
        n = comm.world
        self.numel = sum(p.numel() for p in params)
        self.chunk = -(-self.numel // n)
        flat = self._flat([p.detach() for p in params])
        # the owned chunk, as its own leaf tensor: the only thing the optimizer sees
        self.shard = torch.nn.Parameter(flat[comm.rank * self.chunk:(comm.rank + 1) * self.chunk].clone())

    def _flat(self, tensors) -> torch.Tensor:
        flat = torch.cat([t.reshape(-1) for t in tensors])
        return torch.nn.functional.pad(flat, (0, self.chunk * self.comm.world - self.numel))

    def reduce_scatter_grads(self, free_grads: bool) -> None:
        full = self._flat([p.grad for p in self.params])
        grad = torch.empty_like(self.shard)
        self.comm.reduce_scatter(grad, full)
        self.shard.grad = grad / self.comm.world
        if free_grads:
            for p in self.params:
                p.grad = None

    def all_gather_params(self) -> None:
        full = torch.empty(self.chunk * self.comm.world, dtype=self.shard.dtype)
        self.comm.all_gather(full, self.shard.detach())
        offset = 0
        with torch.no_grad():
            for p in self.params:
                p.copy_(full[offset:offset + p.numel()].view_as(p))
                offset += p.numel()


def train_zero(rank: int, world: int, comm: Communicator, config: DecoderConfig, batches: list, steps: int,
               lr: float, bucket_bytes: int, stage: int = 1, seed: int = 0, checkpoint_dir: str | None = None,
               crash: tuple[int, int] | None = None) -> dict:
    """`checkpoint_dir`: save each rank's shard after every step and resume from it if present (the steps
    it covers are skipped). `crash=(rank, step)`: that rank dies abruptly after saving that step (tests)."""
    if stage not in (1, 2):
        raise ValueError(f"coursekit/training/zero.py: stage must be 1 or 2, got {stage}")
    model = make_model(config, seed)
    params = list(model.parameters())
    buckets = [ShardedBucket(b, comm) for b in make_buckets(params, bucket_bytes)]
    bucket_of = {id(p): b for b in buckets for p in b.params}
    pending = {id(b): len(b.params) for b in buckets}
    if stage == 2:
        def grad_ready(p):
            b = bucket_of[id(p)]
            pending[id(b)] -= 1
            if pending[id(b)] == 0:
                b.reduce_scatter_grads(free_grads=True)
        for p in params:
            p.register_post_accumulate_grad_hook(grad_ready)
    opt = make_optimizer([b.shard for b in buckets], lr)
    first_step = 0
    saved = load_shard(checkpoint_dir, rank, world) if checkpoint_dir else None
    if saved is not None:
        with torch.no_grad():
            for b, shard in zip(buckets, saved["shards"]):
                b.shard.copy_(shard)
        opt.load_state_dict(saved["optimizer"])
        for b in buckets:
            b.all_gather_params()
        first_step = saved["step"] + 1
    started = time.perf_counter()
    for step in range(first_step, steps):
        for p in params:
            p.grad = None
        loss_of(model, rows_of(batches[step], rank, world)).backward()
        if stage == 1:
            for b in buckets:
                b.reduce_scatter_grads(free_grads=False)
        elif any(pending.values()):
            raise RuntimeError("coursekit/training/zero.py: a bucket was never reduce-scattered")
        pending.update({id(b): len(b.params) for b in buckets})
        opt.step()
        for b in buckets:
            b.all_gather_params()
        if checkpoint_dir:
            save_shard(checkpoint_dir, rank, world, step, [b.shard for b in buckets], opt)
        if crash == (rank, step):
            os._exit(17)  # as a killed process: no cleanup, no message
    train_s = time.perf_counter() - started
    memory = held_bytes(model, opt)
    memory["shard_params"] = sum(b.shard.numel() * 8 for b in buckets)
    return {"params": full_parameters(model), "memory": memory, "buckets": len(buckets), "train_s": train_s,
            "total_padded": sum(b.chunk * world for b in buckets)}
