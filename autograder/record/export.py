"""Grade exports: a long CSV (every submission with its state and reason) and a Canvas gradebook CSV.

Canvas imports a CSV whose first columns identify the student (`Student, ID, SIS User ID,
SIS Login ID, Section`), then one column per assignment titled `<name> (<canvas assignment id>)`,
with a second row `Points Possible`. Canvas matches students by ID (its user id) or SIS ids, which
come from the roster given to `autograder collect` (or the user id in Canvas file names). Failed
and pending submissions are left blank there, never exported as a silent zero, and listed on stderr.
Every score that leaves for an LMS is record/outgoing.py's (a hand edit in the formgrader wins, the
gradebook's late penalty off): Canvas gets it, the long CSV lists it as `outgoing_score` beside the
autograder's own score and the penalty. A hub class's logins come from its roster (CLASS_ROSTER).
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
from dataclasses import dataclass
from typing import Callable

from autograder.course import Course
from autograder.record.outgoing import standings
from autograder.record.status import current
from autograder.record.store import Store

CSV_COLUMNS = ["student_id", "lab_id", "state", "score", "max_score", "reason", "flags", "submission_hash",
               "late_penalty", "outgoing_score"]
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
# `course hub` copies the class's roster here into each instructor's ~/course: a hub class collects with
# `nbgrader collect` (no --roster), and its usernames are the logins Canvas matches rows by
CLASS_ROSTER = "class-roster.csv"


def export_csv(course: Course, labs: list[str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    with Store(course.results_db) as store:
        for lab in labs:
            late = late_penalties(course, lab)
            outgoing = _outgoing_if_known(course, lab)
            for e in current(course, store, lab):
                r, sent = e.row, outgoing.get(e.student_id)
                writer.writerow([e.student_id, lab, e.state, f"{r.score:g}" if r else "",
                                 f"{r.max_score:g}" if r else f"{course.spec(lab).total_points:g}",
                                 (r.reason or "") if r else "", "; ".join(r.result.get("flags", [])) if r else "",
                                 r.submission_hash if r else "", f"{late.get(e.student_id, 0.0):g}" if r else "",
                                 f"{sent.score:g}" if sent and sent.score is not None else ""])
    return out.getvalue()


def _outgoing_if_known(course: Course, lab: str) -> dict:
    """The outgoing scores, or none for a lab the gradebook does not know yet (nothing can leave)."""
    try:
        return standings(course, lab)
    except (FileNotFoundError, ValueError):
        return {}


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


def export_canvas(course: Course, labs: list[str], assignment_ids: dict[str, str],
                  logins: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """(CSV text, warnings). `assignment_ids` maps lab ids to Canvas assignment ids; `logins` maps student
    ids to SIS Login IDs where the results store's roster has none (default: the hub's class roster in the
    course folder, CLASS_ROSTER). Every score is the outgoing one (record/outgoing.py): a hand edit wins,
    the late penalty is off."""
    warnings = []
    if logins is None and (course.root / CLASS_ROSTER).is_file():
        logins = logins_from_roster(course.root / CLASS_ROSTER)
    with Store(course.results_db) as store:
        roster = store.roster()
        graded = {lab: {e.student_id for e in current(course, store, lab)} for lab in labs}
    outgoing = {}
    for lab in labs:
        try:
            outgoing[lab] = standings(course, lab)
        except (FileNotFoundError, ValueError) as error:      # no gradebook, or the lab not in it
            outgoing[lab] = {}
            warnings.append(f"{lab}: {error}; its column is left blank")
    students = sorted(set(roster) | {s for lab in labs for s in graded[lab] | set(outgoing[lab])})
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    titles = [f"{lab} ({assignment_ids[lab]})" if lab in assignment_ids else lab for lab in labs]
    writer.writerow(CANVAS_COLUMNS + titles)
    writer.writerow(["Points Possible", "", "", "", ""] + [f"{course.spec(lab).total_points:g}" for lab in labs])
    for lab in labs:
        if lab not in assignment_ids:
            warnings.append(f"{lab}: no Canvas assignment id (--canvas-id {lab}=ID); Canvas will create a new column")
    for sid in students:
        info = dict(roster.get(sid, {}))
        if not info.get("sis_login_id") and logins and sid in logins:
            info["sis_login_id"] = logins[sid]
        if not (info.get("canvas_id") or info.get("sis_user_id") or info.get("sis_login_id")):
            warnings.append(f"{sid}: no Canvas ID or SIS id (give collect a --roster, or export with "
                            "--logins-from ROSTER.csv); Canvas cannot match this row")
        cells = []
        for lab in labs:
            found = outgoing[lab].get(sid)
            cells.append("" if found is None or found.score is None else f"{found.score:g}")
            if found is not None and found.score is None:
                warnings.append(f"{sid}: {lab} {found.reason}; left blank")
            elif found is not None and found.penalty:
                warnings.append(f"{sid}: {lab} late: {found.raw:g} less a penalty of {found.penalty:g}")
        writer.writerow([info.get("name") or sid, info.get("canvas_id") or "", info.get("sis_user_id") or "",
                         info.get("sis_login_id") or "", info.get("section") or ""] + cells)
    return out.getvalue(), warnings


def logins_from_roster(path: str | Path) -> dict[str, str]:
    """student id -> SIS Login ID from a CSV roster whose `username` column holds both (the hub's roster:
    its usernames are the class's Unix accounts and nbgrader student ids, and the campus logins Canvas
    knows when the class was set up with them). A `sis_login_id` column, where present, wins."""
    path = Path(path)
    try:
        rows = list(csv.DictReader(path.read_text().splitlines()))
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: cannot read the roster ({error})") from None
    if not rows or "username" not in rows[0]:
        raise ValueError(f"{path}: no `username` column (the hub's roster: username,role[,name])")
    return {row["username"].strip(): (row.get("sis_login_id") or row["username"]).strip()
            for row in rows
            if (row.get("username") or "").strip() and (row.get("role") or "student").strip() == "student"}


# --- formats: `autograder export --format NAME` dispatches through this table ------------------------

@dataclass(frozen=True)
class ExportFormat:
    """One export format: `write(course, labs, assignment_ids, logins)` returns (text, warnings). A format for an
    LMS import is `graded_only`: a whole-course export leaves out assignments nobody is graded on."""
    help: str
    write: Callable[[Course, list[str], dict[str, str], dict[str, str] | None], tuple[str, list[str]]]
    graded_only: bool = False


FORMATS = {
    "csv": ExportFormat("one row per student and assignment (state, score, reason, flags, late penalty, "
                        "the score an LMS gets)", lambda course, labs, ids, logins: (export_csv(course, labs), [])),
    "canvas": ExportFormat("a Canvas gradebook import: one column per graded assignment", export_canvas,
                           graded_only=True),
}
