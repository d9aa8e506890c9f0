"""Module 1 formulas against hand-checkable cases, published figures and the sources' corrected claims."""
from __future__ import annotations

import math

import pytest

from coursekit import hardware
from coursekit.calc import growth, memory, roofline
from coursekit.model_configs import LLAMA2_7B, LLAMA2_70B, MISTRAL_7B
from paths import ROOT


# --- roofline basics -------------------------------------------------------------------------------

def test_matmul_counts_every_byte_read_and_written():
    assert roofline.matmul_flops(2, 3, 4) == 48
    assert roofline.matmul_bytes(2, 3, 4, 2) == (6 + 12 + 8) * 2
    assert roofline.matmul_intensity(2, 3, 4, 2) == pytest.approx(48 / 52)
    # a square n^3 matmul: 2n^3 / (3 n^2 b) = 2n / (3b)
    assert roofline.matmul_intensity(4096, 4096, 4096, 2) == pytest.approx(2 * 4096 / 6)


def test_batch_one_matmul_is_about_one_flop_per_byte_in_bf16():
    assert roofline.decode_matmul_intensity(1, 4096, 11008) == pytest.approx(1.0, rel=1e-3)


def test_roofline_and_classification():
    peak, bw = 100.0, 10.0
    assert roofline.ridge_point(peak, bw) == 10.0
    assert roofline.attainable_flops(2.0, peak, bw) == 20.0
    assert roofline.attainable_flops(50.0, peak, bw) == 100.0
    assert roofline.classify(9.99, peak, bw) == "bandwidth-bound"
    assert roofline.classify(10.0, peak, bw) == "compute-bound"
    assert roofline.roofline_time(1000, 10, peak, bw) == 10.0
    assert roofline.roofline_time(10, 1000, peak, bw) == 100.0


def test_bad_inputs_name_the_file():
    with pytest.raises(ValueError, match="roofline.py"):
        roofline.ridge_point(1e12, 0)
    with pytest.raises(KeyError, match="unknown model"):
        roofline.resolve_model("GPT-9")
    with pytest.raises(ValueError, match="memory.py"):
        memory.bytes_per_param("training", 2, "lion")


def test_published_chip_ceilings_match_datasheets():
    # Dense BF16 TFLOP/s and memory TB/s as printed on each vendor's datasheet.
    assert (hardware.H100_SXM.bf16_tflops, hardware.H100_SXM.memory_tbs) == (989, 3.35)
    assert (hardware.A100_SXM_80GB.bf16_tflops, hardware.A100_SXM_80GB.memory_tbs) == (312, 2.039)
    assert (hardware.L40S.bf16_tflops, hardware.L40S.memory_tbs) == (362, 0.864)
    assert (hardware.TPU_V5E.bf16_tflops, hardware.TPU_V5E.memory_tbs) == (197, 0.819)
    assert (hardware.INFERENTIA2.bf16_tflops, hardware.INFERENTIA2.memory_tbs) == (190, 0.82)


def test_a100_ridge_point_errata():
    # Seed 003: 312 / 2.0 = 156; the 80 GB datasheet's 2.039 TB/s gives ~153.
    assert roofline.ridge_point(312e12, 2.0e12) == pytest.approx(156)
    assert roofline.chip_ridge_point(hardware.A100_SXM_80GB) == pytest.approx(153.0, abs=0.1)
    assert roofline.chip_ridge_point("NVIDIA H100 SXM") == pytest.approx(295.2, abs=0.1)


# --- transformer counts from shapes ----------------------------------------------------------------

@pytest.mark.parametrize("model, published", [(LLAMA2_7B, 6_738_415_616), (MISTRAL_7B, 7_241_732_096)])
def test_parameter_count_from_shapes_matches_released_checkpoints(model, published):
    # Published totals of the released Hugging Face checkpoints (meta-llama/Llama-2-7b-hf,
    # mistralai/Mistral-7B-v0.1), and the papers' rounded counts.
    assert roofline.total_params(model) == published
    assert roofline.total_params(model) == pytest.approx(model.n_params, rel=0.001)


