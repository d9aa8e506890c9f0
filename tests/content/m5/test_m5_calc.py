"""Module 5 formulas against hand-checkable cases and published figures, the reference MoE layer,
the numbers the lessons teach, and the Module 5 question banks."""
from __future__ import annotations

import math

import pytest
import torch

from coursekit.calc import cascade, moe, scaling, speculative
from coursekit.model_configs import DEEPSEEK_V3, MIXTRAL_8X7B
from paths import ROOT

pytestmark = pytest.mark.float_sensitive   # run again under other kernels and threads (test_portable_floats.py)


# ---- speculative decoding ----------------------------------------------------------------------

def test_tokens_per_step_hand_cases():
    assert speculative.expected_tokens_per_step(0.5, 1) == pytest.approx(1.5)          # 1 + a
    assert speculative.expected_tokens_per_step(0.5, 2) == pytest.approx(1.75)         # 1 + a + a^2
    assert speculative.expected_tokens_per_step(0.0, 7) == 1.0                          # only the target's token
    assert speculative.expected_tokens_per_step(1.0, 4) == 5.0                          # the limit k + 1
    assert speculative.expected_tokens_per_step(0.999999, 4) == pytest.approx(5.0, rel=1e-5)


def test_speedup_and_best_k():
    assert speculative.speedup(0.8, 4, 0.0) == pytest.approx(speculative.expected_tokens_per_step(0.8, 4))
    assert speculative.speedup(0.8, 4, 0.25) == pytest.approx((1 - 0.8 ** 5) / 0.2 / 2.0)
    assert speculative.speedup(0.7, 0, 0.5) == 1.0
    assert speculative.best_draft_length(0.0, 0.1) == 0                  # never speculate with a useless draft
    assert speculative.best_draft_length(0.9, 0.01) > speculative.best_draft_length(0.9, 0.3)
    assert speculative.compute_ratio(1.0, 3, 0.0) == pytest.approx(1.0)  # all accepted, free draft: no waste
    assert speculative.compute_ratio(0.5, 4, 0.1) > 1.0


def test_speculative_inputs_are_checked():
    with pytest.raises(ValueError, match="speculative.py"):
        speculative.expected_tokens_per_step(1.2, 3)
    with pytest.raises(ValueError, match="speculative.py"):
        speculative.expected_tokens_per_step(0.5, 2.5)
    with pytest.raises(ValueError, match="speculative.py"):
        speculative.acceptance_rate_from_counts(0, 0)
    assert speculative.acceptance_rate_from_counts(3, 1) == 0.75


# ---- scaling -----------------------------------------------------------------------------------

def test_chinchilla_loss_by_hand():
    by_hand = 1.69 + 406.4 / 70e9 ** 0.34 + 410.7 / 1.4e12 ** 0.28
    assert scaling.chinchilla_loss(70e9, 1.4e12) == pytest.approx(by_hand)
    assert scaling.chinchilla_loss(70e9, 1.4e12) == pytest.approx(1.9365, abs=1e-3)
    assert scaling.training_flops(2, 3) == 36 and scaling.inference_flops(2, 3) == 12


def test_tokens_for_loss_inverts_the_law():
    for n in (1e9, 7e9, 70e9):
        d = scaling.tokens_for_loss(n, 2.05)
        assert scaling.chinchilla_loss(n, d) == pytest.approx(2.05, abs=1e-9)
    assert scaling.tokens_for_loss(1e6, 2.05) == math.inf            # too small to ever reach it
    with pytest.raises(ValueError, match="scaling.py"):
        scaling.min_params_for_loss(1.6)                              # below the irreducible loss


@pytest.mark.parametrize("law", [scaling.HOFFMANN_2022, scaling.BESIROGLU_2024])
def test_zero_demand_optimum_is_chinchillas(law):
    chin = scaling.compute_optimal(5.76e23, law)
    r = scaling.optimal_model(chin["loss"], 0.0, law)
    assert r["n_params"] == pytest.approx(chin["n_params"], rel=1e-4)
    assert r["n_tokens"] == pytest.approx(chin["n_tokens"], rel=1e-4)
    assert r["training_flops"] == pytest.approx(5.76e23, rel=1e-6)


def test_zero_demand_ratio_near_twenty_only_with_the_refit():
    assert 15 < scaling.compute_optimal_tokens_per_param(5.76e23, "besiroglu") < 25
    assert scaling.compute_optimal_tokens_per_param(5.76e23, "hoffmann") > 60


