"""The verdicts, on the trusted side: a task's outputs against the reference (judge_task), a task that
reached course code it may not call (forbidden), and why a child stopped without a report
(failure_reason: time, output, CPU, file size, memory, a crash)."""
from __future__ import annotations

from typing import Any

from autograder.judge.results import TaskResult
from autograder.sandbox.policy import Limits
from autograder.sandbox.protocol import OUT_OF_MEMORY, RESULT_BYTES, RESULT_TOO_LARGE
from autograder.spec import Case, Task

# Signals a process dies from when memory runs out: the kernel's OOM killer, C code that aborts on a
# failed allocation or writes through the NULL it got back, a stack that cannot grow.
MEMORY_SIGNALS = {6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV"}
HIDDEN_LABEL = "hidden case"


def _withheld(message: str) -> str:
    """A hidden case's comparison without the expected value: where the output differs, not the answer."""
    where = message.split(": expected", 1)[0] if ": expected" in message else "output"
    return f"{where} does not match the reference (expected values of hidden cases are not shown)"


def judge_task(task: Task, labels: list[str], cases: list[Case], wanted: list[Any], report: dict | None,
               cell_errors: list[dict]) -> TaskResult:
    def fail(message: str) -> TaskResult:
        return TaskResult(task.grade_id, 0.0, float(task.points), False, message)

    if not isinstance(report, dict) or not report.get("defined"):
        detail = f" (first error: cell {cell_errors[0]['cell']}: {cell_errors[0]['error']})" if cell_errors else ""
        return fail(f"{task.title}: function {task.function!r} is not defined{detail}")
    outputs = report.get("outputs")
    if not isinstance(outputs, list) or len(outputs) != len(cases):
        return fail(f"{task.title}: the run reported {len(outputs) if isinstance(outputs, list) else 'no'} "
                    f"outputs for {len(cases)} cases")
    for label, case, want, got in zip(labels, cases, wanted, outputs):
        hint = f" Hint: {case.hint}" if case.hint else ""
        if not isinstance(got, dict) or ("value" not in got and "error" not in got):
            return fail(f"{task.title}, {label}: no output")
        if "error" in got:
            return fail(f"{task.title}, {label}: {task.function} raised {str(got['error'])[:300]}.{hint}")
        try:
            message = task.compare(got["value"], want)
        except Exception as error:  # noqa: BLE001 - odd data from the child: a wrong answer, not a crash
            message = f"output cannot be compared ({type(error).__name__})"
        if message and label.startswith(HIDDEN_LABEL):
            message = _withheld(message)
        if message:
            return fail(f"{task.title}, {label}: {message}.{hint}")
    return TaskResult(task.grade_id, float(task.points), float(task.points), True,
                      f"{task.title}: all {len(cases)} cases pass")


def forbidden(task: Task, report: Any, flags: list[str]) -> TaskResult | None:
    """Zero for a task whose function reached code it may not call (seen in the report or streamed)."""
    prefix = f"reference: {task.grade_id} calls "
    reached = next((f[len(prefix):] for f in flags if f.startswith(prefix)), None)
    if reached is None and isinstance(report, dict) and isinstance(report.get("forbidden"), str):
        reached = report["forbidden"][:200]
    if reached is None:
        return None
    return TaskResult(task.grade_id, 0.0, float(task.points), False,
                      f"{task.title}: {task.function} calls {reached}, the course's own code for this task; "
                      "write it yourself (this task scores 0)")


def memory_full(reply: dict, limits: Limits) -> bool:
    """Whether the child's peak resident memory reached most of what the limit left it.

    RLIMIT_AS counts address space, and a child starts with the worker's (libraries mapped but
    mostly not resident), so the yardstick is the room beyond that, not the whole limit.
    """
    room = limits.memory_mb - reply.get("start_vm_mb", 0)
    return room > 0 and reply.get("rss_mb", 0) >= 0.75 * room


def failure_reason(reply: dict, limits: Limits) -> str | None:
    if reply.get("timed_out"):
        # the same words however busy the machine was, so a result never depends on load (resume, Dask)
        stretch = f"; up to {limits.wall_stretch:g}x that on a busy machine" if limits.wall_stretch > 1 else ""
        return f"timeout: still running at the wall-clock limit ({limits.wall_s:g} s{stretch})"
    if reply.get("output_exceeded"):
        return f"output too large: more than {limits.output_kb} KB printed"
    sig = reply.get("signal")
    if sig is not None:
        if sig == 24 or (sig == 9 and reply.get("cpu_s", 0) >= limits.cpu_s):
            return f"cpu time limit: used more than {limits.cpu_s:g} s of CPU"
        if sig == 25:
            return f"file size limit: wrote more than {RESULT_BYTES // 2**20} MB to one file"
        if sig in MEMORY_SIGNALS and memory_full(reply, limits):
            return (f"memory: the notebook's process died from {MEMORY_SIGNALS[sig]} after filling its memory "
                    f"({reply['rss_mb']} MB in use; the {limits.memory_mb} MB limit includes "
                    f"{reply['start_vm_mb']} MB of preloaded libraries)")
        if sig == 9:
            return "killed by SIGKILL: the notebook killed its own process, or the machine ran out of memory"
        return f"crash: the notebook's process died from signal {sig}"
    if reply.get("exit_code") == RESULT_TOO_LARGE:
        return f"result too large: the function outputs exceed {RESULT_BYTES // 2**20} MB"
    if reply.get("exit_code") == OUT_OF_MEMORY:
        return f"memory: out of memory (limit {limits.memory_mb} MB) before the results could be reported"
    if reply.get("exit_code") not in (0, None):
        return f"crash: the notebook's process exited with status {reply.get('exit_code')} before reporting"
    return None
