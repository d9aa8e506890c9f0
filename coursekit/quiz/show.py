"""show_quiz and show_module_test: find the bank, refuse it if broken, seed it, display it, record results."""
from __future__ import annotations

from pathlib import Path

from .. import progress
from .bank import Bank, pool
from .engine import Outcome, Question, build_quiz, derive_seed
from .selftest import bank_problems
from .widgets import LessonQuizView, ModuleTestView, error_widget


def _display(widget) -> None:
    from IPython.display import display

    display(widget)


def lesson_seed(learner: str, bank_id: str, attempt: int) -> int:
    """Attempt n of a learner on a bank: the same draw and numbers until the attempt is finished."""
    return derive_seed("lesson", learner, bank_id, attempt)


def module_test_seed(student: str, bank_id: str, attempt: int = 1) -> int:
    """Attempt n of a student: its own draw and numbers, so a retake after the key was shown is a new
    test. Attempt 1 keeps the source it always had (results already recorded stay reproducible)."""
    if attempt == 1:
        return derive_seed("module-test", student, bank_id)
    return derive_seed("module-test", student, bank_id, attempt)


class LessonQuiz:
    """Draws the questions for the current attempt, shows them and records each checked answer."""

    def __init__(self, bank: Bank, banks: dict[str, Bank], seed: int | None, record: bool = True):
        self.bank, self.pool, self.fixed_seed, self.record = bank, pool(bank, banks), seed, record
        self.box_holder = None
        self.view = self._build(self._current_seed())

    def _current_seed(self) -> int:
        if self.fixed_seed is not None:
            return self.fixed_seed
        attempts = progress.quiz_attempts(self.bank.id) if self.record else []
        if attempts and not progress.attempt_finished(attempts[-1]):
            return attempts[-1]["seed"]  # resume the unfinished attempt after a kernel restart
        return lesson_seed(progress.learner_id(), self.bank.id, len(attempts))

    def _build(self, seed: int) -> LessonQuizView:
        self.seed = seed
        self.questions = build_quiz(self.bank, self.pool, seed)
        done = {}
        if self.record:
            attempt = next((a for a in progress.quiz_attempts(self.bank.id) if a["seed"] == seed), None)
            done = attempt["items"] if attempt else {}
        return LessonQuizView(self.bank.title, self.questions, on_answer=self._record if self.record else None,
                              on_new_attempt=self.new_attempt, done=done)

    def _record(self, q: Question, outcome: Outcome) -> None:
        progress.record_quiz(self.bank.id, module=self.bank.module, seed=self.seed,
                             shown=[x.id for x in self.questions], item_id=q.id, response=outcome.response,
                             correct=outcome.correct)

    def new_attempt(self) -> None:
        """Replace the questions with a fresh draw (the next attempt's seed) in the same output area."""
        if self.fixed_seed is not None:
            self.fixed_seed = derive_seed("next", self.fixed_seed)
            seed = self.fixed_seed
        else:
            attempts = progress.quiz_attempts(self.bank.id) if self.record else []
            started = any(a["seed"] == self.seed for a in attempts)
            n = len(attempts) if started else len(attempts) + 1  # skip the untouched current draw
            seed = lesson_seed(progress.learner_id(), self.bank.id, n)
        old = self.view
        self.view = self._build(seed)
        old.box.children = self.view.box.children  # swap contents so the displayed box updates in place
        self.view.box = old.box

    def _ipython_display_(self):
        pass  # already displayed by show_quiz


def _lookup(bank_id: str, root) -> tuple[dict[str, Bank], object]:
    banks, problems = bank_problems(bank_id, root)
    if problems:
        return banks, error_widget(f"Quiz {bank_id!r} cannot be shown: its bank has problems", problems)
    return banks, None


def show_quiz(bank_id: str, *, seed: int | None = None, root: str | Path = "quizzes", record: bool = True):
    """Display the lesson quiz `bank_id` (quizzes/README.md) and return its controller.

    The draw is deterministic per learner and attempt (or per `seed` when given). A broken bank is
    refused: the output shows every problem (file, item id, message) instead of a quiz.
    """
    banks, error = _lookup(bank_id, root)
    if error is None and banks[bank_id].kind != "lesson-quiz":
        from .bank import Problem
        error = error_widget(f"{bank_id!r} is a {banks[bank_id].kind}, not a lesson quiz",
                             [Problem(banks[bank_id].path, "", "use show_module_test(module) for module tests")])
    if error is not None:
        _display(error)
        return error
    quiz = LessonQuiz(banks[bank_id], banks, seed, record)
    _display(quiz.view.box)
    return quiz


def module_test_bank(module: str, banks: dict[str, Bank]) -> Bank | None:
    return next((b for b in banks.values() if b.kind == "module-test" and b.module == module), None)


class ModuleTest:
    def __init__(self, bank: Bank, banks: dict[str, Bank], student: str, record: bool = True,
                 attempt: int | None = None):
        self.bank, self.student, self.record = bank, student, record
        # The next attempt after those submitted: redisplaying before submitting shows the same test.
        if attempt is None:
            attempt = len(progress.module_test_attempts(bank.module, bank.id, student)) + 1 if record else 1
        self.attempt = attempt
        self.seed = module_test_seed(student, bank.id, attempt)
        self.questions = build_quiz(bank, pool(bank, banks), self.seed)
        self.view = ModuleTestView(bank.title, self.questions, bank.pass_mark,
                                   on_submit=self._record if record else None)

    def _record(self, items: dict) -> None:
        progress.record_module_test(self.bank.module, bank_id=self.bank.id, student=self.student, seed=self.seed,
                                    items=items, pass_mark=self.bank.pass_mark, attempt=self.attempt)

    def _ipython_display_(self):
        pass  # already displayed by show_module_test


def show_module_test(module: str, *, student: str | None = None, root: str | Path = "quizzes",
                     record: bool = True, attempt: int | None = None):
    """Display module `module`'s test: 15 questions drawn for this student, submitted as a whole.

    Each attempt (the next one after those in the progress store, or `attempt`) has its own draw.
    """
    from .bank import scan_banks

    banks, _ = scan_banks(root)
    bank = module_test_bank(module, banks)
    if bank is None:
        from .bank import Problem
        error = error_widget(f"No module test for {module!r}",
                             [Problem(str(root), "", f"no bank with kind: module-test and module: {module}")])
        _display(error)
        return error
    banks, error = _lookup(bank.id, root)
    if error is not None:
        _display(error)
        return error
    test = ModuleTest(bank, banks, student or progress.learner_id(), record, attempt)
    _display(test.view.box)
    return test
