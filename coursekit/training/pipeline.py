"""Milestone 4: pipeline parallel, the 1F1B schedule of PipeDream-Flush (Narayanan et al., SC 2021).

Rank s holds stage s: a contiguous run of layers (stage 0 also the embedding, the last stage the final
norm, the head and the loss). The global batch is cut into m micro-batches. Stage s first runs
min(p-s-1, m) forwards (warm-up), then alternates one forward and one backward, then drains the remaining
backwards: at most p-s micro-batches' activations are alive at once, not m as in GPipe. Activations go
forward and their gradients back by send/recv. Idle time is what each stage spends blocked in recv;
the schedule's bubble is (p-1)/(m+p-1) of the step when every forward and backward costs the same.
"""
from __future__ import annotations

import time

import torch
import torch.nn.functional as F

from coursekit.nn.decoder import DecoderConfig

from .comm import Communicator
from .memory import held_bytes
from .setup import make_model, make_optimizer


def stage_layers(n_layers: int, stages: int, s: int) -> range:
    per, extra = divmod(n_layers, stages)
    start = s * per + min(s, extra)
    return range(start, start + per + (s < extra))


def train_pipeline(rank: int, world: int, comm: Communicator, config: DecoderConfig, batches: list, steps: int,
                   lr: float, micro_batches: int, seed: int = 0) -> dict:
    p, s, m = world, rank, micro_batches
    first, last = s == 0, s == p - 1
    model = make_model(config, seed)
    mine = stage_layers(config.n_layers, p, s)
    keep = {f"layers.{i}." for i in mine} | ({"embed."} if first else set()) | ({"norm.", "lm_head."} if last else set())
    params = {n: q for n, q in model.named_parameters() if any(n.startswith(k) for k in keep)}
    for n, q in model.named_parameters():
        if n not in params:
            q.data = torch.empty(0, dtype=q.dtype)  # another stage's: this rank does not hold it
    opt = make_optimizer(params.values(), lr)
    busy = total = 0.0

    def forward(x_or_tokens, targets):
        positions = torch.arange(targets.shape[1])
        x = model.embed(x_or_tokens) if first else x_or_tokens
        for i in mine:
            x = model.layers[i](x, positions)
        if not last:
            return x
        logits = model.lm_head(model.norm(x))
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)) / m

    started = time.perf_counter()
    for step in range(steps):
        t_step = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        batch = batches[step]
        rows = batch.shape[0] // m
        micro = [batch[i * rows:(i + 1) * rows] for i in range(m)]
        shape = (rows, batch.shape[1] - 1, config.d_model)
        inputs, outputs = {}, {}
        warmup = min(p - s - 1, m)
        order = ["F"] * warmup + ["F", "B"] * (m - warmup) + ["B"] * warmup
        f_next = b_next = 0
        for kind in order:
            if kind == "F":
                i, f_next = f_next, f_next + 1
                tokens, targets = micro[i][:, :-1], micro[i][:, 1:]
                if first:
                    x = tokens
                else:
                    x = comm.recv(torch.empty(shape, dtype=torch.float64), s - 1).requires_grad_(True)
                t0 = time.perf_counter()
                out = forward(x, targets)
                busy += time.perf_counter() - t0
                inputs[i], outputs[i] = x, out
                if not last:
                    comm.send(out, s + 1)
            else:
                i, b_next = b_next, b_next + 1
                grad = None if last else comm.recv(torch.empty(shape, dtype=torch.float64), s + 1)
                t0 = time.perf_counter()
                outputs.pop(i).backward(grad)
                busy += time.perf_counter() - t0
                x = inputs.pop(i)
                if not first:
                    comm.send(x.grad, s - 1)
        comm.wait_sends()
        opt.step()
        total += time.perf_counter() - t_step
    return {"params": {n: q.detach().clone() for n, q in params.items()}, "memory": held_bytes(model, opt),
            "train_s": time.perf_counter() - started, "busy_s": busy, "step_s": total,
            "bubble": 1 - busy / total}
