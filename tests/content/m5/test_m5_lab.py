"""Lab 5 (MoE), what only this lab has: the checks reject classic mistakes, the vectorized layer equals
the course's per-token reference, and speculation, scaling and counts agree with coursekit. The
contract every lab keeps is in tests/content/test_labs_contract.py."""
from __future__ import annotations

import pytest
import torch


LAB = "lab5-moe"


@pytest.mark.parametrize("seed", range(5))
def test_vectorized_layer_equals_per_token_loop(seed, solution):
    from coursekit.nn.moe import MoEConfig, build_moe

    g = torch.Generator().manual_seed(seed)
    experts = int(torch.randint(2, 17, (1,), generator=g))
    cfg = MoEConfig(d_model=16, d_ff=24, n_experts=experts, top_k=int(torch.randint(1, min(4, experts) + 1, (1,), generator=g)),
                    renormalize=bool(seed % 2))
    layer = build_moe(cfg, seed=seed)
    x = torch.randn(int(torch.randint(1, 200, (1,), generator=g)), 16, generator=g)
    with torch.no_grad():
        assert torch.allclose(solution["moe_forward"](x, layer), layer(x), atol=1e-5, rtol=1e-4)


def test_grader_rejects_router_that_skips_renormalization(solution):
    from autograder.release.visible_cases import run_visible

    def raw_always(logits, k, renormalize=True):
        return solution["top_k_route"](logits, k, renormalize=False)

    with pytest.raises(AssertionError, match="top-k router"):
        run_visible(LAB, "test_router", raw_always)


def test_grader_rejects_aux_loss_normalised_by_slots(solution):
    """A common slip: dividing the assignment counts by T*k instead of T (Switch counts per token)."""
    from autograder.release.visible_cases import run_visible

    def per_slot(logits, k):
        return solution["load_balancing_loss"](logits, k) / k

    with pytest.raises(AssertionError, match="load-balancing"):
        run_visible(LAB, "test_aux", per_slot)


def test_grader_rejects_capacity_in_token_order(solution):
    """Serving token by token (token 0's both choices before token 1's first) is a different rule."""

    from autograder.release.visible_cases import run_visible

    def token_major(indices, n_experts, capacity_factor):
        t, k = indices.shape
        cap = int(capacity_factor * t * k / n_experts)
        used = [0] * n_experts
        keep = torch.zeros(t, k, dtype=torch.bool)
        for i in range(t):
            for j in range(k):
                e = int(indices[i, j])
                if used[e] < cap:
                    used[e] += 1
                    keep[i, j] = True
        return {"capacity": cap, "keep": keep, "load": torch.tensor(used), "dropped": int((~keep).sum())}

    with pytest.raises(AssertionError, match="expert capacity"):
        run_visible(LAB, "test_capacity", token_major)


def test_grader_rejects_speculation_that_keeps_the_draft_token(solution):
    """Appending the draft's token at the first disagreement changes the output."""
    from autograder.release.visible_cases import run_visible

    @torch.no_grad()
    def trusts_draft(target, draft, prompt, n_new, k):
        seq = prompt
        while seq.shape[1] - prompt.shape[1] < n_new:
            proposal = seq
            for _ in range(k):
                proposal = torch.cat([proposal, draft(proposal)[:, -1:].argmax(-1)], dim=1)
            seq = proposal
        return {"tokens": seq[:, prompt.shape[1]:prompt.shape[1] + n_new]}

    with pytest.raises(AssertionError, match="speculative"):
        run_visible(LAB, "test_speculative", trusts_draft)


def test_speculative_output_is_the_targets_greedy_output(solution):
    from coursekit.nn.draft import build_draft_pair
    from coursekit.nn.decoder import greedy_generate

    target, draft = build_draft_pair(seed=11, n_layers=4, draft_layers=2, damp=0.3)
    prompt = torch.randint(0, 256, (1, 5), generator=torch.Generator().manual_seed(2))
    for k in (1, 3, 5):
        out = solution["speculative_greedy"](target, draft, prompt, 20, k)
        assert torch.equal(out["tokens"], greedy_generate(target, prompt, 20))
        assert 0 < out["accepted"] and out["steps"] < 20   # the pair agrees often enough to save steps


def test_scaling_optimum_matches_coursekit(solution):
    from coursekit.calc.scaling import optimal_model

    for loss, demand in [(1.95, 0.0), (2.1, 1e12), (1.9, 1e14)]:
        mine, ref = solution["optimal_n_d"](loss, demand), optimal_model(loss, demand)
        assert mine["n_params"] == pytest.approx(ref["n_params"], rel=1e-3)
        assert mine["total_flops"] == pytest.approx(ref["total_flops"], rel=1e-6)


def test_counts_match_coursekit_on_deepseek_v3(solution):
    from coursekit.calc import moe

    s = moe.DEEPSEEK_V3_SHAPE
    layers = s["n_layers"] - s["first_dense_layers"]
    ref = moe.moe_model_counts(layers, s["d_model"], s["expert_d_ff"], s["n_routed"], s["top_k"], s["n_shared"], 1.2e10)
    mine = solution["moe_counts"](layers, s["d_model"], s["expert_d_ff"], s["n_routed"], s["top_k"], s["n_shared"], 1.2e10)
    for key in ("total_params", "active_params", "flops_per_token"):
        assert mine[key] == pytest.approx(ref[key])