def test_kv_bytes_per_token():
    # Llama 2 7B: 2 x 32 layers x 32 heads x 128 x 2 bytes = 512 KiB; Mistral's 8 KV heads: a quarter.
    assert roofline.kv_bytes_per_token(LLAMA2_7B) == 2 * 32 * 32 * 128 * 2 == 512 * 1024
    assert roofline.kv_bytes_per_token(MISTRAL_7B) == roofline.kv_bytes_per_token(LLAMA2_7B) / 4
    assert memory.kv_cache_bytes(LLAMA2_7B, 2048) == 2**30


def _tiny():
    from coursekit.model_configs import ModelConfig

    return ModelConfig("tiny", 0, n_layers=1, d_model=2, n_heads=1, n_kv_heads=1, head_dim=2, d_ff=4,
                       vocab_size=8, max_context=16)


def test_decode_step_by_hand():
    # weight params: q, k, v, out = 4 x (2x2) = 16; ffn 3 x (2x4) = 24; lm head 2x8 = 16 -> 56
    step = roofline.decode_step(_tiny(), 1, 3, 1e3, 1e2, 2)
    assert roofline.matmul_params(_tiny()) == 56
    assert step["flops"] == 2 * 56 + 4 * 1 * 1 * 2 * 3          # 112 + 24
    assert step["weight_bytes"] == 112
    assert step["kv_bytes"] == 3 * (2 * 1 * 1 * 2 * 2)          # 3 positions x 8 bytes
    assert step["activation_bytes"] == 2 * 1 * 2 * 2
    assert step["seconds"] == max(136 / 1e3, (112 + 24 + 8) / 1e2)


def test_prefill_by_hand():
    step = roofline.prefill(_tiny(), 2, 3, 1e3, 1e2, 2)
    # 6 tokens x 112 FLOPs + 2 prompts x 8 FLOPs/position x (1 + 2 + 3) positions
    assert step["flops"] == 6 * 112 + 2 * 8 * 6
    assert step["kv_bytes"] == 6 * 8
    assert step["weight_bytes"] == 112


def test_decode_is_bandwidth_bound_and_prefill_compute_bound_on_h100():
    peak, bw = roofline.chip_ceilings(hardware.H100_SXM)
    decode = roofline.decode_step(LLAMA2_7B, 1, 2048, peak, bw)
    assert decode["bound"] == "bandwidth-bound" and decode["intensity"] < 2
    # batch-1 decode time is about bytes / bandwidth: ~14 GB / 3.35 TB/s
    assert decode["seconds"] == pytest.approx(decode["bytes"] / bw)
    assert roofline.prefill(LLAMA2_7B, 1, 2048, peak, bw)["bound"] == "compute-bound"


def test_seed001_decode_ffn_is_not_compute_bound():
    peak, bw = roofline.chip_ceilings(hardware.H100_SXM)
    assert roofline.classify(roofline.decode_matmul_intensity(1, 4096, 11008), peak, bw) == "bandwidth-bound"
    crossing = roofline.batch_to_reach_ridge(4096, 11008, peak, bw)
    assert roofline.matmul_intensity(crossing, 4096, 11008, 2) >= roofline.ridge_point(peak, bw)
    assert roofline.matmul_intensity(crossing - 1, 4096, 11008, 2) < roofline.ridge_point(peak, bw)


def test_decode_intensity_limit_is_the_large_batch_limit():
    peak, bw = 1.0, 1.0
    huge = roofline.decode_step(LLAMA2_7B, 10**9, 128, peak, bw)["intensity"]
    assert huge == pytest.approx(roofline.decode_intensity_limit(LLAMA2_7B, 128), rel=1e-3)


