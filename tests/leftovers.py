"""Processes a test session started that outlive it (issue 53: an idle culler 75 minutes after its hub,
proxies two hours after theirs).

The process that runs the tests becomes a child subreaper (Linux prctl PR_SET_CHILD_SUBREAPER): an
orphan among its descendants (a hub's service whose hub is gone, a server started in a session of its
own) is reparented to it rather than to init, so at the session's end every process the session
started, and only those, is still below it, whoever else runs tests on the machine.
"""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from autograder.sandbox.confine import become_subreaper, reap  # noqa: F401 - become_subreaper: for conftest

# Python's own helpers, which end when the interpreter that started them exits
AT_EXIT_HELPERS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of a process, None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), fields[0]


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def descendants(root: int | None = None) -> dict[int, str]:
    """pid -> command line of every live (not zombie) process below `root` (this process)."""
    root = root or os.getpid()
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (found := _stat(int(entry))):
            children.setdefault(found[0], []).append(int(entry))
    below, todo = {}, list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found = _stat(pid)
        if found and found[1] != "Z":
            below[pid] = command_line(pid)
        todo += children.get(pid, [])
    return below


def leftovers(grace: float = 10.0) -> dict[int, str]:
    """What is still running below this process once `grace` seconds have let stopping ones finish
    (a condition polled, not a fixed wait); each is then killed, so the machine is left clean."""
    deadline = time.monotonic() + grace
    while True:
        reap()
        left = {pid: line for pid, line in descendants().items()
                if not any(helper in line for helper in AT_EXIT_HELPERS)}
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    reap()
    return left
