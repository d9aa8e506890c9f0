"""What every trainer shares: the model in float64, the batches, the loss, the optimizer, the buckets."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from coursekit.nn.decoder import DecoderConfig, TinyDecoder, build_model

BETAS, WEIGHT_DECAY = (0.9, 0.95), 0.1


def make_model(config: DecoderConfig, seed: int = 0) -> TinyDecoder:
    """Every rank builds the same weights from the seed, so no broadcast is needed at the start."""
    return build_model(config, seed=seed, dtype=torch.float64).train()


def make_batches(config: DecoderConfig, steps: int, batch: int, seq: int, seed: int = 1) -> list[torch.Tensor]:
    """`steps` global batches of random tokens [batch, seq + 1] (inputs [:, :-1], targets [:, 1:])."""
    g = torch.Generator().manual_seed(seed)
    return [torch.randint(0, config.vocab_size, (batch, seq + 1), generator=g) for _ in range(steps)]


def rows_of(batch: torch.Tensor, rank: int, world: int) -> torch.Tensor:
    if batch.shape[0] % world:
        raise ValueError(f"coursekit/training/setup.py: batch of {batch.shape[0]} rows does not split over {world} ranks")
    n = batch.shape[0] // world
    return batch[rank * n:(rank + 1) * n]


def loss_of(model: TinyDecoder, batch: torch.Tensor) -> torch.Tensor:
    """Mean next-token cross-entropy over the rows given."""
    logits = model(batch[:, :-1])
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))


def make_optimizer(params, lr: float) -> torch.optim.AdamW:
    # foreach=False: the per-tensor loop, so a shard's update is the same arithmetic as the whole's
    return torch.optim.AdamW(params, lr=lr, betas=BETAS, weight_decay=WEIGHT_DECAY, foreach=False)


def make_buckets(params: list[torch.nn.Parameter], bucket_bytes: int) -> list[list[torch.nn.Parameter]]:
    """Parameters in reverse order (the order backward produces their gradients), grouped into buckets of at
    most `bucket_bytes` (a parameter larger than that gets a bucket of its own), as PyTorch DDP does."""
    buckets, current, size = [], [], 0
    for p in reversed(params):
        nbytes = p.numel() * p.element_size()
        if current and size + nbytes > bucket_bytes:
            buckets.append(current)
            current, size = [], 0
        current.append(p)
        size += nbytes
    if current:
        buckets.append(current)
    return buckets


def full_parameters(model: TinyDecoder) -> dict[str, torch.Tensor]:
    return {name: p.detach().clone() for name, p in model.named_parameters()}
