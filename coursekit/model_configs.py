"""Shapes of published models, each with the paper or released config it comes from.

The course builds small models with random weights for the labs; these configs exist so that
lessons can do the arithmetic (memory, FLOPs, KV cache) for real, published models.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    name: str
    n_params: float            # published total parameter count
    n_layers: int
    d_model: int
    n_heads: int               # query heads
    n_kv_heads: int            # key/value heads (== n_heads without grouped-query attention)
    head_dim: int
    d_ff: int                  # hidden size of one (expert) feed-forward block
    vocab_size: int
    max_context: int
    n_experts: int = 1         # routed experts per MoE layer (1 = dense)
    experts_per_token: int = 1
    active_params: float | None = None  # published active parameters per token (MoE)
    kv_latent_dim: int | None = None    # MLA: elements cached per token per layer (a compressed latent, not K and V)
    source: str = ""

    @property
    def kv_elements_per_token_per_layer(self) -> int:
        """What one token adds to one layer's cache: a key and a value per KV head, or MLA's latent."""
        return self.kv_latent_dim or 2 * self.n_kv_heads * self.head_dim

    @property
    def params_per_token(self) -> float:
        """Parameters touched per generated token: all of them for dense models."""
        return self.active_params if self.active_params is not None else self.n_params


LLAMA2_7B = ModelConfig(
    "Llama 2 7B", 6.74e9, n_layers=32, d_model=4096, n_heads=32, n_kv_heads=32, head_dim=128,
    d_ff=11008, vocab_size=32000, max_context=4096,
    source="Touvron et al. 2023, 'Llama 2' (arXiv:2307.09288), Table 1; released config.json",
)
LLAMA2_70B = ModelConfig(
    "Llama 2 70B", 68.98e9, n_layers=80, d_model=8192, n_heads=64, n_kv_heads=8, head_dim=128,
    d_ff=28672, vocab_size=32000, max_context=4096,
    source="Touvron et al. 2023, 'Llama 2' (arXiv:2307.09288): GQA with 8 KV heads; released config.json",
)
LLAMA3_8B = ModelConfig(
    "Llama 3 8B", 8.03e9, n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8, head_dim=128,
    d_ff=14336, vocab_size=128256, max_context=8192,
    source="Meta Llama 3 model card and config.json (2024); Grattafiori et al. 2024 (arXiv:2407.21783) Table 3",
)
LLAMA31_70B = ModelConfig(
    "Llama 3.1 70B", 70.6e9, n_layers=80, d_model=8192, n_heads=64, n_kv_heads=8, head_dim=128,
    d_ff=28672, vocab_size=128256, max_context=131072,
    source="Grattafiori et al. 2024, 'The Llama 3 Herd of Models' (arXiv:2407.21783) Table 3; config.json",
)
MISTRAL_7B = ModelConfig(
    "Mistral 7B", 7.24e9, n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8, head_dim=128,
    d_ff=14336, vocab_size=32000, max_context=32768,
    source="Jiang et al. 2023, 'Mistral 7B' (arXiv:2310.06825) Table 1",
)
MIXTRAL_8X7B = ModelConfig(
    "Mixtral 8x7B", 46.7e9, n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8, head_dim=128,
    d_ff=14336, vocab_size=32000, max_context=32768, n_experts=8, experts_per_token=2,
    active_params=12.9e9,
    source="Jiang et al. 2024, 'Mixtral of Experts' (arXiv:2401.04088): 47B total, 13B active, top-2 of 8",
)
DEEPSEEK_V3 = ModelConfig(
    "DeepSeek-V3", 671e9, n_layers=61, d_model=7168, n_heads=128, n_kv_heads=128, head_dim=128,
    d_ff=2048, vocab_size=129280, max_context=131072, n_experts=256, experts_per_token=8,
    active_params=37e9, kv_latent_dim=512 + 64,
    source="DeepSeek-AI 2024, 'DeepSeek-V3 Technical Report' (arXiv:2412.19437): 671B total, 37B active, "
           "256 routed experts + 1 shared, top-8. Attention is MLA: per token and layer it caches the compressed "
           "latent (kv_lora_rank 512) plus the shared RoPE key (qk_rope_head_dim 64), per config.json; "
           "n_kv_heads and head_dim are the uncompressed heads, used only for comparison",
)
QWEN3_235B_A22B = ModelConfig(
    "Qwen3-235B-A22B", 235e9, n_layers=94, d_model=4096, n_heads=64, n_kv_heads=4, head_dim=128,
    d_ff=1536, vocab_size=151936, max_context=131072, n_experts=128, experts_per_token=8,
    active_params=22e9,
    source="Qwen Team 2025, 'Qwen3 Technical Report' (arXiv:2505.09388) Table 2: 128 experts, 8 activated",
)
GPT3_175B = ModelConfig(
    "GPT-3 175B", 175e9, n_layers=96, d_model=12288, n_heads=96, n_kv_heads=96, head_dim=128,
    d_ff=49152, vocab_size=50257, max_context=2048,
    source="Brown et al. 2020, 'Language Models are Few-Shot Learners' (arXiv:2005.14165) Table 2.1",
)

ALL_MODELS = [LLAMA2_7B, LLAMA2_70B, LLAMA3_8B, LLAMA31_70B, MISTRAL_7B, MIXTRAL_8X7B,
              DEEPSEEK_V3, QWEN3_235B_A22B, GPT3_175B]
