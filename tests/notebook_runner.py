"""Execute a notebook headless with nbclient and say exactly which cell failed; run each course
notebook once per test session (`ExecutedNotebooks`, the `executed_notebooks` fixture)."""
from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import tempfile
import time
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

from coursekit.app.kernel_client import kernel_config
from paths import ROOT
from run_once import locked


class NotebookFailed(AssertionError):
    pass


def execute_notebook(path: Path, *, env: dict | None = None, timeout: int = 300,
                     allow_errors: bool = False) -> tuple[nbformat.NotebookNode, float]:
    """Run every cell with the notebook's folder as cwd; return the executed notebook and seconds."""
    nb = nbformat.read(path, as_version=4)
    # Unix sockets in a private folder, not TCP ports that another kernel of a busy run may also pick.
    sockets = tempfile.TemporaryDirectory(prefix="course-test-kernel-")
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=allow_errors,
                            resources={"metadata": {"path": str(path.parent)}},
                            config=kernel_config(Path(sockets.name)))
    started: list[int] = []  # the last cell started is the one that failed, error or timeout alike
    client.on_cell_start = lambda cell, cell_index: started.append(cell_index)
    saved = dict(os.environ)
    # The kernel inherits this environment; figures inline, as a student (and the website) sees them.
    os.environ.update({"MPLBACKEND": "module://matplotlib_inline.backend_inline", **(env or {})})
    start = time.perf_counter()
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError) as exc:
        index = started[-1] if started else None
        # Counted from 1 over all cells, markdown included, as a reader counts them top to bottom.
        where = f"cell {index + 1} of {len(nb.cells)}" if index is not None else "a cell"
        source = nb.cells[index].source[:300] if index is not None else ""
        message = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # tracebacks arrive coloured
        raise NotebookFailed(f"{path}: {where} failed:\n{source}\n---\n{message}") from None
    finally:
        os.environ.clear()
        os.environ.update(saved)
        sockets.cleanup()
    return nb, time.perf_counter() - start


TIMES = ROOT / "tests" / "artifacts" / "notebook-times.json"


def run_env(progress_dir: Path, **extra: str) -> dict:
    """What lessons and solutions run with: on CPU whatever the machine has, a throwaway progress store."""
    return {"COURSE_DEVICE": "cpu", "COURSE_PROGRESS_DIR": str(progress_dir), **extra}


PHASES = ROOT / "tests" / "artifacts" / "notebook-phases.json"


def _when(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def record_phases(path: Path, nb: nbformat.NotebookNode, started_at: float, seconds: float) -> None:
    """Where a run's time went, from the cell timings nbclient records: the kernel's start (before the
    first cell), the slowest cell, and the end (after the last cell: kernel shutdown). A run that took
    minutes once and seconds since says here which part waited."""
    wanted = {"iopub.status.busy", "iopub.status.idle"}
    spans = [(index, _when(t["iopub.status.busy"]), _when(t["iopub.status.idle"]))
             for index, cell in enumerate(nb.cells)
             if (t := cell.get("metadata", {}).get("execution", {})).keys() >= wanted]
    if not spans:
        return
    slowest = max(spans, key=lambda span: span[2] - span[1])
    phases = {"seconds": round(seconds, 2), "kernel_start_s": round(spans[0][1] - started_at, 2),
              "slowest_cell": slowest[0] + 1, "slowest_cell_s": round(slowest[2] - slowest[1], 2),
              "end_s": round(started_at + seconds - spans[-1][2], 2)}
    _record(PHASES, path, phases)


def record_time(path: Path, seconds: float) -> None:
    """Times belong in an artifact (and benchmarks/RESULTS.md), never in an assertion."""
    _record(TIMES, path, round(seconds, 2))


def _record(artifact: Path, path: Path, value) -> None:
    key = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    with locked(artifact.with_suffix(".lock")):        # xdist workers record side by side
        recorded = json.loads(artifact.read_text()) if artifact.exists() else {}
        recorded[key] = value
        artifact.write_text(json.dumps(recorded, indent=1, sort_keys=True))


class ExecutedNotebooks:
    """Each course notebook runs once per test run, whichever test asks first; later askers get the
    same executed copy (or the same failure). With `shared` (a folder all xdist workers see), the run
    is shared across workers too: the first executes under a lock, the others read its result."""

    def __init__(self, scratch: Path, shared: Path | None = None):
        self.scratch = scratch
        self.shared = shared
        self._runs: dict[tuple[Path, bool], nbformat.NotebookNode | NotebookFailed] = {}

    def get(self, path: Path, *, allow_errors: bool = False) -> nbformat.NotebookNode:
        key = (Path(path).resolve(), allow_errors)
        if key not in self._runs:
            self._runs[key] = self._run(key) if self.shared is None else self._run_shared(key)
        run = self._runs[key]
        if isinstance(run, NotebookFailed):
            raise run
        return copy.deepcopy(run)         # a test that edits its copy cannot change another's

    def _run(self, key: tuple[Path, bool]) -> nbformat.NotebookNode | NotebookFailed:
        progress = self.scratch / f"progress-{len(self._runs)}"
        progress.mkdir(parents=True)
        # Lessons run as a student opens them; labs in quick mode with a test secret, as CI grades them.
        lesson = key[0].is_relative_to(ROOT / "course")
        env = run_env(progress, **({} if lesson else {"COURSE_QUICK": "1", "COURSE_GRADING_SECRET": "test-suite-secret"}))
        try:
            nb, seconds = execute_notebook(key[0], env=env, allow_errors=key[1])
        except NotebookFailed as failed:
            return failed
        record_time(key[0], seconds)
        record_phases(key[0], nb, time.time() - seconds, seconds)
        return nb

    def _run_shared(self, key: tuple[Path, bool]) -> nbformat.NotebookNode | NotebookFailed:
        name = hashlib.sha256(f"{key[0]}|{key[1]}".encode()).hexdigest()[:16]
        executed, failure = self.shared / f"{name}.ipynb", self.shared / f"{name}.failed"
        with locked(self.shared / f"{name}.lock"):
            if executed.exists():
                return nbformat.read(executed, as_version=4)
            if failure.exists():
                return NotebookFailed(failure.read_text())
            run = self._run(key)
            if isinstance(run, NotebookFailed):
                failure.write_text(str(run))
            else:
                nbformat.write(run, executed)
            return run


def grade_cells(nb: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    """nbgrader's graded code cells (the labs' test cells) by grade_id, in notebook order."""
    return {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")}
