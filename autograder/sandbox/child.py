"""How a forked grading child confines itself before it runs student code (docs/SANDBOX.md).

As root: confine.py's namespaces, allowlist root and a uid of its own. As any other user (an instructor
grading in their own terminal on the hub): userns.py's user namespace with the same allowlist root, a
PID namespace and no capabilities. Then, either way: limits, no new privileges, death with its parent.
`unavailable` tells the engine beforehand when a non-root grader cannot confine at all.
"""
from __future__ import annotations

import os
import resource

from coursekit.app.keyring import join_new_session_keyring

from autograder.sandbox import confine, userns
from autograder.sandbox.policy import WORKDIR
from autograder.sandbox.protocol import STATUS_FD


def enter(conf: confine.Confinement, parent: int) -> list[str]:
    """Confine the calling (forked) process, which dies with `parent` (its worker); return flags
    naming the protections that are missing.

    Not root: in a user namespace (userns.py), this call returns only in the process that runs the
    student's code, PID 2 of the child's own PID namespace; the forked child itself and that
    namespace's PID 1 wait there and exit without returning.
    """
    os.setsid()                                    # the worker kills the whole group on timeout
    stand_ins = {real: confine._identity(standin) for real, standin in conf.overlay}
    mode = "off" if not conf.isolate else "root" if os.geteuid() == 0 else "userns"
    if mode == "root":
        flags, private_tmp = confine._namespaces(conf)
    elif mode == "userns":
        flags, private_tmp = userns.enter(conf, parent)
        parent = 1                                 # PID 1 of the child's namespace, which reaps and reports
    else:
        flags, private_tmp = ["sandbox: isolation disabled by the limits (no namespaces, no uid drop)"], False
    _close_status_pipe()
    # checked, not assumed: each course file the child can open must now be its stand-in
    if any(confine._identity(real) != ident for real, ident in stand_ins.items()):
        flags.append("sandbox: the course's reference code is replaced in the grading process only: its files "
                     "stay readable (a subprocess or a read of the file finds the reference)")
    # Without a private /tmp every child would share /tmp/work and see the previous student's files.
    workdir = WORKDIR if private_tmp else confine.shared_workdir(os.getpid())
    os.makedirs(workdir, mode=0o700, exist_ok=True)
    if mode == "root":
        os.chown(workdir, conf.uid, conf.uid)
    if mode == "off":
        flags.append("sandbox: runs as the grader's own uid: process limit shared with the grader")
    else:
        # RLIMIT_NPROC counts the processes of one uid: the worker's own uid as root; in a user namespace,
        # the processes of the instructor's uid inside that namespace only. A fork bomb starves itself.
        resource.setrlimit(resource.RLIMIT_NPROC, (conf.max_procs, conf.max_procs))
    confine._limits(conf)
    os.chdir(workdir)
    if mode == "root":
        os.setgroups([])
        os.setresgid(conf.uid, conf.uid, conf.uid)
        os.setresuid(conf.uid, conf.uid, conf.uid)
    elif mode == "userns":
        userns.drop_capabilities()                 # no uid to drop to: drop what the namespace gave instead
    # the grader's session keyring (Kerberos tickets, tokens) is inherited: replace it with an empty one
    problem = join_new_session_keyring()
    if problem:
        flags.append(f"sandbox: the child shares the grader's session keyring ({problem})")
    confine._call("prctl", confine.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)   # setuid binaries cannot give root back
    confine.die_with_parent(parent)               # after the uid drop, which clears the setting
    return flags


def _close_status_pipe() -> None:
    """Student code must not hold the pipe on which PID 1 of its namespace reports (userns.py)."""
    try:
        os.close(STATUS_FD)
    except OSError:
        pass


def unavailable() -> str | None:
    """Why this process cannot confine a grading child, or None when it can (see userns.probe)."""
    if os.geteuid() == 0:
        return None                                # root: each mechanism is tried, and a missing one flagged
    return userns.probe()
