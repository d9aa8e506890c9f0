"""Roofline arithmetic: FLOPs, bytes moved, and the time a step takes on a chip.

The roofline model (Williams, Waterman and Patterson, CACM 2009) says a kernel that does F FLOPs
while moving Q bytes can run no faster than max(F / peak_flops, Q / bandwidth). Its arithmetic
intensity I = F / Q decides which term wins; the crossover I* = peak_flops / bandwidth is the
ridge point. Everything here is in base SI units: FLOPs, bytes, seconds, FLOP/s, bytes/s.

Transformer counts follow Kaplan et al. 2020 (arXiv:2001.08361, Table 1) and Hoffmann et al. 2022
(arXiv:2203.15556, Appendix F): a multiply-add is 2 FLOPs, so a (k x n) weight costs 2*k*n FLOPs
per token; attention adds 2*d for the scores and 2*d for the weighted sum per attended position.
Models use a gated (SwiGLU) feed-forward block with three d_model x d_ff matrices, as Llama 2 and
Mistral do (Touvron et al. 2023; Jiang et al. 2023).
"""
from __future__ import annotations

from coursekit.hardware import BY_NAME as _CHIPS, Chip
from coursekit.model_configs import ALL_MODELS, ModelConfig

COMPUTE_BOUND = "compute-bound"
BANDWIDTH_BOUND = "bandwidth-bound"


def resolve_model(model: ModelConfig | str) -> ModelConfig:
    """Accept a ModelConfig or its published name (so quiz banks can pass plain strings)."""
    if isinstance(model, ModelConfig):
        return model
    for config in ALL_MODELS:
        if config.name == model:
            return config
    names = ", ".join(m.name for m in ALL_MODELS)
    raise KeyError(f"coursekit/calc/roofline.py: unknown model {model!r}; known: {names}")


def resolve_chip(chip: Chip | str) -> Chip:
    """Accept a Chip or its name from coursekit.hardware."""
    if isinstance(chip, Chip):
        return chip
    if chip not in _CHIPS:
        raise KeyError(f"coursekit/calc/roofline.py: unknown chip {chip!r}; known: {', '.join(_CHIPS)}")
    return _CHIPS[chip]


def _positive(name: str, value: float) -> float:
    if not value > 0:
        raise ValueError(f"coursekit/calc/roofline.py: {name} must be positive, got {value!r}")
    return value


# --- the roofline itself -------------------------------------------------------------------------

def matmul_flops(m: int, k: int, n: int) -> float:
    """FLOPs of (m x k) @ (k x n): m*n outputs, each k multiply-adds of 2 FLOPs."""
    return 2.0 * m * k * n


def matmul_bytes(m: int, k: int, n: int, bytes_per_element: float) -> float:
    """Bytes a matmul must move at least once: read A (m*k) and B (k*n), write C (m*n)."""
    return (m * k + k * n + m * n) * bytes_per_element


def arithmetic_intensity(flops: float, bytes_moved: float) -> float:
    """FLOPs per byte moved to or from main memory."""
    return flops / _positive("bytes_moved", bytes_moved)


def matmul_intensity(m: int, k: int, n: int, bytes_per_element: float) -> float:
    """Arithmetic intensity of one matmul, counting every byte read and written."""
    return arithmetic_intensity(matmul_flops(m, k, n), matmul_bytes(m, k, n, bytes_per_element))


def ridge_point(peak_flops: float, bandwidth: float) -> float:
    """Intensity (FLOP/byte) where bandwidth * I reaches the compute peak."""
    return _positive("peak_flops", peak_flops) / _positive("bandwidth", bandwidth)


def attainable_flops(intensity: float, peak_flops: float, bandwidth: float) -> float:
    """Roofline: the best FLOP/s a kernel of this intensity can reach on this chip."""
    return min(peak_flops, bandwidth * intensity)


def classify(intensity: float, peak_flops: float, bandwidth: float) -> str:
    """'compute-bound' at or above the ridge point, 'bandwidth-bound' below it."""
    return COMPUTE_BOUND if intensity >= ridge_point(peak_flops, bandwidth) else BANDWIDTH_BOUND


def roofline_time(flops: float, bytes_moved: float, peak_flops: float, bandwidth: float) -> float:
    """Lower bound on seconds: whichever of compute and memory traffic takes longer."""
    return max(flops / _positive("peak_flops", peak_flops), bytes_moved / _positive("bandwidth", bandwidth))


def chip_ceilings(chip: Chip | str) -> tuple[float, float]:
    """(peak FLOP/s, bytes/s) of a published chip: dense BF16 peak and main-memory bandwidth."""
    chip = resolve_chip(chip)
    return chip.bf16_tflops * 1e12, chip.memory_tbs * 1e12


