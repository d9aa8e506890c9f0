"""What each student's score is for the LMS, read from nbgrader's gradebook: a grade the instructor
changed by hand in the formgrader wins over the autograder's (the gradebook's score is the manual score
where there is one), and the late penalty the gradebook holds is taken off, as the Canvas export does.
"""
from __future__ import annotations

from dataclasses import dataclass

from autograder.course import Course


@dataclass(frozen=True)
class Standing:
    student_id: str
    score: float | None          # after the late penalty; None: nothing to post (see `reason`)
    maximum: float
    penalty: float = 0.0
    reason: str = ""             # why there is no score


def standings(course: Course, lab: str) -> dict[str, Standing]:
    """student -> Standing, for every student with a submission (collected or in the gradebook)."""
    from nbgrader.api import Gradebook, MissingEntry

    from autograder.record.status import current
    from autograder.record.store import Store

    with Store(course.results_db) as store:
        pipeline = {e.student_id: e for e in current(course, store, lab)}
    if not course.gradebook.exists():
        raise FileNotFoundError(f"{course.gradebook}: no gradebook yet; run `autograder grade {lab}` first")
    found: dict[str, Standing] = {}
    with Gradebook(course.db_url, course.course_id) as gb:
        try:
            maximum = float(gb.find_assignment(lab).max_score)
        except MissingEntry:
            raise ValueError(f"{course.gradebook}: {lab!r} is not in nbgrader's gradebook; "
                             f"run `autograder generate {lab}` first") from None
        for sub in gb.assignment_submissions(lab):
            student, entry = sub.student.id, pipeline.get(sub.student.id)
            if entry is not None and entry.state == "pending":
                found[student] = Standing(student, None, maximum, reason=f"not yet graded (run `autograder grade {lab}`)")
            elif sub.needs_manual_grade:
                why = f"failed to grade ({entry.row.reason})" if entry is not None and entry.state == "failed" else "not yet graded"
                found[student] = Standing(student, None, maximum, reason=f"{why}: give it a manual grade in the formgrader")
            else:
                penalty = float(sub.late_submission_penalty or 0.0)
                found[student] = Standing(student, max(0.0, float(sub.score) - penalty), maximum, penalty)
    for student, entry in pipeline.items():       # collected, never graded: not in the gradebook yet
        found.setdefault(student, Standing(student, None, maximum, reason=f"not yet graded (run `autograder grade {lab}`)"))
    return found
