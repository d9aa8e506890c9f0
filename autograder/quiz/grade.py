"""Grade a quiz assignment in the trusted process: the labs' batch, without a kernel.

Each submission's answers cell is read as data (answers.py); the student comes from the folder
`collect` put the submission in and the bank from the instructor's quiz record, never from the
notebook's metadata. The results store, the autograded notebook and nbgrader's gradebook are written
exactly as for a lab (autograder/grade.py), so `status`, `report`, `export`, `feedback` and nbgrader's
own tools show quizzes and labs alike, and a rerun grades only what changed.
"""
from __future__ import annotations

import os

from coursekit.quiz.bank import bank_files

from ..course import Course, Submission
from ..engine import SubmissionResult, TaskResult
from .. import submitted
from ..grade import (BatchReport, Progress, _finish, _publish, context_digest, failed_result, refused,
                     submission_hash)
from ..gradebook import GradebookWriter
from ..store import Store
from .answers import AnswersError, read_answers
from .assignment import QuizSpec, quiz_spec, student_questions
from .scoring import score_answer


def quiz_context(spec: QuizSpec, secret: bytes) -> str:
    """Fingerprint of what a score depends on besides the submission: secret, quiz record, banks."""
    return context_digest(secret, (spec.origin, spec.solution_path(), *bank_files(spec.banks)))


def score_submission(course: Course, spec: QuizSpec, sub: Submission, secret: bytes) -> dict:
    """The submission's result (SubmissionResult form); a bad submission fails with the reason."""
    try:
        answers = read_answers(sub.notebook, course.submitted)
    except AnswersError as error:
        return failed_result(sub, spec, str(error))
    except Exception as error:          # noqa: BLE001 - whatever the file holds, it ends failed, not pending
        return failed_result(sub, spec, f"invalid notebook: its answers could not be read ({type(error).__name__})")
    questions = student_questions(spec.bank, sub.student_id, secret.decode(), spec.banks)
    tasks = []
    for slot, (task, q) in enumerate(zip(spec.tasks, questions), 1):
        correct, _, note = score_answer(q, answers.get(slot))
        verdict = "right" if correct else ("wrong" if not note or note.startswith("Read ") else note)
        tasks.append(TaskResult(task.grade_id, task.points if correct else 0.0, task.points, correct,
                                f"{verdict}; {note}" if note.startswith("Read ") else verdict))
    extra = sorted(k for k in answers if not 1 <= k <= len(spec.tasks))
    flags = [f"answers for questions that do not exist: {extra[:5]}"] if extra else []
    flags += clock_flags(course, sub)
    score = sum(t.points for t in tasks)
    return SubmissionResult(sub.student_id, spec.lab_id, "graded", None, tasks, flags, score,
                            spec.total_points).to_json()


def clock_flags(course: Course, sub: Submission) -> list[str]:
    """A timestamp.txt that does not parse (or is not a small regular file) is flagged: lateness then
    rests on the file's date."""
    stamp = sub.notebook.parent / "timestamp.txt"
    if not os.path.lexists(stamp):
        return []
    text = submitted.read_text(stamp, course.submitted)
    try:
        from dateutil.parser import parse

        if text is None:
            raise ValueError("not a small regular file")
        parse(text[:100].strip())
    except (ValueError, OverflowError):
        return ["timestamp.txt unreadable: the submission time is the file's date (check lateness by hand)"]
    return []


def grade_quiz(course: Course, assignment: str, *, secret: bytes, student: str | None = None, regrade: bool = False,
               retry_failed: bool = False, progress: bool = True) -> BatchReport:
    spec = quiz_spec(course, assignment)
    context = quiz_context(spec, secret)
    report = BatchReport(assignment)
    with Store(course.results_db) as store, GradebookWriter(course, spec) as gradebook:
        todo = []
        for sub in course.submissions(assignment, student):
            digest = submission_hash(course, sub)
            row = store.get(assignment, sub.student_id, digest)
            if row is None or row.context != context or regrade or (retry_failed and row.status == "failed"):
                todo.append((sub, digest))
            else:
                report.skipped += 1
                _publish(course, spec, gradebook, report, sub, digest, row.result)
        bar = Progress(len(todo), f"grading {assignment}", progress)
        for sub, digest in todo:
            refusal = refused(course, spec, sub)
            try:
                result = failed_result(sub, spec, refusal) if refusal else score_submission(course, spec, sub, secret)
            except Exception as error:          # noqa: BLE001 - the grader's fault: left pending, batch goes on
                report.errors.append((sub.student_id, f"{type(error).__name__}: {error}"))
                bar.update(f"{sub.student_id}: grader error")
                continue
            store.set_grader(assignment, sub.student_id, digest, "local")
            _finish(course, spec, store, gradebook, report, sub, digest, context, result)
            bar.update(f"{sub.student_id}: {result['status']}")
        bar.close()
    return report
