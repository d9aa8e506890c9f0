"""Start N real rank processes on loopback, each in a gloo group, and collect what each returns.

A rank that hangs (a deadlocked pipeline) or dies is killed when the deadline passes, and the run ends
with `RankFailure` naming it: a grading run ends graded or failed, never pending.
"""
from __future__ import annotations

import datetime
import io
import multiprocessing as mp
import os
import queue
import socket
import time
import traceback
from collections.abc import Callable

import torch
import torch.distributed as dist

from .comm import Communicator


class RankFailure(RuntimeError):
    """Some rank raised, died or did not finish in time; the message names each."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rank_main(fn, rank, world, port, args, results, group_timeout_s):
    try:
        torch.set_num_threads(1)  # N ranks share the machine's cores, as one GPU each would not
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=group_timeout_s))
        comm = Communicator(rank, world)
        out = fn(rank, world, comm, *args)
        comm.wait_sends()
        results.put((rank, "ok", _to_bytes(out), comm.summary()))
        dist.barrier()  # every rank delivers before any tears the group down
        dist.destroy_process_group()
    except BaseException as exc:  # noqa: BLE001 - any failure, SystemExit included, is reported to the parent
        results.put((rank, "error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}", None))


def _to_bytes(obj) -> bytes:
    # tensors as bytes, not as shared-memory handles that die with the rank process
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def launch(fn: Callable, world: int, *args, timeout_s: float = 60.0) -> list[tuple[object, dict]]:
    """Run fn(rank, world, comm, *args) in `world` processes; return [(result, comm counts)] by rank.

    `fn` and `args` must be picklable (a module-level function): ranks are spawned fresh processes."""
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    port = free_port()
    procs = [ctx.Process(target=_rank_main, args=(fn, r, world, port, args, results, max(timeout_s, 5.0)),
                         daemon=True) for r in range(world)]
    for p in procs:
        p.start()
    deadline = time.monotonic() + timeout_s
    got: dict[int, tuple] = {}
    try:
        while len(got) < world:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                rank, status, out, counts = results.get(timeout=min(left, 0.5))
                got[rank] = (status, out, counts)
                if status == "error":  # the others are stuck in a collective with it: stop soon
                    deadline = min(deadline, time.monotonic() + 2.0)
            except queue.Empty:
                dead = [r for r, p in enumerate(procs) if r not in got and p.exitcode not in (None, 0)]
                if dead:
                    break
    finally:
        for p in procs:
            p.join(timeout=max(0.0, min(2.0, deadline - time.monotonic())))
        for r, p in enumerate(procs):
            if p.is_alive():
                os.kill(p.pid, 9)
                p.join()
    problems = []
    for r, p in enumerate(procs):
        if r not in got:
            problems.append(f"rank {r} did not finish within {timeout_s:g} s (deadlock?); killed"
                            if p.exitcode in (None, -9) else f"rank {r} died with exit code {p.exitcode}")
        elif got[r][0] == "error":
            problems.append(f"rank {r} raised {got[r][1]}")
    if problems:
        raise RankFailure("; ".join(problems))
    return [(torch.load(io.BytesIO(got[r][1]), weights_only=False), got[r][2]) for r in range(world)]
