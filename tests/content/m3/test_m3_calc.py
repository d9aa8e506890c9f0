"""Module 3 formulas against hand-checkable cases and published figures, the errata figures pinned,
and the M3 banks' self-test."""
import math

import pytest

from coursekit import hardware
from coursekit.calc import batching, chips, kvcache
from coursekit.model_configs import LLAMA2_7B, LLAMA2_70B, LLAMA31_70B
from paths import ROOT


# ---- corrections: variants, one-way links, MLA, Groq's software gains ---------------------------

def test_h100_variants_name_their_memory():
    assert "HBM2e" in hardware.H100_PCIE.source and hardware.H100_PCIE.memory_tbs == 2.0
    assert "HBM3" in hardware.H100_SXM.source and hardware.H100_SXM.memory_tbs == 3.35
    assert hardware.H100_PCIE.memory_gb == hardware.H100_SXM.memory_gb == 80


def test_nvlink_one_way_is_half_the_datasheet_total():
    assert hardware.H100_SXM.interconnect_gbs == 900 and hardware.NVLINK4_H100.one_way_gbs == 450
    assert hardware.INFINIBAND_NDR.one_way_gbs == 50


def test_deepseek_v3_caches_a_latent_not_heads():
    from coursekit.calc import roofline
    from coursekit.model_configs import DEEPSEEK_V3

    mla = kvcache.model_kv_bytes_per_token("DeepSeek-V3")
    assert mla == 61 * 576 * 2 == roofline.kv_bytes_per_token(DEEPSEEK_V3)
    heads = kvcache.model_kv_bytes_per_token("DeepSeek-V3", use_gqa=False)
    assert heads / mla == pytest.approx(2 * 128 * 128 / 576)   # ~57x: what ignoring MLA would overstate


def test_groq_published_speeds_rose_with_software_alone():
    gains = chips.software_speedups()
    assert gains["Llama 2 70B"] == pytest.approx(3.0)
    assert gains["Llama 3.1 70B"] > 6
    assert all(s.source for s in chips.GROQ_70B_SPEEDS)


# ---- kvcache ----------------------------------------------------------------------------------

def test_kv_per_token_by_hand():
    # 2 (K,V) x 2 layers x 3 heads x 4 dims x 2 bytes
    assert kvcache.kv_bytes_per_token(2, 3, 4, 2) == 96
    assert kvcache.kv_bytes_per_session(2, 3, 4, seq_len=10, bytes_per_elem=2, batch=3) == 96 * 30


def test_published_kv_sizes():
    # Llama 2 7B (MHA, 32 layers x 32 heads x 128): 0.5 MiB per token
    assert kvcache.model_kv_bytes_per_token("Llama 2 7B") == 2 * 32 * 32 * 128 * 2 == 512 * 1024
    # Llama 2/3.1 70B with 8 KV heads: 320 KiB per token
    assert kvcache.model_kv_bytes_per_token("Llama 2 70B") == 327_680


def test_errata_128k_session_of_70b():
    """Seed 003: 'can exceed 50 GB'. With GQA it is 40 GiB (42.9 GB); without GQA 320 GiB."""
    for name in ("Llama 2 70B", "Llama 3.1 70B"):
        assert kvcache.model_kv_gib_per_session(name, 131072) == pytest.approx(40.0)
        assert kvcache.model_kv_bytes_per_session(name, 131072) / 1e9 == pytest.approx(42.95, abs=0.01)
        assert kvcache.model_kv_bytes_per_session(name, 131072) < 50e9
        assert kvcache.model_kv_gib_per_session(name, 131072, use_gqa=False) == pytest.approx(320.0)
    assert kvcache.gqa_reduction(LLAMA31_70B.n_heads, LLAMA31_70B.n_kv_heads) == 8


