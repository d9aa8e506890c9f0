"""Module 2 formulas reproduce their papers' own numbers, and the all-reduce measurement is real."""
from __future__ import annotations

import pytest

from coursekit import hardware
from coursekit.calc import collectives, parallelism as par, training_run as run


def test_zero_paper_figure1_7_5b_on_64_gpus():
    # Rajbhandari et al. 2020, Figure 1: 7.5B parameters, N = 64: 120, 31.4, 16.6 and 1.9 GB per GPU
    for stage, gb in [(0, 120), (1, 31.4), (2, 16.6), (3, 1.9)]:
        assert par.zero_total_gb(7.5e9, 64, stage) == pytest.approx(gb, abs=0.05)


def test_zero_stages_shard_what_they_say():
    base = par.zero_memory(1e9, 8, 0)
    assert base == {"weights": 2e9, "grads": 2e9, "optimizer": 12e9, "total": 16e9}
    s1, s2, s3 = (par.zero_memory(1e9, 8, s) for s in (1, 2, 3))
    assert s1["optimizer"] == 12e9 / 8 and s1["grads"] == 2e9
    assert s2["grads"] == 2e9 / 8 and s2["weights"] == 2e9
    assert s3["total"] == pytest.approx(16e9 / 8)
    with pytest.raises(ValueError, match="ZeRO stage"):
        par.zero_memory(1e9, 8, 4)


def test_activation_memory_korthikanti_gpt3():
    # Korthikanti et al. 2022, eq. (1): s b h (34 + 5 a s / h) per layer; full recompute keeps 2 s b h
    s, b, h, a = 2048, 1, 12288, 96
    assert par.activation_bytes_per_layer(s, b, h, a) == s * b * h * (34 + 5 * a * s / h)
    assert par.activation_bytes_per_layer(s, b, h, a, checkpointing=True) == 2 * s * b * h
    full = par.activation_bytes(s, b, h, a, 96)
    assert full / par.activation_bytes(s, b, h, a, 96, checkpointing=True) == pytest.approx((34 + 5 * a * s / h) / 2)
    assert par.recompute_flops_factor(True) == pytest.approx(4 / 3)


def test_ring_and_tree_allreduce():
    assert par.ring_allreduce_seconds(1e9, 1, 1e-5, 1e9) == 0
    # 8 GPUs, 1 GB, 100 GB/s: bandwidth term 2 * 7/8 * 10 ms = 17.5 ms, latency 14 alpha
    assert par.ring_allreduce_seconds(1e9, 8, 1e-6, 100e9) == pytest.approx(14e-6 + 17.5e-3)
    assert par.tree_allreduce_seconds(1e9, 8, 1e-6, 100e9) == pytest.approx(6 * (1e-6 + 10e-3))
    # tiny messages: the tree's log-depth latency wins; large ones: the ring's bandwidth term wins
    assert par.tree_allreduce_seconds(8, 1024, 5e-6, 25e9) < par.ring_allreduce_seconds(8, 1024, 5e-6, 25e9)
    assert par.ring_allreduce_seconds(1e9, 1024, 5e-6, 25e9) < par.tree_allreduce_seconds(1e9, 1024, 5e-6, 25e9)


def test_tensor_parallelism_inside_vs_across_nodes():
    args = dict(batch=1, seq=4096, d_model=12288, tp=8)
    nvlink = par.tp_layer_comm_seconds(**args, alpha_s=3e-6, bandwidth_bytes_s=hardware.NVLINK4.one_way_gbs * 1e9)
    ib = par.tp_layer_comm_seconds(**args, alpha_s=5e-6, bandwidth_bytes_s=hardware.IB_NDR.one_way_gbs * 1e9)
    compute = par.tp_layer_compute_seconds(**{k: args[k] for k in ("batch", "seq", "d_model", "tp")},
                                           peak_flops=989e12, mfu=0.5)
    assert nvlink < compute < ib          # why TP stays inside an NVLink domain


