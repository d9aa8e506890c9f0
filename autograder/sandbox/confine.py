"""The sandbox's mechanisms as root (Linux; see docs/SANDBOX.md), called by child.enter in the forked child.

New network, IPC and mount namespaces, the allowlist root (also built by userns.py without root), the
fallback hide list, resource limits, and killing what a uid left behind. Each mechanism that is
unavailable is skipped and reported as a flag, so a result always says which protections were really
active.
"""
from __future__ import annotations

import ctypes
import errno
import os
import resource
import signal
import time
from dataclasses import dataclass

from autograder.sandbox.policy import DEVICES, SYSTEM_TREES

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV = 0x1, 0x2, 0x4
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x20, 0x1000, 0x4000, 0x40000
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER = 1, 38, 36
# statvfs flag -> mount flag: a bind remounted inside a user namespace must keep the flags its source
# mount has (the kernel locks them), so read-only binds carry these along
_KEPT_FLAGS = {os.ST_NOEXEC: 0x8, os.ST_NOATIME: 0x400, os.ST_NODIRATIME: 0x800, os.ST_RELATIME: 0x200000}

NEW_ROOT = "/tmp"                   # where the child's allowlist root is built (its own mount namespace)


def shared_workdir(pid: int) -> str:
    """The child's folder when /tmp is not private (degraded mode): unique per child, removed after."""
    return f"/tmp/autograder-child-{pid}"
# A worker runs its children as uid/gid UID_BASE + its own pid: unique among live workers, so two
# pools (or two test sessions) never share a process limit or kill each other's children.
UID_BASE = 1_000_000

_libc = ctypes.CDLL(None, use_errno=True)


@dataclass(frozen=True)
class Confinement:
    wall_s: float
    cpu_s: float
    memory_mb: int
    max_procs: int
    file_bytes: int                 # RLIMIT_FSIZE: the result file and anything the student writes
    network: bool                   # True: keep the host network (no network namespace)
    isolate: bool                   # False: rlimits and a new session only (tests of the degraded mode)
    uid: int = -1                   # set by the worker: UID_BASE + its pid
    hide: tuple[tuple[str, str], ...] = ()   # (path, label) pairs made unreadable to the child
    read_only: tuple[str, ...] = ()          # trees bind-mounted read-only (the course checkout)
    keep: tuple[str, ...] = ()               # folders that stay visible even inside a hidden one
    allow: tuple[str, ...] = ()              # the only host trees the child sees (read-only); () = hide list
    scratch_mb: int = 256                    # total the child may write: /tmp, /var/tmp and /dev/shm together
    # (host path of a course file, its grading stand-in) bound over it read-only (autograder/sandbox/standins.py)
    overlay: tuple[tuple[str, str], ...] = ()


def _call(name: str, *args) -> int:
    """Call a libc function; return 0 or the errno it failed with."""
    if getattr(_libc, name)(*args) != 0:
        return ctypes.get_errno() or errno.EPERM
    return 0


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> int:
    enc = lambda s: None if s is None else s.encode()
    return _call("mount", enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data))


def _hide(path: str) -> int:
    """Cover a folder with an empty read-only tmpfs, a file with /dev/null."""
    if os.path.isdir(path):
        return _mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k,mode=0555")
    return _mount("/dev/null", path, None, MS_BIND)


def _bind_back(paths, held: dict[str, int]) -> bool:
    """Bind held-open trees back at their own paths, parents first; True if any failed."""
    failed = False
    for path in sorted(paths, key=lambda p: p.count("/")):
        os.makedirs(path, mode=0o755, exist_ok=True)
        failed |= bool(_mount(f"/proc/self/fd/{held[path]}", path, None, MS_BIND | MS_REC))
    return failed


def _private_scratch(held: dict[str, int], flags: list[str]) -> bool:
    """A fresh tmpfs on /tmp, /var/tmp and /dev/shm per child, so other submissions, the job files and
    whatever earlier children left behind are out of sight; held trees under them come back.
    Returns whether /tmp is private."""
    private_tmp = False
    for folder, size in (("/tmp", "256m"), ("/var/tmp", "64m"), ("/dev/shm", "64m")):
        if not os.path.isdir(folder) or _mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode=0755"):
            continue
        private_tmp |= folder == "/tmp"
        under = [p for p in held if p.startswith(folder + "/")]
        if _bind_back(under, held):
            flags.append(f"sandbox: cannot keep what the child needs under {folder}")
    if not private_tmp:
        flags.append("sandbox: no private /tmp")
    return private_tmp


