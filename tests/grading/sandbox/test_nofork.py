"""The process-start filter of timed runs (autograder/sandbox/nofork.py), in a process of its own: threads
still run, every way of starting a process kills it with SIGSYS, and clone3 answers ENOSYS."""
from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from autograder.sandbox import nofork
from paths import ROOT

FILTERED = """
import ctypes, os, subprocess, sys, threading
from autograder.sandbox.nofork import refuse_process_starts
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(38, 1, 0, 0, 0)                              # PR_SET_NO_NEW_PRIVS, as the grading child sets it
print(refuse_process_starts(), flush=True)
ran = []
thread = threading.Thread(target=ran.append, args=[1])
thread.start()
thread.join()
print("thread", ran, flush=True)
how = sys.argv[1]
if how == "clone3":
    print("clone3", libc.syscall(435, 0, 0), ctypes.get_errno(), flush=True)
elif how == "os.fork":
    os.fork()
elif how == "libc fork":
    libc.fork()
elif how == "subprocess":
    subprocess.run(["true"])
elif how == "raw clone":
    libc.syscall(56, 17, 0, 0, 0, 0)                    # clone(SIGCHLD): a process, as fork makes it
print("still here", flush=True)
"""

needs_filter = pytest.mark.skipif(not sys.platform.startswith("linux") or nofork.platform.machine() not in nofork.ARCHES,
                                  reason="the filter is written for Linux on x86_64 and aarch64")


def _run(how: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", FILTERED, how], capture_output=True, text=True, cwd=ROOT, timeout=60)


@needs_filter
def test_threads_run_and_clone3_answers_enosys_so_glibc_falls_back_to_clone():
    done = _run("clone3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["None", "thread [1]", "clone3 -1 38", "still here"]


@needs_filter
@pytest.mark.parametrize("how", ["os.fork", "libc fork", "subprocess", "raw clone"])
def test_every_way_of_starting_a_process_kills_it_with_sigsys(how):
    done = _run(how)
    assert done.returncode == -nofork.KILLED_BY, (done.returncode, done.stderr)
    assert "still here" not in done.stdout and "thread [1]" in done.stdout


def test_other_abis_and_unknown_architectures_are_refused():
    program = nofork.program("x86_64")
    assert program[2] == (nofork.RET_K, 0, 0, nofork.SECCOMP_RET_KILL_PROCESS)    # another arch: killed
    assert (nofork.JGE_K, 0, 1, nofork.X32_BIT) in program                          # x32: killed
    with pytest.raises(KeyError):
        nofork.program("riscv64")
    assert signal.Signals(nofork.KILLED_BY).name == "SIGSYS"
