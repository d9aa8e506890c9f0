"""show_quiz and show_module_test: find the bank, refuse it if broken, seed it, display it, record results."""
from __future__ import annotations

from pathlib import Path

from .. import progress
from .bank import Bank, pool, resolve_bank
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
        own = [a for a in attempts if a.get("source") != "site"]   # the website's draws are not this engine's
        if own:
            # After a kernel restart the latest attempt comes back, finished or not, with its score;
            # a fresh draw is the learner's choice (New attempt), never a silent reset to 0.
            return own[-1]["seed"]
        return lesson_seed(progress.learner_id(), self.bank.id, len(attempts))

    def _build(self, seed: int) -> LessonQuizView:
        self.seed = seed
        self.questions = build_quiz(self.bank, self.pool, seed)
        done, history = {}, ""
        if self.record:
            attempts = progress.quiz_attempts(self.bank.id)
            number = next((n for n, a in enumerate(attempts, 1) if a["seed"] == seed), len(attempts) + 1)
            done = attempts[number - 1]["items"] if number <= len(attempts) else {}
            history = attempt_history(number, attempts[:number - 1])
        return LessonQuizView(self.bank.title, self.questions, on_answer=self._record if self.record else None,
                              on_new_attempt=self.new_attempt, done=done, history=history)

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


def attempt_history(number: int, earlier: list[dict]) -> str:
    """'Attempt 3. Earlier attempts: 1/3, 3/3 (first-try scores).' for the line above the questions."""
    if not earlier:
        return f"Attempt {number}."
    scores = ", ".join(f"#{n}: {a.get('score', 0)}/{a.get('total', 0)}" for n, a in enumerate(earlier, 1))
    return f"Attempt {number}. Earlier attempts: {scores}."


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
    bank = resolve_bank(banks, bank_id)
    if error is None and bank.kind != "lesson-quiz":
        from .bank import Problem
        error = error_widget(f"{bank_id!r} is a {bank.kind}, not a lesson quiz",
                             [Problem(bank.path, "", "use show_module_test(module) for module tests")])
    if error is not None:
        _display(error)
        return error
    quiz = LessonQuiz(bank, banks, seed, record)
    _display(quiz.view.box)
    return quiz


def module_test_bank(module: str, banks: dict[str, Bank]) -> Bank | None:
    return next((b for b in banks.values() if b.kind == "module-test" and b.module == module), None)


class ModuleTest:
    def __init__(self, bank: Bank, banks: dict[str, Bank], student: str, record: bool = True,
                 attempt: int | None = None):
        self.bank, self.student, self.record = bank, student, record
        earlier = (progress.module_test_attempts(bank.module, bank.id, student, formerly=bank.formerly)
                   if record else [])
        chosen = attempt is not None
        # The next attempt after those submitted: redisplaying before submitting shows the same test.
        self.attempt = attempt if chosen else len(earlier) + 1
        self.seed = module_test_seed(student, bank.id, self.attempt)
        self.questions = build_quiz(bank, pool(bank, banks), self.seed)
        self.view = ModuleTestView(bank.title, self.questions, bank.pass_mark,
                                   on_submit=self._record if record else None)
        self.box = self.view.box
        if earlier and not chosen:
            self.review = self._review(banks, earlier[-1])
            self.box = self._behind_start_button(earlier)

    def _review(self, banks: dict[str, Bank], last: dict) -> ModuleTestView:
        """The last submitted attempt as it was just after submitting: its questions (its seed draws them
        again), its answers and each one's feedback; a reload kept only the score. Records nothing."""
        number = last.get("attempt", 1)
        # drawn under the id it was recorded with: a former one for an attempt from before a rename
        questions = build_quiz(self.bank, pool(self.bank, banks), last.get("seed", 0), salt=last.get("bank", ""))
        view = ModuleTestView(f"{self.bank.title}: your attempt {number}, reviewed", questions, self.bank.pass_mark)
        given = last.get("items") or {}
        for question in view.questions:
            response = (given.get(question.q.id) or {}).get("response")
            try:
                if response is not None:
                    question.set_response(response)
            except Exception:   # noqa: BLE001 - a stored answer is the learner's past, never a reason the page fails
                pass
        view.submit(force=True)
        view.submit_button.layout.display = "none"
        return view

    def _behind_start_button(self, earlier: list[dict]):
        """After a restart a submitted test shows its results; a new attempt starts only when asked."""
        import ipywidgets as widgets

        rows = "".join(f"<li>Attempt {a.get('attempt', n)}: {a['score']}/{a['total']} "
                       f"({a['score'] / a['total'] if a['total'] else 0:.0%}), "
                       f"{'passed' if a.get('passed') else 'not passed'}</li>" for n, a in enumerate(earlier, 1))
        history = widgets.HTML(f"<div class='course-quiz-history'><b>{self.bank.title}</b>: your submitted "
                               f"attempts<ul>{rows}</ul></div>")
        start = widgets.Button(description=f"Start attempt {self.attempt}", icon="play", button_style="primary")
        start.add_class("course-quiz-start")
        # the last attempt's review below; the next attempt's questions only on request (layouts are shared)
        box = widgets.VBox([history, start, self.review.box])

        def begin(_button):
            box.children = (history, self.view.box)

        start.on_click(begin)
        box.add_class("course-module-test-attempts")
        return box

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
    _display(test.box)
    return test
