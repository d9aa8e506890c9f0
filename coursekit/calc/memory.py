"""Memory arithmetic: bytes per parameter for training and inference, KV cache, serving capacity.

Mixed-precision training with Adam/AdamW (Micikevicius et al. 2018, arXiv:1710.03740; Rajbhandari
et al. 2020, ZeRO, arXiv:1910.02054, Section 3.1) keeps, per parameter:
    2 bytes  BF16/FP16 working weights (what the forward and backward passes read)
    2 bytes  BF16/FP16 gradients
    4 bytes  FP32 master weights (the optimizer updates these, then casts down)
    8 bytes  two FP32 Adam moments (m and v)
  = 16 bytes per parameter, 8x the 2-byte weights, before activations.
Inference keeps only the weights (plus the KV cache and a little scratch).
"""
from __future__ import annotations

import math

from coursekit.calc.roofline import (chip_ceilings, decode_step, kv_bytes_per_token, resolve_chip,
                                     resolve_model, total_params)

# source: Kingma & Ba 2015 (Adam keeps m and v); Loshchilov & Hutter 2019 (AdamW, same two states);
# SGD with momentum keeps one velocity buffer; plain SGD keeps none.
OPTIMIZER_STATES = {"sgd": 0, "sgd-momentum": 1, "adam": 2, "adamw": 2}
FP32_BYTES = 4
# source: vLLM's default gpu_memory_utilization=0.9 (vLLM engine arguments docs): the rest is left
# for activations, CUDA context and fragmentation.
DEFAULT_USABLE_FRACTION = 0.9


def weight_bytes(n_params: float, bytes_per_param: float) -> float:
    """Bytes the weights alone occupy."""
    return n_params * bytes_per_param


def _states(optimizer: str) -> int:
    if optimizer not in OPTIMIZER_STATES:
        raise ValueError(f"coursekit/calc/memory.py: unknown optimizer {optimizer!r}; "
                         f"choose one of {sorted(OPTIMIZER_STATES)}")
    return OPTIMIZER_STATES[optimizer]


def training_breakdown(weight_bytes: float = 2, optimizer: str = "adamw", master_weights: bool = True,
                       grad_bytes: float | None = None, state_bytes: float = FP32_BYTES) -> dict:
    """Bytes per parameter held during training, by component.

    Gradients default to the working precision. A master copy only exists when the working
    weights are narrower than FP32 (training in FP32 updates the weights directly).
    """
    grads = weight_bytes if grad_bytes is None else grad_bytes
    master = FP32_BYTES if master_weights and weight_bytes < FP32_BYTES else 0
    return {"weights": weight_bytes, "grads": grads, "master": master,
            "optimizer": _states(optimizer) * state_bytes}


def bytes_per_param(phase: str, weight_bytes: float = 2, optimizer: str = "adamw",
                    master_weights: bool = True) -> float:
    """Bytes per parameter for 'training' or 'inference' (weights only) under these choices."""
    if phase == "inference":
        return float(weight_bytes)
    if phase == "training":
        return float(sum(training_breakdown(weight_bytes, optimizer, master_weights).values()))
    raise ValueError(f"coursekit/calc/memory.py: phase must be 'training' or 'inference', got {phase!r}")


def training_multiple_of_weights(weight_bytes: float = 2, optimizer: str = "adamw",
                                 master_weights: bool = True) -> float:
    """How many times the weights' own size training needs (16 / 2 = 8 for mixed-precision AdamW)."""
    return bytes_per_param("training", weight_bytes, optimizer, master_weights) / weight_bytes


def components_bytes(n_params: float, include: tuple[str, ...] | list[str], weight_bytes: float = 2,
                     optimizer: str = "adamw", grad_bytes: float | None = None) -> float:
    """Total bytes of the named components only: how a rule of thumb that leaves some out adds up."""
    parts = training_breakdown(weight_bytes, optimizer, True, grad_bytes)
    unknown = set(include) - set(parts)
    if unknown:
        raise ValueError(f"coursekit/calc/memory.py: unknown components {sorted(unknown)}; known: {sorted(parts)}")
    return n_params * sum(parts[name] for name in include)


def training_bytes(n_params: float, weight_bytes: float = 2, optimizer: str = "adamw",
                   master_weights: bool = True) -> float:
    """Weights, gradients, master copy and optimizer states for a whole model (no activations)."""
    return n_params * bytes_per_param("training", weight_bytes, optimizer, master_weights)


def kv_cache_bytes(model, tokens: int, batch: int = 1, bytes_per_element: float = 2) -> float:
    """KV cache of `batch` sequences of `tokens` tokens each."""
    return batch * tokens * kv_bytes_per_token(model, bytes_per_element)


def model_weight_bytes(model, bytes_per_param: float = 2) -> float:
    """Weights of a named model, counted from its shapes."""
    return weight_bytes(total_params(resolve_model(model)), bytes_per_param)


def users_per_replica(model, chip, context: int, chips: int = 1, bytes_per_param: float = 2,
                      kv_bytes_per_element: float = 2,
                      usable_fraction: float = DEFAULT_USABLE_FRACTION) -> int:
    """Concurrent sequences of `context` tokens whose KV cache fits beside one copy of the weights
    spread over `chips` chips. 0 when the weights leave no room for even one."""
    usable = chips * resolve_chip(chip).memory_gb * 1e9 * usable_fraction
    free = usable - model_weight_bytes(model, bytes_per_param)
    per_user = kv_cache_bytes(model, context, 1, kv_bytes_per_element)
    return max(0, math.floor(free / per_user))


