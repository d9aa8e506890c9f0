"""`nbgrader export` that tells the pipeline's truth: the course's nbgrader_config.py makes this the
export plugin, so nbgrader's own command (and anything built on it) sees each submission's state.

nbgrader's CSV has no notion of a submission that failed to grade: it prints the gradebook's score, 0
for a failed notebook. This plugin keeps nbgrader's columns and adds `status` (graded, failed,
pending, not submitted) and `reason`; a failed or pending submission has no score (blank), so a
spreadsheet or LMS import never reads a failure as a zero. A student who handed nothing in keeps
nbgrader's 0.
"""
from __future__ import annotations

import csv

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins.export import CsvExportPlugin

from autograder.course import Course
from autograder.record.outgoing import standing
from autograder.record.status import current
from autograder.record.store import Store

COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
           "raw_score", "late_submission_penalty", "score", "max_score", "status", "reason"]


def pipeline_states(root: str, assignments: list[str]) -> dict[tuple[str, str], tuple[str, str]]:
    """(assignment, student) -> (state, reason) from the results store, for the course's labs and quizzes."""
    course = Course.find(root)
    known = set(course.lab_ids()) | set(course.quiz_ids())
    states = {}
    if not course.results_db.exists():
        return states
    with Store(course.results_db) as store:
        for name in assignments:
            if name in known:
                for e in current(course, store, name):
                    states[(name, e.student_id)] = (e.state, (e.row.reason or "") if e.row else "")
    return states


class StatusCsvExportPlugin(CsvExportPlugin):
    """nbgrader's CSV export plus each submission's status and reason (see the module docstring)."""

    def export(self, gradebook: Gradebook) -> None:
        dest = self.to or "grades.csv"
        wanted_a = {str(a) for a in self.assignment}
        wanted_s = {str(s) for s in self.student}
        assignments = [a for a in gradebook.assignments if not wanted_a or a.name in wanted_a]
        states = pipeline_states(self.parent.coursedir.root, [a.name for a in assignments])
        self.log.info("Exporting grades with their status to %s", dest)
        with open(dest, "w", newline="") as fh:
            writer = csv.DictWriter(fh, COLUMNS, lineterminator="\n")
            writer.writeheader()
            for assignment in assignments:
                for student in gradebook.students:
                    if wanted_s and student.id not in wanted_s:
                        continue
                    writer.writerow(self._row(gradebook, assignment, student, states))

    @staticmethod
    def _row(gradebook: Gradebook, assignment, student, states) -> dict:
        row = {"assignment": assignment.name, "duedate": assignment.duedate or "", "student_id": student.id,
               "last_name": student.last_name or "", "first_name": student.first_name or "",
               "email": student.email or "", "max_score": assignment.max_score}
        try:
            submission = gradebook.find_submission(assignment.name, student.id)
        except MissingEntry:
            state, reason = states.get((assignment.name, student.id), ("not submitted", ""))
            return {**row, "timestamp": "", "raw_score": 0.0, "late_submission_penalty": 0.0, "score": 0.0,
                    "status": state, "reason": reason}
        state, reason = states.get((assignment.name, student.id), ("", ""))
        if not state:   # graded outside the pipeline (plain nbgrader autograde): read nbgrader's own marks
            failed = any(nb.flagged and nb.needs_manual_grade for nb in submission.notebooks)
            state = "failed" if failed else ("needs manual grade" if submission.needs_manual_grade else "graded")
        sent = standing(submission, state, reason, assignment.max_score, assignment.name)    # record/outgoing.py
        scored = sent.score is not None     # a failed or pending notebook has no score, unless graded by hand
        return {**row, "timestamp": submission.timestamp or "",
                "raw_score": sent.raw if scored else "",
                "late_submission_penalty": sent.penalty if scored else "",
                "score": sent.score if scored else "",
                "status": state, "reason": reason}