def test_llama2_7b_training_mfu_is_plausible():
    # Touvron et al. 2023: 2.0T tokens, 184,320 A100 GPU-hours -> about 39% MFU at 6N FLOPs/token.
    assert roofline.training_mfu(6.74e9, 2.0e12, 184_320, 312) == pytest.approx(0.39, abs=0.01)
    assert roofline.inference_tokens_matching_training(7e9, 2e12) == pytest.approx(6e12)


def test_mfu_quiz_draws_only_published_triples_with_realistic_mfu():
    """m1-l1-mfu draws one published run at a time, so size, tokens and GPU-hours belong together."""

    import yaml

    bank = ROOT / "quizzes" / "m1" / "l1-what-each-does.yaml"
    item = next(i for i in yaml.safe_load(bank.read_text())["items"] if i["id"] == "m1-l1-mfu")
    runs = item["params"]["run"]["choices"]
    assert set(runs) == set(roofline.A100_TRAINING_RUNS)
    for run in runs:
        mfu = roofline.training_mfu(*(roofline.published_run_value(run, f) for f in ("n_params", "train_tokens", "gpu_hours")),
                                    312)
        assert 0.3 < mfu < 0.5, run
    with pytest.raises(KeyError, match="roofline.py"):
        roofline.published_run_value("Llama 2 34B", "n_params")


def test_ring_allreduce_and_transfers():
    assert roofline.ring_allreduce_bytes(100, 1) == 0
    assert roofline.ring_allreduce_bytes(100, 2) == 100
    assert roofline.ring_allreduce_bytes(100, 4) == 150
    assert roofline.allreduce_seconds(100, 4, 50) == 3.0
    assert roofline.kv_transfer_seconds("Llama 2 7B", 2048, 50) == pytest.approx(2**30 / 50e9)


# --- memory ----------------------------------------------------------------------------------------

def test_mixed_precision_adamw_is_16_bytes_8x_weights():
    assert memory.training_breakdown() == {"weights": 2, "grads": 2, "master": 4, "optimizer": 8}
    assert memory.bytes_per_param("training") == 16
    assert memory.training_multiple_of_weights(2) == 8
    assert memory.bytes_per_param("training", 4) == 16           # FP32: no separate master copy
    assert memory.bytes_per_param("training", 2, "sgd-momentum", False) == 8
    assert memory.bytes_per_param("inference", 0.5) == 0.5


def test_seed004_and_seed003_reconciled():
    n = 70e9
    seed004 = memory.components_bytes(n, ("weights", "grads", "optimizer"))
    assert seed004 == pytest.approx(840e9)                        # what seed 004 added up
    assert memory.training_bytes(n) == pytest.approx(1120e9)      # its own 16x rule, complete
    assert memory.training_bytes(n) - seed004 == pytest.approx(memory.components_bytes(n, ("master",)))
    # seed 003's "3-4x" only holds against FP32 weights
    assert memory.training_bytes(n) / memory.weight_bytes(n, 4) == 4
    assert memory.training_bytes(n) / memory.weight_bytes(n, 2) == 8


def test_adamw_state_measured_in_pytorch_matches_the_count():
    torch = pytest.importorskip("torch")
    model = torch.nn.Linear(64, 32)
    opt = torch.optim.AdamW(model.parameters())
    model(torch.randn(4, 64)).sum().backward()
    opt.step()
    n = sum(p.numel() for p in model.parameters())
    states = sum(t.numel() * t.element_size() for s in opt.state.values() for t in s.values() if t.dim() > 0)
    assert states / n == memory.training_breakdown(4)["optimizer"]


def test_activations_follow_korthikanti_and_flash_removes_the_quadratic_term():
    s, b, h, a = 2048, 1, 4096, 32
    assert memory.activation_bytes_per_layer(s, b, h, a) == s * b * h * (34 + 5 * a * s / h)
    assert memory.activation_bytes_per_layer(s, b, h, a, stores_attention_matrix=False) == s * b * h * 34


