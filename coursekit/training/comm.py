"""The communicator every rank talks through: torch.distributed collectives that count calls and bytes.

Two byte counts per operation (docs/TRAINING.md): the payload the caller passed, and the bytes a ring
algorithm puts on the wire per rank (Patarasuk & Yuan 2009): all-reduce 2(N-1)/N of the tensor,
reduce-scatter and all-gather (N-1)/N of the full tensor, send/recv the tensor itself.
"""
from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

import torch
import torch.distributed as dist


def ring_wire_bytes(op: str, full_bytes: int, world: int) -> float:
    """Bytes one rank sends for `op` on a tensor whose full (unsharded) size is `full_bytes`."""
    if world == 1:
        return 0.0
    if op == "all_reduce":
        return 2 * (world - 1) / world * full_bytes
    if op in ("reduce_scatter", "all_gather"):
        return (world - 1) / world * full_bytes
    if op in ("send", "recv"):
        return float(full_bytes)
    if op == "barrier":
        return 0.0
    raise ValueError(f"coursekit/training/comm.py: unknown op {op!r}")


@dataclass
class OpCount:
    calls: int = 0
    payload_bytes: int = 0
    wire_bytes: float = 0.0
    seconds: float = 0.0


@dataclass
class Communicator:
    """Collectives over one process group, counted. `rank`/`world` are the group's."""
    rank: int
    world: int
    group: object = None
    counts: dict = field(default_factory=lambda: defaultdict(OpCount))
    _sends: list = field(default_factory=list, repr=False)

    def _record(self, op: str, full_bytes: int, started: float) -> None:
        c = self.counts[op]
        c.calls += 1
        c.payload_bytes += full_bytes
        c.wire_bytes += ring_wire_bytes(op, full_bytes, self.world)
        c.seconds += time.perf_counter() - started

    def all_reduce(self, tensor: torch.Tensor) -> torch.Tensor:
        """Sum `tensor` over ranks, in place."""
        t0 = time.perf_counter()
        dist.all_reduce(tensor, op=dist.ReduceOp.SUM, group=self.group)
        self._record("all_reduce", _nbytes(tensor), t0)
        return tensor

    def reduce_scatter(self, output: torch.Tensor, full: torch.Tensor) -> torch.Tensor:
        """output = this rank's 1/N chunk of the sum of `full` over ranks (full.numel() = N * output.numel()).

        gloo has no reduce-scatter, so it is a ring of send/recv: N-1 steps, each sending one chunk to
        the next rank and adding the chunk received from the previous one; (N-1)/N of `full` per rank."""
        t0 = time.perf_counter()
        n, r = self.world, self.rank
        if full.numel() != n * output.numel():
            raise ValueError(f"coursekit/training/comm.py reduce_scatter: full has {full.numel()} elements, "
                             f"expected world ({n}) x output ({output.numel()})")
        chunks = list(full.detach().reshape(n, -1).clone())
        right, left = (r + 1) % n, (r - 1) % n
        incoming = torch.empty_like(chunks[0])
        for step in range(n - 1):
            send_idx = (r - step - 1) % n
            recv_idx = (r - step - 2) % n
            ops = [dist.P2POp(dist.isend, chunks[send_idx], self._global(right), group=self.group),
                   dist.P2POp(dist.irecv, incoming, self._global(left), group=self.group)]
            for req in dist.batch_isend_irecv(ops):
                req.wait()
            chunks[recv_idx] += incoming
        output.copy_(chunks[r].reshape(output.shape))
        self._record("reduce_scatter", _nbytes(full), t0)
        return output

    def all_gather(self, full: torch.Tensor, shard: torch.Tensor) -> torch.Tensor:
        """full = concatenation of every rank's `shard`, in rank order."""
        t0 = time.perf_counter()
        dist.all_gather(list(full.reshape(self.world, -1)), shard.reshape(-1).contiguous(), group=self.group)
        self._record("all_gather", _nbytes(full), t0)
        return full

    def send(self, tensor: torch.Tensor, dst: int) -> None:
        """Post a send of a copy of `tensor` and return; `wait_sends` (or `barrier`) waits for delivery.

        Non-blocking as in PipeDream and Megatron's batched p2p: two neighbours that both send first
        (activations one way, gradients the other) then receive must not wait on each other."""
        t0 = time.perf_counter()
        self._sends.append(dist.isend(tensor.detach().contiguous().clone(), self._global(dst), group=self.group))
        self._record("send", _nbytes(tensor), t0)

    def wait_sends(self) -> None:
        for request in self._sends:
            request.wait()
        self._sends.clear()

    def recv(self, tensor: torch.Tensor, src: int) -> torch.Tensor:
        t0 = time.perf_counter()
        dist.recv(tensor, self._global(src), group=self.group)
        self._record("recv", _nbytes(tensor), t0)
        return tensor

    def barrier(self) -> None:
        self.wait_sends()
        t0 = time.perf_counter()
        dist.barrier(group=self.group)
        self._record("barrier", 0, t0)

    def _global(self, group_rank: int) -> int:
        return group_rank if self.group is None else dist.get_global_rank(self.group, group_rank)

    def summary(self) -> dict:
        """Plain dict of the counts, picklable, for the launcher to send back."""
        return {op: vars(c).copy() for op, c in self.counts.items()}

    def reset(self) -> None:
        self.counts.clear()


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()
