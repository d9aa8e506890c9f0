"""A lab's batch: every submitted notebook through the engine's warm worker pool, here or on Dask."""
from __future__ import annotations

from concurrent.futures import Future
from typing import Any, Callable

from autograder.batch.context import context_digest
from autograder.batch.loop import finished, run_batch
from autograder.batch.refusal import failed_result
from autograder.batch.report import BatchReport
from autograder.course import Course, Submission
from autograder.spec import LabSpec


def grader_context(spec: LabSpec, secret: bytes) -> str:
    """Fingerprint of everything besides the notebook that a lab result depends on."""
    return context_digest(secret, (spec.origin, spec.solution_path()))


class LabGrader:
    """The lab kind's part of the batch loop: a submission's notebook into the pool, which starts
    only when the loop enters (after the already-graded are published)."""

    def __init__(self, spec: LabSpec, make_pool: Callable[[], Any], secret: bytes) -> None:
        self.spec, self.make_pool, self.secret, self.pool = spec, make_pool, secret, None

    def __enter__(self) -> "LabGrader":
        self.pool = self.make_pool()
        self.pool.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.pool.__exit__(*exc)

    def submit(self, sub: Submission) -> Future:
        if not sub.notebook.exists():
            return finished(failed_result(sub, self.spec, f"missing notebook: submitted/{sub.student_id}/"
                                                          f"{self.spec.lab_id}/ has no {self.spec.notebook}"))
        return self.pool.submit(sub.notebook, self.spec, student_id=sub.student_id, secret=self.secret)


def grade_lab(course: Course, lab_id: str, *, secret: bytes, workers: int | None = None, student: str | None = None,
              regrade: bool = False, retry_failed: bool = False, progress: bool = True, limits=None,
              cluster: str | None = None) -> BatchReport:
    """Grade what is not graded yet; `cluster` (a Dask scheduler address or "local") sends each
    submission to a Dask worker instead of this machine's pool (see distributed.py)."""
    from autograder.judge.engine import GradingPool, Limits

    spec = course.spec(lab_id)
    # The engine hides the repo's and the submission's course folders; name this course's too.
    hide = (course.solutions, course.submitted, course.autograded, course.feedback, course.gradebook)

    def make_pool():
        if cluster:
            from autograder.batch.distributed import DaskPool

            return DaskPool(cluster, workers, limits or Limits(), hide=hide)
        return GradingPool(workers, limits or Limits(), hide=hide)

    return run_batch(course, spec, grader_context(spec, secret), LabGrader(spec, make_pool, secret),
                     student=student, regrade=regrade, retry_failed=retry_failed, progress=progress)
