"""One batch loop for every kind of assignment: each submission ends graded or failed, or stays pending.

    report = run_batch(course, spec, context, grader, student=None, regrade=False, retry_failed=False)

`grader` is the assignment kind's own part: a context manager whose `submit(submission)` returns a
future of the result (a lab: the engine's worker pool, here or on Dask, batch/lab.py; a quiz: scored
in this process, quiz/grade.py). Everything else is shared: what is stale, what is refused before
anything reads it, the results store, the autograded notebook, nbgrader's gradebook and the summary.

Resume is by construction: the results store row is written last (record/store.py), each submission
is keyed by its content hash, and already-stored rows are skipped, so a killed batch rerun grades
only what is missing and the engine's determinism makes the rows identical.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import statistics
import sys
from concurrent.futures import Future, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from autograder import submitted
from autograder.course import Course, Submission
from autograder.record import autograded
from autograder.record.gradebook import GradebookWriter
from autograder.record.store import Row, Store
from autograder.spec import REPO_ROOT, LabSpec


def context_digest(secret: bytes, paths) -> str:
    """Fingerprint of what a result depends on besides the submission (labs and quizzes alike): the
    secret, through an HMAC so the digest never reveals it, and the named files' paths and bytes."""
    digest = hashlib.sha256(hmac.new(secret, b"autograder-context", hashlib.sha256).digest())
    for path in paths:
        if path and Path(path).exists():
            digest.update(str(path).encode() + b"\0" + Path(path).read_bytes())
    return digest.hexdigest()[:16]




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
    from autograder.judge.engine import SubmissionResult, TaskResult

    tasks = [TaskResult(t.grade_id, 0.0, float(t.points), False, reason) for t in spec.tasks]
    return SubmissionResult(student_id=submission.student_id, lab_id=spec.lab_id, status="failed", reason=reason,
                            tasks=tasks, flags=[], score=0.0, max_score=float(spec.total_points),
                            seconds=0.0).to_json()


@dataclass
class BatchReport:
    lab_id: str
    graded: list[Row] = field(default_factory=list)     # rows written in this run
    skipped: int = 0                                     # already in the store (resume)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (student, grader-side error): left pending
    unpublished: list[tuple[str, str]] = field(default_factory=list)  # (student, error): stored, not yet shown

    @property
    def failed(self) -> list[Row]:
        return [r for r in self.graded if r.status == "failed"]


class Progress:
    """tqdm on stderr when available; otherwise a line every 10%."""

    def __init__(self, total: int, label: str, enabled: bool):
        self.total, self.done, self.bar = total, 0, None
        self.enabled = enabled and total > 0
        if self.enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc=label, unit="nb", file=sys.stderr, dynamic_ncols=True)
            except ImportError:
                pass
        self.label = label

    def update(self, note: str = "") -> None:
        self.done += 1
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_postfix_str(note, refresh=False)
            self.bar.update(1)
        elif self.done == self.total or self.done % max(1, self.total // 10) == 0:
            print(f"{self.label}: {self.done}/{self.total}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()





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
                except Exception as error:
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


def summary_table(report: BatchReport, rows: list[Row]) -> str:
    """Counts, score statistics and every failure with its reason (rows: the lab's current rows)."""
    from autograder.record.tables import table

    graded = [r for r in rows if r.status == "graded"]
    failed = [r for r in rows if r.status == "failed"]
    flagged = [r for r in rows if r.result.get("flags")]
    lines = [f"{report.lab_id}: graded now {len(report.graded)}, already graded {report.skipped}; "
             f"total {len(rows)} ({len(graded)} graded, {len(failed)} failed, {len(flagged)} flagged)"]
    for student, error in report.errors:
        lines.append(f"GRADER ERROR for {student} (left pending; fix and rerun `autograder grade`): {error}")
    for student, error in report.unpublished:
        lines.append(f"NOT PUBLISHED for {student} (graded and stored; the next run retries): {error}")
    if rows:
        scores = sorted(r.score for r in rows)
        top = rows[0].max_score
        mean = sum(scores) / len(scores)
        lines.append(f"score out of {top:g}: mean {mean:.2f}, median {statistics.median(scores):g}, "
                     f"min {scores[0]:g}, max {scores[-1]:g}")
        # Long batches list only what needs the instructor's eye; `autograder status` lists everyone.
        shown = rows if len(rows) <= 40 else [r for r in rows if r.status == "failed" or r.result.get("flags")]
        body = [[r.student_id, r.status, f"{r.score:g}/{r.max_score:g}",
                 r.reason or "", "; ".join(r.result.get("flags", []))] for r in shown]   # whole: a cut flag hides its cause
        if body:
            lines.append(table(["student", "status", "score", "reason", "flags"], body))
    return "\n".join(lines)
