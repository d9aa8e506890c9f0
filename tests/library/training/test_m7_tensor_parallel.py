"""Milestone 3's reference: a tensor-parallel block identical to the unsplit block, 2 + 2 all-reduces."""
import copy

import pytest
import torch

from coursekit.nn.decoder import DecoderConfig
from coursekit.training.identical import differences
from coursekit.training.launch import launch
from coursekit.training.setup import make_model
from coursekit.training.tensor_parallel import run_tensor_parallel_block


@pytest.mark.slow
@pytest.mark.parametrize("world", [2, 4])
def test_tensor_parallel_block_matches_the_unsplit_block(world):
    cfg = DecoderConfig(vocab_size=32, d_model=32, n_layers=1, n_heads=8, n_kv_heads=4, d_ff=64, max_seq_len=16)
    layer = make_model(cfg).layers[0]
    untouched = copy.deepcopy(layer)  # the ranks get the weights without the reference's gradients
    g = torch.Generator().manual_seed(3)
    x = torch.randn(2, 6, cfg.d_model, generator=g, dtype=torch.float64)
    upstream = torch.randn(2, 6, cfg.d_model, generator=g, dtype=torch.float64)
    x_ref = x.clone().requires_grad_(True)
    out_ref = layer(x_ref, torch.arange(6))
    out_ref.backward(upstream)
    attn, mlp = layer.self_attn, layer.mlp
    column = {"q": attn.q_proj, "k": attn.k_proj, "v": attn.v_proj, "gate": mlp.gate_proj, "up": mlp.up_proj}
    row = {"o": attn.o_proj, "down": mlp.down_proj}
    ranks = launch(run_tensor_parallel_block, world, untouched, x, upstream, timeout_s=60)
    for rank, (res, counts) in enumerate(ranks):
        assert differences({"out": res["out"], "x": res["x_grad"]},
                           {"out": out_ref.detach(), "x": x_ref.grad}, world, 1) == []
        for name, lin in column.items():
            n = lin.weight.shape[0] // world
            ref = lin.weight.grad[rank * n:(rank + 1) * n]
            assert differences({name: res["grads"][name]}, {name: ref}, world, 1) == [], name
        for name, lin in row.items():
            n = lin.weight.shape[1] // world
            ref = lin.weight.grad[:, rank * n:(rank + 1) * n]
            assert differences({name: res["grads"][name]}, {name: ref}, world, 1) == [], name
        norm_ref = layer.input_layernorm.weight.grad
        assert differences({"n": res["grads"]["input_layernorm.weight"]}, {"n": norm_ref}, world, 1) == []
        assert res["forward_all_reduces"] == 2 and res["backward_all_reduces"] == 2
        assert counts["all_reduce"]["payload_bytes"] == 4 * x.numel() * 8
