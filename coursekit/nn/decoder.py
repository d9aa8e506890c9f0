"""The course's small decoder-only transformer, deliberately WITHOUT a KV cache.

Architecture follows Llama (Touvron et al. 2023, arXiv:2302.13971 and 2307.09288): pre-norm
blocks with RMSNorm (Zhang & Sennrich 2019), rotary position embeddings (Su et al. 2021,
arXiv:2104.09864, "rotate-half" layout as in Hugging Face's Llama), grouped-query attention
(Ainslie et al. 2023, arXiv:2305.13245) and a SwiGLU feed-forward block (Shazeer 2020). Module
names match Hugging Face `LlamaForCausalLM` so weights can be copied across for reference checks.

Every forward pass recomputes every position: that is the baseline Lab 3 speeds up. The per-layer
pieces are public so a cache can be added without rewriting the model:

    x = model.embed(tokens)                                  # [B, T, D]
    for layer in model.layers:
        h = layer.input_layernorm(x)
        q, k, v = layer.self_attn.project_qkv(h, positions)   # RoPE already applied to q and k
        # ... a cache would concatenate earlier k, v here (along dim 2) ...
        x = x + layer.self_attn.attend(q, k, v, q_start=positions[0])
        x = x + layer.mlp(layer.post_attention_layernorm(x))
    logits = model.lm_head(model.norm(x))
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from .init import portable_randn


@dataclass(frozen=True)
class DecoderConfig:
    vocab_size: int = 256
    d_model: int = 128
    n_layers: int = 4
    n_heads: int = 4
    n_kv_heads: int = 2          # == n_heads: multi-head attention; 1: multi-query; between: GQA
    d_ff: int = 384
    max_seq_len: int = 1024
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5

    def __post_init__(self):
        problems = []
        if self.d_model % self.n_heads:
            problems.append(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")
        if self.n_heads % self.n_kv_heads:
            problems.append(f"n_heads={self.n_heads} is not a multiple of n_kv_heads={self.n_kv_heads}")
        if (self.d_model // max(self.n_heads, 1)) % 2:
            problems.append("head size must be even for rotary embeddings")
        if problems:
            raise ValueError("coursekit/nn/decoder.py DecoderConfig: " + "; ".join(problems))

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads


def _at_least_float32(dtype: torch.dtype) -> torch.dtype:
    """float32 for half-precision runs; float64 stays float64 (portable expected values, autograder)."""
    return torch.promote_types(dtype, torch.float32)


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Normalise in (at least) float32 as Llama does, so low-precision runs keep the same statistics.
        x32 = x.to(_at_least_float32(x.dtype))
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x32.to(x.dtype)


def rope_tables(head_dim: int, max_seq_len: int, theta: float) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin tables [max_seq_len, head_dim] in the rotate-half layout, float32.

    Computed in float64 and rounded: float32 cos/sin are vectorised differently per CPU (AVX2, AVX-512,
    the portable kernels), and the tables must be the same bits everywhere (coursekit/nn/init.py)."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
    angles = torch.outer(torch.arange(max_seq_len, dtype=torch.float64), inv_freq)
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos().float(), angles.sin().float()


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate x [B, H, T, hd] by the angles of its positions (cos/sin: [T, hd])."""
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos.to(x.dtype) + rotated * sin.to(x.dtype)


