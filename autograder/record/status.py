"""Where every submission stands: graded (score), failed (with the reason) or pending (not graded yet)."""
from __future__ import annotations

from dataclasses import dataclass

from autograder.course import Course
from autograder.submitted import submission_hash
from autograder.record.store import Row, Store
from autograder.record.tables import table


@dataclass(frozen=True)
class Entry:
    lab_id: str
    student_id: str
    state: str              # "graded" | "failed" | "pending"
    row: Row | None         # the stored result for the submission as it is now
    graded_by: str = ""     # "local" or the Dask worker that graded it (`grade --cluster`)


def current(course: Course, store: Store, lab_id: str) -> list[Entry]:
    """One entry per submitted student; a resubmitted notebook is pending until graded again."""
    entries = []
    for sub in course.submissions(lab_id):
        digest = submission_hash(course, sub)
        row = store.get(lab_id, sub.student_id, digest)
        graded_by = (store.grader(lab_id, sub.student_id, digest) or "local") if row else ""
        entries.append(Entry(lab_id, sub.student_id, row.status if row else "pending", row, graded_by))
    return entries


def current_rows(course: Course, store: Store, lab_id: str) -> list[Row]:
    return [e.row for e in current(course, store, lab_id) if e.row is not None]


def render(entries: list[Entry]) -> str:
    body = []
    for e in entries:
        score = f"{e.row.score:g}/{e.row.max_score:g}" if e.row else ""
        detail = (e.row.reason or "") if e.row else "submitted, not graded yet"
        flags = "; ".join(e.row.result.get("flags", [])) if e.row else ""
        body.append([e.lab_id, e.student_id, e.state, score, e.graded_by, detail, flags])
    counts = {s: sum(1 for e in entries if e.state == s) for s in ("graded", "failed", "pending")}
    summary = ", ".join(f"{n} {s}" for s, n in counts.items())
    return table(["lab", "student", "state", "score", "graded by", "reason", "flags"], body) + f"\n{summary}"