def _namespaces(conf: Confinement) -> tuple[list[str], bool]:
    """As root: enter new namespaces and build what the child sees; return (flags for what is missing,
    whether /tmp is private)."""
    flags: list[str] = []
    wanted = {CLONE_NEWNET: "network"} if not conf.network else {}
    wanted.update({CLONE_NEWIPC: "IPC", CLONE_NEWNS: "mount"})    # mount last: without it we stop
    if conf.network:
        flags.append("sandbox: network allowed by the limits")
    if _call("unshare", sum(wanted)):              # some hosts allow one namespace kind but not another
        for kind, name in wanted.items():
            err = _call("unshare", kind)
            if err and kind != CLONE_NEWNS:
                flags.append(f"sandbox: no {name} namespace ({os.strerror(err)})")
            elif err:
                flags.append(f"sandbox: no mount namespace ({os.strerror(err)}): hidden paths stay visible")
                return flags, False
    if _mount(None, "/", None, MS_REC | MS_PRIVATE):
        flags.append("sandbox: cannot make mounts private: hidden paths stay visible")
        return flags, False
    if conf.allow:
        failed = _allowlist_root(conf)
        if not failed:
            return flags, True
        _call("umount2", NEW_ROOT.encode(), 2)             # MNT_DETACH: whatever part was built goes
        flags.append(f"sandbox: no allowlist root ({failed}): hiding known paths instead")
    hidden_flags, private_tmp = _hide_known(conf)
    return flags + hidden_flags, private_tmp


def _kept_flags(fd: int) -> int:
    """The mount flags of the mount holding `fd` that a read-only bind of it must keep."""
    have = os.fstatvfs(fd).f_flag
    return sum(flag for st, flag in _KEPT_FLAGS.items() if have & st)


def _allowlist_root(conf: Confinement, fresh_proc: bool = False) -> str | None:
    """Chroot into a fresh tmpfs that holds only the allowed trees (read-only), a few devices and one
    size-capped scratch tmpfs for /tmp, /var/tmp and /dev/shm. Returns what failed, or None.

    fresh_proc: mount a new /proc (the caller is PID 1 of its own PID namespace, so it lists only the
    child's processes) instead of binding the host's."""
    trees = [p for p in (*SYSTEM_TREES, *conf.allow) if os.path.lexists(p)]
    links = {p: os.readlink(p) for p in trees if os.path.islink(p) and p.count("/") == 1}   # /bin -> usr/bin
    trees = [p for p in trees if p not in links and os.path.isdir(p)]
    held = {p: os.open(p, os.O_PATH) for p in ["/proc", *trees]}   # before the tmpfs covers any of them
    dev = {name: os.open(f"/dev/{name}", os.O_PATH) for name in DEVICES if os.path.exists(f"/dev/{name}")}
    stand_ins = {real: os.open(standin, os.O_PATH) for real, standin in conf.overlay if os.path.isfile(standin)}
    try:
        if _mount("tmpfs", NEW_ROOT, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755"):
            return "cannot mount its tmpfs"
        root = NEW_ROOT
        for link, target in links.items():
            os.symlink(target, root + link)
        # The scratch tmpfs goes first: a course or virtual environment that lives under /tmp (a fresh
        # clone in CI) is then bound inside it below, instead of being covered by it afterwards.
        # one tmpfs for everything writable, so its size caps the total a submission writes
        scratch = root + "/tmp"
        os.makedirs(scratch)
        if _mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, f"size={conf.scratch_mb}m,mode=1777"):
            return "cannot mount the scratch tmpfs"
        bound: list[str] = []
        for tree in sorted(trees, key=lambda p: p.count("/")):
            if any(tree.startswith(b.rstrip("/") + "/") for b in bound):
                continue                                   # already inside a bound tree
            os.makedirs(root + tree, mode=0o755, exist_ok=True)
            read_only = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | _kept_flags(held[tree])
            if _mount(f"/proc/self/fd/{held[tree]}", root + tree, None, MS_BIND | MS_REC) or \
                    _mount(None, root + tree, None, read_only):
                return f"cannot bind {tree}"
            bound.append(tree)
        os.makedirs(root + "/proc")
        if fresh_proc:
            if _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | 0x8):   # MS_NOEXEC
                return "cannot mount a /proc of its own"
        elif _mount(f"/proc/self/fd/{held['/proc']}", root + "/proc", None, MS_BIND | MS_REC):
            return "cannot bind /proc"
        os.makedirs(root + "/dev")
        for name, fd in dev.items():
            open(f"{root}/dev/{name}", "w").close()
            if _mount(f"/proc/self/fd/{fd}", f"{root}/dev/{name}", None, MS_BIND):
                return f"cannot bind /dev/{name}"
        for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                             ("stderr", "/proc/self/fd/2")):
            os.symlink(target, f"{root}/dev/{name}")
        for alias, folder in ((root + "/dev/shm", scratch + "/.shm"), (root + "/var/tmp", scratch + "/.var-tmp")):
            os.makedirs(folder, mode=0o1777)
            os.chmod(folder, 0o1777)
            os.makedirs(alias)
            if _mount(folder, alias, None, MS_BIND):
                return f"cannot bind {alias[len(root):]}"
        for real, fd in stand_ins.items():                  # the course's reference code: never the real file
            if os.path.isfile(root + real) and (
                    _mount(f"/proc/self/fd/{fd}", root + real, None, MS_BIND) or
                    _mount(None, root + real, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)):
                return f"cannot cover {real} with its stand-in"
        for path, _label in conf.hide:                      # instructor files inside an allowed tree
            inside = any(path.startswith(tree.rstrip("/") + "/") for tree in bound)
            if inside and os.path.lexists(root + path) and _hide(root + path):
                return f"cannot hide {path}"
        if _call("chroot", root.encode()):
            return "chroot failed"
        os.chdir("/")
        return None
    finally:
        for fd in (*held.values(), *dev.values(), *stand_ins.values()):
            os.close(fd)


