"""Paged attention on top of the course decoder (coursekit/nn/decoder.py).

One forward pass runs any mix of requests' chunks packed into one sequence: a prefill chunk of many
positions, a decode step of one, a speculative verification of k+1. Everything except attention is
per-token, so it runs on the packed tokens as one batch (this is where batching earns its speed on
any chip); attention reads each request's keys and values through its block table. The decoder's own
layers, norms and projections are reused unchanged, so the weights and the arithmetic are the
model's; only the cache layout and the masking are new.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F


class PagedKVCache:
    """Per layer, keys and values as [num_blocks, block_size, n_kv_heads, head_dim]."""

    def __init__(self, n_layers: int, num_blocks: int, block_size: int, n_kv_heads: int, head_dim: int,
                 dtype=torch.float32, device="cpu"):
        shape = (num_blocks, block_size, n_kv_heads, head_dim)
        self.block_size = block_size
        self.device = torch.device(device)
        self.k = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(n_layers)]
        self.v = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(n_layers)]

    @classmethod
    def for_model(cls, model, num_blocks: int, block_size: int) -> "PagedKVCache":
        cfg = model.config
        weight = model.embed.weight
        return cls(len(model.layers), num_blocks, block_size, cfg.n_kv_heads, cfg.head_dim,
                   dtype=weight.dtype, device=weight.device)

    def copy_block(self, src: int, dst: int) -> None:
        """Copy-on-write: the writer gets a private copy of a shared block."""
        for cache in (*self.k, *self.v):
            cache[dst].copy_(cache[src])


@dataclass
class Chunk:
    """Run `tokens` at positions start.. for a request whose cache holds positions 0..start-1 and
    whose `blocks` cover every position up to start + len(tokens) - 1. `logits` is how many trailing
    positions' logits are wanted: 0 for a middle prefill chunk, 1 to sample, k+1 to verify a draft."""
    tokens: list[int]
    start: int
    blocks: list[int]
    logits: int = 1


def _attend_group(q, k_cache, v_cache, block_ids, q_pos, n_kv_heads):
    """q [G, H, n, hd] at positions q_pos [G, n] over keys at positions 0.. read through block_ids
    [G, nb]; a key is visible when its position <= the query's (padding lies beyond every query)."""
    g, h, n, hd = q.shape
    flat = block_ids.flatten()          # index_select: several times faster than fancy indexing on CPU
    k = k_cache.index_select(0, flat).view(g, -1, n_kv_heads, hd).transpose(1, 2)   # [G, Hkv, L, hd]
    v = v_cache.index_select(0, flat).view(g, -1, n_kv_heads, hd).transpose(1, 2)
    visible = torch.arange(k.shape[2], device=q.device)[None, None, :] <= q_pos[:, :, None]   # [G, n, L]
    # the decoder's attention (scaled scores, causal mask, softmax, @ V) as one fused call; query head
    # h reads KV head h // group, as the decoder's repeat_interleave does
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=visible[:, None], enable_gqa=h != n_kv_heads)
    return out.transpose(1, 2).reshape(g * n, h * hd)


@torch.no_grad()
def forward_packed(model, cache: PagedKVCache, chunks: list[Chunk], layers=None) -> list[torch.Tensor]:
    """Run the chunks through `layers` (the model's own by default; a draft passes its own model),
    writing their keys and values into the cache. Returns each chunk's wanted logits [logits, vocab]."""
    if not chunks:
        return []
    layers = model.layers if layers is None else layers
    device, bs = cache.device, cache.block_size
    tokens, positions, slots, offsets = [], [], [], []
    for chunk in chunks:
        offsets.append(len(tokens))
        tokens += chunk.tokens
        for pos in range(chunk.start, chunk.start + len(chunk.tokens)):
            positions.append(pos)
            slots.append(chunk.blocks[pos // bs] * bs + pos % bs)
    tok = torch.tensor(tokens, device=device)
    pos = torch.tensor(positions, device=device)
    slot = torch.tensor(slots, device=device)

    # Attention batches chunks of equal length whose contexts fall in the same power-of-two bucket of
    # blocks: all decodes go in a few calls, and a short context is not padded to the longest one in
    # the batch (with long-tailed lengths that padding was most of the gathered keys and values).
    groups_of: dict[tuple[int, int], list[int]] = {}
    for i, chunk in enumerate(chunks):
        n = len(chunk.tokens)
        nb = math.ceil((chunk.start + n) / bs)
        groups_of.setdefault((n, 1 << (nb - 1).bit_length()), []).append(i)
    groups = []
    for (n, _), members in groups_of.items():
        nb = max(math.ceil((chunks[i].start + n) / bs) for i in members)
        block_ids = torch.tensor([chunks[i].blocks[:nb] + [0] * (nb - len(chunks[i].blocks[:nb])) for i in members],
                                 device=device)
        rows = torch.tensor([[offsets[i] + j for j in range(n)] for i in members], device=device)
        groups.append((rows, block_ids, pos[rows]))

    x = model.embed(tok)[None]                                     # [1, N, D]
    for index, layer in enumerate(layers):
        attn = layer.self_attn
        q, k, v = attn.project_qkv(layer.input_layernorm(x), pos)   # RoPE applied at the true positions
        k_cache = cache.k[index]
        v_cache = cache.v[index]
        k_cache.view(-1, *k_cache.shape[2:])[slot] = k[0].transpose(0, 1)
        v_cache.view(-1, *v_cache.shape[2:])[slot] = v[0].transpose(0, 1)
        out = x.new_empty(len(tokens), attn.n_heads * attn.head_dim)
        for rows, block_ids, q_pos in groups:
            qg = q[0][:, rows].transpose(0, 1)                      # [G, H, n, hd]
            out[rows.flatten()] = _attend_group(qg, k_cache, v_cache, block_ids, q_pos, attn.n_kv_heads)
        x = x + attn.o_proj(out[None])
        x = x + layer.mlp(layer.post_attention_layernorm(x))

    wanted = [offsets[i] + len(c.tokens) - c.logits + j for i, c in enumerate(chunks) for j in range(c.logits)]
    if not wanted:
        return [x.new_zeros(0, model.config.vocab_size) for _ in chunks]
    logits = model.lm_head(model.norm(x[0, torch.tensor(wanted, device=device)]))
    return list(torch.split(logits, [c.logits for c in chunks]))
