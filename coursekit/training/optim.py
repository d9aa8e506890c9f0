"""AdamW (Loshchilov & Hutter, ICLR 2019) written once, elementwise, for every trainer of Module 7.

The single-process reference and every parallel trainer (whole tensors, flat shards, one stage's layers)
update with this one function, so the only difference left between them is the order in which the
ranks' gradients were summed: what the "identical" rule of docs/TRAINING.md allows for.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class AdamW:
    lr: float = 1e-2
    beta1: float = 0.9
    beta2: float = 0.95
    eps: float = 1e-8
    weight_decay: float = 0.1

    def state(self, like: torch.Tensor) -> dict[str, torch.Tensor]:
        """The two moments for a parameter (or a shard of one): 2 x its bytes, the optimizer's memory."""
        return {"m": torch.zeros_like(like), "v": torch.zeros_like(like)}

    @torch.no_grad()
    def update(self, param: torch.Tensor, grad: torch.Tensor, state: dict[str, torch.Tensor], step: int) -> None:
        """One AdamW step (step counts from 1) on `param` in place."""
        m, v = state["m"], state["v"]
        m.mul_(self.beta1).add_(grad, alpha=1 - self.beta1)
        v.mul_(self.beta2).addcmul_(grad, grad, value=1 - self.beta2)
        m_hat = m / (1 - self.beta1 ** step)
        v_hat = v / (1 - self.beta2 ** step)
        param.mul_(1 - self.lr * self.weight_decay)
        param.addcdiv_(m_hat, v_hat.sqrt().add_(self.eps), value=-self.lr)
