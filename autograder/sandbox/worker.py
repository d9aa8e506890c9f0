"""A warm grading worker: imports torch, numpy and IPython once, then forks one sandboxed child per job.

    python -m autograder.sandbox.worker GRADER_PID       (the worker dies with that process)

Protocol (one JSON line each way, over stdin/stdout, with the trusted engine):
    in:  {"job": path, "result": path, "spec": spec module path or lab id, "wall_s": s, "output_bytes": n}
    out: {"exit_code", "signal", "timed_out", "output_bytes", "output_exceeded", "cpu_s", "wall_s", "strays",
          "rss_mb" (the child's peak resident memory beyond what it inherited), "start_vm_mb" (its address
          space at fork: RLIMIT_AS counts that too)}

The worker never parses what a student's code produced or submitted: the child reads its job file
(cells and case inputs) itself before it is confined, and writes its report to the result file the
engine reads. Keeping student data out of this long-lived process means no later child can find an
earlier student's code or outputs in memory inherited through fork.
"""
from __future__ import annotations

import json
import os
import select
import shutil
import signal
import sys
import time
import traceback

from autograder.sandbox.protocol import NOFORK_MISSING, FLAG_BYTES, FLAG_FD, OUT_OF_MEMORY, RESULT_FD, STATUS_FD

WARM_MODULES = ("numpy", "numpy.testing", "unittest", "torch", "torch.testing", "torch.nn.functional",
                "matplotlib", "matplotlib.pyplot", "coursekit.labs", "coursekit.device")
CHUNK = 65536


def warm_up():
    """Import the heavy modules and build the IPython shell once; every child inherits them via fork."""
    import importlib

    os.environ.setdefault("MPLBACKEND", "Agg")
    for name in WARM_MODULES:
        try:
            importlib.import_module(name)
        except Exception:        # noqa: BLE001 - a missing optional module only costs speed
            pass
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False      # no sqlite file, no history thread to fork across
    return InteractiveShell.instance(config=config)


