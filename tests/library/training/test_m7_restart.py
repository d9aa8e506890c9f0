"""Milestone 5's reference: a rank dies mid-run; the run resumes from the sharded checkpoint and ends
identical to the uninterrupted run; a checkpoint without the optimizer state is caught by the rule."""
import pytest
import torch

from coursekit.nn.decoder import DecoderConfig
from coursekit.training.checkpoint import shard_path
from coursekit.training.identical import differences
from coursekit.training.launch import RankFailure, launch
from coursekit.training.setup import make_batches
from coursekit.training.single import train_single
from coursekit.training.zero import train_zero

CFG = DecoderConfig(vocab_size=64, d_model=32, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=64, max_seq_len=32)
STEPS, LR, BUCKET, WORLD = 4, 1e-2, 16000, 2
BATCHES = make_batches(CFG, STEPS, batch=4, seq=8)


def crash_then_resume(tmp_path, drop_optimizer_state=False):
    with pytest.raises(RankFailure, match="rank 1 died with exit code 17"):
        launch(train_zero, WORLD, CFG, BATCHES, STEPS, LR, BUCKET, 1, 0, str(tmp_path), (1, 1), timeout_s=90)
    for rank in range(WORLD):
        saved = torch.load(shard_path(tmp_path, rank, WORLD), weights_only=True)
        assert saved["step"] == 1
        if drop_optimizer_state:
            saved["optimizer"]["state"] = {}
            torch.save(saved, shard_path(tmp_path, rank, WORLD))
    return launch(train_zero, WORLD, CFG, BATCHES, STEPS, LR, BUCKET, 1, 0, str(tmp_path), timeout_s=90)


@pytest.mark.slow
def test_restart_from_sharded_checkpoint_is_identical_to_the_uninterrupted_run(tmp_path):
    reference = train_single(CFG, BATCHES, STEPS, LR)
    for res, counts in crash_then_resume(tmp_path):
        assert differences(res["params"], reference, WORLD, STEPS) == []
        assert counts["reduce_scatter"]["calls"] == res["buckets"] * (STEPS - 2)  # resumed at step 2


@pytest.mark.slow
def test_a_checkpoint_without_optimizer_state_fails_the_rule(tmp_path):
    reference = train_single(CFG, BATCHES, STEPS, LR)
    res, _ = crash_then_resume(tmp_path, drop_optimizer_state=True)[0]
    assert differences(res["params"], reference, WORLD, STEPS)
