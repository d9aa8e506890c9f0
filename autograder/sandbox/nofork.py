"""A timed run may not start a process (issue 51; docs/SANDBOX.md, "Timed runs").

A timed run's CPU seconds are the kernel's (wait4 on the grading child), which count the child's own
threads but not work handed to a process it forks: a server forked at the first step, an orphan or a
daemon would run the engine uncounted. So, only in a timed run, just before its cells run, the child
installs a seccomp filter: fork, vfork and clone without CLONE_THREAD kill the whole process with
SIGSYS (the worker reads that from the kernel, so nothing in the process can hide the attempt);
clone3, whose flags sit in memory a filter cannot read, answers ENOSYS so glibc falls back to clone;
threads (clone with CLONE_THREAD) stay allowed, since wait4 counts them. Any other ABI on the machine
(x32, i386 through int 0x80) is killed outright.
"""
from __future__ import annotations

import ctypes
import errno
import platform
import signal

KILLED_BY = signal.SIGSYS            # how a refused process start ends the run

PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ERRNO, SECCOMP_RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
CLONE_THREAD = 0x00010000
X32_BIT = 0x40000000
# arch (AUDIT_ARCH_*), syscall numbers: clone, clone3, then those that always start a process
ARCHES = {"x86_64": (0xC000003E, 56, 435, (57, 58)), "aarch64": (0xC00000B7, 220, 435, ())}
# BPF: classic instructions (code, jt, jf, k)
LD_W_ABS, JEQ_K, JGE_K, JSET_K, RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
NR, ARCH, ARG0_LOW = 0, 4, 16        # offsets in struct seccomp_data (little-endian: args[0]'s low half)


class _Filter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]


def program(machine: str) -> list[tuple[int, int, int, int]]:
    """The filter for `machine` (platform.machine()); KeyError for an architecture it does not know."""
    arch, clone, clone3, starts = ARCHES[machine]
    kill, allow, enosys = ((RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS), (RET_K, 0, 0, SECCOMP_RET_ALLOW),
                           (RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.ENOSYS))
    body = [(LD_W_ABS, 0, 0, NR)]
    if machine == "x86_64":
        body.append((JGE_K, 0, 1, X32_BIT))
        body.append(kill)
    body += [(JEQ_K, 0, 1, clone3), enosys]
    for number in starts:
        body += [(JEQ_K, 0, 1, number), kill]
    body += [(JEQ_K, 0, 4, clone), (LD_W_ABS, 0, 0, ARG0_LOW), (JSET_K, 0, 1, CLONE_THREAD), allow, kill]
    body.append(allow)                                  # any other call
    # other ABIs (i386 on x86_64, arm32 on aarch64) use other numbers: refuse everything there
    return [(LD_W_ABS, 0, 0, ARCH), (JEQ_K, 1, 0, arch), kill, *body]


def refuse_process_starts() -> str | None:
    """Install the filter in this process (no new privileges must already be set); None, or why it could not."""
    try:
        instructions = program(platform.machine())
    except KeyError:
        return f"no process-start filter for the {platform.machine()} architecture"
    table = (_Filter * len(instructions))(*[_Filter(*ins) for ins in instructions])
    prog = _Program(len(instructions), table)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        return f"seccomp refused the filter ({errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno())})"
    return None
