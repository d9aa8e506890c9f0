"""The communicator a trainer's rank talks through: torch.distributed collectives that count themselves.

Every call is recorded with its payload (the bytes of the tensor handed in) and the bytes a ring
algorithm puts on this rank's link (its "wire" bytes), so a trainer's traffic can be checked against the
formulas of Module 7, Lesson 1 rather than taken from what the trainer says of itself:

    all-reduce       2 (N-1)/N x B     (reduce-scatter, then all-gather, around the ring)
    reduce-scatter     (N-1)/N x B     (B: the whole input; each rank keeps B/N)
    all-gather         (N-1)/N x B     (B: the whole output; each rank brings B/N)
    send               B               recv: 0 sent (received bytes are counted as such)

In Lab 7 the grader builds one per rank and hands it to the learner's code, which has no other channel:
it sees no rendezvous address, and the sandbox's network namespace has no other peer (docs/TRAINING.md).
"""
from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

import torch
import torch.distributed as dist

OPS = ("all_reduce", "reduce_scatter", "all_gather", "send", "recv", "barrier")


@dataclass
class Traffic:
    """What one rank sent and received, per collective."""
    calls: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    payload: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    wire: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))   # wall time inside each op
    received: int = 0

    def total_wire(self) -> float:
        return float(sum(self.wire.values()))

    def as_dict(self) -> dict:
        return {"calls": dict(self.calls), "payload": dict(self.payload), "wire": dict(self.wire),
                "seconds": dict(self.seconds), "received": self.received}


def ring_wire_bytes(op: str, nbytes: int, world: int) -> float:
    """Bytes a ring algorithm sends from one rank for `op` on a `nbytes` tensor (see the module's table)."""
    share = (world - 1) / world
    return {"all_reduce": 2 * share * nbytes, "reduce_scatter": share * nbytes, "all_gather": share * nbytes,
            "send": float(nbytes), "recv": 0.0, "barrier": 0.0}[op]


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


class Communicator:
    """One rank's handle on the group: the only way its trainer may talk to the others."""

    def __init__(self, rank: int, world: int, group=None):
        self.rank, self.world, self._group = rank, world, group
        self.traffic = Traffic()

    def _count(self, op: str, tensor: torch.Tensor | None, nbytes: int | None = None) -> None:
        size = _nbytes(tensor) if tensor is not None else (nbytes or 0)
        self.traffic.calls[op] += 1
        self.traffic.payload[op] += size
        self.traffic.wire[op] += ring_wire_bytes(op, size, self.world)

    def all_reduce(self, tensor: torch.Tensor) -> torch.Tensor:
        """Sum `tensor` over every rank, in place."""
        self._count("all_reduce", tensor)
        start = time.perf_counter()
        dist.all_reduce(tensor, group=self._group)
        self.traffic.seconds['all_reduce'] += time.perf_counter() - start
        return tensor

    def reduce_scatter(self, output: torch.Tensor, input: torch.Tensor) -> torch.Tensor:
        """Sum `input` (world x output.numel() elements) over every rank; rank r keeps the r-th slice."""
        if input.numel() != output.numel() * self.world:
            raise ValueError(f"reduce_scatter: input has {input.numel()} elements, not world ({self.world}) x "
                             f"output ({output.numel()})")
        self._count("reduce_scatter", input)
        start = time.perf_counter()
        dist.reduce_scatter_tensor(output, input.contiguous(), group=self._group)
        self.traffic.seconds['reduce_scatter'] += time.perf_counter() - start
        return output

    def all_gather(self, output: torch.Tensor, input: torch.Tensor) -> torch.Tensor:
        """Every rank's `input`, in rank order, into `output` (world x input.numel() elements)."""
        if output.numel() != input.numel() * self.world:
            raise ValueError(f"all_gather: output has {output.numel()} elements, not world ({self.world}) x "
                             f"input ({input.numel()})")
        self._count("all_gather", output)
        start = time.perf_counter()
        dist.all_gather_into_tensor(output, input.contiguous(), group=self._group)
        self.traffic.seconds['all_gather'] += time.perf_counter() - start
        return output

    def send(self, tensor: torch.Tensor, dst: int) -> None:
        self._count("send", tensor)
        start = time.perf_counter()
        dist.send(tensor.contiguous(), dst, group=self._group)
        self.traffic.seconds['send'] += time.perf_counter() - start

    def recv(self, tensor: torch.Tensor, src: int) -> torch.Tensor:
        self._count("recv", tensor)
        self.traffic.received += _nbytes(tensor)
        start = time.perf_counter()
        dist.recv(tensor, src, group=self._group)
        self.traffic.seconds['recv'] += time.perf_counter() - start
        return tensor

    def barrier(self) -> None:
        self._count("barrier", None)
        start = time.perf_counter()
        dist.barrier(group=self._group)
        self.traffic.seconds['barrier'] += time.perf_counter() - start