def test_sessions_and_offload():
    assert kvcache.sessions_that_fit(80e9, 70e9, 1e9) == 10
    assert kvcache.sessions_that_fit(80e9, 70e9, 1e9, reserve_frac=0.1) == 2
    assert kvcache.sessions_that_fit(60e9, 70e9, 1e9) == 0
    assert kvcache.max_context_tokens(80e9, 70e9, 327_680) == int(10e9 // 327_680)
    assert kvcache.offload_transfer_seconds(64e9, 64) == pytest.approx(1.0)


def test_paging_math():
    assert [kvcache.blocks_needed(n, 16) for n in (0, 1, 16, 17, 32)] == [0, 1, 1, 2, 2]
    assert kvcache.paged_waste_tokens([1, 16, 17], 16) == 15 + 0 + 15
    assert kvcache.contiguous_waste_tokens([100, 2048], 2048) == 1948
    s = kvcache.fragmentation_summary([100, 1000, 2048], 16, 2048)
    assert s["paged_allocated"] == 112 + 1008 + 2048
    assert s["paged_waste_frac"] == pytest.approx((12 + 8) / 3168)
    assert s["contiguous_waste_frac"] == pytest.approx((1948 + 1048) / 6144)
    with pytest.raises(ValueError, match="kvcache.py"):
        kvcache.contiguous_waste_tokens([3000], 2048)


def test_unknown_model_is_named():
    with pytest.raises(KeyError, match="Llama 9"):
        kvcache.model_kv_bytes_per_token("Llama 9")


# ---- chips ------------------------------------------------------------------------------------

def test_groq_needs_hundreds_of_chips_for_70b():
    """Errata: 230 MB of SRAM per chip -> 300 chips at INT8, 600 at BF16 for Llama 2 70B."""
    sram_mb = hardware.GROQ_LPU.memory_gb * 1e3
    assert chips.sram_chips_for_weights(LLAMA2_70B.n_params, 1, sram_mb) == 300
    assert chips.sram_chips_for_weights(LLAMA2_70B.n_params, 2, sram_mb) == 600


def test_hbm_chips_to_hold_70b():
    assert chips.chips_to_hold_model("Llama 2 70B", "NVIDIA H100 SXM", 2) == 2      # 138 GB / 80 GB
    assert chips.chips_to_hold_model("Llama 2 70B", "NVIDIA L40S", 2) == 3          # 138 GB / 48 GB
    assert chips.chips_to_hold_model("Llama 2 70B", "Google TPU v5e", 2) == 9       # 138 GB / 16 GB
    assert chips.chips_to_hold_model("Llama 2 70B", "AWS Inferentia2", 1) == 3      # 69 GB / 32 GB


def test_prefill_and_decode_floors_by_hand():
    # 2 x 1e9 params x 1000 tokens / (2 chips x 100 TFLOP/s) = 10 ms
    assert chips.prefill_seconds(1e9, 1000, 100, n_chips=2) == pytest.approx(0.01)
    assert chips.chips_for_ttft(1e9, 1000, 100, ttft_target_s=0.005) == 4
    # 2 TB of bytes over 2 chips at 1 TB/s = 1 s
    assert chips.decode_step_seconds(1.5e12, 0.5e12, 1.0, n_chips=2) == pytest.approx(1.0)
    # Llama 2 70B BF16 on one H100 SXM: 3.35e12 / 137.96e9 = 24.3 tok/s
    assert chips.decode_tokens_per_s_bound("Llama 2 70B", "NVIDIA H100 SXM") == pytest.approx(24.28, rel=1e-3)


def test_batching_raises_throughput_until_compute_bound():
    t = [chips.decode_throughput("Llama 2 70B", "NVIDIA H100 SXM", b, n_chips=2) for b in (1, 8, 64, 1024, 4096)]
    assert t[1] == pytest.approx(8 * t[0])                       # bandwidth-bound: weights shared
    assert all(a < b for a, b in zip(t[:3], t[1:4])) and t[3] == pytest.approx(t[4])
    compute_cap = 2 * hardware.H100_SXM.bf16_tflops * 1e12 / (2 * LLAMA2_70B.n_params)
    assert t[-1] == pytest.approx(compute_cap, rel=1e-6)          # beyond the ridge: compute floor


def test_ridge_points_from_spec_sheets():
    assert chips.ridge_point_of("NVIDIA H100 SXM") == pytest.approx(989 / 3.35)
    assert chips.ridge_point_of("NVIDIA A100 SXM 80GB") == pytest.approx(312 / 2.039)
    assert chips.A100_L2_MB == 40.0   # errata: not ~50 MB


def test_compare_philosophies_rows_are_consistent():
    rows = chips.compare_philosophies("Llama 2 70B", prompt_tokens=2048, context_tokens=4096, concurrent_sessions=8)
    assert [r.chip for r in rows] == [c.name for c in chips.PHILOSOPHIES.values()]
    for r in rows:
        chip = hardware.BY_NAME[r.chip]
        held = LLAMA2_70B.n_params * r.bytes_per_param + 8 * kvcache.model_kv_bytes_per_session("Llama 2 70B", 4096)
        assert r.n_chips * chip.memory_gb * 1e9 * 0.9 >= held                     # it fits
        assert (r.n_chips - 1) * chip.memory_gb * 1e9 * 0.9 < held                 # and is the smallest
        assert r.meets_ttft == (r.prefill_s + r.decode_ms / 1e3 <= 0.5)
        assert r.chips_for_target >= r.n_chips
    groq = rows[0]
    assert groq.n_chips > 300 and groq.tokens_per_s_user > 300 * 100   # floor far above the measured ~300


def test_cost_per_million_tokens():
    # 4 chips x $2/h = $8/h; 1000 tok/s = 3.6M tok/h -> $2.22 per million
    assert chips.cost_per_million_tokens(2.0, 4, 1000) == pytest.approx(8 / 3.6)


# ---- batching ---------------------------------------------------------------------------------

def _trace(outputs, gap=0.0):
    return [batching.Request(i, i * gap, 10, n) for i, n in enumerate(outputs)]


def test_static_batch_waits_for_longest_by_hand():
    cost = batching.StepCost(base_s=1.0, per_seq_s=0.0, prefill_token_s=0.0)
    trace = _trace([1, 1, 1, 4, 1, 1, 1, 1])
    static = batching.simulate(trace, "static", max_batch=4, cost=cost)
    cont = batching.simulate(trace, "continuous", max_batch=4, cost=cost)
    # static: batch 1 takes 4 steps (longest), batch 2 one step -> 5 s; continuous: 4 s
    assert static["makespan_s"] == pytest.approx(5.0)
    assert cont["makespan_s"] == pytest.approx(4.0)
    assert cont["tokens_per_s"] > static["tokens_per_s"]
    assert static["iterations"] == 5 and cont["iterations"] == 4


def test_continuous_wins_on_a_loaded_trace():
    trace = batching.make_trace(150, seed=1, rate_per_s=3.0)
    s, c = (batching.simulate(trace, p, 16) for p in ("static", "continuous"))
    assert c["tokens_per_s"] > 1.5 * s["tokens_per_s"]
    assert c["p99_ttft_s"] < s["p99_ttft_s"] / 5
    assert c["mean_useful_batch"] > s["mean_useful_batch"]


def test_light_load_policies_agree():
    trace = _trace([5, 7, 3], gap=100.0)     # requests never overlap
    s, c = (batching.simulate(trace, p, 8) for p in ("static", "continuous"))
    assert s["mean_latency_s"] == pytest.approx(c["mean_latency_s"])


def test_trace_is_deterministic_and_bad_policy_named():
    assert batching.make_trace(20, seed=4) == batching.make_trace(20, seed=4)
    with pytest.raises(ValueError, match="batching.py"):
        batching.simulate(batching.make_trace(3), "greedy")


# ---- banks -------------------------------------------------------------------------------------

def test_m3_banks_pass_self_test():
    from coursekit.quiz import check_banks, load_all_banks

    problems = [p for p in check_banks(ROOT / "quizzes") if "/m3/" in str(p.file)]
    assert not problems, "\n".join(map(str, problems))
    banks = load_all_banks(ROOT / "quizzes")
    for bank_id in ("m3-l1", "m3-l2", "m3-l3"):
        assert len(banks[bank_id].items) >= 6 and banks[bank_id].show >= 3
    test = banks["m3-test"]
    pool = len(test.items) + sum(len(banks[b].items) for b in test.include)
    assert pool >= 25 and test.show == 15 and test.pass_mark == 0.8


def test_numbers_taught_match_the_functions():
    """The lessons print these; pin them so a change to the inputs shows up as a test failure."""
    assert math.isclose(kvcache.model_kv_gib_per_session(LLAMA2_7B.name, 4096), 2.0)
    assert math.isclose(kvcache.model_kv_gib_per_session(LLAMA2_70B.name, 4096), 1.25)
    assert kvcache.sessions_that_fit(2 * hardware.H100_NVL.memory_gb * 1e9, LLAMA31_70B.n_params,
                                     kvcache.model_kv_bytes_per_session("Llama 3.1 70B", 131072), 0.1) == 2


def test_eight_bit_weights_run_on_int8_or_fp8_whichever_is_printed():
    fp8_only = [hardware.MI355X, hardware.GB200_GPU, hardware.TPU_IRONWOOD, hardware.TRAINIUM2]
    assert all(c.int8_tops is None and c.fp8_tflops for c in fp8_only)
    rows = chips.compare_philosophies("Llama 2 70B", chips=[c.name for c in fp8_only + [hardware.MI300X]])
    for r in rows:
        assert r.bytes_per_param == 1, r.chip                  # 8-bit weights, not 2 bytes for want of an INT8 field
        c = hardware.BY_NAME[r.chip]
        # prefill at the 8-bit rate: 2 N P / (n x rate x 0.5)
        assert r.prefill_s == pytest.approx(2 * LLAMA2_70B.n_params * 2048 / (r.n_chips * chips.eight_bit_tflops(c) * 1e12 * 0.5))
    assert chips.eight_bit_tflops(hardware.H100_SXM) == hardware.H100_SXM.int8_tops
    assert chips.eight_bit_tflops(hardware.CEREBRAS_WSE3) is None


def test_throughput_batch_is_capped_at_what_fits():
    kv = kvcache.model_kv_bytes_per_session("Llama 2 70B", 4096)
    fits = chips.batch_that_fits(2 * hardware.H100_SXM.memory_gb * 1e9 * 0.9, LLAMA2_70B.n_params * 2, kv)
    assert fits == math.floor((2 * 80e9 * 0.9 - LLAMA2_70B.n_params * 2) / kv)
    capped = chips.decode_throughput("Llama 2 70B", "NVIDIA H100 SXM", 1000, n_chips=2, context_tokens=4096)
    assert capped == chips.decode_throughput("Llama 2 70B", "NVIDIA H100 SXM", fits, n_chips=2, context_tokens=4096)
    with pytest.raises(ValueError, match="does not fit"):
        chips.decode_throughput("Llama 2 70B", "NVIDIA L40S", 1, n_chips=1, context_tokens=4096)
