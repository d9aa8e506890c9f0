"""Module 6 formulas (coursekit/calc/serving.py) and the scheduler simulation (serving_sim.py) against
hand-checkable cases, the course's other calculators and the behaviour the serving papers report."""
from __future__ import annotations

import pytest

from coursekit import hardware
from coursekit.calc import kvcache, memory, roofline, serving, serving_cost, speculative
from coursekit.calc import serving_sim as sim

H100 = hardware.H100_SXM.name


# ---- metrics ----------------------------------------------------------------------------------

def test_tpot_goodput_and_percentile_by_hand():
    assert serving.tpot(2.0, 0.5, 16) == pytest.approx(0.1)        # 15 gaps after the first token
    assert serving.tpot(0.3, 0.3, 1) == 0.0
    with pytest.raises(ValueError, match="serving.py"):
        serving.tpot(0.1, 0.3, 4)
    recs = [{"ttft_s": 0.2, "tpot_s": 0.02}, {"ttft_s": 0.9, "tpot_s": 0.02}, {"ttft_s": 0.2, "tpot_s": 0.08}]
    assert serving.goodput(recs, 10.0, 0.5, 0.05) == pytest.approx(0.1)      # one of three meets both
    assert serving.slo_attainment(recs, 1.0, 0.1) == 1.0
    assert serving.percentile(list(range(1, 101)), 99) == 99 and serving.percentile([3, 1, 2], 50) == 2


# ---- two workloads on one chip ------------------------------------------------------------------

def test_prefill_is_compute_bound_and_decode_is_not():
    ridge = roofline.chip_ridge_point(H100)
    assert serving.prefill_intensity("Llama 3 8B", 2048) > ridge > 100 * serving.decode_intensity("Llama 3 8B", 1, 2048)
    assert serving.decode_intensity("Llama 3 8B", 1, 2048) == pytest.approx(1, rel=0.1)   # about 1 FLOP/byte
    p = serving.prompt_at_ridge("Llama 3 8B", H100)
    assert serving.prefill_intensity("Llama 3 8B", p) >= ridge > serving.prefill_intensity("Llama 3 8B", p - 1)


def test_decode_reaches_the_ridge_only_when_the_kv_reads_allow():
    # Llama 3 8B at 1,024 tokens: each sequence's KV reads cap intensity below the H100's ridge
    assert roofline.decode_intensity_limit("Llama 3 8B", 1024) < roofline.chip_ridge_point(H100)
    assert serving.decode_batch_at_ridge("Llama 3 8B", H100, 1024) is None
    b = serving.decode_batch_at_ridge("Llama 2 70B", H100, 1024)
    assert b is not None and serving.decode_intensity("Llama 2 70B", b, 1024) >= roofline.chip_ridge_point(H100)
    assert serving.decode_intensity("Llama 2 70B", b - 1, 1024) < roofline.chip_ridge_point(H100)


# ---- memory ---------------------------------------------------------------------------------------