def serving_plan(model, chip, users: int, context: int, bytes_per_param: float = 2,
                 kv_bytes_per_element: float = 2, usable_fraction: float = DEFAULT_USABLE_FRACTION,
                 max_chips_per_replica: int = 64) -> dict:
    """Smallest power-of-two group of chips that holds the weights plus at least one user's KV
    cache, then enough such replicas for `users`, and the decode speed each replica delivers.

    Speed assumes the group's compute and bandwidth add up (tensor parallelism with free
    communication): an upper bound, as every roofline number is.
    """
    group = 1
    while users_per_replica(model, chip, context, group, bytes_per_param, kv_bytes_per_element,
                            usable_fraction) < 1:
        group *= 2
        if group > max_chips_per_replica:
            raise ValueError(f"coursekit/calc/memory.py: {model} at context {context} does not fit on "
                             f"{max_chips_per_replica} x {resolve_chip(chip).name}")
    per_replica = users_per_replica(model, chip, context, group, bytes_per_param, kv_bytes_per_element,
                                    usable_fraction)
    batch = min(per_replica, users)
    replicas = math.ceil(users / per_replica)
    peak, bandwidth = chip_ceilings(chip)
    step = decode_step(model, batch, context, group * peak, group * bandwidth, bytes_per_param,
                       kv_bytes_per_element)
    return {
        "chips_per_replica": group, "users_per_replica": per_replica, "replicas": replicas,
        "chips": replicas * group, "kv_bytes_per_user": kv_cache_bytes(model, context, 1, kv_bytes_per_element),
        "weight_bytes": model_weight_bytes(model, bytes_per_param), "step_seconds": step["seconds"],
        "tokens_per_second_per_user": 1.0 / step["seconds"], "bound": step["bound"],
    }


def chips_needed(model: str, chip: str, users: int, context: int, bytes_per_param: float = 2,
                 kv_bytes_per_element: float = 2) -> int:
    """Total chips for `users` concurrent sequences (a flat signature for quiz banks)."""
    return serving_plan(model, chip, users, context, bytes_per_param, kv_bytes_per_element)["chips"]


def activation_bytes_per_layer(seq_len: int, batch: int, d_model: int, n_heads: int,
                               stores_attention_matrix: bool = True) -> float:
    """Activations one transformer layer keeps for the backward pass, 16-bit, no recomputation.

    Korthikanti et al. 2022 (arXiv:2205.05198, eq. 1) count s*b*h*(34 + 5*a*s/h) bytes for a
    GPT-style layer; the 5*a*s/h term is the s x s attention scores and their softmax/dropout,
    which a FlashAttention-style kernel recomputes instead of storing (stores_attention_matrix=False).
    The 34 assumes a GPT-3-style layer (LayerNorm, 4h GeLU MLP, dropout masks); a Llama-style layer
    (RMSNorm, SwiGLU MLP, no dropout) is counted by swiglu_activation_bytes_per_layer.
    """
    per_token_width = 34.0 + (5.0 * n_heads * seq_len / d_model if stores_attention_matrix else 0.0)
    return seq_len * batch * d_model * per_token_width


def swiglu_activation_bytes_per_layer(seq_len: int, batch: int, d_model: int, n_heads: int, n_kv_heads: int,
                                      d_ff: int, stores_attention_matrix: bool = True) -> float:
    """Activations one Llama-style layer keeps for the backward pass, 16-bit, no recomputation.

    Korthikanti et al.'s method (arXiv:2205.05198, Section 4.1: count each tensor a backward step
    needs, once) applied to Llama's layer (Touvron et al. 2023, arXiv:2307.09288; shapes from the
    released config: RMSNorm, grouped-query attention, SwiGLU MLP with d_ff, no dropout). Per token, in
    2-byte values, with h = d_model, h_kv = the K/V width, f = d_ff, a = heads, s = sequence length:
        2h   the two RMSNorms' inputs
        h    the Q/K/V projections' shared input
        h + h_kv   Q and K, for the scores
        h_kv       V, for softmax(scores) @ V
        h    the output projection's input
        h    the gate and up projections' shared input
        4f   gate(x) (SiLU's input), silu(gate(x)) and up(x) (the product's two factors), their
             product (down projection's input)
        a*s  the softmax output, used by softmax's and V's backward (no dropout mask or copy)
    = 2*(6h + 2*h_kv + 4f + a*s) bytes; a FlashAttention-style kernel recomputes the a*s term.
    """
    h_kv = d_model // n_heads * n_kv_heads
    per_token_values = 6 * d_model + 2 * h_kv + 4 * d_ff
    if stores_attention_matrix:
        per_token_values += n_heads * seq_len
    return 2.0 * seq_len * batch * per_token_values


def training_activation_bytes(model, seq_len: int, batch: int, stores_attention_matrix: bool = True,
                              layer: str = "swiglu") -> float:
    """All layers' stored activations for one micro-batch at the named model's shape: its own Llama-style
    SwiGLU layer (`layer="swiglu"`), or the GPT-style layer Korthikanti et al. count (`layer="gpt"`)."""
    c = resolve_model(model)
    if layer == "gpt":
        per_layer = activation_bytes_per_layer(seq_len, batch, c.d_model, c.n_heads, stores_attention_matrix)
    elif layer == "swiglu":
        per_layer = swiglu_activation_bytes_per_layer(seq_len, batch, c.d_model, c.n_heads, c.n_kv_heads, c.d_ff,
                                                      stores_attention_matrix)
    else:
        raise ValueError(f"coursekit/calc/memory.py: layer must be 'swiglu' or 'gpt', got {layer!r}")
    return c.n_layers * per_layer