def chip_ridge_point(chip: Chip | str) -> float:
    """Ridge point of a chip from coursekit.hardware, FLOP/byte."""
    return ridge_point(*chip_ceilings(chip))


# --- a transformer, counted from its shapes ------------------------------------------------------

def weight_matrices(model: ModelConfig | str, ffn_matrices: int = 3) -> list[tuple[str, int, int, int]]:
    """(name, rows k, cols n, how many) for every weight matmul one token passes through.

    The embedding table is not here: a token looks up one row, it is not multiplied. The output
    projection (LM head) is, because Llama 2 and Mistral do not tie it to the embedding.
    """
    c = resolve_model(model)
    q_width, kv_width = c.n_heads * c.head_dim, c.n_kv_heads * c.head_dim
    return [
        ("attention q", c.d_model, q_width, c.n_layers),
        ("attention k", c.d_model, kv_width, c.n_layers),
        ("attention v", c.d_model, kv_width, c.n_layers),
        ("attention out", q_width, c.d_model, c.n_layers),
        ("ffn", c.d_model, c.d_ff, ffn_matrices * c.n_layers),
        ("lm head", c.d_model, c.vocab_size, 1),
    ]


def matmul_params(model: ModelConfig | str, ffn_matrices: int = 3) -> int:
    """Parameters that sit in weight matrices a token is multiplied by."""
    return sum(k * n * count for _, k, n, count in weight_matrices(model, ffn_matrices))


def total_params(model: ModelConfig | str, ffn_matrices: int = 3) -> int:
    """All parameters: matmul weights + embedding table + RMSNorm gains (two per layer + final)."""
    c = resolve_model(model)
    return matmul_params(c, ffn_matrices) + c.vocab_size * c.d_model + (2 * c.n_layers + 1) * c.d_model


def forward_flops_per_token(n_params: float) -> float:
    """~2N: every parameter does one multiply-add per token in the forward pass (Kaplan et al. 2020)."""
    return 2.0 * n_params


def training_flops_per_token(n_params: float) -> float:
    """~6N: forward (2N) plus backward (4N: gradients w.r.t. activations and w.r.t. weights)."""
    return 6.0 * n_params


def kv_bytes_per_token(model: ModelConfig | str, bytes_per_element: float = 2) -> float:
    """Bytes one token adds to the KV cache: a key and a value per layer per KV head (MLA: its latent)."""
    c = resolve_model(model)
    return float(c.n_layers * c.kv_elements_per_token_per_layer * bytes_per_element)


def attention_flops_per_token(model: ModelConfig | str, positions: int) -> float:
    """Scores (q.k) and weighted sum (p.v) over `positions` attended tokens, all heads, all layers."""
    c = resolve_model(model)
    return 4.0 * c.n_layers * c.n_heads * c.head_dim * positions


def activation_bytes_per_token(model: ModelConfig | str, bytes_per_element: float = 2) -> float:
    """A deliberately simple activation-traffic model: each layer reads and writes its d_model-wide
    hidden state once. Fused kernels keep the rest on chip; the point is that it is tiny next to
    the weights and the KV cache."""
    c = resolve_model(model)
    return 2.0 * c.n_layers * c.d_model * bytes_per_element


def decode_step(model: ModelConfig | str, batch: int, context: int, peak_flops: float,
                bandwidth: float, bytes_per_element: float = 2,
                kv_bytes_per_element: float | None = None) -> dict:
    """One decode step: `batch` sequences each generate their `context`-th token.

    Each sequence attends over `context` positions: it reads context-1 cached keys/values and
    writes one new entry, so KV traffic is context entries per sequence. Weights are read once per
    step and shared by the whole batch; that sharing is why batching helps decode.
    `kv_bytes_per_element` defaults to the weights' element size.
    """
    kv_element = bytes_per_element if kv_bytes_per_element is None else kv_bytes_per_element
    weight_bytes = matmul_params(model) * bytes_per_element
    kv_bytes = batch * context * kv_bytes_per_token(model, kv_element)
    act_bytes = batch * activation_bytes_per_token(model, bytes_per_element)
    flops = batch * (2.0 * matmul_params(model) + attention_flops_per_token(model, context))
    total_bytes = weight_bytes + kv_bytes + act_bytes
    # Per part (the weight matmuls with their activations, then attention over the KV cache), each on its
    # own roofline: the sum is what a step takes when the parts run one after another. "seconds" (the
    # course's figure everywhere) is the single max over the whole step, exact while all of it is
    # bandwidth-bound; at large batch the per-part sum is larger (see chips.decode_step_seconds_per_part).
    weights_part = roofline_time(batch * 2.0 * matmul_params(model), weight_bytes + act_bytes, peak_flops, bandwidth)
    attention_part = roofline_time(batch * attention_flops_per_token(model, context), kv_bytes, peak_flops, bandwidth)
    return {
        "flops": flops, "weight_bytes": weight_bytes, "kv_bytes": kv_bytes,
        "activation_bytes": act_bytes, "bytes": total_bytes,
        "intensity": flops / total_bytes,
        "seconds": roofline_time(flops, total_bytes, peak_flops, bandwidth),
        "seconds_per_part": weights_part + attention_part,
        "bound": classify(flops / total_bytes, peak_flops, bandwidth),
    }


