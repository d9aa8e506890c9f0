"""The training data of Module 7's trainers: random token sequences, the same for every rank and run.

A global batch of B sequences is what single-process training sees at one step; data parallelism gives
rank r the rows r*B/N .. (r+1)*B/N - 1 (`shard`), so the mean of the ranks' mean losses is the global
mean loss, and the averaged gradients are the single-process gradients.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from coursekit.nn.decoder import TinyDecoder


def batches(vocab: int, steps: int, global_batch: int, seq_len: int, seed: int = 0) -> list[torch.Tensor]:
    """`steps` LongTensors [global_batch, seq_len + 1]: inputs and their next-token targets."""
    g = torch.Generator().manual_seed(seed)
    return [torch.randint(0, vocab, (global_batch, seq_len + 1), generator=g) for _ in range(steps)]


def shard(batch: torch.Tensor, rank: int, world: int) -> torch.Tensor:
    if batch.shape[0] % world:
        raise ValueError(f"a global batch of {batch.shape[0]} sequences does not split over {world} ranks")
    rows = batch.shape[0] // world
    return batch[rank * rows:(rank + 1) * rows]


def loss_of(model: TinyDecoder, batch: torch.Tensor) -> torch.Tensor:
    """Mean next-token cross-entropy of `batch` [B, T + 1]."""
    logits = model(batch[:, :-1])
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
