"""The course's MoE routing agrees with Hugging Face transformers' Mixtral sparse MoE block (5.x:
MixtralSparseMoeBlock with .gate = MixtralTopKRouter(weight [E, D]) and .experts = MixtralExperts
(gate_up_proj [E, 2F, D], down_proj [E, D, F])), built offline from a config with random weights."""
from __future__ import annotations

import pytest
import torch


pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pair():
    from transformers import MixtralConfig
    from transformers.models.mixtral.modeling_mixtral import MixtralSparseMoeBlock

    from coursekit.nn.moe import MoEConfig, build_moe

    cfg = MoEConfig(d_model=32, d_ff=48, n_experts=8, top_k=2, renormalize=True)
    ours = build_moe(cfg, seed=4)
    hf_cfg = MixtralConfig(hidden_size=cfg.d_model, intermediate_size=cfg.d_ff, num_local_experts=cfg.n_experts,
                           num_experts_per_tok=cfg.top_k, hidden_act="silu", router_jitter_noise=0.0)
    hf = MixtralSparseMoeBlock(hf_cfg).eval()
    with torch.no_grad():
        hf.gate.weight.copy_(ours.router.weight)
        hf.experts.gate_up_proj.copy_(torch.cat([ours.w_gate, ours.w_up], dim=1))
        hf.experts.down_proj.copy_(ours.w_down)
    x = torch.randn(3, 40, cfg.d_model, generator=torch.Generator().manual_seed(0))
    return ours, hf, x


LAB = "lab5-moe"        # the `solution` fixture (conftest.py) is this lab's solution notebook


def test_router_weights_and_indices_match(pair, solution):
    ours, hf, x = pair
    flat = x.reshape(-1, x.shape[-1])
    with torch.no_grad():
        hf_logits, hf_weights, hf_indices = hf.gate(flat)
        logits, weights, indices = ours.route(flat)
        w_sol, i_sol = solution["top_k_route"](ours.router(flat), 2)
    assert torch.allclose(logits, hf_logits, atol=1e-6)
    assert torch.equal(indices, hf_indices) and torch.equal(i_sol, hf_indices)
    assert torch.allclose(weights, hf_weights, atol=1e-6) and torch.allclose(w_sol, hf_weights, atol=1e-6)


def test_layer_output_matches(pair, solution):
    ours, hf, x = pair
    with torch.no_grad():
        want = hf(x)
        assert torch.allclose(ours(x), want, atol=1e-5)
        got = solution["moe_forward"](x.reshape(-1, x.shape[-1]), ours).reshape(x.shape)
    assert torch.allclose(got, want, atol=1e-5)


def test_aux_loss_matches(pair, solution):
    from transformers.models.mixtral.modeling_mixtral import load_balancing_loss_func

    ours, _, x = pair
    with torch.no_grad():
        logits = ours.router(x.reshape(-1, x.shape[-1]))
        skewed = logits.clone()
        skewed[:, 3] += 3.0
        for lg in (logits, skewed):
            want = load_balancing_loss_func((lg,), num_experts=8, top_k=2)
            assert float(solution["load_balancing_loss"](lg, 2)) == pytest.approx(float(want), rel=1e-5)


def test_deepseek_v3_gate_matches_hugging_face():
    """Lab 5 and coursekit say V3 normalises its sigmoid gates and scales them by 2.5: HF's V3 router agrees
    (group limit off, zero balancing bias)."""
    from transformers import DeepseekV3Config
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3TopkRouter

    from coursekit.nn.moe import sigmoid_top_k_gates

    published = DeepseekV3Config()   # defaults are the released V3 config
    assert published.routed_scaling_factor == 2.5 and published.norm_topk_prob
    cfg = DeepseekV3Config(hidden_size=32, n_routed_experts=16, num_experts_per_tok=4, n_group=1, topk_group=1)
    router = DeepseekV3TopkRouter(cfg)
    x = torch.randn(20, 32, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        router.weight.copy_(torch.randn(16, 32, generator=torch.Generator().manual_seed(2)) / 32 ** 0.5)
        logits, hf_w, hf_i = router(x)
        w, i = sigmoid_top_k_gates(logits, 4, scale=cfg.routed_scaling_factor)
    order = hf_i.argsort(dim=-1)   # HF returns the top-k unsorted
    assert torch.equal(i.sort(dim=-1).values, hf_i.gather(1, order))
    assert torch.allclose(w.gather(1, i.argsort(dim=-1)), hf_w.gather(1, order), atol=1e-6)
    assert torch.allclose(w.sum(dim=-1), torch.full((20,), 2.5))


@pytest.mark.parametrize("tokens, experts, factor", [(12, 4, 1.0), (10, 4, 1.0), (13, 4, 1.25)])
def test_capacity_matches_switch_transformers(solution, tokens, experts, factor):
    """apply_capacity (top-1) keeps exactly the assignments Hugging Face's Switch router keeps when given the
    capacity Switch computes, int(tokens / experts * factor); rounding up would keep more."""
    from transformers import SwitchTransformersConfig
    from transformers.models.switch_transformers.modeling_switch_transformers import SwitchTransformersTop1Router

    capacity = int(tokens / experts * factor)
    cfg = SwitchTransformersConfig(d_model=16, num_experts=experts, expert_capacity=capacity, router_jitter_noise=0.0)
    router = SwitchTransformersTop1Router(cfg).eval()
    x = torch.randn(1, tokens, 16, generator=torch.Generator().manual_seed(tokens))
    with torch.no_grad():
        router.classifier.weight.copy_(torch.randn(experts, 16, generator=torch.Generator().manual_seed(7)))
        router.classifier.weight[0] += 1.0                      # skew so some expert overflows
        hf_mask, _, logits = router(x)
    indices = logits[0].argmax(dim=-1, keepdim=True)
    ours = solution["apply_capacity"](indices, experts, factor)
    assert ours["capacity"] == capacity
    assert torch.equal(ours["keep"][:, 0], hf_mask[0].sum(dim=-1).bool())
    assert int(ours["load"].sum()) == int(hf_mask.sum())