def test_blocks_agree_with_module_3_and_4_calculators():
    block = serving.kv_block_bytes("Llama 3 8B", 16)
    assert block == 16 * kvcache.model_kv_bytes_per_token("Llama 3 8B")
    free = serving.kv_blocks_free("Llama 3 8B", H100)
    usable = 80e9 * 0.9 - memory.model_weight_bytes("Llama 3 8B")
    assert free == int(usable // block)
    # sessions from blocks match users_per_replica within one session (a block boundary)
    sessions = free // kvcache.blocks_needed(4096, 16)
    assert abs(sessions - memory.users_per_replica("Llama 3 8B", H100, 4096)) <= 1
    assert serving.kv_blocks_free("Llama 2 70B", H100) == 0          # 140 GB of weights on one 80 GB chip


def test_waste_reservation_and_prefix_sharing():
    assert serving.earlier_systems_waste() == pytest.approx((0.618, 0.796))
    r = serving.reservation_breakdown([100, 300], [50, 50], 2048)
    assert r["used"] == pytest.approx(500 / 4096) and r["used"] + r["internal_fragmentation"] == pytest.approx(1)
    # Kwon et al. section 3.1: reserved slots are used later, internal fragmentation never. 100 + 3 tokens in 200
    # slots: steps hold 101, 102, 103 tokens, keep 2, 1, 0 slots for later tokens, and 97 slots are never used.
    t = serving.reservation_over_time([100], [3], 200)
    assert t == pytest.approx({"token_states": 306 / 600, "reserved": 3 / 600, "internal_fragmentation": 291 / 600})
    with pytest.raises(ValueError, match="serving.py"):
        serving.reservation_over_time([150], [60], 200)
    # Figure 2, Orca (Max): the four shares add up (to rounding), and fragmentation outweighs reservation
    orca = serving.ORCA_MAX_KV_SHARES
    assert sum(orca.values()) == pytest.approx(1, abs=0.002)
    assert orca["internal_fragmentation"] + orca["external_fragmentation"] > 4 * orca["reserved"]
    assert orca["token_states"] == serving.EARLIER_SYSTEMS_KV_USED[0]
    assert serving.paged_waste_fraction([17, 32], 16) == pytest.approx(15 / 64)
    shared = serving.prefix_sharing_blocks(10, 1000, 200, 16)
    # 1,000 prefix tokens = 62 full blocks shared; 75 blocks per request alone
    assert (shared["without"], shared["with"]) == (750, 62 + 10 * 13)
    assert serving.prefix_sharing_blocks(1, 1000, 200, 16)["saved_fraction"] == 0


def test_what_runs_out_first():
    assert serving.runs_out_first("Llama 2 70B", H100, 4096)["first"] == "weights"
    two = serving.runs_out_first("Llama 2 70B", H100, 4096, n_chips=2)
    assert two["first"] == "KV blocks" and two["sessions"] == memory.users_per_replica("Llama 2 70B", H100, 4096, 2)


# ---- preemption, speculation, cost ----------------------------------------------------------------

def test_swap_is_twice_a_one_way_transfer_and_recompute_is_a_prefill():
    assert serving.swap_seconds("Llama 3 8B", 2048, 32) == pytest.approx(2 * roofline.kv_transfer_seconds("Llama 3 8B", 2048, 32))
    assert serving.recompute_seconds("Llama 3 8B", H100, 2048) == pytest.approx(roofline.prefill_seconds("Llama 3 8B", H100, 1, 2048))


def test_step_seconds_is_the_decode_roofline_for_one_token():
    for batch in (1, 64, 512):
        assert serving.step_seconds("Llama 2 70B", H100, batch, 2048, 1, 1) == pytest.approx(
            roofline.decode_seconds("Llama 2 70B", H100, batch, 2048))


def test_speculation_pays_at_batch_one_and_fades_with_batch():
    at = lambda b: serving.speculative_speedup_in_batch("Llama 2 70B", "Llama 2 7B", H100, b, 1024, 0.8, 4, n_chips=8)
    assert at(1) > 2 and at(1) < speculative.expected_tokens_per_step(0.8, 4)
    gains = [at(b) for b in (1, 16, 128, 256)]
    assert gains == sorted(gains, reverse=True) and gains[-1] < 1


def test_cost_at_slo_is_module_4s_price_at_the_largest_batch_that_meets_it():
    got = serving.cost_at_slo("Llama 2 70B", H100, 2048, 0.05, 6.88, 0.6, n_chips=4)
    b = got["batch"]
    assert serving.step_seconds("Llama 2 70B", H100, b, 2048, 1, 4) <= 0.05
    assert b == memory.users_per_replica("Llama 2 70B", H100, 2048, 4) or \
        serving.step_seconds("Llama 2 70B", H100, b + 1, 2048, 1, 4) > 0.05
    assert got["cost_per_million"] == pytest.approx(serving_cost.cost_per_million_tokens(4 * 6.88, got["tokens_per_s"], 0.6))
    tighter = serving.cost_per_million_at_slo("Llama 2 70B", H100, 2048, 0.02, 6.88, 0.6, n_chips=4)
    assert tighter > got["cost_per_million"]
    with pytest.raises(ValueError, match="cannot meet"):
        serving.cost_at_slo("Llama 2 70B", H100, 2048, 0.001, 6.88, 0.6, n_chips=4)


# ---- the scheduler ------------------------------------------------------------------------------

def R(rid, t, p, o):
    return sim.Request(rid, t, p, o)


def test_one_request_by_hand():
    cost = sim.StepCost(base_s=0.01, per_seq_s=0.0, prefill_token_s=0.001)
    out = sim.simulate([R(0, 0.0, 100, 3)], cost)
    rec = out["records"][0]
    assert rec["ttft_s"] == pytest.approx(0.11)                 # one prefill step yields the first token
    assert rec["e2e_s"] == pytest.approx(0.13) and rec["tpot_s"] == pytest.approx(0.01)
    assert out["steps"] == 3


def test_chunked_prefill_bounds_the_stall_a_long_prompt_causes():
    cost = sim.StepCost(base_s=0.01, per_seq_s=0.0, prefill_token_s=0.0001)
    trace = [R(0, 0.0, 10, 50), R(1, 0.1, 4000, 5)]
    whole = sim.simulate(trace, cost, max_batch=4)["records"]
    chunked = sim.simulate(trace, cost, max_batch=4, token_budget=512)["records"]
    assert whole[0]["worst_gap_s"] == pytest.approx(0.01 + 0.4)          # the whole 4,000-token prompt in one step
    assert chunked[0]["worst_gap_s"] == pytest.approx(0.01 + 511 * 0.0001)
    assert chunked[1]["ttft_s"] > whole[1]["ttft_s"]                     # the long prompt waits longer


def test_block_budget_admits_preempts_and_never_exceeds():
    trace = sim.make_trace(80, seed=3, rate_per_s=50, prompt_range=(32, 200), mean_output=100, max_output=300)
    free = sim.simulate(trace, sim.StepCost(), max_batch=32)
    tight = sim.simulate(trace, sim.StepCost(), max_batch=32, kv_blocks=120, block_tokens=16)
    assert tight["preemptions"] > 0 and tight["peak_blocks"] <= 120
    assert len(tight["records"]) == len(trace)                            # nobody starves
    assert tight["tokens_per_s"] < free["tokens_per_s"]
    with pytest.raises(ValueError, match="needs more than all"):
        sim.simulate([R(0, 0, 500, 10)], sim.StepCost(), kv_blocks=10, block_tokens=16)


def test_continuous_beats_static_throughput_like_module_3():
    from coursekit.calc import batching

    trace = sim.make_trace(150, seed=0, rate_per_s=20)
    ours = sim.simulate(trace, sim.StepCost(), max_batch=16)
    static = batching.simulate(trace, "static", 16)
    assert ours["tokens_per_s"] > static["tokens_per_s"]


def test_disaggregation_removes_prefill_interference_from_decode():
    cost = sim.step_cost_for("Llama 3 8B", H100, 1024)
    trace = sim.make_trace(200, seed=1, rate_per_s=6, prompt_range=(1024, 4096), mean_output=64)
    colocated = [rec for part in sim.split_trace(trace, 2) for rec in sim.simulate(part, cost, 32)["records"]]
    split = sim.simulate_disaggregated(trace, cost, 32, transfer_s_per_token=0.0)["records"]
    worst = lambda recs, key: serving.percentile([r[key] for r in recs], 99)
    assert worst(split, "tpot_s") < worst(colocated, "tpot_s")
    assert cost.base_s == pytest.approx(roofline.matmul_params("Llama 3 8B") * 2 / 3.35e12)


def test_mixed_step_sum_against_the_roofline():
    """The simulator adds prefill compute to the memory time; the roofline takes the larger, so decodes beside a
    compute-bound chunk are free there (Lesson 3 prints both for 64 decodes and a 2,048-token chunk)."""
    cost = sim.step_cost_for("Llama 3 8B", H100, context=1024)
    memory_s = cost.base_s + 64 * cost.per_seq_s
    chunk_s = 2048 * cost.prefill_token_s
    assert sim.mixed_step_seconds(cost, 64, 2048) == pytest.approx(memory_s + chunk_s)
    assert sim.mixed_step_seconds(cost, 64, 2048, roofline_max=True) == pytest.approx(chunk_s)
    # a decode-only step is memory-bound either way
    assert sim.mixed_step_seconds(cost, 64, 0, roofline_max=True) == pytest.approx(memory_s)


def test_the_acceptance_rule_emits_the_target_distribution():
    """Leviathan et al. 2023, section 2.3: accept x ~ q with min(1, p/q), else resample from max(0, p - q)."""
    import random

    rng = random.Random(3)
    for _ in range(50):
        p = [rng.random() for _ in range(6)]
        q = [rng.random() for _ in range(6)]
        p, q = [x / sum(p) for x in p], [x / sum(q) for x in q]
        beta = speculative.acceptance_probability(p, q)
        assert beta == pytest.approx(1 - 0.5 * sum(abs(a - b) for a, b in zip(p, q)))     # 1 - total variation
        assert speculative.speculative_output_distribution(p, q) == pytest.approx(p)
        r = speculative.residual_distribution(p, q)
        assert sum(r) == pytest.approx(1) and all(ri == 0 for ri, a, b in zip(r, p, q) if a <= b)
    same = [0.25, 0.75]
    assert speculative.acceptance_probability(same, same) == pytest.approx(1)
    assert speculative.residual_distribution(same, same) == same
    with pytest.raises(ValueError, match="speculative.py"):
        speculative.acceptance_probability([0.5, 0.6], [0.5, 0.5])
    # the sampler follows the rule: a token the draft never proposes comes only from the residual
    p, q = [0.5, 0.5], [1.0, 0.0]
    draws = [speculative.speculative_sample(p, q, rng) for _ in range(2000)]
    assert all(not ok for token, ok in draws if token == 1)
    assert sum(token for token, _ in draws) / 2000 == pytest.approx(0.5, abs=0.05)
