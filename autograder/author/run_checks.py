"""validate's checks of notebooks as files and plain runs: `nbgrader` and `budget` (the solution run top to
bottom with nbclient as plain `nbgrader autograde` runs it, on the CPU in quick mode), `leak` and
`current` (the student version carries no solution text, and labs/<lab>/ is what generate makes today)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import nbformat

from coursekit.checks.visible import checks_name
from coursekit.nbcells import is_test_cell, nbgrader_meta

from autograder.author.report import Report
from autograder.course import Course
from autograder.spec import LabSpec

SOLUTION_REGION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "check_task(")


def run_like_nbgrader(spec: LabSpec, folder: Path, env: dict, report: Report) -> dict[str, str | None]:
    """The solution notebook run whole with nbclient (plain nbgrader autograde): test cell -> error or None."""
    path, executed = folder / spec.notebook, folder / f".executed-{spec.notebook}"
    cell_timeout = max(30, int(spec.budget_s * 2))
    # In a process of its own (autograder/author/run_solution.py): a kernel that dies on a busy machine (seen
    # with Lab 4 beside other kernels, never alone) leaves nbclient unable to exit; that process is
    # killed and the run made once more. A second failure is reported. A run whose every cell ran (its
    # `.done` file) is taken even when the kernel's clean-up after it stalls.
    for attempt in (1, 2):
        done_file = Path(f"{executed}.done")
        done_file.unlink(missing_ok=True)
        start = time.perf_counter()
        code, said = _run_solution([*RUNNER, str(path), str(executed), str(cell_timeout)], {**os.environ, **env},
                                   done_file, spec.budget_s + 60)   # a run over budget fails validation anyway
        if code in (0, 3):
            break
    seconds = float(done_file.read_text()) if code == 0 and done_file.is_file() else time.perf_counter() - start
    nb = nbformat.read(executed, as_version=4) if code in (0, 3) else nbformat.read(path, as_version=4)
    if code == 3:
        report.add("budget", "-", "-", "the solution notebook did not finish: CellTimeoutError",
                   f"make it finish well within budget_s={spec.budget_s:g} s on a CPU in quick mode")
    elif code != 0:
        report.add("budget", "-", "-", f"the solution notebook's run failed twice ({said.strip()[-200:]})",
                   "run the notebook alone (Run All) and fix what stops it")
    report.numbers["solution run"] = seconds
    if seconds > spec.budget_s:
        report.add("budget", "-", "-", f"the solution notebook took {seconds:.0f} s on the CPU in quick mode, "
                   f"over its budget_s={spec.budget_s:g}", "shrink its measurements when coursekit.labs.quick_mode() "
                   "is on, or raise LabSpec.budget_s")
    errors: dict[str, str | None] = {}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        failed = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
        message = f"{failed.get('ename')}: {failed.get('evalue', '')[:300]}" if failed else None
        grade_id = nbgrader_meta(cell).get("grade_id", f"cell {index + 1}")
        if is_test_cell(cell):
            errors[grade_id] = message
        elif message:
            report.add("nbgrader", "-", grade_id, f"the solution notebook's cell raised {message}",
                       "the notebook must run top to bottom without errors (Restart and Run All)")
    return errors


RUNNER = [sys.executable, "-m", "autograder.author.run_solution"]
CLEAN_UP_GRACE_S = 15     # after the last cell: time for nbclient to shut the kernel down before it is killed


def _run_solution(command: list[str], env: dict, done_file: Path, timeout: float) -> tuple[int | None, str]:
    """(exit status, the end of stderr) of one run; 0 once every cell has run and the clean-up is past
    its grace, None after `timeout` with cells left to run."""
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline, finished_at = time.monotonic() + timeout, None
    while True:
        try:
            _, err = process.communicate(timeout=0.5)
            return process.returncode, err[-300:]
        except subprocess.TimeoutExpired:
            now = time.monotonic()
            if finished_at is None and done_file.is_file():
                finished_at = now
            stalled = finished_at is not None and now - finished_at > CLEAN_UP_GRACE_S
            if stalled or now > deadline:
                process.kill()
                process.communicate()
                return (0, "") if done_file.is_file() else (None, "no answer from the kernel")


def _solution_lines(nb: nbformat.NotebookNode) -> set[str]:
    """Lines of the answers (between solution markers) that appear nowhere else in the notebook."""
    inside, outside = set(), set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        regions = SOLUTION_REGION.findall(cell.source)
        for region in regions:
            inside.update(line.strip() for line in region.splitlines())
        outside.update(line.strip() for line in SOLUTION_REGION.sub("", cell.source).splitlines())
    return {line for line in inside - outside if len(line) >= 8 and not line.startswith("#")}


def check_release(course: Course, spec: LabSpec, solution: nbformat.NotebookNode, release: Path,
                  report: Report) -> None:
    student = nbformat.read(release / spec.notebook, as_version=4)
    text = "\n".join(cell.source for cell in student.cells)
    for marker in MARKERS:
        if marker in text:
            report.add("leak", "-", marker, f"the student version contains {marker!r}",
                       "keep answers between ### BEGIN SOLUTION / ### END SOLUTION and hidden tests between "
                       "### BEGIN HIDDEN TESTS / ### END HIDDEN TESTS, each on its own line")
    student_lines = {line.strip() for cell in student.cells if cell.cell_type == "code" for line in cell.source.splitlines()}
    for line in sorted(_solution_lines(solution) & student_lines):
        report.add("leak", "-", line[:60], "an answer line is in the student version",
                   "move it between the solution markers, or out of the answer")
    committed = course.labs / spec.lab_id
    if not (committed / spec.notebook).exists():
        return                  # not generated yet: nothing can be stale (generate after validating)
    fresh_checks = (release / checks_name(spec.lab_id)).read_text(encoding="utf-8")
    old = committed / checks_name(spec.lab_id)
    if not old.exists() or old.read_text(encoding="utf-8") != fresh_checks:
        report.add("current", "-", checks_name(spec.lab_id), "the visible cases file in labs/ is not what the "
                   "spec gives today", f"run `autograder generate {spec.lab_id}` and publish labs/{spec.lab_id}")

    def comparable(nb):
        return [(c.cell_type, c.source, dict(c.metadata)) for c in nb.cells]
    if comparable(nbformat.read(committed / spec.notebook, as_version=4)) != comparable(student):
        report.add("current", "-", spec.notebook, "the student version in labs/ is older than the solution",
                   f"run `autograder generate {spec.lab_id}` and publish labs/{spec.lab_id}")