def prefill(model: ModelConfig | str, batch: int, prompt_tokens: int, peak_flops: float,
            bandwidth: float, bytes_per_element: float = 2) -> dict:
    """One prefill: `batch` prompts of `prompt_tokens` tokens in one parallel pass.

    Causal attention: token t attends to t positions, so attention FLOPs sum to T(T+1)/2
    positions' worth. The pass writes the whole KV cache once and reads the weights once.
    """
    tokens = batch * prompt_tokens
    weight_bytes = matmul_params(model) * bytes_per_element
    kv_bytes = tokens * kv_bytes_per_token(model, bytes_per_element)
    act_bytes = tokens * activation_bytes_per_token(model, bytes_per_element)
    causal_positions = prompt_tokens * (prompt_tokens + 1) / 2
    flops = tokens * 2.0 * matmul_params(model) + batch * attention_flops_per_token(model, 1) * causal_positions
    total_bytes = weight_bytes + kv_bytes + act_bytes
    return {
        "flops": flops, "weight_bytes": weight_bytes, "kv_bytes": kv_bytes,
        "activation_bytes": act_bytes, "bytes": total_bytes,
        "intensity": flops / total_bytes,
        "seconds": roofline_time(flops, total_bytes, peak_flops, bandwidth),
        "bound": classify(flops / total_bytes, peak_flops, bandwidth),
    }


def decode_seconds(model: str, chip: str, batch: int, context: int, bytes_per_element: float = 2) -> float:
    """Seconds per decode step for a named model on a named chip (a flat signature for quiz banks)."""
    return decode_step(model, batch, context, *chip_ceilings(chip), bytes_per_element)["seconds"]


def decode_tokens_per_second(model: str, chip: str, batch: int, context: int,
                             bytes_per_element: float = 2) -> float:
    """Tokens each user sees per second at this batch (one token per sequence per step)."""
    return 1.0 / decode_seconds(model, chip, batch, context, bytes_per_element)


def decode_intensity(model: str, batch: int, context: int, bytes_per_element: float = 2) -> float:
    """FLOP/byte of one decode step; independent of the chip."""
    return decode_step(model, batch, context, 1.0, 1.0, bytes_per_element)["intensity"]


def prefill_seconds(model: str, chip: str, batch: int, prompt_tokens: int, bytes_per_element: float = 2) -> float:
    """Seconds for one prefill of `batch` prompts on a named chip."""
    return prefill(model, batch, prompt_tokens, *chip_ceilings(chip), bytes_per_element)["seconds"]


def decode_matmul_intensity(batch: int, k: int, n: int, bytes_per_element: float = 2) -> float:
    """Intensity of one weight matmul during decode: only `batch` rows of activations meet a
    (k x n) weight, so it is a matrix-vector product at batch 1 (about 1 FLOP/byte in BF16)."""
    return matmul_intensity(batch, k, n, bytes_per_element)


def batch_to_reach_ridge(k: int, n: int, peak_flops: float, bandwidth: float,
                         bytes_per_element: float = 2, max_batch: int = 1 << 20) -> int:
    """Smallest batch at which a decode (batch x k) @ (k x n) matmul becomes compute-bound."""
    ridge = ridge_point(peak_flops, bandwidth)
    lo, hi = 1, max_batch
    if matmul_intensity(hi, k, n, bytes_per_element) < ridge:
        raise ValueError(f"coursekit/calc/roofline.py: no batch <= {max_batch} reaches the ridge {ridge:.0f}")
    while lo < hi:  # intensity grows monotonically with batch, so bisect
        mid = (lo + hi) // 2
        if matmul_intensity(mid, k, n, bytes_per_element) >= ridge:
            hi = mid
        else:
            lo = mid + 1
    return lo


