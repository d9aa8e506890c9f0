"""Milestone 0, the reference every check compares to: the whole global batch in one process."""
from __future__ import annotations

import time

from coursekit.nn.decoder import DecoderConfig

from .setup import full_parameters, loss_of, make_model, make_optimizer


def train_single(config: DecoderConfig, batches: list, steps: int, lr: float, seed: int = 0,
                 timing: dict | None = None) -> dict:
    """Parameters after `steps` AdamW steps on the whole batch; `timing["train_s"]` set if a dict is given."""
    model = make_model(config, seed)
    opt = make_optimizer(model.parameters(), lr)
    started = time.perf_counter()
    for step in range(steps):
        opt.zero_grad(set_to_none=True)
        loss_of(model, batches[step]).backward()
        opt.step()
    if timing is not None:
        timing["train_s"] = time.perf_counter() - started
    return full_parameters(model)
