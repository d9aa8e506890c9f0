"""Start `world` real rank processes on this machine's loopback, run one function in each, collect results.

Each rank is a fresh process (the "spawn" start method, as torchrun's workers are) that joins a gloo
process group through a TCP store on 127.0.0.1, builds its Communicator (comm.py) and calls
`fn(comm, *args)`. The launcher waits for every rank's result up to `timeout_s`; a rank that raised is
reported with its traceback, and a rank still running then (a deadlocked pipeline, a recv nobody sends
to) is killed with the rest, and the error names it. On GPUs the same code takes NCCL (`backend`).
"""
from __future__ import annotations

import datetime
import io
import os
import queue as queues
import socket
import time
import traceback
from typing import Any, Callable

import torch


class RankFailure(RuntimeError):
    """A rank raised, or did not finish in time; the message names which and why."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rank_main(rank: int, world: int, port: int, backend: str, fn: Callable, args: tuple, results,
               timeout_s: float) -> None:
    import torch.distributed as dist

    from coursekit.training.comm import Communicator

    torch.set_num_threads(1)         # ranks share the machine's cores: one thread each, as torchrun's default
    try:
        dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=timeout_s))
        comm = Communicator(rank, world)
        value = fn(comm, *args)
        # as bytes, not as shared-memory tensors: this process (which would serve them) ends right after
        results.put((rank, "ok", _to_bytes(value), comm.traffic.as_dict()))
    except BaseException:  # noqa: BLE001 - whatever a rank raises is reported to the launcher, never lost
        results.put((rank, "error", traceback.format_exc(limit=8), None))
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def _to_bytes(value: Any) -> bytes:
    buffer = io.BytesIO()
    torch.save(value, buffer)
    return buffer.getvalue()


def run_ranks(fn: Callable, world: int, *args: Any, timeout_s: float = 120, backend: str = "gloo") -> list[dict]:
    """[{"rank", "value", "traffic"}] in rank order; RankFailure when a rank raised or hung."""
    import torch.multiprocessing as mp

    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    port = free_port()
    procs = [ctx.Process(target=_rank_main, args=(r, world, port, backend, fn, args, results, timeout_s),
                         daemon=True) for r in range(world)]
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    for p in procs:
        p.start()
    got: dict[int, tuple] = {}
    deadline = time.monotonic() + timeout_s
    try:
        while len(got) < world:
            left = deadline - time.monotonic()
            try:
                rank, status, value, traffic = results.get(timeout=max(0.1, min(left, 1.0)))
            except queues.Empty:
                dead = [r for r, p in enumerate(procs) if r not in got and p.exitcode is not None]
                if dead and results.empty():
                    time.sleep(1.0)       # a rank's last put may still be on its way through the pipe
                    if results.empty():
                        raise RankFailure(f"rank {dead[0]} of {world} died without a result "
                                          f"(exit code {procs[dead[0]].exitcode})") from None
                if left <= 0:
                    waiting = sorted(set(range(world)) - set(got))
                    raise RankFailure(f"ranks {waiting} of {world} were still running after {timeout_s:.0f} s "
                                      "(a deadlock: a recv no rank sends to, or a collective one rank skipped?); "
                                      "every rank was stopped") from None
                continue
            if status == "error":
                raise RankFailure(f"rank {rank} of {world} raised:\n{value}")
            got[rank] = (torch.load(io.BytesIO(value), weights_only=False), traffic)
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
        for p in procs:
            p.join(timeout=10)
    return [{"rank": r, "value": got[r][0], "traffic": got[r][1]} for r in range(world)]