def _child(request: dict, spec, shell, out_w: int, flag_w: int, status_w: int, uid: int, worker: int) -> None:
    """In the forked child: wire fds, read the job, confine, run. Never returns."""
    code = 70
    try:
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        with open(request["job"], encoding="utf-8") as handle:
            job = json.load(handle)
        result_fd = os.open(request["result"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(result_fd, RESULT_FD)
        os.dup2(flag_w, FLAG_FD)
        os.dup2(status_w, STATUS_FD)               # closed before student code runs (child.enter)
        os.closerange(STATUS_FD + 1, 4096)         # the control pipes to the engine stay out of reach
        from autograder.sandbox import standins
        from autograder.sandbox import child, confine, harness, policy

        settings = {k: tuple(map(tuple, v)) if k in ("hide", "overlay") else tuple(v)
                    if k in ("read_only", "keep", "allow") else v for k, v in job["confinement"].items()}
        flags = child.enter(confine.Confinement(**dict(settings, uid=uid)), worker)
        # what this process imported before the fork (the spec's modules, the warm ones) is the real code
        standins.replace_in_memory(job.get("standins", {}), spec)
        os.environ.clear()
        os.environ.update(policy.child_environment(os.getcwd()))
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.set_num_threads(1)               # before any op starts a thread pool in this child
        if job.get("timed"):                       # its CPU seconds are the verdict: no process may escape them
            from autograder.sandbox.nofork import refuse_process_starts

            problem = refuse_process_starts()
            if problem:
                flags.append(f"{NOFORK_MISSING}: {problem}")
        harness.run(job, spec, shell, RESULT_FD, flags, FLAG_FD)
        code = 0
    except BaseException as error:                 # noqa: BLE001 - report, then exit without cleanup
        if isinstance(error, MemoryError):          # student code left no memory to finish the report
            code = OUT_OF_MEMORY
        try:
            traceback.print_exc()
        except BaseException:                      # noqa: BLE001 - report, then exit without cleanup
            pass
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _memory_kb() -> dict[str, int]:
    """This process's address space (VmSize) and resident memory (VmRSS) in kB; a child forked now starts with both."""
    sizes = {"VmSize": 0, "VmRSS": 0}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in sizes:
                sizes[key] = int(value.split()[0])
    return sizes


class Worker:
    def __init__(self) -> None:
        from autograder.sandbox import confine as sandbox

        self.sandbox = sandbox
        self.uid = sandbox.UID_BASE + os.getpid()
        # forked before torch is imported, so a small process (only root can sweep another uid)
        self.guardian = sandbox.guard(self.uid) if os.geteuid() == 0 else None
        self.shell = warm_up()
        self.buffer = bytearray(CHUNK)             # output is counted, never kept: read into one reused buffer
        self.zeros = bytes(CHUNK)
        sandbox.become_subreaper()

    def spec(self, ref: str):
        from autograder.spec import load_spec

        return load_spec(ref)

    def run(self, request: dict) -> dict:
        spec = self.spec(request["spec"])
        out_r, out_w = os.pipe()
        flag_r, flag_w = os.pipe()
        status_r, status_w = os.pipe()
        start = time.monotonic()
        worker, inherited = os.getpid(), _memory_kb()
        pid = os.fork()
        if pid == 0:
            for fd in (out_r, flag_r, status_r):
                os.close(fd)
            _child(request, spec, self.shell, out_w, flag_w, status_w, self.uid, worker)
        for fd in (out_w, flag_w, status_w):
            os.close(fd)
        flags = FlagBytes()
        try:
            reply = self._watch(pid, out_r, start, float(request["wall_s"]), int(request["output_bytes"]),
                                flag_r, flags)
            _student_status(status_r, reply)
        finally:
            for fd in (out_r, flag_r, status_r):
                os.close(fd)
            self.buffer[:] = self.zeros
        # passed on as text, never interpreted here: the engine decides what the lines mean
        reply["streamed_flags"], reply["flag_bytes_dropped"] = flags.text(), flags.dropped
        peak_kb = reply.pop("max_rss_kb")
        reply.update(rss_mb=max(0, peak_kb - inherited["VmRSS"]) // 1024, start_vm_mb=inherited["VmSize"] // 1024)
        return reply

    def _watch(self, pid: int, out_r: int, start: float, wall_s: float, output_cap: int, flag_r: int,
               flags: FlagBytes) -> dict:
        os.set_blocking(out_r, False)
        os.set_blocking(flag_r, False)
        try:
            pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pidfd = None                           # old kernel: poll the child every 20 ms instead
        total, exceeded, timed_out, status, usage, eof, flags_eof = 0, False, False, None, None, False, False
        try:
            while True:
                waited, raw, rusage = os.wait4(pid, os.WNOHANG)
                if waited:
                    status, usage = raw, rusage
                    break
                remaining = start + wall_s - time.monotonic()
                if remaining <= 0:
                    timed_out = True
                    break
                watch = ([] if eof else [out_r]) + ([] if flags_eof else [flag_r]) + \
                        ([pidfd] if pidfd is not None else [])
                ready, _, _ = select.select(watch, [], [], min(remaining, 0.02 if pidfd is None or eof else 1.0))
                if flag_r in ready:
                    flags_eof = not _drain(flag_r, flags)
                if out_r in ready:
                    try:
                        count = os.readv(out_r, [self.buffer])
                    except BlockingIOError:
                        count = -1
                    if count == 0:
                        eof = True                 # the child closed stdout; its exit is next
                    elif count > 0:
                        total += count
                        if total > output_cap:
                            exceeded = True
                            break
        finally:
            if pidfd is not None:
                os.close(pidfd)
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if status is None:
            _, status, usage = os.wait4(pid, 0)
        _drain(flag_r, flags)                      # what the child wrote just before it ended
        strays = self.sandbox.kill_uid(self.uid) if os.geteuid() == 0 else 0
        self.sandbox.reap()
        shutil.rmtree(self.sandbox.shared_workdir(pid), ignore_errors=True)   # degraded mode only
        return {
            "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "timed_out": timed_out, "output_bytes": total, "output_exceeded": exceeded,
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 3) if usage else 0.0,
            "wall_s": round(time.monotonic() - start, 3), "strays": strays > 0,
            "max_rss_kb": usage.ru_maxrss if usage else 0,
        }


def _student_status(status_r: int, reply: dict) -> None:
    """Graded without root, the child only waits for its namespace's PID 1, which writes how the
    student's process ended (userns.py): that status, when present, is the one the engine judges."""
    os.set_blocking(status_r, False)
    try:
        raw = os.read(status_r, 256)
    except (BlockingIOError, OSError):
        return
    try:
        sent = json.loads(raw)
        status, strays = int(sent["status"]), int(sent["strays"])
    except (ValueError, KeyError, TypeError):
        return                                     # PID 1 never ended normally: the child's own status stands
    if not reply["timed_out"] and not reply["output_exceeded"]:
        reply["exit_code"] = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        reply["signal"] = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    reply["strays"] = reply["strays"] or strays > 0


class FlagBytes:
    """The child's flag stream as bytes, never parsed here: the first and the last FLAG_BYTES / 2 are
    kept, so a flood of lines in the middle can neither push out the flags raised after it nor the
    harness's end line; how many bytes were dropped goes to the engine, which flags the flood."""

    def __init__(self) -> None:
        self.head, self.tail, self.dropped = bytearray(), bytearray(), 0

    def add(self, chunk: bytes) -> None:
        room = max(0, FLAG_BYTES // 2 - len(self.head))
        self.head += chunk[:room]
        self.tail += chunk[room:]
        excess = len(self.tail) - FLAG_BYTES // 2
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        tail = self.tail
        if self.dropped:                            # the tail's first line may be cut: start at a whole one
            tail = tail[tail.find(b"\n") + 1:] if b"\n" in tail else bytearray()
        return (bytes(self.head) + (b"\n" if self.dropped else b"") + bytes(tail)).decode("utf-8", errors="replace")


def _drain(fd: int, into: FlagBytes) -> bool:
    """Add what the pipe holds now; False at end of file."""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        into.add(chunk)


def main(argv: list[str]) -> int:
    from autograder.sandbox.confine import die_with_parent

    if argv:
        die_with_parent(int(argv[0]))            # a killed grader takes its workers (and their children) along
    # The protocol gets its own copy of stdout; fd 1 becomes stderr, so a library that prints while
    # importing cannot corrupt the replies.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    worker = Worker()
    out.write(json.dumps({"ready": True, "pid": os.getpid(), "uid": worker.uid}) + "\n")
    out.flush()
    for line in sys.stdin:
        try:
            reply = worker.run(json.loads(line))
        except Exception as error:                 # noqa: BLE001 - an engine-side problem, not the student's
            reply = {"error": f"{type(error).__name__}: {error}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()
    if worker.guardian:                          # a clean exit: let the guardian sweep, then reap it
        os.close(worker.guardian[1])
        os.waitpid(worker.guardian[0], 0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