def _hide_known(conf: Confinement) -> tuple[list[str], bool]:
    """The fallback: cover the paths the pipeline names (and give /tmp, /var/tmp, /dev/shm fresh tmpfs)."""
    flags: list[str] = []
    # The trees the child needs (interpreter, packages, this checkout) are held open before anything is
    # covered, then bound back into whatever tmpfs covers them: a hidden folder (/root), or the private
    # /tmp when the course or its virtual environment lives under /tmp.
    needed = {p: os.open(p, os.O_PATH) for p in {*conf.keep, *conf.read_only} if os.path.isdir(p)}
    private_tmp = _private_scratch(needed, flags)
    for tree in conf.read_only:
        if os.path.isdir(tree) and not _mount(tree, tree, None, MS_BIND | MS_REC):
            _mount(None, tree, None, MS_REMOUNT | MS_BIND | MS_RDONLY)
    failed = []
    for path, label in sorted(conf.hide, key=lambda item: item[0].count("/")):
        if not os.path.lexists(path) or path in needed:
            continue
        inside = [k for k in needed if k.startswith(path.rstrip("/") + "/")]
        if not inside:
            if _hide(path):
                failed.append(label)
            continue
        if _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755"):
            failed.append(label)
            continue
        if _bind_back(inside, needed):
            failed.append(f"{label} (cannot keep what the child needs inside it)")
    for fd in needed.values():
        os.close(fd)
    if failed:
        flags.append("sandbox: could not hide " + ", ".join(sorted(set(failed))))
    return flags, private_tmp


def _identity(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _limits(conf: Confinement) -> None:
    cpu = max(1, int(conf.cpu_s + 0.999))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))   # soft: SIGXCPU, hard: SIGKILL
    memory = conf.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (conf.file_bytes, conf.file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


def die_with_parent(parent: int) -> None:
    """Get SIGKILL as soon as `parent` exits (the grader for a worker, the worker for a grading child).

    The kernel sends it when the parent thread ends and clears it when the uid changes, so a child
    sets it last. A parent that died before this call is no longer getppid(): exit now instead.
    parent 0: the parent lives outside this PID namespace (the namespace's PID 1), so cannot be checked.
    """
    _call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent and os.getppid() != parent:
        os._exit(70)


def guard(uid: int) -> tuple[int, int]:
    """Fork a guardian that SIGKILLs every process of `uid` once the caller has exited, however it died.

    A parent-death signal reaches only a direct child, and student code may clear its own: whatever a
    submission started (a double fork, setsid) would outlive a killed worker. The guardian waits for
    EOF on a pipe whose write end only the caller holds, then sweeps the uid; it has its own session,
    so killing the grader's process group misses it. Returns its pid and that write end: keep it open
    for life, and give it to no child (grading children close every fd above 3 first thing).
    """
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            os.dup2(read, 3)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)                 # nor may it hold the worker's pipes to the engine open
            os.closerange(4, 4096)
            while os.read(3, 1):
                pass
            kill_uid(uid)
        finally:
            os._exit(0)
    os.close(read)
    return pid, write


def become_subreaper() -> bool:
    """Orphans of a grading child reparent to the worker, which reaps them (zombies count toward NPROC);
    the test session uses it too (tests/leftovers.py). True when the kernel took it."""
    return _call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def processes_of(uid: int) -> list[int]:
    """Pids whose real uid is `uid` (read from /proc/<pid>/status; works for non-dumpable processes too)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as handle:
                for line in handle:
                    if line.startswith(b"State:") and line.split()[1] in (b"Z", b"X"):
                        break                     # zombies are dead already; the worker reaps them
                    if line.startswith(b"Uid:"):
                        if int(line.split()[1]) == uid:
                            pids.append(int(name))
                        break
        except (OSError, ValueError, IndexError):
            continue                              # exited while we looked
    return pids


def kill_uid(uid: int, timeout: float = 5.0) -> int:
    """SIGKILL every process of `uid` (setsid escapees included); return how many were found at first.

    A helper process becomes `uid` and calls kill(-1), which reaches exactly the processes that uid
    may signal: its own. Repeat until none is left, so a fork bomb racing the sweep still loses.
    (kill(-1) reports success even when it only met processes it may not signal, so /proc decides.)
    """
    found = [p for p in processes_of(uid)]
    if not found or os.geteuid() != 0:
        return len(found)
    pid = os.fork()
    if pid == 0:
        try:
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            me = os.getpid()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and [p for p in processes_of(uid) if p != me]:
                try:
                    os.kill(-1, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                reap()
                time.sleep(0.001)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    reap()
    return len(found)


def reap() -> None:
    """Collect exited orphans so they stop counting against the student uid's process limit."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