def test_pipeline_bubble():
    assert par.pipeline_bubble_fraction(1, 8) == 0
    assert par.pipeline_bubble_fraction(4, 4) == pytest.approx(3 / 7)
    assert par.pipeline_bubble_fraction(4, 4, interleave=3) == pytest.approx(1 / 5)
    with pytest.raises(ValueError):
        par.pipeline_bubble_fraction(0, 4)


def test_published_mfu_recomputed():
    # Llama 2 70B: 6 N D over 1,720,320 A100-hours at 312 TFLOP/s is about 43%
    assert run.published_mfu("Llama 2 70B") == pytest.approx(0.428, abs=0.005)
    for name in ("Llama 3 405B (8,192 GPUs)", "Llama 3 405B (16,384 GPUs)"):
        r = run.RUNS_BY_NAME[name]
        assert r.mfu() == pytest.approx(r.reported_mfu, abs=0.01)


def test_training_days_and_steps():
    days = run.training_days(100e9, 2e12, 1024, 989e12, 0.4)
    assert days == pytest.approx(6 * 100e9 * 2e12 / (1024 * 989e12 * 0.4) / 86400)
    with pytest.raises(ValueError, match="MFU"):
        run.step_seconds(1e9, 1e6, 8, 1e12, 1.5)


def test_failures_and_checkpoint_interval():
    assert run.llama3_cluster_mtbf_hours() == pytest.approx(54 * 24 / 419)
    assert run.cluster_mtbf_hours(run.gpu_mtbf_from_observed(54, 16384, 419), 16384) == pytest.approx(54 * 24 / 419)
    c, m = 60.0, 3 * 3600.0
    tau = run.young_interval(c, m)
    assert tau == pytest.approx((2 * c * m) ** 0.5)
    # Young's interval minimises the first-order waste
    assert run.wasted_fraction(tau, c, m) < min(run.wasted_fraction(tau * 0.7, c, m), run.wasted_fraction(tau * 1.4, c, m))
    assert run.daly_interval(c, m) == pytest.approx(tau - c)
    assert run.daly_interval(m, m) == m


def test_link_figures_state_both_directions():
    assert hardware.NVLINK4.bidirectional_gbs == hardware.H100_SXM.interconnect_gbs == 900
    assert hardware.NVLINK3.bidirectional_gbs == hardware.A100_SXM_80GB.interconnect_gbs == 600
    assert hardware.IB_HDR.one_way_gbs == 200 / 8


def test_fit_alpha_beta_recovers_a_known_line():
    alpha, beta = 20e-6, 2e9
    sizes = [2 ** k for k in range(10, 26, 2)]
    times = [2 * alpha + m / beta for m in sizes]         # p = 2: 2(p-1) alpha + 2(p-1)/p M / beta
    fit = collectives.fit_alpha_beta(sizes, times, world_size=2)
    assert fit["alpha_s"] == pytest.approx(alpha, rel=1e-6) and fit["beta_bytes_s"] == pytest.approx(beta, rel=1e-6)
    with pytest.raises(ValueError, match="two different"):
        collectives.fit_alpha_beta([8, 8], [1.0, 1.0])


@pytest.mark.slow
def test_gloo_allreduce_between_two_processes():
    result = collectives.measure_allreduce([4096, 1 << 20], world_size=2, repeats=2, backend="gloo")
    assert result["backend"] == "gloo" and [r["bytes"] for r in result["rows"]] == [4096, 1 << 20]
    assert all(r["correct"] and r["seconds"] > 0 for r in result["rows"])


def test_lab2_plan_reports_the_sequences_a_step_really_runs():
    from coursekit.calc import cluster_plan as cp

    r = cp.evaluate(hardware.A100_SXM_80GB, 8, 1, 86)
    assert r["stated_sequences"] == cp.TOKENS_PER_STEP // cp.MODEL_100B.seq == 1024
    assert r["sequences_per_step"] == r["microbatches"] * 86 == 946
    assert r["batch_shortfall"] == pytest.approx(1 - 946 / 1024)
    assert cp.evaluate(hardware.H100_SXM, 8, 1, 64)["batch_shortfall"] == 0     # 64 divides 1,024
