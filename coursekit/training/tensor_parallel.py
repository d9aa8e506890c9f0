"""Milestone 3: one decoder block split over N ranks as Megatron-LM does (Shoeybi et al. 2019, section 3).

Column-parallel: q/k/v and gate/up keep the output rows of rank r (its attention heads, its slice of d_ff).
Row-parallel: o_proj and down_proj keep the matching input columns, so each rank's output is a partial sum.
Two conjugate operators join them: f (identity forward, all-reduce of the input gradient backward) before the
column-parallel pair, g (all-reduce forward, identity backward) after the row-parallel one. One of each per
sub-layer: 2 all-reduces forward and 2 backward per block, of [B, T, D] activations.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from coursekit.nn.decoder import DecoderLayer, apply_rope

from .comm import Communicator


class _CopyToRanks(torch.autograd.Function):   # Megatron's f
    @staticmethod
    def forward(ctx, x, comm):
        ctx.comm = comm
        return x

    @staticmethod
    def backward(ctx, grad):
        return ctx.comm.all_reduce(grad.contiguous().clone()), None


class _SumOverRanks(torch.autograd.Function):  # Megatron's g
    @staticmethod
    def forward(ctx, x, comm):
        return comm.all_reduce(x.contiguous().clone())

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def _rows(weight: torch.Tensor, rank: int, world: int) -> torch.nn.Parameter:
    n = weight.shape[0] // world
    return torch.nn.Parameter(weight.detach()[rank * n:(rank + 1) * n].clone())


def _cols(weight: torch.Tensor, rank: int, world: int) -> torch.nn.Parameter:
    n = weight.shape[1] // world
    return torch.nn.Parameter(weight.detach()[:, rank * n:(rank + 1) * n].clone())


class TensorParallelBlock(torch.nn.Module):
    """Rank `comm.rank`'s part of `layer` (a coursekit.nn DecoderLayer); norms are replicated."""

    def __init__(self, layer: DecoderLayer, comm: Communicator):
        super().__init__()
        attn, mlp, n, r = layer.self_attn, layer.mlp, comm.world, comm.rank
        if attn.n_kv_heads % n or mlp.gate_proj.out_features % n:
            raise ValueError(f"coursekit/training/tensor_parallel.py: {attn.n_kv_heads} KV heads and d_ff="
                             f"{mlp.gate_proj.out_features} must both divide over {n} ranks")
        self.comm, self.head_dim = comm, attn.head_dim
        self.n_heads, self.n_kv_heads = attn.n_heads // n, attn.n_kv_heads // n
        self.input_layernorm, self.post_attention_layernorm = layer.input_layernorm, layer.post_attention_layernorm
        self.q, self.k, self.v = (_rows(lin.weight, r, n) for lin in (attn.q_proj, attn.k_proj, attn.v_proj))
        self.o = _cols(attn.o_proj.weight, r, n)
        self.gate, self.up = _rows(mlp.gate_proj.weight, r, n), _rows(mlp.up_proj.weight, r, n)
        self.down = _cols(mlp.down_proj.weight, r, n)
        self.register_buffer("rope_cos", attn.rope_cos, persistent=False)
        self.register_buffer("rope_sin", attn.rope_sin, persistent=False)

    def attention(self, h: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        b, t, _ = h.shape
        h = _CopyToRanks.apply(h, self.comm)
        q = F.linear(h, self.q).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = F.linear(h, self.k).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = F.linear(h, self.v).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        cos, sin = self.rope_cos[positions], self.rope_sin[positions]
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        group = self.n_heads // self.n_kv_heads
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        causal = torch.ones(t, t, dtype=torch.bool).triu(1)
        out = F.softmax(scores.masked_fill(causal, float("-inf")), dim=-1) @ v
        partial = F.linear(out.transpose(1, 2).reshape(b, t, self.n_heads * self.head_dim), self.o)
        return _SumOverRanks.apply(partial, self.comm)

    def mlp(self, h: torch.Tensor) -> torch.Tensor:
        h = _CopyToRanks.apply(h, self.comm)
        return _SumOverRanks.apply(F.linear(F.silu(F.linear(h, self.gate)) * F.linear(h, self.up), self.down), self.comm)

    def forward(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.input_layernorm(x), positions)
        return x + self.mlp(self.post_attention_layernorm(x))


def run_tensor_parallel_block(rank: int, world: int, comm: Communicator, layer: DecoderLayer,
                              x: torch.Tensor, upstream: torch.Tensor) -> dict:
    """Forward and backward of rank's share of `layer` on input x with output gradient `upstream`; the
    output, input gradient and shard gradients, and the all-reduces of each direction counted apart."""
    block = TensorParallelBlock(layer, comm)
    x = x.clone().requires_grad_(True)
    out = block(x, torch.arange(x.shape[1]))
    forward_calls = comm.counts["all_reduce"].calls
    out.backward(upstream)
    return {"out": out.detach(), "x_grad": x.grad,
            "grads": {name: p.grad for name, p in block.named_parameters()},
            "forward_all_reduces": forward_calls,
            "backward_all_reduces": comm.counts["all_reduce"].calls - forward_calls}