def model_flops_utilization(flops: float, seconds: float, peak_flops: float) -> float:
    """Fraction of the peak a run achieved: useful FLOPs / (seconds * peak). PaLM (Chowdhery et al.
    2022, Appendix B) calls this MFU."""
    return flops / (_positive("seconds", seconds) * _positive("peak_flops", peak_flops))


# --- beyond one chip: bytes over links and to disk -----------------------------------------------

def transfer_seconds(n_bytes: float, bandwidth: float) -> float:
    """Seconds to move n_bytes over a link or to a device of this one-direction bandwidth (bytes/s),
    ignoring latency: the bandwidth term of the roofline, applied to a wire or a disk."""
    return n_bytes / _positive("bandwidth", bandwidth)


def ring_allreduce_bytes(n_bytes: float, n_ranks: int) -> float:
    """Bytes each rank sends in a ring all-reduce of an n_bytes buffer: a reduce-scatter and an
    all-gather, each (n_ranks - 1)/n_ranks of the buffer (Patarasuk and Yuan 2009)."""
    if n_ranks < 1:
        raise ValueError(f"coursekit/calc/roofline.py: n_ranks must be >= 1, got {n_ranks}")
    return 2.0 * (n_ranks - 1) / n_ranks * n_bytes


def allreduce_seconds(n_bytes: float, n_ranks: int, link_bandwidth: float) -> float:
    """Bandwidth-only time of a ring all-reduce where each rank sends at `link_bandwidth` bytes/s."""
    return transfer_seconds(ring_allreduce_bytes(n_bytes, n_ranks), link_bandwidth)


def gradient_allreduce_seconds(model: str, n_ranks: int, link_gbs: float, grad_bytes: float = 2) -> float:
    """Seconds to all-reduce a named model's gradients once, link bandwidth in GB/s per direction."""
    grads = total_params(model) * grad_bytes
    return allreduce_seconds(grads, n_ranks, link_gbs * 1e9)


def kv_transfer_seconds(model: str, prompt_tokens: int, link_gbs: float, bytes_per_element: float = 2) -> float:
    """Seconds to ship one prompt's KV cache from a prefill server to a decode server."""
    return transfer_seconds(prompt_tokens * kv_bytes_per_token(model, bytes_per_element), link_gbs * 1e9)


def decode_intensity_limit(model: ModelConfig | str, context: int, bytes_per_element: float = 2) -> float:
    """What decode intensity approaches as the batch grows without bound: the shared weight bytes
    vanish per sequence, leaving each sequence's FLOPs over its own KV and activation bytes."""
    flops = 2.0 * matmul_params(model) + attention_flops_per_token(model, context)
    own_bytes = context * kv_bytes_per_token(model, bytes_per_element) + activation_bytes_per_token(model, bytes_per_element)
    return flops / own_bytes


def inference_tokens_matching_training(n_params: float, train_tokens: float) -> float:
    """Generated tokens after which serving (2N per token) has used as many FLOPs as training
    (6N per token) did: 3x the training tokens, whatever the model size."""
    return training_flops_per_token(n_params) * train_tokens / forward_flops_per_token(n_params)


def training_mfu(n_params: float, train_tokens: float, gpu_hours: float, peak_tflops: float) -> float:
    """MFU of a whole training run from its published size, tokens and GPU-hours (6N FLOPs per token)."""
    return model_flops_utilization(training_flops_per_token(n_params) * train_tokens, gpu_hours * 3600.0,
                                   peak_tflops * 1e12)


# Published A100-80GB training runs: (parameters, training tokens, GPU-hours), each triple from one paper.
A100_TRAINING_RUNS = {
    "LLaMA 7B": (6.7e9, 1.0e12, 82_432),     # Touvron et al. 2023a (arXiv:2302.13971) Tables 2 and 15
    "LLaMA 65B": (65.2e9, 1.4e12, 1_022_362),
    "Llama 2 7B": (6.74e9, 2.0e12, 184_320),  # Touvron et al. 2023b (arXiv:2307.09288) Tables 1 and 2
    "Llama 2 13B": (13.0e9, 2.0e12, 368_640),
    "Llama 2 70B": (68.98e9, 2.0e12, 1_720_320),
}


def published_run_value(run: str, field: str) -> float:
    """One number of a run in A100_TRAINING_RUNS: field is "n_params", "train_tokens" or "gpu_hours"."""
    fields = ("n_params", "train_tokens", "gpu_hours")
    if run not in A100_TRAINING_RUNS or field not in fields:
        raise KeyError(f"coursekit/calc/roofline.py: need a run in {sorted(A100_TRAINING_RUNS)} and a field in "
                       f"{fields}, got {run!r}, {field!r}")
    return float(A100_TRAINING_RUNS[run][fields.index(field)])
