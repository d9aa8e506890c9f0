"""A readable reference mixture-of-experts feed-forward layer, computed one token at a time.

Routing follows Mixtral (Jiang et al. 2024, arXiv:2401.04088) and Hugging Face's
`MixtralSparseMoeBlock`: softmax over all experts' router logits, keep the top-k probabilities,
renormalise them to sum to 1, and add the chosen experts' SwiGLU outputs weighted by them.
`renormalize=False` keeps the raw softmax probabilities instead: Switch Transformer's top-1 gate
(Fedus et al. 2022) and DeepSeek-V2 (arXiv:2405.04434; its config sets norm_topk_prob false).
DeepSeek-V3 differs (arXiv:2412.19437, eqs. 13-15, and its released inference code): it scores
experts with a sigmoid, normalises the selected gates to sum to 1, then multiplies them by
routed_scaling_factor = 2.5 (config.json); `sigmoid_top_k_gates` below computes that gate.

The per-token loop is deliberately slow and obvious: it is the ground truth that Lab 5's vectorised
dispatch must equal. Weights are laid out [expert, out, in] so they copy straight into
Hugging Face's Mixtral experts (gate_up_proj = cat(w_gate, w_up) along dim 1, down_proj = w_down).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class MoEConfig:
    d_model: int = 32
    d_ff: int = 64            # hidden size of each expert
    n_experts: int = 8
    top_k: int = 2
    renormalize: bool = True  # Mixtral: top-k weights sum to 1

    def __post_init__(self):
        if not 1 <= self.top_k <= self.n_experts:
            raise ValueError(f"coursekit/nn/moe.py MoEConfig: need 1 <= top_k <= n_experts, "
                             f"got top_k={self.top_k}, n_experts={self.n_experts}")


class MoELayer(nn.Module):
    def __init__(self, cfg: MoEConfig):
        super().__init__()
        self.config = cfg
        e, d, f = cfg.n_experts, cfg.d_model, cfg.d_ff
        self.router = nn.Linear(d, e, bias=False)         # weight [E, D]
        self.w_gate = nn.Parameter(torch.empty(e, f, d))
        self.w_up = nn.Parameter(torch.empty(e, f, d))
        self.w_down = nn.Parameter(torch.empty(e, d, f))

    def route(self, x: torch.Tensor):
        """x [T, D] -> router logits [T, E], top-k weights [T, k], expert indices [T, k]."""
        logits = self.router(x)
        probs = F.softmax(logits.float(), dim=-1)
        weights, indices = probs.topk(self.config.top_k, dim=-1)
        if self.config.renormalize:
            weights = weights / weights.sum(dim=-1, keepdim=True)
        return logits, weights.to(x.dtype), indices

    def expert(self, e: int, x: torch.Tensor) -> torch.Tensor:
        """SwiGLU expert e on x [..., D]."""
        return F.linear(F.silu(F.linear(x, self.w_gate[e])) * F.linear(x, self.w_up[e]), self.w_down[e])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x [T, D] (or [B, T, D]) -> same shape; one token and one chosen expert at a time."""
        shape = x.shape
        x = x.reshape(-1, shape[-1])
        _, weights, indices = self.route(x)
        y = torch.zeros_like(x)
        for t in range(x.shape[0]):
            for slot in range(self.config.top_k):
                e = int(indices[t, slot])
                y[t] += weights[t, slot] * self.expert(e, x[t])
        return y.reshape(shape)


def sigmoid_top_k_gates(logits: torch.Tensor, k: int, scale: float = 2.5):
    """DeepSeek-V3's gate without its load-balancing bias and group limit: logits [T, E] ->
    (weights [T, k] summing to `scale`, indices [T, k]). Sigmoid affinities, top-k, normalise, scale."""
    scores = torch.sigmoid(logits.float())
    weights, indices = scores.topk(k, dim=-1)
    return scale * weights / weights.sum(dim=-1, keepdim=True), indices


def build_moe(config: MoEConfig | None = None, seed: int = 0, dtype: torch.dtype = torch.float32) -> MoELayer:
    """An MoELayer with deterministic random weights N(0, 1/fan_in), so outputs stay O(1)."""
    config = config or MoEConfig()
    generator = torch.Generator().manual_seed(seed)
    layer = MoELayer(config)
    with torch.no_grad():
        for param in layer.parameters():
            param.copy_(torch.randn(param.shape, generator=generator) / math.sqrt(param.shape[-1]))
    return layer.to(dtype)


def expert_load(indices: torch.Tensor, n_experts: int) -> torch.Tensor:
    """Tokens routed to each expert (every top-k slot counts once): [E] int64."""
    return torch.bincount(indices.reshape(-1), minlength=n_experts)
