"""KV-cache sizes and paged-allocation arithmetic (Module 3, Lab 3).

Every decoder layer stores one key and one value vector per KV head per token, so

    bytes per token   = 2 (K and V) x layers x KV heads x head size x bytes per element
    bytes per session = bytes per token x tokens in the session

Grouped-query attention (Ainslie et al. 2023, arXiv:2305.13245) shares each KV head among
n_heads / n_kv_heads query heads, dividing the cache by that factor. Paging (Kwon et al. 2023,
"Efficient Memory Management for LLM Serving with PagedAttention", arXiv:2309.06180) hands out
fixed-size blocks on demand, so a request wastes at most one partly-filled block instead of the
unused tail of a maximum-length reservation.
"""
from __future__ import annotations

import math
from typing import Iterable

from coursekit import model_configs

GIB = 2**30


def kv_bytes_per_token(n_layers: int, n_kv_heads: int, head_dim: int, bytes_per_elem: float = 2) -> float:
    """Bytes of K and V one token adds to the cache, summed over layers."""
    for name, value in (("n_layers", n_layers), ("n_kv_heads", n_kv_heads), ("head_dim", head_dim),
                        ("bytes_per_elem", bytes_per_elem)):
        if value <= 0:
            raise ValueError(f"coursekit/calc/kvcache.py: {name} must be positive, got {value}")
    return 2 * n_layers * n_kv_heads * head_dim * bytes_per_elem


def kv_bytes_per_session(n_layers: int, n_kv_heads: int, head_dim: int, seq_len: int,
                         bytes_per_elem: float = 2, batch: int = 1) -> float:
    """Bytes of KV cache held by `batch` sessions of `seq_len` tokens each."""
    if seq_len < 0 or batch < 0:
        raise ValueError(f"coursekit/calc/kvcache.py: seq_len and batch must be >= 0, got {seq_len}, {batch}")
    return kv_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_elem) * seq_len * batch


def model_by_name(name: str) -> model_configs.ModelConfig:
    for cfg in model_configs.ALL_MODELS:
        if cfg.name == name:
            return cfg
    known = ", ".join(c.name for c in model_configs.ALL_MODELS)
    raise KeyError(f"coursekit/calc/kvcache.py: no model named {name!r} in coursekit.model_configs (known: {known})")


def model_kv_bytes_per_token(model: str, bytes_per_elem: float = 2, use_gqa: bool = True) -> float:
    """Per-token KV bytes of a published model; use_gqa=False pretends every query head had its own KV head."""
    cfg = model_by_name(model)
    if not use_gqa:
        return kv_bytes_per_token(cfg.n_layers, cfg.n_heads, cfg.head_dim, bytes_per_elem)
    return cfg.n_layers * cfg.kv_elements_per_token_per_layer * bytes_per_elem


def model_kv_bytes_per_session(model: str, seq_len: int, bytes_per_elem: float = 2, use_gqa: bool = True,
                               batch: int = 1) -> float:
    return model_kv_bytes_per_token(model, bytes_per_elem, use_gqa) * seq_len * batch


def model_kv_gib_per_session(model: str, seq_len: int, bytes_per_elem: float = 2, use_gqa: bool = True) -> float:
    """The same, in GiB (2^30 bytes), the unit memory capacities are usually quoted in."""
    return model_kv_bytes_per_session(model, seq_len, bytes_per_elem, use_gqa) / GIB


def gqa_reduction(n_heads: int, n_kv_heads: int) -> float:
    """How many times smaller the cache is with n_kv_heads than with one KV head per query head."""
    if n_kv_heads <= 0 or n_heads % n_kv_heads:
        raise ValueError(f"coursekit/calc/kvcache.py: n_heads={n_heads} must be a positive multiple of n_kv_heads={n_kv_heads}")
    return n_heads / n_kv_heads


def sessions_that_fit(memory_bytes: float, weight_bytes: float, kv_bytes_per_session_: float,
                      reserve_frac: float = 0.0) -> int:
    """Whole sessions whose KV fits beside the weights (reserve_frac held back for activations etc.)."""
    free = memory_bytes * (1 - reserve_frac) - weight_bytes
    if free <= 0 or kv_bytes_per_session_ <= 0:
        return 0
    return int(free // kv_bytes_per_session_)


def max_context_tokens(memory_bytes: float, weight_bytes: float, bytes_per_token: float) -> int:
    """Longest single context that fits beside the weights."""
    free = memory_bytes - weight_bytes
    return int(free // bytes_per_token) if free > 0 else 0


def offload_transfer_seconds(n_bytes: float, link_gbs: float) -> float:
    """Seconds to move n_bytes over a link of link_gbs GB/s (e.g. PCIe Gen5 x16: ~64 GB/s each way)."""
    if link_gbs <= 0:
        raise ValueError(f"coursekit/calc/kvcache.py: link bandwidth must be positive, got {link_gbs}")
    return n_bytes / (link_gbs * 1e9)


# ---- paged allocation ---------------------------------------------------------------------------

def blocks_needed(n_tokens: int, block_size: int) -> int:
    """Fixed-size blocks to hold n_tokens (the last one may be partly empty)."""
    if block_size <= 0:
        raise ValueError(f"coursekit/calc/kvcache.py: block_size must be positive, got {block_size}")
    return math.ceil(n_tokens / block_size) if n_tokens > 0 else 0


def paged_waste_tokens(lengths: Iterable[int], block_size: int) -> int:
    """Token slots allocated but unused under paging: only each request's last block is partial."""
    return sum(blocks_needed(n, block_size) * block_size - n for n in lengths)


def contiguous_waste_tokens(lengths: Iterable[int], reserve_len: int) -> int:
    """Unused slots when each request reserves reserve_len contiguous slots up front."""
    lengths = list(lengths)
    too_long = [n for n in lengths if n > reserve_len]
    if too_long:
        raise ValueError(f"coursekit/calc/kvcache.py: request of {too_long[0]} tokens exceeds the reservation {reserve_len}")
    return sum(reserve_len - n for n in lengths)


def fragmentation_summary(lengths: Iterable[int], block_size: int, reserve_len: int) -> dict:
    """Wasted fraction of allocated KV slots: paged blocks vs contiguous max-length reservation."""
    lengths = list(lengths)
    used = sum(lengths)
    paged_alloc = sum(blocks_needed(n, block_size) * block_size for n in lengths)
    contig_alloc = reserve_len * len(lengths)
    paged_waste = paged_alloc - used
    contig_waste = contiguous_waste_tokens(lengths, reserve_len)
    return {
        "used_tokens": used,
        "paged_allocated": paged_alloc,
        "contiguous_allocated": contig_alloc,
        "paged_waste_frac": paged_waste / paged_alloc if paged_alloc else 0.0,
        "contiguous_waste_frac": contig_waste / contig_alloc if contig_alloc else 0.0,
    }
