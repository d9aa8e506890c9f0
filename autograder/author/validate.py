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
  flags      grading that solution raises no network or process flag (every honest student would carry it)
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

import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import nbformat

from coursekit.checks.visible import checks_name

from autograder.author.grading_checks import check_solution, check_stubs, check_wrong_answers
from autograder.author.report import Report
from autograder.author.run_checks import run_like_nbgrader, check_release
from autograder.author.spec_checks import check_draws, check_spec, setup_uses_problems
from autograder.course import Course
from autograder.sandbox.protocol import GRADING_ENVIRONMENT


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
        in_kernel = run_like_nbgrader(spec, run_folder, env, report)

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
            check_solution(pool, spec, solution, graded, in_kernel, report)
            check_stubs(pool, spec, release, graded, report)
            check_wrong_answers(pool, spec, solution_path, graded, report)
        report.numbers["grading"] = time.perf_counter() - timer
        spec = full
    return report
