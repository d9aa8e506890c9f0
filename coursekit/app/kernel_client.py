"""How the course's own headless notebook runs talk to their kernel: the website build, `autograder
validate`'s solution run and the tests' notebook runs all pass `kernel_config(folder)` to nbclient.

Two choices, each for a reason seen on this course's machines:

- **Unix sockets in a private folder**, not TCP ports, where POSIX allows. ipykernel warns once per
  kernel that its TCP sockets are unencrypted (a warning line per notebook in the build log), two
  kernels of a busy test run can race for a port, and no other process can reach a private socket.
- **Waits in short polls** (`SteadyKernelClient`). jupyter_client's channels wait for a reply with one
  asyncio poll on the socket's edge-triggered ZeroMQ file descriptor, and that wake-up can be missed:
  the reply then sits in the socket (ZMQ_EVENTS says POLLIN) while nbclient sleeps out the whole cell
  timeout, it and the kernel both idle. Lab 4's solution stalled so on its dashboard cell, where a
  burst of widget messages on iopub races the cell's reply on shell: 6 runs in 8 beside two busy
  loops, with ipykernel 6.31 and 7.4 and over TCP and Unix sockets alike (pyzmq 27.3, jupyter_client
  8.10; upstream reports of the kind: zeromq/pyzmq#2173, and jupyter/jupyter_client#436, where a
  wait in short timeouts was the workaround too). Each new poll registers afresh, and pyzmq then
  reads the socket's state rather than waiting for an edge, so a missed wake-up costs at most
  REARM_S instead of the cell's timeout.
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from queue import Empty
from typing import Any

from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from traitlets import Type
from traitlets.config import Config

REARM_S = 0.5   # the longest a reply can wait unseen; each re-poll is a few microseconds of work


class SteadyChannel(AsyncZMQSocketChannel):
    """A kernel channel whose wait for a message never rests on a single wake-up."""

    async def get_msg(self, timeout: float | None = None) -> dict[str, Any]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = REARM_S if deadline is None else min(REARM_S, max(0.0, deadline - time.monotonic()))
            if await self.socket.poll(int(left * 1000)):
                return await self._recv()
            if deadline is not None and time.monotonic() >= deadline:
                raise Empty


class SteadyKernelClient(AsyncKernelClient):
    shell_channel_class = Type(SteadyChannel)
    iopub_channel_class = Type(SteadyChannel)
    stdin_channel_class = Type(SteadyChannel)
    control_channel_class = Type(SteadyChannel)


def kernel_config(folder: Path) -> Config:
    """nbclient configuration: the steady client, and the kernel's sockets in `folder` (POSIX)."""
    config = Config({"AsyncKernelManager": {"client_class": f"{__name__}.SteadyKernelClient"}})
    if os.name == "posix":
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = str(folder / "kernel")
    return config
