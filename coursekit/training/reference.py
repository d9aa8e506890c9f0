"""Single-process training: the ground truth every parallel trainer of Module 7 must equal.

The course's small decoder (coursekit/nn) in float64, built from the same seed on every rank, trained
on whole global batches with optimizer.AdamW. `train_single` returns its parameters after the last step;
docs/TRAINING.md's "identical" rule compares a parallel run's parameters with these.
"""
from __future__ import annotations

import torch

from coursekit.nn.decoder import DecoderConfig, TinyDecoder, build_model
from coursekit.training.data import loss_of
from coursekit.training.optim import AdamW


def fresh_model(config: DecoderConfig, seed: int = 0) -> TinyDecoder:
    """The same float64 model on every rank (the weights are drawn portably: coursekit/nn/init.py)."""
    return build_model(config, seed=seed, dtype=torch.float64).train()


def train_single(config: DecoderConfig, batches: list[torch.Tensor], opt: AdamW = AdamW(),
                 seed: int = 0) -> tuple[dict[str, torch.Tensor], list[float]]:
    """(parameters by name after every step, the loss at each step)."""
    model = fresh_model(config, seed)
    state = {name: opt.state(p) for name, p in model.named_parameters()}
    losses = []
    for step, batch in enumerate(batches, 1):
        model.zero_grad(set_to_none=True)
        loss = loss_of(model, batch)
        loss.backward()
        for name, p in model.named_parameters():
            opt.update(p.data, p.grad, state[name], step)
        losses.append(loss.item())
    return {name: p.detach().clone() for name, p in model.named_parameters()}, losses


def max_relative_difference(got: dict[str, torch.Tensor], want: dict[str, torch.Tensor]) -> float:
    """The largest |got - want| / max(|want|, 1) over every parameter element (names must match)."""
    if set(got) != set(want):
        raise ValueError(f"parameters differ in name: missing {sorted(set(want) - set(got))[:3]}, "
                         f"extra {sorted(set(got) - set(want))[:3]}")
    worst = 0.0
    for name, w in want.items():
        g = got[name]
        if g.shape != w.shape:
            raise ValueError(f"{name}: shape {tuple(g.shape)}, the reference's is {tuple(w.shape)}")
        worst = max(worst, ((g.double() - w.double()).abs() / w.double().abs().clamp(min=1.0)).max().item())
    return worst
