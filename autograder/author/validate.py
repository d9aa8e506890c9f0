"""`autograder validate LAB`: before students see a lab, everything its author got wrong, one line each.

Each problem names the task, the case and the fix. The checks, in order:
  uses       each name in `LabSpec.setup_uses` is course code one of the lab's rules forbids, and exists
  spec       every visible case is plain data (the grader sends cases as JSON) and its `expected` agrees
             with the reference; the reference gives the same output twice (visible cases and the first
             secret's hidden ones); on `seeds` secrets every
             hidden case is drawn, is plain data and has a reference output the task's compare accepts
  draws      hidden cases differ between students and between attempts (the generator uses its rng)
  solution   the solution notebook, graded by the real engine (sandbox, thinning, judge), passes every
             task for two students: every graded function is reachable by the grader's thinning
  nbgrader   the same notebook run top to bottom with nbclient, hidden tests included, as plain
             `nbgrader autograde` runs it: no cell fails, and each test cell agrees with the engine
  budget     that run, on the CPU in quick mode (COURSE_QUICK=1, as grading runs), fits `LabSpec.budget_s`
  stubs      the student version (generated into a temporary folder) fails every graded task
  wrong      each wrong-but-plausible answer the spec lists (`Task.wrong`) fails its task
  leak       the student version carries no solution text, no hidden tests
  current    labs/<lab>/ (notebook and <lab>.checks.json) is what `generate` makes today
Nothing of the instructor's is read or written: secrets are validation-only, the gradebook temporary.
"""
from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import nbformat

from coursekit.checks.visible import checks_name
from coursekit.nbcells import is_answer_cell, is_test_cell, nbgrader_meta

from autograder.course import Course
from autograder.sandbox.protocol import GRADING_ENVIRONMENT
from autograder.spec import LabSpec, Task

SOLUTION_REGION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "check_task(")


@dataclass
class Problem:
    check: str
    task: str          # grade_id, or "-" for the lab as a whole
    case: str          # the case, answer or cell concerned, or "-"
    what: str
    fix: str

    def line(self, lab: str) -> str:
        return f"{lab} [{self.check}] {self.task} / {self.case}: {self.what}. Fix: {self.fix}"


@dataclass
class Report:
    lab: str
    problems: list[Problem] = field(default_factory=list)
    numbers: dict[str, float] = field(default_factory=dict)
    # tasks whose typed visible `expected` is not the reference's: students' checks and the grader judge
    # against it, so the solution fails them; the [spec] line is that problem's one line
    expected_off: set[str] = field(default_factory=set)

    def add(self, *args: str) -> None:
        self.problems.append(Problem(*args))

    def render(self) -> str:
        took = ", ".join(f"{k} {v:.1f} s" for k, v in self.numbers.items())
        lines = [p.line(self.lab) for p in self.problems]
        verdict = f"{len(self.problems)} problem(s)" if self.problems else "valid"
        return "\n".join([*lines, f"{self.lab}: {verdict} ({took})"])


def _plain(value):
    return json.loads(json.dumps(value))


def _is_plain(case) -> bool:
    try:
        return _plain({"a": list(case.args), "k": case.kwargs}) == {"a": list(case.args), "k": case.kwargs}
    except (TypeError, ValueError):
        return False


def _compare(task: Task, got, want) -> str | None:
    try:
        return task.compare(got, want)
    except Exception as error:  # noqa: BLE001 - a compare that crashes is the spec's problem to report
        return f"compare raised {type(error).__name__}: {error}"


def _spec_says(message: str) -> str:
    """compare(typed, reference) says "PATH: expected REFERENCE, got TYPED": told from the author's side."""
    found = re.match(r"(?s)(.*?): expected (.*), got (.*)$", message)
    if not found:
        return f"its expected value is not the reference's: {message}"
    where, reference, typed = found.groups()
    at = "" if where == "output" else f" at {where.removeprefix('output')}"
    return f"the spec says {typed}{at}, the reference gives {reference}"


def setup_uses_problems(spec: LabSpec) -> list[str]:
    """What is wrong with the lab's `setup_uses`: a name no rule forbids (it is real in the child anyway)
    or one that names no function or class of the course's code."""
    from autograder.sandbox import standins

    problems = []
    files = standins.plan(spec.forbids)
    for name in spec.setup_uses:
        found = standins._resolve(name)
        if not found or not found[0] or not found[1]:
            problems.append(f"{name!r} names no function or class of the course's code (coursekit/)")
            continue
        path, inner = str(found[0][0].resolve()), found[1]
        if path not in files or not standins.replaced(dict(files[path], keep=[]), inner):
            problems.append(f"{name!r} is not forbidden by any task: it needs no setup_uses entry")
        elif inner not in standins.qualnames(path):
            problems.append(f"{name!r}: {found[0][0].name} defines no {inner}")
    return problems


