"""Module 7 formulas (coursekit/calc/dist_training.py) against hand-checkable cases, Lab 2's cost model
(coursekit/calc/parallelism.py) and the figures the papers publish."""
from __future__ import annotations

import pytest

from coursekit import hardware
from coursekit.calc import dist_training as dt
from coursekit.calc import parallelism as par


def test_ring_allreduce_is_a_reduce_scatter_then_an_all_gather():
    for n in (2, 4, 8, 64):
        m, a, bw = 3e8, 7e-6, 40e9
        assert dt.reduce_scatter_seconds(m, n, a, bw) + dt.all_gather_seconds(m, n, a, bw) == \
            pytest.approx(par.ring_allreduce_seconds(m, n, a, bw))
    assert dt.ring_bytes_sent_per_rank(100, 4) == pytest.approx(150)          # 2 x 3/4 x 100
    assert dt.reduce_scatter_seconds(1e9, 1, 1e-5, 1e9) == 0


def test_tree_wins_only_below_the_crossover():
    n, a, bw = 8, 5e-6, 50e9
    m = dt.tree_beats_ring_below(n, a, bw)
    assert m > 0
    assert par.tree_allreduce_seconds(m / 2, n, a, bw) < par.ring_allreduce_seconds(m / 2, n, a, bw)
    assert par.tree_allreduce_seconds(m * 2, n, a, bw) > par.ring_allreduce_seconds(m * 2, n, a, bw)
    assert dt.tree_beats_ring_below(2, a, bw) == 0                              # one round each way: ring never loses


def test_buckets_hide_communication_until_latency_takes_over():
    assert dt.bucket_count(25 * 2 ** 20 / 4) == 1 and dt.bucket_count(25 * 2 ** 20 / 4 + 1) == 2
    grad, n, a, bw, back = 2e9, 8, 5e-6, 50e9, 0.2
    whole = par.ring_allreduce_seconds(grad, n, a, bw)
    assert dt.exposed_comm_seconds(grad, 1, n, a, bw, back) == pytest.approx(whole)      # nothing overlaps
    assert dt.exposed_comm_seconds(grad, 64, n, a, bw, back) < whole / 20
    # with a large per-message latency, too many buckets cost more than they hide
    slow = [dt.exposed_comm_seconds(grad, b, n, 2e-3, bw, back) for b in (1, 4, 64)]
    assert slow[1] < slow[0] and slow[1] < slow[2]
    with pytest.raises(ValueError, match="dist_training.py"):
        dt.exposed_comm_seconds(grad, 0, n, a, bw, back)


def test_zero_communication_and_fsdp_peak():
    assert [dt.zero_comm_ratio(s) for s in (0, 1, 2, 3)] == pytest.approx([1, 1, 1, 1.5])
    assert dt.zero_comm_bytes_per_rank(1e9, 4, 0) == pytest.approx(par.ring_allreduce_seconds(2e9, 4, 0, 1))
    with pytest.raises(ValueError, match="ZeRO stage"):
        dt.zero_comm_bytes_per_rank(1e9, 4, 4)
    shard = par.zero_memory(70e9, 64, 3)["total"]
    assert shard < dt.fsdp_peak_bytes(70e9, 64, 80) < shard + 2 * 70e9 * 2 / 80


def test_megatron_counts_and_bytes():
    assert dt.megatron_collectives_per_layer()["all-reduce"] == 4
    sp = dt.megatron_collectives_per_layer(sequence_parallel=True)
    assert sp["reduce-scatter"] == sp["all-gather"] == 4 and sp["all-reduce"] == 0
    assert dt.tp_bytes_per_layer_per_rank(1, 4096, 8192, 8) == pytest.approx(4 * 2 * 7 / 8 * 4096 * 8192 * 2)


@pytest.mark.parametrize("p, m", [(2, 1), (4, 4), (4, 8), (8, 32), (16, 3)])
def test_simulated_bubble_is_the_formula_for_both_schedules(p, m):
    for schedule in ("gpipe", "1f1b"):
        assert dt.simulated_bubble(p, m, schedule) == pytest.approx(par.pipeline_bubble_fraction(p, m))
    assert dt.peak_activations_in_flight(p, m, "gpipe") == m
    assert dt.peak_activations_in_flight(p, m, "1f1b") == min(p, m)


def test_schedule_respects_dependencies():
    ops = {(s, k, i): (a, b) for s, k, i, a, b in dt.pipeline_schedule(4, 6)["ops"]}
    for (s, k, i), (start, _) in ops.items():
        if k == "F" and s > 0:
            assert start >= ops[(s - 1, "F", i)][1]
        if k == "B":
            assert start >= ops[(s + 1, "B", i)][1] if s < 3 else start >= ops[(s, "F", i)][1]
    with pytest.raises(ValueError, match="schedule"):
        dt.pipeline_schedule(2, 2, "zb")


def test_published_mfu_recomputed():
    assert dt.palm_mfu() == pytest.approx(0.462, abs=0.002)                  # PaLM Table 3 reports 46.2%
    for r in dt.MFU_RUNS:
        assert r.mfu() == pytest.approx(r.reported_mfu, abs=0.01), r.name
    assert dt.mfu_percent_from_tflops(380) == pytest.approx(100 * 380 / hardware.H100_SXM.bf16_tflops)
    assert dt.mfu_budget(0.7, 0.1, 0.2) == pytest.approx(0.504)
