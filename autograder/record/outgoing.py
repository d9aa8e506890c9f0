"""The score that leaves the building: what every export and the LMS passback send for a student's
assignment, decided here alone, from nbgrader's gradebook.

- A grade the instructor changed by hand (the formgrader's manual score) wins over the autograder's:
  the gradebook's score is the manual score where there is one.
- The late penalty the gradebook holds (record/late.py) is taken off once, here, never below 0.
- A submission that is not graded yet, or failed to grade and has no hand grade, sends nothing (a
  reason instead), never a silent zero. A failed one the instructor graded by hand sends that grade.

Used by `autograder export --format canvas`, the long CSV's `outgoing_score`, nbgrader's own `nbgrader
export` (record/nbgrader_export.py) and `autograder lms post` (lms/passback.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from autograder.course import Course


@dataclass(frozen=True)
class Standing:
    student_id: str
    score: float | None          # after the late penalty; None: nothing to send (see `reason`)
    maximum: float
    penalty: float = 0.0
    reason: str = ""             # why there is no score
    raw: float | None = None     # the gradebook's score before the penalty (a hand edit included)


def standing(submission, state: str, reason: str, maximum: float, lab: str) -> Standing:
    """One student's outgoing score: `submission` is nbgrader's SubmittedAssignment; `state` and `reason`
    are the results store's for it (record/status.py; state "" when graded outside the pipeline)."""
    student = submission.student.id
    if state == "pending":
        return Standing(student, None, maximum, reason=f"not yet graded (run `autograder grade {lab}`)")
    if submission.needs_manual_grade:
        why = f"failed to grade ({reason})" if state == "failed" else "not yet graded"
        return Standing(student, None, maximum, reason=f"{why}: give it a manual grade in the formgrader")
    raw, penalty = float(submission.score), float(submission.late_submission_penalty or 0.0)
    return Standing(student, max(0.0, raw - penalty), maximum, penalty, raw=raw)


def standings(course: Course, lab: str) -> dict[str, Standing]:
    """student -> Standing, for every student with a submission (collected or in the gradebook)."""
    from nbgrader.api import Gradebook, MissingEntry

    from autograder.record.status import current
    from autograder.record.store import Store

    with Store(course.results_db) as store:
        pipeline = {e.student_id: (e.state, (e.row.reason or "") if e.row else "") for e in current(course, store, lab)}
    if not course.gradebook.exists():
        raise FileNotFoundError(f"{course.gradebook}: no gradebook yet; run `autograder grade {lab}` first")
    with Gradebook(course.db_url, course.course_id) as gb:
        try:
            maximum = float(gb.find_assignment(lab).max_score)
        except MissingEntry:
            raise ValueError(f"{course.gradebook}: {lab!r} is not in nbgrader's gradebook; "
                             f"run `autograder generate {lab}` first") from None
        found = {sub.student.id: standing(sub, *pipeline.get(sub.student.id, ("", "")), maximum, lab)
                 for sub in gb.assignment_submissions(lab)}
    for student in pipeline:       # collected, never graded: not in the gradebook yet
        found.setdefault(student, Standing(student, None, maximum,
                                           reason=f"not yet graded (run `autograder grade {lab}`)"))
    return found
