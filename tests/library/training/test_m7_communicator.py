"""The counting communicator and the launcher, on real gloo ranks (issue 50, docs/TRAINING.md)."""
import pytest
import torch

from coursekit.training.comm import ring_wire_bytes
from coursekit.training.launch import RankFailure, launch


def test_ring_bytes_follow_the_ring_formula():
    assert ring_wire_bytes("all_reduce", 1000, 4) == pytest.approx(1500.0)  # 2(N-1)/N
    assert ring_wire_bytes("reduce_scatter", 1000, 4) == pytest.approx(750.0)
    assert ring_wire_bytes("all_gather", 1000, 2) == pytest.approx(500.0)
    assert ring_wire_bytes("all_reduce", 1000, 1) == 0.0
    with pytest.raises(ValueError, match="unknown op"):
        ring_wire_bytes("broadcast", 10, 2)


def collectives(rank, world, comm):
    x = torch.arange(8 * world, dtype=torch.float64) * (rank + 1)
    summed = comm.all_reduce(x.clone())
    shard = comm.reduce_scatter(torch.empty(8, dtype=torch.float64), x)
    gathered = comm.all_gather(torch.empty(8 * world, dtype=torch.float64), shard)
    right = torch.full((3,), float(rank))
    if world > 1:
        got = torch.empty(3)
        if rank % 2 == 0:
            comm.send(right, (rank + 1) % world)
            comm.recv(got, (rank - 1) % world)
        else:
            comm.recv(got, (rank - 1) % world)
            comm.send(right, (rank + 1) % world)
    comm.barrier()
    return {"summed": summed, "shard": shard, "gathered": gathered}


@pytest.mark.slow
@pytest.mark.parametrize("world", [2, 4])
def test_collectives_compute_the_sum_and_count_the_ring_bytes(world):
    out = launch(collectives, world, timeout_s=60)
    total = sum(r + 1 for r in range(world)) * torch.arange(8 * world, dtype=torch.float64)
    full_bytes = 8 * world * 8
    for rank, (res, counts) in enumerate(out):
        assert torch.equal(res["summed"], total)
        assert torch.equal(res["shard"], total[rank * 8:(rank + 1) * 8])
        assert torch.equal(res["gathered"], total)
        assert counts["all_reduce"]["calls"] == 1
        assert counts["all_reduce"]["wire_bytes"] == pytest.approx(2 * (world - 1) / world * full_bytes)
        assert counts["reduce_scatter"]["wire_bytes"] == pytest.approx((world - 1) / world * full_bytes)
        assert counts["all_gather"]["payload_bytes"] == full_bytes
        assert counts["send"]["payload_bytes"] == 3 * 4 and counts["recv"]["calls"] == 1
        assert counts["barrier"]["calls"] == 1


def deadlock(rank, world, comm):
    comm.recv(torch.empty(1), (rank + 1) % world)  # every rank receives first: nobody sends


def raises_on_rank_one(rank, world, comm):
    if rank == 1:
        raise ValueError("bad shard")
    comm.barrier()


@pytest.mark.slow
def test_a_hung_rank_is_killed_and_named():
    with pytest.raises(RankFailure, match=r"rank 0 did not finish within 3 s \(deadlock\?\); killed"):
        launch(deadlock, 2, timeout_s=3)


@pytest.mark.slow
def test_a_raising_rank_is_named_and_the_run_ends():
    with pytest.raises(RankFailure, match="rank 1 raised ValueError: bad shard"):
        launch(raises_on_rank_one, 2, timeout_s=30)
