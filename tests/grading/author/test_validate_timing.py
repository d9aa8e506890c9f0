"""`autograder validate` on a lab that grades speed times what each of its checks judges, and only that:
the solution once (every timed task, as a class's grading does), each wrong answer at its own task. The
grades are recorded by a stand-in pool, so this runs no engine; tests/grading/author/test_authoring_validate.py
runs the real one on every course lab."""
from __future__ import annotations

import nbformat

from autograder.author.grading_checks import check_solution, check_wrong_answers
from autograder.author.report import Report
from autograder.judge.results import SubmissionResult, TaskResult
from autograder.spec import load_spec

LAB = "lab6-serving"


class RecordingPool:
    """Grades every task as passed and records which tasks each grade would time."""

    def __init__(self):
        self.timed: list[tuple[str, list[str]]] = []       # (student, the tasks its grade times), in order

    def grade(self, notebook, spec, student_id, secret):
        self.timed.append((student_id, sorted(spec.speed.milestones) if spec.speed else []))
        tasks = [TaskResult(t.grade_id, t.points, t.points, True, "") for t in spec.tasks]
        return SubmissionResult(student_id, spec.lab_id, "graded", None, tasks)


def test_the_solution_is_timed_once_and_a_wrong_answer_only_at_its_own_task(tmp_path):
    spec = load_spec(LAB)
    timed_tasks = sorted(spec.speed.milestones)
    assert len(timed_tasks) == 4, timed_tasks
    pool, report = RecordingPool(), Report(LAB)
    solution = nbformat.read(spec.solution_path(), as_version=4)
    check_solution(pool, spec, solution, tmp_path, {t.grade_id: None for t in spec.tasks}, report)
    assert pool.timed == [("validate-ada", timed_tasks), ("validate-ben", [])]

    pool.timed.clear()
    check_wrong_answers(pool, spec, spec.solution_path(), tmp_path, report)
    want = [[t.grade_id] for t in spec.tasks for _ in t.wrong]
    assert want and [timed for _, timed in pool.timed] == want, pool.timed
    assert not [p for p in report.problems if "no answer cell" in str(p)], report.problems  # each found its cell
    assert sorted(spec.speed.milestones) == timed_tasks            # the lab's own spec is untouched
