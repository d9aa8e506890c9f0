"""Milestone 5: a sharded checkpoint. Each rank writes only what it owns (its parameter shards, their AdamW
state, the step), so a save costs 1/N of the state per rank and no communication; a restart loads the shards
and all-gathers the full parameters, then resumes at the saved step's batch."""
from __future__ import annotations

import os
from pathlib import Path

import torch


def shard_path(directory: str | os.PathLike, rank: int, world: int) -> Path:
    return Path(directory) / f"shard-{rank}-of-{world}.pt"


def save_shard(directory, rank: int, world: int, step: int, shards: list, optimizer) -> None:
    """Written to a temporary name and renamed: a rank killed mid-write leaves the previous checkpoint whole."""
    path = shard_path(directory, rank, world)
    tmp = path.with_suffix(".tmp")
    torch.save({"step": step, "shards": [t.detach().clone() for t in shards],
                "optimizer": optimizer.state_dict()}, tmp)
    os.replace(tmp, path)


def load_shard(directory, rank: int, world: int) -> dict | None:
    path = shard_path(directory, rank, world)
    return torch.load(path, weights_only=True) if path.exists() else None
