"""Mirror the pipeline's scores into nbgrader's gradebook, so nbgrader's export, feedback and
formgrader see them. Idempotent: recording the same result twice leaves the same gradebook, and
`matches` tells whether a result is already there.

The gradebook tells nbgrader's own tools the truth: students carry their names from the roster
(`collect --roster`), a failed submission has no automatic score (its grades need a manual grade and
the notebook is flagged, so the formgrader shows it as failed, not as "graded 0"), and a submission
after the assignment's due date (`nbgrader db assignment add LAB --duedate ...`) gets the late
penalty nbgrader's configured LateSubmissionPlugin assigns (see late.py).
"""
from __future__ import annotations

import datetime as dt
import warnings
from pathlib import Path

from autograder.course import Course, ensure_alembic_on_path
from autograder.spec import LabSpec


def gradebook_problem(course: Course, spec: LabSpec, gb=None) -> str | None:
    """Why `spec`'s lab cannot be graded into nbgrader's gradebook (None when it can).

    `autograder generate` puts the lab and each task's grade cell there; nbgrader's own Generate does
    too. A lab released without either would reach students and then be refused at grading time, so
    the release (autograder/release/exchange.py) asks the same question first.
    """
    from nbgrader.api import Gradebook, MissingEntry

    ensure_alembic_on_path()
    own = gb is None
    gb = gb or Gradebook(course.db_url, course.course_id)
    try:
        notebook = gb.find_notebook(Path(spec.notebook).stem, spec.lab_id)
    except MissingEntry:
        return (f"{course.gradebook}: lab {spec.lab_id!r} is not in nbgrader's gradebook; "
                f"run `autograder generate {spec.lab_id}` first")
    else:
        cells = {cell.name for cell in notebook.grade_cells}
        missing = [t.grade_id for t in spec.tasks if t.grade_id not in cells]
        if missing:
            return (f"{course.gradebook}: lab {spec.lab_id} has no grade cells {missing} "
                    f"(spec and solution notebook disagree?); rerun `autograder generate {spec.lab_id}`")
        return None
    finally:
        if own:
            gb.close()


class GradebookWriter:
    """One open nbgrader Gradebook for a whole batch (opening one per result costs a migration check)."""

    def __init__(self, course: Course, spec: LabSpec):
        from nbgrader.api import Gradebook

        from autograder.record.late import late_policy
        from autograder.record.store import Store

        ensure_alembic_on_path()
        self.spec = spec
        with Store(course.results_db) as store:
            self.roster = store.roster()
        self.late = late_policy(course)
        self.notebook_id = Path(spec.notebook).stem
        self.gb = Gradebook(course.db_url, course.course_id)
        problem = gradebook_problem(course, spec, self.gb)
        if problem:
            self.gb.close()
            raise RuntimeError(problem)

    def close(self) -> None:
        self.gb.close()

    def __enter__(self) -> "GradebookWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _points(self, result: dict) -> dict[str, float | None]:
        """Each grade cell's auto_score for `result` (None everywhere for a failed submission: no score)."""
        if result["status"] != "graded":
            return {task.grade_id: None for task in self.spec.tasks}
        points = {t["grade_id"]: t["points"] for t in result["tasks"]}
        return {task.grade_id: float(points.get(task.grade_id, 0.0)) for task in self.spec.tasks}

    def _names(self, student: str) -> dict[str, str]:
        """first_name/last_name from the roster's name ("Doe, Jane" or "Jane Doe"); blank when unknown, as
        nbgrader leaves them (the id in last_name read as a surname in `nbgrader export`)."""
        name = (self.roster.get(student, {}).get("name") or "").strip()
        if "," in name:
            last, first = (part.strip() for part in name.split(",", 1))
        elif name:
            first, _, last = name.rpartition(" ")
        else:
            first, last = "", ""
        return {"first_name": first, "last_name": last}

    @staticmethod
    def _timestamp(submitted_at: float | None):
        return dt.datetime.fromtimestamp(submitted_at, dt.timezone.utc).replace(tzinfo=None) if submitted_at else None

    def record(self, result: dict, submitted_at: float | None = None) -> None:
        student = result["student_id"]
        self.gb.update_or_create_student(student, **self._names(student))
        with warnings.catch_warnings():
            # nbgrader's own add_submission trips SQLAlchemy autoflush warnings; they are harmless noise
            warnings.filterwarnings("ignore", message=".*not in session.*")
            self.gb.update_or_create_submission(self.spec.lab_id, student, timestamp=self._timestamp(submitted_at))
        failed = result["status"] != "graded"
        for grade_id, points in self._points(result).items():
            grade = self.gb.find_grade(grade_id, self.notebook_id, self.spec.lab_id, student)
            grade.auto_score = points
            grade.needs_manual_grade = failed
        notebook = self.gb.find_submission_notebook(self.notebook_id, self.spec.lab_id, student)
        notebook.flagged = failed
        self.gb.db.commit()
        notebook.late_submission_penalty = self.late.penalty(self.gb.find_submission(self.spec.lab_id, student),
                                                             notebook) if not failed else None
        self.gb.db.commit()

    def matches(self, result: dict, submitted_at: float | None = None) -> bool:
        """True when the gradebook already holds exactly `result`'s scores and submission time."""
        from nbgrader.api import MissingEntry

        try:
            submission = self.gb.find_submission_notebook(self.notebook_id, self.spec.lab_id, result["student_id"])
        except MissingEntry:
            return False
        scores = {g.cell.name: g.auto_score for g in submission.grades}
        student = submission.student
        names = {"first_name": student.first_name or "", "last_name": student.last_name or ""}
        return (submission.assignment.timestamp == self._timestamp(submitted_at)
                and submission.flagged == (result["status"] != "graded") and names == self._names(student.id)
                and not self.late.applies(submission.assignment)    # a due date: penalties are recomputed
                and all(scores.get(grade_id, "missing") == points for grade_id, points in self._points(result).items()))