def test_demand_shrinks_the_model_and_raises_the_ratio():
    loss = 2.0
    prev = scaling.optimal_model(loss, 0.0)
    for demand in (1e11, 1e12, 1e13, 1e14, 1e15):
        r = scaling.optimal_model(loss, demand)
        assert r["n_params"] < prev["n_params"] and r["tokens_per_param"] > prev["tokens_per_param"]
        assert scaling.chinchilla_loss(r["n_params"], r["n_tokens"]) == pytest.approx(loss, abs=1e-9)
        # a local minimum: nudging N either way costs more
        for f in (0.97, 1.03):
            assert scaling.total_flops(r["n_params"] * f, loss, demand) >= r["total_flops"] * (1 - 1e-12)
        prev = r


def test_published_token_ratios():
    assert scaling.run_tokens_per_param("Chinchilla 70B") == pytest.approx(20)
    assert scaling.run_tokens_per_param("Llama 3 8B") == pytest.approx(1900, rel=0.03)
    assert scaling.run_tokens_per_param("SmolLM2-360M") == pytest.approx(11_100, rel=0.01)
    assert scaling.run_tokens_per_param("Qwen3-0.6B") == pytest.approx(60_000)
    assert scaling.run_tokens_per_param("LFM2.5-350M") == pytest.approx(80_000)
    with pytest.raises(KeyError, match="Llama-4 8B"):
        scaling.run_tokens_per_param("Llama-4 8B")


# ---- MoE arithmetic ----------------------------------------------------------------------------

def test_mixtral_counts_from_its_config():
    attention = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024)     # q, o full; k, v with 8 KV heads
    embeddings = 2 * 32000 * 4096
    c = moe.moe_model_counts(32, 4096, 14336, 8, 2, dense_params=attention + embeddings)
    assert c["total_params"] == pytest.approx(MIXTRAL_8X7B.n_params, rel=0.01)
    assert c["active_params"] == pytest.approx(MIXTRAL_8X7B.active_params, rel=0.01)
    assert c["flops_per_token"] == 2 * c["active_params"]


def test_deepseek_v3_rebuilt_from_config():
    c = moe.deepseek_v3_counts()
    assert c["total_params"] == pytest.approx(DEEPSEEK_V3.n_params, rel=0.005)
    assert c["active_params"] == pytest.approx(DEEPSEEK_V3.active_params, rel=0.03)
    assert c["routed_expert_fraction"] == 8 / 256
    assert c["active_fraction"] > c["routed_expert_fraction"]


def test_seed_memory_and_flop_arithmetic():
    bf16 = moe.fits_on_node(671e9, 2, 8, 141)
    assert bf16["weights_gb"] == pytest.approx(1342) and bf16["node_gb"] == 1128 and not bf16["fits"]
    assert moe.fits_on_node(671e9, 1, 8, 141)["fits"] and moe.fits_on_node(671e9, 0.5, 8, 141)["fits"]
    assert moe.weight_memory_gb(671e9, 0.5) == pytest.approx(335.5)
    assert moe.published_flops_per_token("DeepSeek-V3") == pytest.approx(74e9)
    assert moe.dense_to_moe_flop_ratio(671e9, 37e9) == pytest.approx(18.1, abs=0.05)


def test_batch_one_routing_claim():
    assert moe.router_flop_share(7168, 2048, 256, 8, 1) < 0.01
    assert moe.expected_distinct_experts(1, 256, 8) == pytest.approx(8)
    assert moe.expected_distinct_experts(10_000, 256, 8) == pytest.approx(256)
    per_token = [moe.decode_weight_bytes_per_token(b, 256, 8, 1e9, 5e9, 1) for b in (1, 8, 64)]
    assert per_token[0] == pytest.approx(13e9)            # dense part + its 8 experts
    assert per_token[0] > per_token[1] > per_token[2]


def test_capacity_and_errors():
    assert moe.expert_capacity(1024, 8, 2, 1.25) == 320
    assert moe.expert_capacity(10, 4, 1, 1.0) == 2          # int(2.5): Switch truncates
    with pytest.raises(ValueError, match="moe.py"):
        moe.moe_layer_params(64, 128, 4, 5)


# ---- cascade -----------------------------------------------------------------------------------

