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
    # In a process of its own (autograder/author/run_solution.py): a run that gets no answer from its kernel
    # (a kernel killed under it leaves nbclient unable to exit) is killed and made once more; a second
    # failure is reported. (Lab 4's runs that stalled on a busy machine were a missed wake-up in the
    # client, fixed where every notebook run connects: coursekit/app/kernel_client.py.)
    for attempt in (1, 2):
        start = time.perf_counter()
        try:
            done = subprocess.run([sys.executable, "-m", "autograder.author.run_solution", str(path), str(executed),
                                   str(cell_timeout)], env={**os.environ, **env}, capture_output=True, text=True,
                                  timeout=spec.budget_s + 60)   # a run over budget fails validation anyway
            code, said = done.returncode, done.stderr[-300:]
        except subprocess.TimeoutExpired:
            code, said = None, "no answer from the kernel"
        if code in (0, 3):
            break
    nb = nbformat.read(executed, as_version=4) if code in (0, 3) else nbformat.read(path, as_version=4)
    if code == 3:
        report.add("budget", "-", "-", "the solution notebook did not finish: CellTimeoutError",
                   f"make it finish well within budget_s={spec.budget_s:g} s on a CPU in quick mode")
    elif code != 0:
        report.add("budget", "-", "-", f"the solution notebook's run failed twice ({said.strip()[-200:]})",
                   "run the notebook alone (Run All) and fix what stops it")
    seconds = time.perf_counter() - start
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