def test_serving_plan_for_the_lab_scenario():
    plan = memory.serving_plan(LLAMA2_7B, hardware.H100_SXM, 10_000, 2048)
    usable = 0.9 * 80e9 - roofline.total_params(LLAMA2_7B) * 2
    assert plan["users_per_replica"] == math.floor(usable / 2**30)
    assert plan["chips"] == math.ceil(10_000 / plan["users_per_replica"])
    assert plan["bound"] == "bandwidth-bound"
    # GQA: a quarter of the KV cache, so about four times the users per GPU
    gqa = memory.serving_plan(MISTRAL_7B, hardware.H100_SXM, 10_000, 2048)
    assert 3.5 < gqa["users_per_replica"] / plan["users_per_replica"] < 4.1
    # a 16 GB TPU v5e cannot hold weights plus one user: the plan shards over 2 chips
    assert memory.serving_plan(LLAMA2_7B, hardware.TPU_V5E, 100, 2048)["chips_per_replica"] == 2
    with pytest.raises(ValueError, match="does not fit"):
        memory.serving_plan(LLAMA2_70B, hardware.TPU_V5E, 1, 2048, max_chips_per_replica=4)


# --- growth ----------------------------------------------------------------------------------------

def test_compounding_and_doubling_times():
    assert growth.compound(4, 5) == 1024
    assert growth.compound_percent(30, 2) == pytest.approx(1.69)
    assert growth.doubling_time_years(2) == 1
    assert growth.doubling_time_years(4) == 0.5
    assert growth.doubling_time_percent(25) == pytest.approx(math.log(2) / math.log(1.25))
    assert growth.doubling_time_years(1.0) == math.inf
    assert growth.annual_factor_from_halving_months(12) == 2
    assert growth.annual_factor_from_halving_months(8) == pytest.approx(2.828, abs=1e-3)
    assert growth.years_to_reach(1024, 4) == pytest.approx(5)
    assert growth.gap_after(4, 1.3, 5) == pytest.approx(1024 / 1.3**5)
    with pytest.raises(ValueError, match="growth.py"):
        growth.compound(-1, 2)


@pytest.mark.slow
def test_shape_accounting_matches_hugging_face_llama():
    """Build a small Llama (GQA, untied head) with random weights and count what it really does."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from torch.utils.flop_counter import FlopCounterMode

    from coursekit.model_configs import ModelConfig

    hf_config = transformers.LlamaConfig(hidden_size=64, intermediate_size=176, num_hidden_layers=3,
                                         num_attention_heads=8, num_key_value_heads=2, head_dim=8,
                                         vocab_size=300, tie_word_embeddings=False, attn_implementation="eager")
    model = transformers.LlamaForCausalLM(hf_config).eval()
    ours = ModelConfig("small llama", 0, n_layers=3, d_model=64, n_heads=8, n_kv_heads=2, head_dim=8, d_ff=176,
                       vocab_size=300, max_context=64)
    assert sum(p.numel() for p in model.parameters()) == roofline.total_params(ours)

    batch, context = 2, 6
    ids = torch.randint(0, 300, (batch, context))
    with torch.no_grad():
        cache = model(ids[:, :-1], use_cache=True).past_key_values      # context - 1 tokens cached
        with FlopCounterMode(display=False) as counter:
            model(ids[:, -1:], past_key_values=cache, use_cache=True)   # the context-th token
    step = roofline.decode_step(ours, batch, context, 1.0, 1.0, 4)
    assert counter.get_total_flops() == step["flops"]
    # the cache now holds `context` positions of K and V per layer, n_kv_heads x head_dim each
    layer0 = cache.layers[0].keys if hasattr(cache, "layers") else cache[0][0]
    assert layer0.shape == (batch, 2, context, 8)
    kv_elements = sum(t.numel() for layer in (cache.layers if hasattr(cache, "layers") else cache)
                      for t in ((layer.keys, layer.values) if hasattr(layer, "keys") else layer))
    assert kv_elements * 4 == step["kv_bytes"]
