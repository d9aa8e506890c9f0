"""Confinement without root: a user namespace holding the child's own mount, network, IPC and PID
namespaces (what bubblewrap does), for an instructor who grades as their own Unix user on the hub.

    worker ── fork ──> child: unshare(USER|NS|NET|IPC|PID), map the instructor's uid, fork
                         └─> PID 1 (non-dumpable): build the allowlist root, mount a /proc of its own,
                             chroot, fork
                               └─> PID 2: limits, no capabilities, no new privileges: runs the student's code

The student's code runs as the instructor's uid on the host, with no capability, in a root that holds
only the allowlist (no home folder, no solutions/, no secret, no other submission, no job file), seeing
only its own processes: it cannot name, signal or read (/proc/<pid>/environ) any of the instructor's
processes, and nothing on the host is writable to it. chroot cannot be escaped without
CAP_SYS_CHROOT, and a chrooted process may not create a user namespace to regain one.

PID 1 reaps every process of the namespace; when PID 2 ends it sends the worker PID 2's wait status and
how many processes were still running on STATUS_FD (the worker reads this instead of the child's own
exit), then exits, and the kernel kills whatever is left. The forked child only waits for PID 1.
"""
from __future__ import annotations

import ctypes
import errno
import json
import os
import signal

from autograder.sandbox.protocol import STATUS_FD

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWNET = 0x00020000, 0x08000000, 0x40000000
CLONE_NEWUSER, CLONE_NEWPID = 0x10000000, 0x20000000
PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 4, 24, 47, 4
_CAPABILITY_VERSION_3 = 0x20080522
_LAST_CAP = 63

_libc = ctypes.CDLL(None, use_errno=True)


# why unshare(CLONE_NEWUSER) fails, in terms an administrator can act on
_WHY = {errno.ENOSPC: "the user namespace limit is reached or 0: sysctl user.max_user_namespaces",
        errno.EPERM: "not permitted: kernel.unprivileged_userns_clone=0, an AppArmor or SELinux rule, or a "
                     "seccomp filter such as a container's default",
        errno.EINVAL: "this kernel has no user namespaces"}


def _fail(what: str) -> str:
    code = ctypes.get_errno() or errno.EPERM
    return f"{what} ({_WHY.get(code, os.strerror(code)) if what == 'no user namespace' else os.strerror(code)})"


def _unshare_and_map(network: bool = False) -> str | None:
    """Enter new user, mount, network (unless `network`), IPC and PID namespaces, mapping this uid and
    gid to themselves inside; return what failed, or None. The PID namespace applies to the children
    forked next."""
    uid, gid = os.geteuid(), os.getegid()
    kinds = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID | (0 if network else CLONE_NEWNET)
    if _libc.unshare(kinds):
        return _fail("no user namespace")
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
    except OSError as error:
        return f"cannot map the grader's uid into its user namespace ({error.strerror})"
    return None


def _exit_like(status: int) -> None:
    """End this process the way a child with wait status `status` ended."""
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)


def probe() -> str | None:
    """Why confinement in a user namespace does not work here (None: it does): try the namespaces, the
    uid map, a tmpfs and a /proc of its own in a throwaway child, as `enter` will."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        problem = _unshare_and_map()
        if problem is None:
            inner = os.fork()                      # PID 1 of the new namespace: it can mount a /proc
            if inner == 0:
                if _libc.mount(b"tmpfs", b"/tmp", b"tmpfs", ctypes.c_ulong(0), b"size=64k"):
                    os.write(write, _fail("cannot mount a tmpfs").encode())
                else:
                    os.mkdir("/tmp/proc")
                    if _libc.mount(b"proc", b"/tmp/proc", b"proc", ctypes.c_ulong(0), None):
                        os.write(write, _fail("cannot mount a /proc of its own").encode())
                os._exit(0)
            os.waitpid(inner, 0)
        else:
            os.write(write, problem.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        problem = handle.read().decode(errors="replace")
    os.waitpid(pid, 0)
    return problem or None


def enter(conf, parent: int) -> tuple[list[str], bool]:
    """Called by child.enter in the forked child (not root). Returns (flags, whether /tmp is private)
    only in PID 2, the process that goes on to run student code."""
    from autograder.sandbox import confine

    confine.die_with_parent(parent)
    problem = _unshare_and_map(conf.network)
    if problem:
        return [f"sandbox: {problem}: no namespaces, student code runs as the grader's own user"], False
    confine.die_with_parent(parent)                # the new credentials may have cleared it
    init = os.fork()
    if init:                                       # the forked child: PID 1's status goes to the worker
        _, status = os.waitpid(init, 0)
        _exit_like(status)
    # PID 1 of the child's namespace. Non-dumpable: PID 2's code, same uid, cannot open its /proc files
    # (its status pipe among them) or ptrace it; it ignores signals sent from inside the namespace.
    confine.die_with_parent(0)
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    flags: list[str] = ["sandbox: network allowed by the limits"] if conf.network else []
    private_tmp = False
    if confine._mount(None, "/", None, confine.MS_REC | confine.MS_PRIVATE):
        flags.append("sandbox: cannot make mounts private: hidden paths stay visible")
    else:
        failed = confine._allowlist_root(conf, fresh_proc=True) if conf.allow else "none asked for"
        if failed:
            confine._call("umount2", confine.NEW_ROOT.encode(), 2)
            flags.append(f"sandbox: no allowlist root ({failed}): hiding known paths instead")
            hidden_flags, private_tmp = confine._hide_known(conf)
            flags += hidden_flags
            if confine._mount("proc", "/proc", "proc", confine.MS_NOSUID | confine.MS_NODEV):
                flags.append("sandbox: no /proc of its own: the host's processes are listed")
        else:
            private_tmp = True
    student = os.fork()
    if student == 0:
        return flags, private_tmp                  # PID 2: child.enter goes on (limits, capabilities)
    _reap_until(student)


def _reap_until(student: int) -> None:
    """PID 1's loop: reap every process of the namespace; when the student's process ends, report its
    status and the processes it left, then exit (the kernel then kills the rest)."""
    status = None
    while status is None:
        try:
            pid, raw = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == student:
            status = raw
    strays = sum(1 for name in os.listdir("/proc") if name.isdigit() and name != "1" and _alive(name))
    report = json.dumps({"status": status, "strays": strays}).encode()
    try:
        os.write(STATUS_FD, report)
    except OSError:
        pass
    os._exit(0)


def _alive(pid: str) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def drop_capabilities() -> None:
    """Give up every capability the user namespace granted (effective, permitted, inheritable, ambient
    and the bounding set), so student code can neither remount, unmount nor chroot out."""
    for cap in range(_LAST_CAP + 1):
        _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)     # EINVAL past the kernel's last capability
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    if _libc.capset(ctypes.byref(Header(_CAPABILITY_VERSION_3, 0)), (Data * 2)()):
        raise OSError(ctypes.get_errno(), "capset: cannot drop the user namespace's capabilities")
