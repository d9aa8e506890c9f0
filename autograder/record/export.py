"""Grade exports: a long CSV (every submission with its state and reason) and a Canvas gradebook CSV.

Canvas imports a CSV whose first columns identify the student (`Student, ID, SIS User ID,
SIS Login ID, Section`), then one column per assignment titled `<name> (<canvas assignment id>)`,
with a second row `Points Possible`. Canvas matches students by ID (its user id) or SIS ids, which
come from the roster given to `autograder collect` (or the user id in Canvas file names). Failed
and pending submissions are left blank there, never exported as a silent zero, and listed on stderr.
Late penalties come from nbgrader's gradebook (see late.py): the CSV lists them, Canvas gets the
score after the penalty, as `nbgrader export` does.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Callable

from autograder.course import Course
from autograder.record.status import current
from autograder.record.store import Store

CSV_COLUMNS = ["student_id", "lab_id", "state", "score", "max_score", "reason", "flags", "submission_hash",
               "late_penalty"]
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def export_csv(course: Course, labs: list[str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    with Store(course.results_db) as store:
        for lab in labs:
            late = late_penalties(course, lab)
            for e in current(course, store, lab):
                r = e.row
                writer.writerow([e.student_id, lab, e.state, f"{r.score:g}" if r else "",
                                 f"{r.max_score:g}" if r else f"{course.spec(lab).total_points:g}",
                                 (r.reason or "") if r else "", "; ".join(r.result.get("flags", [])) if r else "",
                                 r.submission_hash if r else "", f"{late.get(e.student_id, 0.0):g}" if r else ""])
    return out.getvalue()


def late_penalties(course: Course, lab: str) -> dict[str, float]:
    """student -> the late penalty nbgrader's gradebook holds for the lab (0 when on time)."""
    from nbgrader.api import Gradebook

    if not course.gradebook.exists():
        return {}
    with Gradebook(course.db_url, course.course_id) as gb:
        return {s.student.id: float(s.late_submission_penalty or 0.0) for s in gb.assignment_submissions(lab)}


def graded_only(course: Course, labs: list[str]) -> list[str]:
    """The assignments with at least one stored result: an LMS import gets no empty columns for
    labs or quizzes nobody has handed in or that are not graded yet."""
    with Store(course.results_db) as store:
        return [lab for lab in labs if any(e.row is not None for e in current(course, store, lab))]


def export_canvas(course: Course, labs: list[str], assignment_ids: dict[str, str]) -> tuple[str, list[str]]:
    """(CSV text, warnings). `assignment_ids` maps lab ids to Canvas assignment ids."""
    warnings = []
    with Store(course.results_db) as store:
        roster = store.roster()
        states = {lab: {e.student_id: e for e in current(course, store, lab)} for lab in labs}
    late = {lab: late_penalties(course, lab) for lab in labs}
    students = sorted(set(roster) | {s for lab in labs for s in states[lab]})
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    titles = [f"{lab} ({assignment_ids[lab]})" if lab in assignment_ids else lab for lab in labs]
    writer.writerow(CANVAS_COLUMNS + titles)
    writer.writerow(["Points Possible", "", "", "", ""] + [f"{course.spec(lab).total_points:g}" for lab in labs])
    for lab in labs:
        if lab not in assignment_ids:
            warnings.append(f"{lab}: no Canvas assignment id (--canvas-id {lab}=ID); Canvas will create a new column")
    for sid in students:
        info = roster.get(sid, {})
        if not (info.get("canvas_id") or info.get("sis_user_id") or info.get("sis_login_id")):
            warnings.append(f"{sid}: no Canvas ID or SIS id (give collect a --roster); Canvas cannot match this row")
        cells = []
        for lab in labs:
            entry = states[lab].get(sid)
            if entry is None or entry.state == "pending":
                cells.append("")
                if entry is not None:
                    warnings.append(f"{sid}: {lab} is not graded yet (left blank)")
            elif entry.state == "failed":
                cells.append("")
                warnings.append(f"{sid}: {lab} failed to grade ({entry.row.reason}); left blank")
            else:
                penalty = late[lab].get(sid, 0.0)
                cells.append(f"{max(0.0, entry.row.score - penalty):g}")
                if penalty:
                    warnings.append(f"{sid}: {lab} late: {entry.row.score:g} less a penalty of {penalty:g}")
        writer.writerow([info.get("name") or sid, info.get("canvas_id") or "", info.get("sis_user_id") or "",
                         info.get("sis_login_id") or "", info.get("section") or ""] + cells)
    return out.getvalue(), warnings


# --- formats: `autograder export --format NAME` dispatches through this table ------------------------

@dataclass(frozen=True)
class ExportFormat:
    """One export format: `write(course, labs, assignment_ids)` returns (text, warnings). A format for an
    LMS import is `graded_only`: a whole-course export leaves out assignments nobody is graded on."""
    help: str
    write: Callable[[Course, list[str], dict[str, str]], tuple[str, list[str]]]
    graded_only: bool = False


FORMATS = {
    "csv": ExportFormat("one row per student and assignment (state, score, reason, flags, late penalty)",
                        lambda course, labs, ids: (export_csv(course, labs), [])),
    "canvas": ExportFormat("a Canvas gradebook import: one column per graded assignment", export_canvas,
                           graded_only=True),
}
