"""Mixture-of-experts arithmetic: total vs active parameters, FLOPs per token, memory vs compute.

An MoE layer holds n_experts feed-forward blocks but runs only top_k of them (plus any shared
experts) per token, so memory scales with the total and compute with the active count
(Shazeer et al. 2017; Fedus et al. 2022, Switch; Jiang et al. 2024, Mixtral).
"""
from __future__ import annotations


def swiglu_ffn_params(d_model: int, d_ff: int) -> int:
    """Gate, up and down projections of one SwiGLU block (no biases, as in Llama/Mixtral/DeepSeek)."""
    return 3 * d_model * d_ff


def moe_layer_params(d_model: int, d_ff: int, n_experts: int, top_k: int, n_shared: int = 0) -> dict:
    """Parameters of one MoE feed-forward layer: all of them, and those one token touches."""
    if not 1 <= top_k <= n_experts:
        raise ValueError(f"coursekit/calc/moe.py: need 1 <= top_k <= n_experts, got top_k={top_k}, n_experts={n_experts}")
    expert = swiglu_ffn_params(d_model, d_ff)
    router = d_model * n_experts  # one logit per routed expert; shared experts are not routed
    return {"total": (n_experts + n_shared) * expert + router,
            "active": (top_k + n_shared) * expert + router}


def moe_model_counts(n_layers: int, d_model: int, d_ff: int, n_experts: int, top_k: int,
                     n_shared: int = 0, dense_params: float = 0.0) -> dict:
    """Whole-model totals for n_layers MoE layers plus `dense_params` that every token uses
    (attention, embeddings, dense FFN layers). FLOPs per token = 2 x active parameters (forward)."""
    layer = moe_layer_params(d_model, d_ff, n_experts, top_k, n_shared)
    total = n_layers * layer["total"] + dense_params
    active = n_layers * layer["active"] + dense_params
    return {"total_params": total, "active_params": active, "active_fraction": active / total,
            "flops_per_token": 2.0 * active, "dense_equivalent_flops_per_token": 2.0 * total}


# DeepSeek-V3's released config.json (deepseek-ai/DeepSeek-V3 on Hugging Face; architecture in
# DeepSeek-AI 2024, arXiv:2412.19437, section 2 and 4.2). Multi-head latent attention (MLA) factors
# the query and key/value projections through low-rank latents.
DEEPSEEK_V3_SHAPE = dict(
    n_layers=61, first_dense_layers=3, d_model=7168, dense_d_ff=18432, expert_d_ff=2048,
    n_routed=256, n_shared=1, top_k=8, vocab=129280, n_heads=128, q_lora_rank=1536,
    kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128,
)
DEEPSEEK_V3_PUBLISHED = {"total_params": 671e9, "active_params": 37e9,
                         "source": "DeepSeek-AI 2024, DeepSeek-V3 Technical Report (arXiv:2412.19437), abstract"}


def mla_params(s: dict) -> int:
    """Projections of one MLA attention block (norms on the latents are negligible and included)."""
    d, h = s["d_model"], s["n_heads"]
    qk_head = s["qk_nope_head_dim"] + s["qk_rope_head_dim"]
    q = d * s["q_lora_rank"] + s["q_lora_rank"] + s["q_lora_rank"] * h * qk_head
    kv = (d * (s["kv_lora_rank"] + s["qk_rope_head_dim"]) + s["kv_lora_rank"]
          + s["kv_lora_rank"] * h * (s["qk_nope_head_dim"] + s["v_head_dim"]))
    out = h * s["v_head_dim"] * d
    return q + kv + out


def deepseek_v3_counts(s: dict = DEEPSEEK_V3_SHAPE) -> dict:
    """Rebuild DeepSeek-V3's 671B total / 37B active from its config (main model, without the
    14B multi-token-prediction module the report counts separately)."""
    d = s["d_model"]
    moe_layers = s["n_layers"] - s["first_dense_layers"]
    dense = (s["n_layers"] * (mla_params(s) + 2 * d)                     # attention + two RMSNorms
             + s["first_dense_layers"] * swiglu_ffn_params(d, s["dense_d_ff"])
             + 2 * s["vocab"] * d + d)                                    # untied embed + lm_head, final norm
    counts = moe_model_counts(moe_layers, d, s["expert_d_ff"], s["n_routed"], s["top_k"],
                              n_shared=s["n_shared"], dense_params=dense)
    counts["routed_expert_fraction"] = s["top_k"] / s["n_routed"]
    return counts