def check_spec(spec: LabSpec, report: Report, seeds: int) -> set[str]:
    """Report the spec's problems; return the tasks the engine cannot grade (no cases or no reference)."""
    from autograder.judge.engine import _plain as as_sent
    from autograder.judge.hidden import hidden_cases
    from autograder.judge.reference import reference_output

    broken: set[str] = set()
    for task in spec.tasks:
        def reference(case, label, twice=True):
            try:
                first = reference_output(spec, task, as_sent(case))
                again = reference_output(spec, task, as_sent(case)) if twice else first
            except Exception as error:  # noqa: BLE001
                broken.add(task.grade_id)
                report.add("spec", task.grade_id, label, f"the reference raised {type(error).__name__}: {error}",
                           "make the case valid input for the solution's function (or fix the solution)")
                return None
            message = _compare(task, again, first)
            if message:
                report.add("spec", task.grade_id, label, f"the reference disagrees with itself ({message})",
                           "make the solution deterministic (seed every random draw) or loosen compare")
            return first

        if not task.visible:
            report.add("spec", task.grade_id, "-", "no visible cases", "give students at least one visible Case")
        for case in task.visible:
            label = f"visible '{case.name}'"
            if not _is_plain(case):
                broken.add(task.grade_id)
                report.add("spec", task.grade_id, label, "its args are not plain JSON data (tuples become lists, "
                           "objects do not survive)", "pass lists, numbers, strings and dicts; build objects in prepare")
                continue
            want = reference(case, label)
            if want is not None and case.expected is not None:
                message = _compare(task, _plain(case.expected), want)
                if message:
                    report.expected_off.add(task.grade_id)
                    report.add("spec", task.grade_id, label, _spec_says(message),
                               "correct `expected` (or leave it None: generate fills in the reference's)")
        if task.hidden is None:
            report.add("spec", task.grade_id, "-", "no hidden-case generator",
                       "add hidden=<function of a random.Random returning a Case>")
            continue
        for seed in range(seeds):
            try:
                cases = hidden_cases(spec, task, f"validate-{seed}".encode(), "student\0attempt")
            except Exception as error:  # noqa: BLE001
                broken.add(task.grade_id)
                report.add("spec", task.grade_id, f"hidden, seed {seed}", f"drawing failed: {error!r}",
                           "hidden(rng) must return a Case for every rng")
                break
            bad = [c for c in cases if not _is_plain(c)]
            if bad:
                broken.add(task.grade_id)
                report.add("spec", task.grade_id, f"hidden '{bad[0].name}' (seed {seed})", "its args are not plain "
                           "JSON data", "draw lists, numbers, strings and dicts; build objects in prepare")
                break
            # determinism is checked on the visible cases and the first seed's hidden ones
            if not all(reference(c, f"hidden '{c.name}' (seed {seed})", twice=seed == 0) is not None for c in cases):
                break
    return broken


def check_draws(spec: LabSpec, report: Report) -> None:
    from autograder.judge.hidden import hidden_cases

    secret = b"validate-draws"
    for task in spec.tasks:
        if task.hidden is None:
            continue
        try:
            drawn = {who: [(c.args, c.kwargs) for c in hidden_cases(spec, task, secret, who)]
                     for who in ("ada\0first", "ben\0first", "ada\0second")}
        except Exception:  # noqa: BLE001 - reported by check_spec
            continue
        if drawn["ada\0first"] == drawn["ben\0first"]:
            report.add("draws", task.grade_id, "hidden", "two students get the same hidden cases",
                       "draw every argument from the rng passed to hidden(rng), not from constants or `random`")
        elif drawn["ada\0first"] == drawn["ada\0second"]:
            report.add("draws", task.grade_id, "hidden", "a new attempt gets the same hidden cases",
                       "draw every argument from the rng passed to hidden(rng)")
        if task.n_hidden < 1:
            report.add("draws", task.grade_id, "hidden", "n_hidden is below 1", "draw at least one hidden case")


def _answer_with(nb: nbformat.NotebookNode, function: str, source: str) -> bool:
    """Append `source` to the answer cell that defines `function` (a redefinition, as a student edits)."""
    pattern = re.compile(rf"^def {re.escape(function)}\s*\(", re.M)
    for cell in nb.cells:
        if cell.cell_type == "code" and is_answer_cell(cell) and pattern.search(cell.source):
            cell.source = cell.source.rstrip() + "\n\n\n" + source.strip() + "\n"
            return True
    return False


def _grade(pool, spec: LabSpec, nb: nbformat.NotebookNode, where: Path, student: str, report: Report):
    from autograder.judge.engine import GraderError, SubmissionResult

    path = where / f"{student}.ipynb"
    nbformat.write(nb, path)
    try:
        result = pool.grade(path, spec, student, b"validate-" + student.encode())
    except GraderError as error:    # the instructor's side (spec, solution): reported, the rest goes on
        report.add("solution", "-", student, f"the grader itself failed: {error}",
                   "fix the spec or the solution notebook (see the [spec] lines)")
        result = SubmissionResult(student, spec.lab_id, "failed", str(error))
    return result, {t.grade_id: t for t in result.tasks}


