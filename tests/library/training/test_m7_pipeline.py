"""Milestone 4's reference: 1F1B pipeline identical to single-process training; sends as the schedule says."""
import pytest
import torch

from coursekit.nn.decoder import DecoderConfig
from coursekit.training.identical import differences
from coursekit.training.launch import RankFailure, launch
from coursekit.training.pipeline import stage_layers, train_pipeline
from coursekit.training.setup import make_batches
from coursekit.training.single import train_single

CFG = DecoderConfig(vocab_size=64, d_model=32, n_layers=4, n_heads=4, n_kv_heads=2, d_ff=64, max_seq_len=32)
STEPS, LR = 2, 1e-2


def test_stages_split_the_layers_contiguously_and_evenly():
    assert [list(stage_layers(5, 2, s)) for s in range(2)] == [[0, 1, 2], [3, 4]]
    assert [len(stage_layers(4, 4, s)) for s in range(4)] == [1, 1, 1, 1]


@pytest.mark.slow
@pytest.mark.parametrize("world,micro", [(2, 4), (4, 4)])
def test_pipeline_is_identical_and_sends_each_micro_batch_once(world, micro):
    batches = make_batches(CFG, STEPS, batch=8, seq=8)
    reference = train_single(CFG, batches, STEPS, LR)
    ranks = launch(train_pipeline, world, CFG, batches, STEPS, LR, micro, timeout_s=90)
    held = {}
    for s, (res, counts) in enumerate(ranks):
        held.update(res["params"])
        activation = 8 // micro * 8 * CFG.d_model * 8
        sends = (s < world - 1) + (s > 0)       # activations forward, gradients back
        assert counts.get("send", {"calls": 0})["calls"] == sends * micro * STEPS
        assert counts.get("send", {"payload_bytes": 0})["payload_bytes"] == sends * micro * STEPS * activation
    assert sorted(held) == sorted(reference)       # every parameter held by exactly one stage
    assert differences(held, reference, world, STEPS) == []


def both_receive_first(rank, world, comm, config, batches, steps, lr, micro):
    comm.recv(torch.empty(1), 1 - rank)  # a schedule where each stage waits for the other


@pytest.mark.slow
def test_a_deadlocked_pipeline_is_killed():
    with pytest.raises(RankFailure, match="did not finish within 3 s"):
        launch(both_receive_first, 2, CFG, [], 1, LR, 2, timeout_s=3)
