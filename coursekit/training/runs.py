"""One rank's whole training run for each reference trainer: what `launch.run_ranks` starts in every rank.

Each returns the rank's parameters after the last step (gathered whole: every rank of these trainers holds
them), its losses, and the bytes of optimizer state and gradients it held after a backward pass, counted
from the tensors themselves.
"""
from __future__ import annotations

import time

import torch

from coursekit.nn.decoder import DecoderConfig
from coursekit.training.comm import Communicator
from coursekit.training.data import loss_of, shard
from coursekit.training.data_parallel import DataParallel
from coursekit.training.optim import AdamW
from coursekit.training.reference import fresh_model
from coursekit.training.zero import ShardedOptimizer


def _bytes(tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors if t is not None)


def data_parallel(comm: Communicator, config: DecoderConfig, batches: list[torch.Tensor], opt: AdamW,
                  seed: int = 0, bucket_bytes: int = 1 << 20) -> dict:
    model = fresh_model(config, seed)
    dp = DataParallel(model, comm, bucket_bytes)
    state = {name: opt.state(p) for name, p in model.named_parameters()}
    losses, grad_bytes, start = [], 0, time.perf_counter()
    for step, batch in enumerate(batches, 1):
        model.zero_grad(set_to_none=True)
        loss = loss_of(model, shard(batch, comm.rank, comm.world))
        dp.backward(loss)
        grad_bytes = max(grad_bytes, _bytes(p.grad for p in model.parameters()))
        for name, p in model.named_parameters():
            opt.update(p.data, p.grad, state[name], step)
        losses.append(loss.item())
    return {"params": {n: p.detach().clone() for n, p in model.named_parameters()}, "losses": losses,
            "state_bytes": _bytes(t for s in state.values() for t in s.values()), "grad_bytes": grad_bytes,
            "param_bytes": _bytes(model.parameters()), "buckets": len(dp.buckets),
            "seconds": time.perf_counter() - start}


def sharded(comm: Communicator, config: DecoderConfig, batches: list[torch.Tensor], opt: AdamW, seed: int = 0,
            stage: int = 1, bucket_bytes: int = 1 << 20) -> dict:
    model = fresh_model(config, seed)
    zero = ShardedOptimizer(model, comm, opt, stage, bucket_bytes)
    losses, grad_bytes, start = [], 0, time.perf_counter()
    for batch in batches:
        zero.zero_grad()
        loss = loss_of(model, shard(batch, comm.rank, comm.world))
        zero.backward(loss)
        grad_bytes = max(grad_bytes, _bytes(p.grad for p in model.parameters()) + _bytes(zero.grad_slices))
        zero.step()
        losses.append(loss.item())
    return {"params": {n: p.detach().clone() for n, p in model.named_parameters()}, "losses": losses,
            "state_bytes": zero.state_bytes(), "grad_bytes": grad_bytes, "param_bytes": _bytes(model.parameters()),
            "buckets": len(zero.buckets), "seconds": time.perf_counter() - start}