class Attention(nn.Module):
    def __init__(self, cfg: DecoderConfig):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = cfg.n_heads, cfg.n_kv_heads, cfg.head_dim
        self.q_proj = nn.Linear(cfg.d_model, cfg.n_heads * cfg.head_dim, bias=False)
        self.k_proj = nn.Linear(cfg.d_model, cfg.n_kv_heads * cfg.head_dim, bias=False)
        self.v_proj = nn.Linear(cfg.d_model, cfg.n_kv_heads * cfg.head_dim, bias=False)
        self.o_proj = nn.Linear(cfg.n_heads * cfg.head_dim, cfg.d_model, bias=False)
        cos, sin = rope_tables(cfg.head_dim, cfg.max_seq_len, cfg.rope_theta)
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)

    def project_qkv(self, x: torch.Tensor, positions: torch.Tensor):
        """x [B, T, D] at absolute `positions` [T] -> q [B, H, T, hd], k and v [B, Hkv, T, hd].

        RoPE is applied here, so cached keys never need rotating again.
        """
        b, t, _ = x.shape
        if positions.numel() != t:
            raise ValueError(f"coursekit/nn/decoder.py: got {positions.numel()} positions for {t} tokens")
        if int(positions.max()) >= self.rope_cos.shape[0]:
            raise ValueError(f"coursekit/nn/decoder.py: position {int(positions.max())} is beyond "
                             f"max_seq_len={self.rope_cos.shape[0]}; build the model with a larger max_seq_len")
        q = self.q_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        cos, sin = self.rope_cos[positions], self.rope_sin[positions]
        return apply_rope(q, cos, sin), apply_rope(k, cos, sin), v

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, q_start: int = 0) -> torch.Tensor:
        """Causal attention of queries at positions q_start.. over keys at positions 0..Tk-1.

        q [B, H, Tq, hd]; k, v [B, Hkv, Tk, hd] (all earlier positions, e.g. from a cache).
        Returns the block's attention output after o_proj, [B, Tq, D].
        """
        b, _, tq, _ = q.shape
        tk = k.shape[2]
        group = self.n_heads // self.n_kv_heads
        if group > 1:  # each KV head serves `group` query heads: the memory GQA saves
            k = k.repeat_interleave(group, dim=1)
            v = v.repeat_interleave(group, dim=1)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        q_pos = torch.arange(q_start, q_start + tq, device=q.device)[:, None]
        k_pos = torch.arange(tk, device=q.device)[None, :]
        scores = scores.masked_fill(k_pos > q_pos, float("-inf"))
        out = F.softmax(scores.to(_at_least_float32(scores.dtype)), dim=-1).to(q.dtype) @ v
        return self.o_proj(out.transpose(1, 2).reshape(b, tq, self.n_heads * self.head_dim))

    def forward(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        q, k, v = self.project_qkv(x, positions)
        return self.attend(q, k, v, q_start=int(positions[0]))


class MLP(nn.Module):
    """SwiGLU feed-forward: down(silu(gate(x)) * up(x))."""

    def __init__(self, cfg: DecoderConfig):
        super().__init__()
        self.gate_proj = nn.Linear(cfg.d_model, cfg.d_ff, bias=False)
        self.up_proj = nn.Linear(cfg.d_model, cfg.d_ff, bias=False)
        self.down_proj = nn.Linear(cfg.d_ff, cfg.d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, cfg: DecoderConfig):
        super().__init__()
        self.input_layernorm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.self_attn = Attention(cfg)
        self.post_attention_layernorm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.mlp = MLP(cfg)

    def forward(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        x = x + self.self_attn(self.input_layernorm(x), positions)
        return x + self.mlp(self.post_attention_layernorm(x))


class TinyDecoder(nn.Module):
    def __init__(self, cfg: DecoderConfig):
        super().__init__()
        self.config = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.layers = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg.n_layers))
        self.norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)

    def forward(self, tokens: torch.Tensor, start_pos: int = 0) -> torch.Tensor:
        """tokens [B, T] (LongTensor) -> logits [B, T, vocab]; recomputes every position."""
        if tokens.dim() != 2:
            raise ValueError(f"coursekit/nn/decoder.py: tokens must be [batch, time], got shape {tuple(tokens.shape)}")
        positions = torch.arange(start_pos, start_pos + tokens.shape[1], device=tokens.device)
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x, positions)
        return self.lm_head(self.norm(x))

    def num_params(self) -> int:
        return sum(p.numel() for p in self.parameters())


def build_model(config: DecoderConfig | None = None, seed: int = 0, device=None,
                dtype: torch.dtype = torch.float32) -> TinyDecoder:
    """A TinyDecoder with deterministic random weights, in eval mode.

    Linear weights are N(0, 1/fan_in) so activations and logits stay O(1) through the stack: with
    the tiny 0.02 init of trained-from-scratch recipes the random model's logits would be nearly
    flat, greedy choices would hinge on near-ties, and cached-vs-recomputed comparisons would be
    needlessly fragile.
    """
    config = config or DecoderConfig()
    generator = torch.Generator().manual_seed(seed)
    model = TinyDecoder(config)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("norm.weight") or "layernorm" in name:
                param.fill_(1.0)
            elif name == "embed.weight":
                param.copy_(portable_randn(*param.shape, generator=generator))
            else:
                param.copy_(portable_randn(*param.shape, generator=generator, scale=1 / math.sqrt(param.shape[1])))
    return model.to(device=device or "cpu", dtype=dtype).eval()


@torch.no_grad()
def greedy_generate(model: TinyDecoder, prompt: torch.Tensor, n_new: int, return_logits: bool = False):
    """Append n_new argmax tokens to prompt [B, T] by re-running the whole sequence every step.

    Returns the new tokens [B, n_new] (and, if return_logits, the logits that chose them
    [B, n_new, vocab]). Cost per step grows with the sequence length: this is what a KV cache removes.
    """
    if prompt.dim() == 1:
        prompt = prompt[None]
    seq = prompt
    new_tokens, step_logits = [], []
    for _ in range(n_new):
        logits = model(seq)[:, -1]
        nxt = logits.argmax(dim=-1, keepdim=True)
        new_tokens.append(nxt)
        step_logits.append(logits)
        seq = torch.cat([seq, nxt], dim=1)
    tokens = torch.cat(new_tokens, dim=1) if new_tokens else prompt[:, :0]
    if return_logits:
        return tokens, (torch.stack(step_logits, dim=1) if step_logits else prompt.new_zeros((prompt.shape[0], 0, model.config.vocab_size), dtype=torch.float32))
    return tokens