def weight_memory_gb(n_params: float, bytes_per_param: float) -> float:
    """GB (10^9 bytes) to hold the weights; every expert must be resident to serve any token."""
    return n_params * bytes_per_param / 1e9


def fits_on_node(n_params: float, bytes_per_param: float, gpus: int, gb_per_gpu: float) -> dict:
    """Weights alone vs a node's HBM (KV cache and activations need room on top)."""
    need = weight_memory_gb(n_params, bytes_per_param)
    have = gpus * gb_per_gpu
    return {"weights_gb": need, "node_gb": have, "fits": need <= have, "headroom_gb": have - need}


def expected_distinct_experts(tokens: int, n_experts: int, top_k: int) -> float:
    """Experts a layer must read for a batch of `tokens` tokens if routing is uniform and
    independent: each expert is missed by one token with probability 1 - k/E."""
    return n_experts * (1.0 - (1.0 - top_k / n_experts) ** tokens)


def decode_weight_bytes_per_token(batch: int, n_experts: int, top_k: int, expert_params: float,
                                  dense_params: float, bytes_per_param: float) -> float:
    """Weight bytes read from HBM per generated token in one decode step of `batch` sequences.

    Decode is bandwidth-bound, so these bytes set the step time. Dense weights are read once per
    step; each distinct expert touched is read once; the sum is shared by the batch.
    """
    experts_read = expected_distinct_experts(batch, n_experts, top_k)
    return (dense_params + experts_read * expert_params) * bytes_per_param / batch


def router_flop_share(d_model: int, d_ff: int, n_experts: int, top_k: int, n_shared: int = 0) -> float:
    """Router FLOPs as a fraction of one MoE layer's FLOPs per token (the routing overhead)."""
    router = 2 * d_model * n_experts
    experts = 2 * (top_k + n_shared) * swiglu_ffn_params(d_model, d_ff)
    return router / (router + experts)


def moe_total_params(n_layers: int, d_model: int, d_ff: int, n_experts: int, top_k: int,
                     n_shared: int = 0, dense_params: float = 0.0) -> float:
    return moe_model_counts(n_layers, d_model, d_ff, n_experts, top_k, n_shared, dense_params)["total_params"]


def moe_active_params(n_layers: int, d_model: int, d_ff: int, n_experts: int, top_k: int,
                      n_shared: int = 0, dense_params: float = 0.0) -> float:
    return moe_model_counts(n_layers, d_model, d_ff, n_experts, top_k, n_shared, dense_params)["active_params"]


def flops_per_token(active_params: float) -> float:
    """Forward FLOPs per token: one multiply-add per active parameter."""
    return 2.0 * active_params


def dense_to_moe_flop_ratio(total_params: float, active_params: float) -> float:
    """How many times fewer FLOPs per token than a dense model with the same total parameters."""
    return total_params / active_params


def published_flops_per_token(model: str, dense_equivalent: bool = False) -> float:
    """2 x published active (or, with dense_equivalent, total) parameters of a model in
    coursekit.model_configs, looked up by name."""
    from coursekit.model_configs import ALL_MODELS

    for m in ALL_MODELS:
        if m.name == model:
            return 2.0 * (m.n_params if dense_equivalent else m.params_per_token)
    raise KeyError(f"coursekit/calc/moe.py: no model named {model!r} in coursekit.model_configs")


def expert_capacity(tokens: int, n_experts: int, top_k: int, capacity_factor: float) -> int:
    """Assignments one expert may take per batch: int(factor x tokens x k / experts), truncated.

    Switch Transformer's convention (Fedus et al. 2022, eq. 3; its Mesh TensorFlow code casts with int),
    extended to top-k by counting k assignments per token. Some codebases round up instead (fairseq's
    GShard gate uses ceil); truncation can give one slot fewer per expert."""
    return int(capacity_factor * tokens * top_k / n_experts)
