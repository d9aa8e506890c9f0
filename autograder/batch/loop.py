"""One batch loop for every kind of assignment: each submission ends graded or failed, or stays pending.

    report = run_batch(course, spec, context, grader, student=None, regrade=False, retry_failed=False)

`grader` is the assignment kind's own part: a context manager whose `submit(submission)` returns a
future of the result (a lab: the engine's worker pool, here or on Dask, batch/lab.py; a quiz: scored
in this process, quiz/grade.py). Everything else is shared: what is stale, what is refused before
anything reads it (refusal.py), the results store, the autograded notebook, nbgrader's gradebook and the
summary (report.py); what makes a stored result stale is context.py's digest.

Resume is by construction: the results store row is written last (record/store.py), each submission
is keyed by its content hash, and already-stored rows are skipped, so a killed batch rerun grades
only what is missing and the engine's determinism makes the rows identical.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from concurrent.futures import Future, as_completed

from autograder import submitted
from autograder.course import Course, Submission
from autograder.record import autograded
from autograder.record.gradebook import GradebookWriter
from autograder.record.store import Row, Store
from autograder.spec import LabSpec
from autograder.batch.refusal import failed_result, refused
from autograder.batch.report import BatchReport, Progress


def finished(result) -> Future:
    """A future already holding `result`: what a kind's grader returns when it decides at once."""
    future = Future()
    future.set_result(result)
    return future


def run_batch(course: Course, spec, context: str, grader, *, student: str | None = None, regrade: bool = False,
              retry_failed: bool = False, progress: bool = True) -> BatchReport:
    """Grade what is not graded yet under `context` (the fingerprint of everything but the notebook)."""
    assignment = spec.lab_id
    report = BatchReport(assignment)
    autograded.sweep_temp_files(course, assignment)        # what a crashed run left half-written
    with Store(course.results_db) as store, GradebookWriter(course, spec) as gradebook:
        todo = []
        for sub in course.submissions(assignment, student):
            digest = submitted.submission_hash(course, sub)
            row = store.get(assignment, sub.student_id, digest)
            if row is None or row.context != context or regrade or (retry_failed and row.status == "failed"):
                todo.append((sub, digest))
            else:
                report.skipped += 1
                _publish(course, spec, gradebook, report, sub, digest, row.result)
        bar = Progress(len(todo), f"grading {assignment}", progress)
        with grader:
            futures = {}
            for sub, digest in todo:
                refusal = refused(course, spec, sub)
                future = finished(failed_result(sub, spec, refusal)) if refusal else grader.submit(sub)
                futures[future] = (sub, digest)
            for future in as_completed(futures):
                sub, digest = futures[future]
                try:
                    result = future.result()
                except Exception as error:  # noqa: BLE001 - the grader's fault: the submission stays pending, the batch goes on
                    # The grader's fault (spec, solution, worker), not the student's: store nothing, so the
                    # submission stays pending and the next run grades it; the batch carries on.
                    report.errors.append((sub.student_id, f"{type(error).__name__}: {error}"))
                    bar.update(f"{sub.student_id}: grader error")
                    continue
                result = result.to_json() if hasattr(result, "to_json") else result
                result = _with_time_flag(course, sub, result)
                # before the commit point: a row never exists without its grader's name
                store.set_grader(assignment, sub.student_id, digest, getattr(future, "graded_by", None) or "local")
                _finish(course, spec, store, gradebook, report, sub, digest, context, result)
                bar.update(f"{sub.student_id}: {result['status']}")
        bar.close()
    return report


def _publish(course: Course, spec: LabSpec, gradebook: GradebookWriter, report: BatchReport, sub: Submission,
             digest: str, result: dict) -> None:
    """Make the autograded notebook, the gradebook and feedback show `result`, the stored result of the
    submission as it is now. A reused row needs this too: a crash may have lost these side effects, and
    after A, B, then A again they still show B. Only what differs is rewritten. A failure here is this
    submission's alone: it is listed and retried by the next run, and the batch carries on."""
    try:
        stamp = hashlib.sha256(f"{digest}\n{json.dumps(result, sort_keys=True)}".encode()).hexdigest()[:32]
        if autograded.stamp(course, spec.lab_id, spec.notebook, sub.student_id) != stamp:
            autograded.write(course, spec.lab_id, spec.notebook, sub.notebook, result, stamp)
            # feedback made from the old notebook is wrong now; `autograder feedback` makes it again
            shutil.rmtree(course.feedback / sub.student_id / spec.lab_id, ignore_errors=True)
        submitted_at, _ = submitted.submission_time(sub.notebook, course.submitted)
        if not gradebook.matches(result, submitted_at):
            gradebook.record(result, submitted_at)
    except Exception as error:                  # noqa: BLE001 - one submission never stops the batch
        gradebook.gb.db.rollback()
        report.unpublished.append((sub.student_id, f"{type(error).__name__}: {str(error)[:300]}"))


def _finish(course, spec, store: Store, gradebook: GradebookWriter, report: BatchReport, sub: Submission,
            digest: str, context: str, result: dict) -> None:
    _publish(course, spec, gradebook, report, sub, digest, result)
    row = Row(lab_id=spec.lab_id, student_id=sub.student_id, submission_hash=digest, context=context,
              status=result["status"], score=float(result["score"]), max_score=float(result["max_score"]),
              reason=result.get("reason"), result=result)
    store.put(row)                      # the commit point: only now does a rerun skip this submission
    report.graded.append(row)


def _with_time_flag(course: Course, sub: Submission, result: dict) -> dict:
    """Every kind's result carries the flag of a submission time that rests on a guess (the gradebook's
    late penalty reads the same time, submitted.submission_time)."""
    _, flag = submitted.submission_time(sub.notebook, course.submitted)
    if flag and flag not in result.get("flags", []):
        result = {**result, "flags": [*result.get("flags", []), flag]}
    return result
