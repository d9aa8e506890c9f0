"""Grade a quiz assignment in the trusted process: the labs' batch, without a kernel.

Each submission's answers cell is read as data (answers.py); the student comes from the folder
`collect` put the submission in and the bank from the instructor's quiz record, never from the
notebook's metadata. One batch loop runs labs and quizzes (autograder/batch/loop.py): the results
store, the autograded notebook and nbgrader's gradebook are written alike, so `status`, `report`,
`export`, `feedback` and nbgrader's own tools show both, and a rerun grades only what changed.
"""
from __future__ import annotations

from concurrent.futures import Future

from coursekit.quiz.bank import bank_files

from autograder.course import Course, Submission
from autograder.judge.results import SubmissionResult, TaskResult
from autograder.batch.context import context_digest
from autograder.batch.loop import run_batch
from autograder.batch.refusal import failed_result
from autograder.batch.report import BatchReport
from autograder.quiz.answers import AnswersError, read_answers
from autograder.quiz.assignment import student_questions
from autograder.quiz_spec import QuizSpec, quiz_spec
from autograder.quiz.scoring import score_answer


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
    # a key that is no question number costs only the answer it holds: said where a question has none
    stray = f" (the answers cell's {'; '.join(answers.stray[:3])}, so its answer was not scored)" if answers.stray else ""
    for slot, (task, q) in enumerate(zip(spec.tasks, questions), 1):
        correct, _, note = score_answer(q, answers.get(slot))
        verdict = "right" if correct else ("wrong" if not note or note.startswith("Read ") else note)
        message = f"{verdict}; {note}" if note.startswith("Read ") else verdict
        tasks.append(TaskResult(task.grade_id, task.points if correct else 0.0, task.points, correct,
                                message + stray if slot not in answers else message))
    extra = sorted(k for k in answers if not 1 <= k <= len(spec.tasks))
    flags = [f"answers for questions that do not exist: {extra[:5]}"] if extra else []
    flags += [f"answers cell: {problem}" for problem in answers.stray[:5]]
    score = sum(t.points for t in tasks)
    return SubmissionResult(sub.student_id, spec.lab_id, "graded", None, tasks, flags, score,
                            spec.total_points).to_json()


class QuizGrader:
    """The quiz kind's part of the batch loop: each submission scored here, in the trusted process
    (no kernel: the answers cell is read as data), its future already done."""

    def __init__(self, course: Course, spec: QuizSpec, secret: bytes) -> None:
        self.course, self.spec, self.secret = course, spec, secret

    def __enter__(self) -> "QuizGrader":
        return self

    def __exit__(self, *exc) -> None:
        pass

    def submit(self, sub: Submission) -> Future:
        future = Future()
        try:
            future.set_result(score_submission(self.course, self.spec, sub, self.secret))
        except Exception as error:      # noqa: BLE001 - the grader's fault: the loop leaves it pending
            future.set_exception(error)
        return future


def grade_quiz(course: Course, assignment: str, *, secret: bytes, student: str | None = None, regrade: bool = False,
               retry_failed: bool = False, progress: bool = True) -> BatchReport:
    spec = quiz_spec(course, assignment)
    return run_batch(course, spec, quiz_context(spec, secret), QuizGrader(course, spec, secret),
                     student=student, regrade=regrade, retry_failed=retry_failed, progress=progress)
