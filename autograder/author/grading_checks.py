"""validate's checks through the real engine (sandbox, thinning, judge): `solution` (the solution passes every
task for two students, and each test cell agrees with plain nbgrader), `flags` (grading the solution
raises no network or process flag: every honest student would carry it to the instructor), `stubs`
(the unanswered student version fails every task), `wrong` (each wrong-but-plausible answer the spec
lists fails its task)."""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import nbformat

from coursekit.nbcells import is_answer_cell

from autograder.author.report import Report
from autograder.spec import LabSpec

# Flag categories (autograder/judge/flags.py) that the course's own solution must never raise: the class's
# honest work would carry them into every instructor's review.
HONEST_NEVER = ("network", "fork")


def _answer_with(nb: nbformat.NotebookNode, function: str, source: str) -> bool:
    """Append `source` to the answer cell that defines `function` (a redefinition, as a student edits)."""
    pattern = re.compile(rf"^def {re.escape(function)}\s*\(", re.M)
    for cell in nb.cells:
        if cell.cell_type == "code" and is_answer_cell(cell) and pattern.search(cell.source):
            cell.source = cell.source.rstrip() + "\n\n\n" + source.strip() + "\n"
            return True
    return False


def _timing_only(spec: LabSpec, grade_ids: tuple[str, ...]) -> LabSpec:
    """`spec` with the grader's speed runs (autograder/judge/speed.py) kept for `grade_ids` only: a check
    that judges one task need not time the others (each milestone is timed on its own, so the verdict
    on those kept is the same), and timing is most of a timed lab's grading."""
    if spec.speed is None:
        return spec
    kept = {g: m for g, m in spec.speed.milestones.items() if g in grade_ids}
    return replace(spec, speed=replace(spec.speed, milestones=kept) if kept else None)


def _grade(pool, spec: LabSpec, nb: nbformat.NotebookNode, where: Path, student: str, report: Report):
    from autograder.judge.engine import GraderError
    from autograder.judge.results import SubmissionResult

    path = where / f"{student}.ipynb"
    nbformat.write(nb, path)
    try:
        result = pool.grade(path, spec, student, b"validate-" + student.encode())
    except GraderError as error:    # the instructor's side (spec, solution): reported, the rest goes on
        report.add("solution", "-", student, f"the grader itself failed: {error}",
                   "fix the spec or the solution notebook (see the [spec] lines)")
        result = SubmissionResult(student, spec.lab_id, "failed", str(error))
    return result, {t.grade_id: t for t in result.tasks}


def check_solution(pool, spec: LabSpec, solution: nbformat.NotebookNode, graded: Path,
                   in_kernel: dict[str, str | None], report: Report) -> None:
    # the first student's grade times every timed task, as a class's grading does; the second is there for
    # another student's hidden cases, and timing the same engine again adds nothing to that check
    for student, timed in (("validate-ada", spec), ("validate-ben", _timing_only(spec, ()))):
        result, tasks = _grade(pool, timed, solution, graded, student, report)
        if result.status != "graded":
            report.add("solution", "-", student, f"the grader could not grade the solution: {result.reason}",
                       "fix the notebook so it runs in the grader (see the reason)")
            break
        if student == "validate-ada":
            for flag in sorted(f for f in result.flags if f.startswith(HONEST_NEVER)):
                report.add("flags", "-", student, f"grading the solution raises the flag \"{flag}\"",
                           "keep network and process calls out of the notebook, or behind a check that skips "
                           "them while grading (Lab 2's all-reduce skips itself where the sandbox has no loopback)")
        for task in spec.tasks:
            verdict = tasks[task.grade_id]
            if task.grade_id in report.expected_off:
                continue
            if not verdict.passed:
                unreachable = "is not defined" in verdict.message
                report.add("solution", task.grade_id, student, f"the solution fails: {verdict.message}",
                           "define the function (and everything it reads) in the answer cells or in "
                           "top-level statements of other cells" if unreachable else
                           "name the course code the setup or prepare needs in the spec's setup_uses"
                           if "not available while grading" in verdict.message else
                           "fix the solution, the case generator or the task's compare")
            nbgrader_error = in_kernel.get(task.grade_id, "no such test cell")
            if verdict.passed != (nbgrader_error is None):
                report.add("nbgrader", task.grade_id, student,
                           f"the grader says {'pass' if verdict.passed else 'fail'} but plain nbgrader "
                           f"autograde says {'pass' if nbgrader_error is None else nbgrader_error}",
                           "the code a graded function needs must not depend on cells the grader skips "
                           "(measurements, plots): define it in the function's own cell or the setup")


def check_stubs(pool, spec: LabSpec, release: Path, graded: Path, report: Report) -> None:
    stub_nb = nbformat.read(release / spec.notebook, as_version=4)
    result, tasks = _grade(pool, spec, stub_nb, graded, "validate-stub", report)
    for task in spec.tasks:
        if result.status == "graded" and tasks[task.grade_id].passed:
            report.add("stubs", task.grade_id, "student version",
                       "the unanswered student version already passes this task",
                       "put the answer between ### BEGIN SOLUTION / ### END SOLUTION, or add cases a "
                       "stub cannot pass")


def check_wrong_answers(pool, spec: LabSpec, solution_path: Path, graded: Path, report: Report) -> None:
    for task in spec.tasks:
        for number, wrong in enumerate(task.wrong, 1):
            nb = nbformat.read(solution_path, as_version=4)
            label = f"wrong answer {number}"
            if not _answer_with(nb, task.function, wrong):
                report.add("wrong", task.grade_id, label, f"no answer cell defines {task.function}",
                           f"define `def {task.function}(...)` in a solution cell")
                continue
            result, tasks = _grade(pool, _timing_only(spec, (task.grade_id,)), nb, graded,
                                   f"validate-wrong-{number}", report)
            if result.status == "graded" and tasks[task.grade_id].passed:
                first = wrong.strip().splitlines()[-1].strip()[:60]
                report.add("wrong", task.grade_id, f"{label} ({first})", "this wrong answer passes",
                           "add a visible or hidden case it gets wrong, or tighten the task's compare; if "
                           "it is the right formula written another way (algebraically equal), take it "
                           "out of Task.wrong")
