"""The trusted grading engine: parse, run sandboxed, judge outside the student's process.

    with GradingPool(workers=4) as pool:
        future = pool.submit(Path("submitted/alice/lab1/lab1.ipynb"), spec, student_id="alice", secret=secret)
        result = future.result()          # SubmissionResult, status "graded" or "failed" with a reason

A bad submission never raises: it ends "failed" with a reason, or "graded" with per-task messages.
`GraderError` is raised only for instructor-side problems (a spec or solution that does not load).
"""
from __future__ import annotations

import concurrent.futures
import errno
import hashlib
import json
import os
import queue
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.judge.budget import Budget, OverBudget
from autograder.judge.results import SubmissionResult, TaskResult
from autograder.judge.verdict import HIDDEN_LABEL, failure_reason, forbidden, judge_task
from autograder.sandbox import standins
from autograder.judge.flags import scan_source
from autograder.sandbox.protocol import (GRADING_ENVIRONMENT, MALFORMED, RESULT_BYTES, read_report,
                                         streamed_flags)
from autograder.judge.hidden import hidden_cases
from autograder.judge.reference import reference_output
from autograder.sandbox.scratch import private_folder
from autograder.sandbox.child import unavailable
from autograder.sandbox.confine import kill_uid
from autograder.sandbox.policy import Limits, allowed_paths, default_hidden, needed_paths
from autograder.spec import REPO_ROOT, Case, LabSpec, Task
from autograder.submitted import MAX_NOTEBOOK_BYTES   # one limit for every reader of submitted/
from autograder.judge.thin import locked_cells, thin
from coursekit.nbcells import as_autograded, is_test_cell, nbgrader_meta
from coursekit.paths import course_root

WORKER_START_S = 120


class GraderError(RuntimeError):
    """The grader itself cannot work (spec, solution or worker problem): not the student's fault."""


# The trusted side's size limits on what it analyses (the largest solution notebook has 27 code cells,
# 20,000 characters and under 600 lines of code): a notebook past them fails before any analysis.
MAX_CELLS = 5_000
MAX_CODE_CHARS = 1_000_000
MAX_CODE_LINES = 20_000


class _Failed(Exception):
    """A submission that cannot be graded; the message is the reason shown to the instructor."""


# ---------------------------------------------------------------- the submission, parsed by the trusted side

