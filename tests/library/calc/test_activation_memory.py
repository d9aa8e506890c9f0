"""memory.swiglu_activation_bytes_per_layer against a direct count: the tensors autograd really saves
in a coursekit decoder layer (RMSNorm, GQA attention with RoPE, SwiGLU MLP), found with
torch.autograd.graph.saved_tensors_hooks."""
from __future__ import annotations

import pytest
import torch

from coursekit.calc import memory
from coursekit.model_configs import LLAMA2_7B
from coursekit.nn.decoder import DecoderConfig, DecoderLayer, MLP
from paths import ROOT


def saved_values(module: torch.nn.Module, *inputs: torch.Tensor) -> int:
    """Values of the distinct activation tensors the forward pass saves for backward: each storage
    once (x is saved by q, k and v's projections alike), parameters and constants (RoPE tables, the
    causal mask) left out, as they do not grow with the batch."""
    params = {p.untyped_storage().data_ptr() for p in module.parameters()}
    storages: dict[int, int] = {}

    def pack(t: torch.Tensor):
        ptr = t.untyped_storage().data_ptr()
        if t.requires_grad and ptr not in params:
            storages[ptr] = t.untyped_storage().nbytes() // t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        module(*inputs)
    return sum(storages.values())


def test_swiglu_mlp_saves_its_input_and_four_d_ff_wide_tensors():
    cfg = DecoderConfig(d_model=32, n_heads=4, n_kv_heads=4, d_ff=80)
    s, b = 6, 3
    x = torch.randn(b, s, cfg.d_model, requires_grad=True)
    # The formula's MLP part: h (shared input of gate and up) + 4 * d_ff, per token.
    assert saved_values(MLP(cfg), x) == s * b * (cfg.d_model + 4 * cfg.d_ff)


@pytest.mark.parametrize("n_kv_heads", [4, 2])
def test_whole_layer_matches_the_formula_plus_what_this_unfused_layer_also_keeps(n_kv_heads):
    cfg = DecoderConfig(d_model=32, n_heads=4, n_kv_heads=n_kv_heads, d_ff=80, max_seq_len=16)
    s, b = 8, 2
    x = torch.randn(b, s, cfg.d_model, requires_grad=True)
    counted = saved_values(DecoderLayer(cfg), x, torch.arange(s))
    formula = memory.swiglu_activation_bytes_per_layer(s, b, cfg.d_model, cfg.n_heads, n_kv_heads, cfg.d_ff) / 2
    h, h_kv = cfg.d_model, cfg.head_dim * n_kv_heads
    # Eager PyTorch keeps three things a fused Llama kernel recomputes, each named here:
    # each RMSNorm's normalised output before the weight (h) and its 1/rms (1), twice;
    # K and V repeated to all query heads before the matmuls (2 * (h - h_kv)).
    unfused = 2 * (h + 1) + 2 * (h - h_kv)
    assert counted == formula + s * b * unfused


def test_flash_attention_drops_only_the_scores():
    s, b, h, a, kv, f = 4096, 1, 4096, 32, 32, 11008
    stored = memory.swiglu_activation_bytes_per_layer(s, b, h, a, kv, f)
    flash = memory.swiglu_activation_bytes_per_layer(s, b, h, a, kv, f, stores_attention_matrix=False)
    assert stored - flash == 2 * a * s * s * b


def test_llama2_7b_uses_its_own_layer_and_the_gpt_estimate_stays_available():
    swiglu = memory.training_activation_bytes(LLAMA2_7B, 4096, 1)
    gpt = memory.training_activation_bytes(LLAMA2_7B, 4096, 1, layer="gpt")
    c = LLAMA2_7B
    assert swiglu == c.n_layers * 2 * 4096 * (6 * c.d_model + 2 * c.d_model + 4 * c.d_ff + c.n_heads * 4096)
    assert gpt == c.n_layers * memory.activation_bytes_per_layer(4096, 1, c.d_model, c.n_heads)
    # No dropout masks or copies of the scores: about half the GPT-style count with stored scores,
    # a little more with FlashAttention (the SwiGLU MLP is wider than 4h in total stored width).
    assert 0.5 < swiglu / gpt < 0.55
    flash = memory.training_activation_bytes(LLAMA2_7B, 4096, 1, stores_attention_matrix=False)
    assert flash > memory.training_activation_bytes(LLAMA2_7B, 4096, 1, stores_attention_matrix=False, layer="gpt")
    with pytest.raises(ValueError, match="swiglu' or 'gpt'"):
        memory.training_activation_bytes(LLAMA2_7B, 4096, 1, layer="moe")


def test_the_errata_row_states_the_computed_numbers():

    row = next(line for line in (ROOT / "docs" / "errata" / "m1.md").read_text().splitlines()
               if "Llama 2's own layer is counted" in line)
    for flash in (False, True):
        for layer in ("swiglu", "gpt"):
            gb = memory.training_activation_bytes(LLAMA2_7B, 4096, 1, not flash, layer=layer) / 1e9
            assert f"{gb:.0f} GB" in row, f"errata m1 row 2 should state {gb:.0f} GB ({layer}, flash={flash})"
