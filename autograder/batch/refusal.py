"""Refused before anything reads it: what the batch loop checks of a submission first, and the failed
result it stores for one (labs and quizzes alike)."""
from __future__ import annotations

from autograder import submitted
from autograder.course import Course, Submission
from autograder.spec import REPO_ROOT, LabSpec


def refused(course: Course, spec: LabSpec, sub: Submission) -> str | None:
    """Why a submission is refused before anything reads it, or None. Submissions arrive by copy, rsync
    or tar too, not only through `collect`: a symbolic link anywhere under submitted/, a named pipe, a
    device or a folder in the notebook's place, or a hard link to an instructor file (which would hand
    the solution to the grader as the student's work)."""
    try:
        submitted.check(sub.notebook, course.submitted)
    except submitted.Refused as refusal:
        return str(refusal)
    except OSError:
        return None                                   # missing: reported as such
    info = sub.notebook.lstat()
    if info.st_nlink > 1 and (info.st_dev, info.st_ino) in _instructor_inodes(course, spec):
        return (f"refused: submitted/{sub.student_id}/{spec.lab_id}/{sub.notebook.name} is a hard link to an "
                "instructor file")
    return None


def _instructor_inodes(course: Course, spec: LabSpec) -> set[tuple[int, int]]:
    from autograder.judge.secrets import OLD_SECRET_FILE, secret_file

    # the secret where load_secret reads it (the course root's, and the older place in the checkout)
    files = [spec.solution_path(), *course.solutions.rglob("*"), *(REPO_ROOT / "solutions").rglob("*"),
             secret_file(course.root), OLD_SECRET_FILE, course.gradebook, course.results_db]
    found = set()
    for path in files:
        try:
            info = path.lstat()
        except (OSError, TypeError):
            continue
        found.add((info.st_dev, info.st_ino))
    return found


def failed_result(submission: Submission, spec: LabSpec, reason: str) -> dict:
    """A failure the pipeline detects itself (before or around the engine), in SubmissionResult form."""
    from autograder.judge.results import SubmissionResult, TaskResult

    tasks = [TaskResult(t.grade_id, 0.0, float(t.points), False, reason) for t in spec.tasks]
    return SubmissionResult(student_id=submission.student_id, lab_id=spec.lab_id, status="failed", reason=reason,
                            tasks=tasks, flags=[], score=0.0, max_score=float(spec.total_points),
                            seconds=0.0).to_json()