def read_submission(notebook: Path) -> bytes:
    """The notebook's bytes, opened without following a symbolic link (a link could point at the
    instructor's solution); raise _Failed for a link, a non-file or an oversized file."""
    try:
        fd = os.open(notebook, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise _Failed("refused: the notebook is a symbolic link (submit the file itself, not a link)") from None
        raise _Failed(f"cannot read the notebook: {error.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise _Failed("refused: the notebook is not a regular file")
        if info.st_size > MAX_NOTEBOOK_BYTES:
            raise _Failed(f"notebook too large: {info.st_size / 2**20:.1f} MB "
                          f"(limit {MAX_NOTEBOOK_BYTES // 2**20} MB)")
        return handle.read(MAX_NOTEBOOK_BYTES + 1)


def parse_notebook(raw: bytes) -> Any:
    """JSON that every later step (the child's job, the autograded copy) can store; raise _Failed otherwise."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _Failed("not a notebook: the file is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise _Failed(f"not a notebook: invalid JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    except RecursionError:
        raise _Failed("unreadable notebook: its JSON is nested too deeply") from None
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except RecursionError:
        raise _Failed("unreadable notebook: its JSON is nested too deeply") from None
    except UnicodeEncodeError as error:
        raise _Failed(f"unreadable notebook: it holds a lone surrogate ({error.object[error.start:error.end]!r}), "
                      "which is not text any file can store") from None
    return data


def read_cells(notebook: Path, spec: LabSpec) -> list[tuple[int, str]]:
    """Code cells to run, test cells left out; raise _Failed for anything not gradable."""
    return read_job(notebook, spec)[0]


def read_job(notebook: Path, spec: LabSpec, check=None) -> tuple[list[tuple[int, str]], dict[str, int]]:
    """(code cells to run, where each task's test cell stands); raise _Failed for anything not gradable.
    `check` is called as the thinning goes (a Budget's, which raises OverBudget)."""
    data = parse_notebook(read_submission(notebook))
    cells = notebook_cells(data, spec, check)
    return cells, task_positions(data, spec)


def task_positions(data: dict, spec: LabSpec) -> dict[str, int]:
    """grade_id -> index of its test cell: the task is judged there, after the cells above it only."""
    wanted = {task.grade_id for task in spec.tasks}
    return {nbgrader_meta(cell)["grade_id"]: index for index, cell in enumerate(data["cells"])
            if nbgrader_meta(cell).get("grade_id") in wanted}


def notebook_cells(data: Any, spec: LabSpec, check=None) -> list[tuple[int, str]]:
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise _Failed("not a notebook: no list of cells (is this an .ipynb file?)")
    if data.get("nbformat") != 4:
        raise _Failed(f"unsupported notebook format {data.get('nbformat')!r}: expected nbformat 4")
    seen: dict[str, int] = {}
    for cell in data["cells"]:
        grade_id = nbgrader_meta(cell).get("grade_id")
        if isinstance(grade_id, str):
            seen[grade_id] = seen.get(grade_id, 0) + 1
    duplicated = sorted(g for g, n in seen.items() if n > 1)
    if duplicated:
        raise _Failed(f"duplicated cells: grade_id {', '.join(duplicated)} appears more than once "
                      "(cells copied? keep one of each)")
    missing = [task.grade_id for task in spec.tasks if task.grade_id not in seen]
    if missing:
        raise _Failed(f"missing graded cells: {', '.join(missing)} (deleted, or its nbgrader metadata removed)")
    if len(data["cells"]) > MAX_CELLS:
        raise _Failed(f"too large to grade: {len(data['cells']):,} cells (limit {MAX_CELLS:,})")
    task_ids = {task.grade_id for task in spec.tasks}
    cells = []
    # as nbgrader runs it: a locked cell the student edited (setup, a measurement) runs as released
    for index, cell in enumerate(as_autograded(data["cells"], locked_cells(spec.solution_path()))):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        if nbgrader_meta(cell).get("grade_id") in task_ids or is_test_cell(cell):
            continue                 # test cells: the trusted side judges these tasks itself
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            raise _Failed(f"cell {index}: source is neither text nor a list of lines")
        cells.append((index, source))
    chars, lines = sum(len(source) for _, source in cells), sum(source.count("\n") + 1 for _, source in cells)
    if chars > MAX_CODE_CHARS or lines > MAX_CODE_LINES:
        raise _Failed(f"too large to grade: {chars:,} characters in {lines:,} lines of code (limits "
                      f"{MAX_CODE_CHARS:,} and {MAX_CODE_LINES:,}); the grader analyses no more")
    return thin(cells, spec.solution_path(), {task.function for task in spec.tasks}, check)


def analyse(notebook: Path, spec: LabSpec, cpu_s: float) -> tuple[list[tuple[int, str]], dict[str, int], list[str]]:
    """(cells to run, test cell places, static flags): the trusted side's own work on one notebook, within
    `cpu_s` CPU seconds of this thread, checked as it goes (autograder/judge/budget.py); raise _Failed
    for a notebook that cannot be graded and OverBudget past the budget."""
    budget = Budget(cpu_s)
    with budget:
        cells, positions = read_job(notebook, spec, budget.check)
        return cells, positions, scan_source(_analysed(cells, budget.check), budget.check)


def _analysed(cells: list[tuple[int, str]], check) -> list[str]:
    """Each kept cell as the Python IPython runs, checking the trusted side's budget before each."""
    sources = []
    for _, source in cells:
        check()
        sources.append(_python(source))
    return sources


def _python(source: str) -> str:
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return TransformerManager().transform_cell(source)
    except Exception:                # noqa: BLE001 - the run reports syntax problems
        return source


# ---------------------------------------------------------------- cases and references (trusted, cached)

@dataclass
class _Prepared:
    cases: dict[str, list[Case]]          # per task: visible then hidden, as the child sees them
    labels: dict[str, list[str]]
    wanted: dict[str, list[Any]]          # reference outputs, or {"error": ...} when the reference fails


def _plain(case: Case) -> Case:
    """The case exactly as it reaches the child (a JSON round trip), so both sides prepare the same thing."""
    raw = json.loads(json.dumps({"args": list(case.args), "kwargs": case.kwargs}))
    return Case(case.name, tuple(raw["args"]), raw["kwargs"], case.hint)


def prepare(spec: LabSpec, secret: bytes, draw: str = "", known: dict | None = None) -> _Prepared:
    """Cases and reference outputs for one submission: the visible cases, then hidden ones drawn for
    `draw` (student and submission). `known` caches the visible cases' references between submissions."""
    cases, labels, wanted = {}, {}, {}
    for task in spec.tasks:
        hidden = hidden_cases(spec, task, secret, draw)
        cases[task.grade_id] = [_plain(c) for c in (*task.visible, *hidden)]
        labels[task.grade_id] = ([f"case '{c.name}'" for c in task.visible]
                                 + [f"{HIDDEN_LABEL} {i}/{len(hidden)} ({c.name})" for i, c in enumerate(hidden, 1)])
        try:
            wanted[task.grade_id] = [_reference(spec, task, case, known, (task.grade_id, index)
                                                if index < len(task.visible) else None)
                                     for index, case in enumerate(cases[task.grade_id])]
            # a typed visible `expected` is what the student's own check compares with: judge by it too,
            # so the check and the grade agree (`autograder validate` says where it is not the reference's)
            for index, case in enumerate(task.visible):
                if case.expected is not None:
                    wanted[task.grade_id][index] = json.loads(json.dumps(case.expected))
        except Exception as error:   # noqa: BLE001 - a broken reference or case must not stop the batch
            raise GraderError(f"{spec.lab_id}/{task.grade_id}: the trusted reference failed: {error!r}") from error
    return _Prepared(cases, labels, wanted)


def _reference(spec: LabSpec, task: Task, case: Case, known: dict | None, key) -> Any:
    if known is None or key is None:
        return reference_output(spec, task, case)
    if key not in known:
        known[key] = reference_output(spec, task, case)
    return known[key]


# ---------------------------------------------------------------- workers

class _WorkerProcess:
    def __init__(self, spawner: concurrent.futures.Executor, home: Path) -> None:
        # the grading environment (CPU only from the worker on: CUDA initialised before fork is unusable
        # in the child, and its address-space reservations exceed RLIMIT_AS); HOME in the pool's own
        # folder: IPython's and matplotlib's caches go when the pool closes
        env = {**GRADING_ENVIRONMENT, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONHASHSEED": "0",
               "PYTHONPATH": str(REPO_ROOT), "HOME": str(home)}
        self.log = tempfile.TemporaryFile()
        # The worker dies with the thread that starts it (PR_SET_PDEATHSIG), so the pool's long-lived
        # spawner thread starts it; it then warms up while this thread waits for it.
        self.process = spawner.submit(
            subprocess.Popen, [sys.executable, "-m", "autograder.sandbox.worker", str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, cwd="/", env=env, text=True).result()
        self.uid = int(self._read(WORKER_START_S)["uid"])

    def _read(self, timeout: float) -> dict:
        box: list = []
        reader = threading.Thread(target=lambda: box.append(self.process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        if not box or not box[0]:
            self.close()
            self.log.seek(0)
            tail = self.log.read()[-2000:].decode(errors="replace")
            raise GraderError(f"grading worker stopped answering; its log ends with:\n{tail}")
        try:
            reply = json.loads(box[0])
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            raise GraderError(f"grading worker sent something that is not a reply: {box[0][:200]!r}")
        return reply

    def run(self, request: dict, timeout: float) -> dict:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self._read(timeout)

    def close(self) -> None:
        try:
            self.process.stdin.close()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired, ValueError):
            self.process.kill()
            self.process.wait()


UNCONFINED = (
    "cannot confine student code on this machine ({problem}), so it would run as you, able to read every "
    "file you can (solutions, the secret, other students' work). Grade as root, or where unprivileged user "
    "namespaces are allowed (sysctl user.max_user_namespaces > 0; kernel.unprivileged_userns_clone=1 on "
    "older Debian kernels; kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 24.04), or pass "
    "--unconfined to grade anyway, knowingly (docs/SANDBOX.md)")


def child_wall_s(limits: Limits, load: float | None = None, cores: int | None = None) -> float:
    """The child's wall-clock limit now: `wall_s` stretched by the 1-minute load average per usable core,
    up to `wall_stretch`. A child sharing its core gets the wall-clock time its CPU work takes there (Lab 5
    with every cell run: 17 CPU s took 67 s at load 10 on 2 cores), while `cpu_s` still bounds the work
    and a child that only waits is still stopped (issue 36)."""
    try:
        load = os.getloadavg()[0] if load is None else load
    except OSError:
        load = 0.0
    return limits.wall_s * min(max(1.0, load / (cores or usable_cores())), max(1.0, limits.wall_stretch))


def _spec_ref(spec: LabSpec) -> str:
    """How a worker loads the same spec: by its file when it has one, else by lab id."""
    return spec.lab_id if spec.origin is None else spec.origin


def usable_cores() -> int:
    """The cores this process may use (a container's CPU set), not every core of the host."""
    return (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()) or 1


class GradingPool:
    """Warm workers (one per core by default), each forking one sandboxed child per submission."""

    def __init__(self, workers: int | None = None, limits: Limits = Limits(), hide: tuple = (),
                 scratch: Path | None = None) -> None:
        problem = unavailable() if limits.isolate else None
        if problem:
            raise GraderError(UNCONFINED.format(problem=problem))
        self.workers = workers or usable_cores()
        self.limits = limits
        self.hide = tuple(hide)
        self._executor = concurrent.futures.ThreadPoolExecutor(self.workers, thread_name_prefix="grader")
        # Workers die with the thread that started them: one thread living as long as the pool starts
        # them all, so a grading thread ending never takes a worker along.
        self._spawner = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="grader-spawn")
        self._idle: queue.Queue = queue.Queue()
        for index in range(self.workers):
            self._idle.put((index, None))
        # 0700: root-only job files, in `scratch` (a Dask worker's own folder) or the temporary folder
        self._jobs = private_folder("autograder-jobs-", scratch)
        (self._jobs / "home").mkdir()
        self._known: dict[tuple, dict] = {}     # visible cases' reference outputs, per lab and secret
        self._lock = threading.Lock()
        self._prepare_lock = threading.Lock()
        self._counter = 0
        self._uids: set[int] = set()

    @property
    def worker_uids(self) -> list[int]:
        """The uids student code has run as in this pool (one per worker process started)."""
        with self._lock:
            return sorted(self._uids)

    def __enter__(self) -> "GradingPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        while not self._idle.empty():
            _, worker = self._idle.get()
            if worker is not None:
                worker.close()
        self._spawner.shutdown(wait=True)
        shutil.rmtree(self._jobs, ignore_errors=True)

    def submit(self, notebook: Path, spec: LabSpec, *, student_id: str,
               secret: bytes) -> concurrent.futures.Future:
        return self._executor.submit(self.grade, Path(notebook), spec, student_id, secret)

    def _cases(self, spec: LabSpec, secret: bytes, draw: str) -> _Prepared:
        key = (spec.origin or spec.lab_id, spec.lab_id, secret)
        with self._prepare_lock:            # visible references run once per lab and secret, then are shared
            try:
                return prepare(spec, secret, draw, self._known.setdefault(key, {}))
            except GraderError:
                raise
            except Exception as error:      # noqa: BLE001 - a spec's case generator: the instructor's side
                raise GraderError(f"{spec.lab_id}: drawing the cases failed: {error!r}") from error

    def grade(self, notebook: Path, spec: LabSpec, student_id: str, secret: bytes) -> SubmissionResult:
        start = time.monotonic()
        result = SubmissionResult(student_id, spec.lab_id, "failed", None,
                                  max_score=float(spec.total_points))
        try:
            cells, positions, static = analyse(notebook, spec, self.limits.analysis_s)
            # hidden cases are this student's and this attempt's own: changed code draws new ones
            attempt = hashlib.sha256(json.dumps(cells).encode()).hexdigest()
            prepared = self._cases(spec, secret, f"{student_id}\0{attempt}")
            report, reply = self._run(notebook, spec, cells, prepared, positions)
            reason = failure_reason(reply, self.limits)
            flags = set(static)
            if reply.get("strays"):
                flags.add("fork: left processes running after the notebook finished")
            if isinstance(report, dict):
                flags.update(str(f)[:200] for f in _listed(report, "flags") if isinstance(f, str))
            streamed, ended = streamed_flags(reply)
            flags.update(streamed)             # seen as they happened: a rewritten report cannot drop them
            dropped = reply.get("flag_bytes_dropped")
            if isinstance(dropped, int) and dropped > 0:
                flags.add(f"tamper: flooded the grader's flag channel ({dropped:,} bytes in the middle dropped; "
                          "the first and last flags are kept)")
            if reason is None and not ended:
                flags.add("tamper: cut the grader's flag channel")
            result.flags = sorted(flags)
            if reason is None and report is MALFORMED:
                reason = "malformed report: the notebook's process wrote a report the grader cannot read"
                result.flags = sorted(flags | {"tamper: rewrote the grader's report"})
            elif reason is None and not isinstance(report, dict):
                reason = "crash: the notebook's process ended without reporting (os._exit or a kill?)"
                result.flags = sorted(flags | {"exit: ended the process before grading"})
            if reason:
                raise _Failed(reason)
            errors = [e for e in _listed(report, "cell_errors") if isinstance(e, dict)
                      and isinstance(e.get("cell"), (int, str)) and isinstance(e.get("error"), str)]
            tasks = report.get("tasks") if isinstance(report.get("tasks"), dict) else {}
            result.tasks = [forbidden(task, tasks.get(task.grade_id), result.flags)
                            or judge_task(task, prepared.labels[task.grade_id], prepared.cases[task.grade_id],
                                          prepared.wanted[task.grade_id], tasks.get(task.grade_id), errors)
                            for task in spec.tasks]
            if spec.speed is not None:
                _judge_speed(self, notebook, spec, cells, secret, f"{student_id}\0{attempt}", result)
            result.status = "graded"
            result.score = sum(t.points for t in result.tasks)
        except (_Failed, OverBudget) as failure:
            result.status, result.reason, result.tasks, result.score = "failed", str(failure), [], 0.0
        except (RecursionError, MemoryError, ValueError, TypeError, KeyError) as error:
            # what a submission made the trusted side choke on is that submission's failure, not a crash
            result.status, result.tasks, result.score = "failed", [], 0.0
            result.reason = f"unreadable submission: the grader could not process it ({type(error).__name__})"
        result.seconds = round(time.monotonic() - start, 3)
        return result

    def _run(self, notebook: Path, spec: LabSpec, cells, prepared: _Prepared,
             positions: dict[str, int]) -> tuple[Any, dict]:
        tasks = [{"grade_id": t.grade_id, "at": positions[t.grade_id],
                  "cases": [{"name": c.name, "args": list(c.args), "kwargs": c.kwargs}
                            for c in prepared.cases[t.grade_id]]} for t in spec.tasks]
        return self.dispatch(self.job(notebook, spec, cells, tasks), spec, notebook)

    def job(self, notebook: Path, spec: LabSpec, cells, tasks: list[dict], standins_off: bool = False) -> dict:
        """The child's job: cells to run, tasks to call, its confinement. `standins_off`: the lab's forbidden
        code stays real (a run of the course's own reference code, with no student code in it)."""
        limits = self.limits
        hide = tuple(dict.fromkeys(default_hidden(REPO_ROOT, notebook.resolve(), spec.solution_path(), self.hide)
                                   + default_hidden(course_root(), notebook.resolve(), spec.solution_path())))
        hide += ((str(self._jobs), "grader job files"),)
        try:                                                    # the child gets no reference code
            files = {} if standins_off else standins.plan(spec.forbids, spec.setup_uses)
            with self._lock:
                overlay = standins.write_overlay(files, self._jobs / ("real" if standins_off else "standins"))
        except Exception as error:          # noqa: BLE001 - the course's code or the spec: not the student's
            raise GraderError(f"{spec.lab_id}: cannot write the stand-ins for its forbidden code: {error!r}") from error
        return {
            "cells": cells,
            "tasks": tasks,
            "hide": hide,
            "confinement": {"wall_s": limits.wall_s, "cpu_s": limits.cpu_s, "memory_mb": limits.memory_mb,
                            "max_procs": limits.max_procs, "file_bytes": RESULT_BYTES, "network": limits.network,
                            "isolate": limits.isolate, "hide": hide,
                            "read_only": [str(REPO_ROOT)], "keep": needed_paths(),
                            "allow": allowed_paths() if limits.allowlist else [], "scratch_mb": limits.scratch_mb,
                            "overlay": overlay},
            "standins": files,
        }

    def dispatch(self, job: dict, spec: LabSpec, notebook: Path, wall_s: float | None = None) -> tuple[Any, dict]:
        return self._dispatch(job, spec, *self.job_paths(), notebook, wall_s)

    def _dispatch(self, job: dict, spec: LabSpec, job_path: Path, result_path: Path, notebook: Path,
                  bound_s: float | None = None) -> tuple[Any, dict]:
        """Run one job in a sandboxed child of an idle worker: (the child's report, the worker's reply).
        `bound_s`: a tighter wall-clock limit (a timed run's), reported as reply["wall_bound_s"] when it applied."""
        limits = self.limits
        index, worker = self._idle.get()
        try:
            fd = os.open(job_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(job, handle)
            if worker is None or worker.process.poll() is not None:
                worker = _WorkerProcess(self._spawner, self._jobs / "home")
                with self._lock:
                    self._uids.add(worker.uid)
            wall_s = child_wall_s(limits)
            bounded = bound_s is not None and bound_s < wall_s
            wall_s = bound_s if bounded else wall_s
            request = {"job": str(job_path), "result": str(result_path), "spec": _spec_ref(spec),
                       "wall_s": wall_s, "output_bytes": limits.output_kb * 1024}
            try:
                reply = worker.run(request, wall_s + 60)
            except GraderError:
                kill_uid(worker.uid)            # the dead worker's children must not outlive it
                worker = None
                raise _Failed("crash: the grading worker died while running this notebook") from None
            if "error" in reply:
                raise GraderError(f"grading worker failed on {notebook}: {reply['error']}")
            reply["wall_limit_s"] = wall_s
            reply["wall_bound_s"] = wall_s if bounded else None
            return read_report(result_path), reply
        finally:
            self._idle.put((index, worker))
            for path in (job_path, result_path):
                path.unlink(missing_ok=True)

    def job_paths(self) -> tuple[Path, Path]:
        """A fresh (job file, result file) pair in the pool's private folder."""
        with self._lock:
            self._counter += 1
            number = self._counter
        return self._jobs / f"job-{number}.json", self._jobs / f"result-{number}.json"


def _judge_speed(pool, notebook: Path, spec: LabSpec, cells, secret: bytes, draw: str, result: SubmissionResult) -> None:
    """Time the passing tasks against the reference (autograder/judge/speed.py); a task too slow, or wrong
    while timed, scores 0 with the reason; the measurements go into the result record."""
    from autograder.judge import speed

    passed = {t.grade_id for t in result.tasks if t.passed}
    result.speed = speed.measure(pool, notebook, spec, cells, secret, draw, passed)
    verdicts = speed.judged(result.speed, spec.speed)
    result.flags = [*result.flags, *speed.undecidable_flags(result.speed, spec.speed),
                    *speed.process_start_flags(result.speed)]
    result.tasks = [TaskResult(t.grade_id, 0.0, t.max_points, False, f"{spec.task(t.grade_id).title}: {verdicts[t.grade_id]}")
                    if t.grade_id in verdicts else t for t in result.tasks]


def _listed(report: dict, key: str) -> list:
    value = report.get(key, [])
    return value if isinstance(value, list) else []


def grade_submission(notebook: Path, spec: LabSpec, *, student_id: str, secret: bytes,
                     limits: Limits = Limits()) -> SubmissionResult:
    """Grade one notebook with a one-worker pool (pays the worker's start-up once)."""
    with GradingPool(1, limits) as pool:
        return pool.submit(notebook, spec, student_id=student_id, secret=secret).result()