def test_cascade_formulas():
    assert cascade.ratio_from_prices(0.30, 6.0, 0.05) == pytest.approx(0.10)
    assert cascade.min_price_ratio_for(0.1, 0.05) == pytest.approx(20)
    assert cascade.min_price_ratio_for(0.1, 0.1) == math.inf
    assert cascade.break_even_escalation(0.30, 0.88) == pytest.approx(1 - 0.30 / 0.88)
    assert cascade.self_hosted_price_per_m(3.0, 3.0 / 0.30 * 1e6 / 3600) == pytest.approx(0.30)
    assert cascade.daily_cost(100_000, 2000, 0.30) == pytest.approx(60.0)


def test_seed_one_tenth_claim_depends_on_the_fallback():
    w = cascade.Workload()
    seventy = cascade.cascade_ratio(w, cascade.SMALL_7B, cascade.LLAMA31_70B_HOSTED)
    frontier = cascade.cascade_ratio(w, cascade.SMALL_7B, cascade.FRONTIER_API)
    assert seventy == pytest.approx(0.30 / 0.88 + 0.05)
    assert seventy > 0.3 and 0.09 < frontier < 0.13
    by_hand_naive = 100_000 * (1500 * 3.0 + 300 * 15.0) / 1e6
    assert cascade.naive_daily_cost(w, cascade.FRONTIER_API) == pytest.approx(by_hand_naive)
    with pytest.raises(ValueError, match="cascade.py"):
        cascade.cascade_ratio(cascade.Workload(escalation=1.5), cascade.SMALL_7B, cascade.FRONTIER_API)


# ---- reference MoE layer -----------------------------------------------------------------------

def test_reference_layer_routing():
    from coursekit.nn.moe import MoEConfig, build_moe, expert_load

    layer = build_moe(MoEConfig(d_model=16, d_ff=32, n_experts=6, top_k=2), seed=3)
    again = build_moe(MoEConfig(d_model=16, d_ff=32, n_experts=6, top_k=2), seed=3)
    assert all(torch.equal(a, b) for a, b in zip(layer.parameters(), again.parameters()))
    x = torch.randn(50, 16, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        logits, w, idx = layer.route(x)
        assert torch.allclose(w.sum(-1), torch.ones(50))
        probs = logits.softmax(-1)
        assert torch.equal(idx, probs.topk(2, -1).indices)
        assert expert_load(idx, 6).sum() == 100
        # one token by hand: weighted sum of its two experts
        t = 7
        by_hand = sum(w[t, j] * layer.expert(int(idx[t, j]), x[t]) for j in range(2))
        assert torch.allclose(layer(x)[t], by_hand, atol=1e-6)
        # seed 000's fragment takes top-k of the raw logits, then a softmax over those k: the same weights
        top_logits, top_idx = logits.topk(2, -1)
        assert torch.equal(top_idx, idx) and torch.allclose(top_logits.softmax(-1), w, atol=1e-6)
    raw = build_moe(MoEConfig(d_model=16, d_ff=32, n_experts=6, top_k=2, renormalize=False), seed=3)
    with torch.no_grad():
        assert (raw.route(x)[1].sum(-1) < 1).all()
    with pytest.raises(ValueError, match="moe.py"):
        MoEConfig(n_experts=4, top_k=5)


# ---- lessons and banks -------------------------------------------------------------------------

def test_m5_banks_pass_self_test():
    from coursekit.quiz import check_banks, load_all_banks

    problems = [p for p in check_banks(ROOT / "quizzes") if "/m5/" in str(p.file)]
    assert not problems, "\n".join(map(str, problems))
    banks = load_all_banks(ROOT / "quizzes")
    for bank_id in ("m5-l1", "m5-l2", "m5-l3"):
        assert len(banks[bank_id].items) >= 6 and banks[bank_id].show >= 3
    test = banks["m5-test"]
    pool = len(test.items) + sum(len(banks[b].items) for b in test.include)
    assert pool >= 25 and test.show == 15 and test.pass_mark == 0.8


def test_lessons_open_with_objectives_and_end_with_their_quiz():
    import nbformat

    lessons = sorted((ROOT / "course" / "m5-co-design").glob("0*.ipynb"))
    assert len(lessons) == 3
    for i, path in enumerate(lessons, 1):
        nb = nbformat.read(path, as_version=4)
        assert "Learning objectives" in nb.cells[0].source
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert "Errata" in text and "Key terms" in text and "Summary" in text
        assert f'show_quiz("m5-l{i}")' in [c for c in nb.cells if c.cell_type == "code"][-1].source
    test = nbformat.read(ROOT / "course" / "m5-co-design" / "module-test.ipynb", as_version=4)
    assert 'show_module_test("m5")' in test.cells[-1].source
