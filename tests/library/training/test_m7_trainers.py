"""The reference trainers on real gloo ranks against single-process training, under the float64 rule."""
import pytest
import torch

from coursekit.nn.decoder import DecoderConfig
from coursekit.training.data_parallel import BucketedAllReduce, train_data_parallel
from coursekit.training.identical import differences, tolerance
from coursekit.training.launch import launch
from coursekit.training.setup import (
    loss_of,
    make_batches,
    make_buckets,
    make_model,
    make_optimizer,
    rows_of,
)
from coursekit.training.single import train_single
from coursekit.training.zero import train_zero

CFG = DecoderConfig(vocab_size=64, d_model=32, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=64, max_seq_len=32)
STEPS, LR, BUCKET = 3, 1e-2, 8000
BATCHES = make_batches(CFG, STEPS, batch=4, seq=8)
PARAM_BYTES = make_model(CFG).num_params() * 8


@pytest.fixture(scope="module")
def reference():
    return train_single(CFG, BATCHES, STEPS, LR)


def test_buckets_cover_every_parameter_once_in_backward_order_and_respect_the_size():
    params = list(make_model(CFG).parameters())
    buckets = make_buckets(params, BUCKET)
    flat = [p for b in buckets for p in b]
    assert [id(p) for p in flat] == [id(p) for p in reversed(params)]
    for b in buckets:
        assert len(b) == 1 or sum(p.numel() * 8 for p in b) <= BUCKET


def test_the_rule_separates_a_right_trainer_from_one_that_averages_twice(reference):
    assert tolerance(4, 5, torch.ones(1)) == pytest.approx(1024 * 4 * 5 * 2.0 ** -52)
    assert differences(reference, reference, 2, STEPS) == []
    wrong = train_single(CFG, [b for b in BATCHES], STEPS, LR / 2)  # as if every update were halved
    assert differences(wrong, reference, 2, STEPS)


class AveragesTwice(BucketedAllReduce):
    def _flush(self, bucket):
        super()._flush(bucket)
        for p in bucket:
            p.grad /= self.comm.world


def dp_averaging_twice(rank, world, comm, config, batches, steps, lr, bucket_bytes):
    model = make_model(config)
    reducer = AveragesTwice(list(model.parameters()), comm, bucket_bytes)
    opt = make_optimizer(model.parameters(), lr)
    for step in range(steps):
        opt.zero_grad(set_to_none=True)
        loss_of(model, rows_of(batches[step], rank, world)).backward()
        reducer.finish_step()
        opt.step()
    return {name: p.detach() for name, p in model.named_parameters()}


@pytest.mark.slow
@pytest.mark.parametrize("world", [2, 4])
def test_data_parallel_is_identical_and_moves_the_ring_bytes(reference, world):
    for res, counts in launch(train_data_parallel, world, CFG, BATCHES, STEPS, LR, BUCKET, timeout_s=90):
        assert differences(res["params"], reference, world, STEPS) == []
        assert counts["all_reduce"]["calls"] == res["buckets"] * STEPS
        assert counts["all_reduce"]["payload_bytes"] == PARAM_BYTES * STEPS
        assert counts["all_reduce"]["wire_bytes"] == pytest.approx(2 * (world - 1) / world * PARAM_BYTES * STEPS)
        assert res["memory"]["optimizer_state"] == 2 * PARAM_BYTES  # plain DP: every rank holds it all


@pytest.mark.slow
def test_data_parallel_that_averages_twice_fails_the_rule(reference):
    out = launch(dp_averaging_twice, 2, CFG, BATCHES, STEPS, LR, BUCKET, timeout_s=90)
    problems = differences(out[0][0], reference, 2, STEPS)
    assert len(problems) > len(reference) // 2, problems


@pytest.mark.slow
@pytest.mark.parametrize("stage,world", [(1, 2), (2, 4)])
def test_zero_is_identical_with_a_1_over_n_optimizer_state(reference, stage, world):
    for res, counts in launch(train_zero, world, CFG, BATCHES, STEPS, LR, BUCKET, stage, timeout_s=120):
        assert differences(res["params"], reference, world, STEPS) == []
        padded = res["total_padded"] * 8
        assert padded - PARAM_BYTES < world * 8 * res["buckets"]  # padding: under one element per rank per bucket
        assert res["memory"]["optimizer_state"] == 2 * padded // world
        assert res["memory"]["grads"] == (PARAM_BYTES if stage == 1 else 0)  # ZeRO-2 keeps only its chunk
        for op in ("reduce_scatter", "all_gather"):
            assert counts[op]["calls"] == res["buckets"] * STEPS
            assert counts[op]["wire_bytes"] == pytest.approx((world - 1) / world * padded * STEPS)
        assert "all_reduce" not in counts