def _tests_run(spec: LabSpec, folder: Path, env: dict, report: Report) -> dict[str, str | None]:
    """The solution notebook run whole with nbclient (plain nbgrader autograde): test cell -> error or None."""
    import os
    import subprocess
    import sys

    path, executed = folder / spec.notebook, folder / f".executed-{spec.notebook}"
    cell_timeout = max(30, int(spec.budget_s * 2))
    # In a process of its own (autograder/author/run_solution.py): a kernel that dies on a busy machine (seen
    # with Lab 4 beside other kernels, never alone) leaves nbclient unable to exit; that process is
    # killed and the run made once more. A second failure is reported.
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


def validate(course: Course, lab: str, *, seeds: int = 20, log: Callable[[str], None] = lambda _: None) -> Report:
    from autograder.judge.engine import GradingPool, Limits
    from autograder.release.generate import generate
    from autograder.sandbox.child import unavailable

    report = Report(lab)
    spec = course.spec(lab)
    timer = time.perf_counter()
    for problem in setup_uses_problems(spec):
        report.add("uses", "-", "setup_uses", problem, "list only course functions or classes a task forbids "
                   "and the lab's setup or a task's prepare needs while grading")
    broken = check_spec(spec, report, seeds)
    check_draws(spec, report)
    report.numbers["spec"] = time.perf_counter() - timer
    solution_path = spec.solution_path()
    solution = nbformat.read(solution_path, as_version=4)
    env = {**GRADING_ENVIRONMENT, "COURSE_ROOT": str(course.root), "COURSE_DEVICE": "cpu",
           "COURSE_GRADING_SECRET": "validate-nbgrader"}
    with tempfile.TemporaryDirectory(prefix="autograder-validate-") as tmp:
        work = Path(tmp)
        timer = time.perf_counter()
        try:
            generate(course, lab, release=work / "release", db_url=f"sqlite:///{work / 'gradebook.db'}")
        except (RuntimeError, ValueError) as error:
            report.add("generate", "-", "-", f"the student version cannot be generated: {str(error)[-600:]}",
                       "fix the notebook's nbgrader cells (solution markers only in solution cells, unique grade_ids)")
            return report
        report.numbers["generate"] = time.perf_counter() - timer
        release = work / "release" / lab
        check_release(course, spec, solution, release, report)

        env["COURSE_PROGRESS_DIR"] = str(work / "progress")    # its check cell records no one's progress
        run_folder = work / "run"       # the solution's folder with today's visible checks beside it
        shutil.copytree(solution_path.parent, run_folder)
        shutil.copy(release / checks_name(lab), run_folder / checks_name(lab))
        log(f"{lab}: running the solution notebook as nbgrader autograde does ...")
        in_kernel = _tests_run(spec, run_folder, env, report)

        graded = work / "graded"
        graded.mkdir()
        timer = time.perf_counter()
        log(f"{lab}: grading the solution, the student version and the wrong answers in the sandbox ...")
        # the engine draws every task's cases first: tasks whose cases cannot be drawn are left out
        # (their [spec] lines say why), so the rest of the lab is still checked
        gradable = replace(spec, tasks=tuple(t for t in spec.tasks if t.grade_id not in broken))
        full, spec = spec, gradable
        # the author's own code only (solution, student version, listed wrong answers): where this machine
        # cannot confine, it runs unconfined rather than refusing, as the author's own kernel would run it
        with GradingPool(1, Limits(isolate=unavailable() is None)) as pool:
            for student in ("validate-ada", "validate-ben"):
                result, tasks = _grade(pool, spec, solution, graded, student, report)
                if result.status != "graded":
                    report.add("solution", "-", student, f"the grader could not grade the solution: {result.reason}",
                               "fix the notebook so it runs in the grader (see the reason)")
                    break
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

            stub_nb = nbformat.read(release / spec.notebook, as_version=4)
            result, tasks = _grade(pool, spec, stub_nb, graded, "validate-stub", report)
            for task in spec.tasks:
                if result.status == "graded" and tasks[task.grade_id].passed:
                    report.add("stubs", task.grade_id, "student version",
                               "the unanswered student version already passes this task",
                               "put the answer between ### BEGIN SOLUTION / ### END SOLUTION, or add cases a "
                               "stub cannot pass")

            for task in spec.tasks:
                for number, wrong in enumerate(task.wrong, 1):
                    nb = nbformat.read(solution_path, as_version=4)
                    label = f"wrong answer {number}"
                    if not _answer_with(nb, task.function, wrong):
                        report.add("wrong", task.grade_id, label, f"no answer cell defines {task.function}",
                                   f"define `def {task.function}(...)` in a solution cell")
                        continue
                    result, tasks = _grade(pool, spec, nb, graded, f"validate-wrong-{number}", report)
                    if result.status == "graded" and tasks[task.grade_id].passed:
                        first = wrong.strip().splitlines()[-1].strip()[:60]
                        report.add("wrong", task.grade_id, f"{label} ({first})", "this wrong answer passes",
                                   "add a visible or hidden case it gets wrong, or tighten the task's compare; if "
                                   "it is the right formula written another way (algebraically equal), take it "
                                   "out of Task.wrong")
        report.numbers["grading"] = time.perf_counter() - timer
        spec = full
    return report
