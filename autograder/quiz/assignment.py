"""A graded quiz as an nbgrader assignment in the course root, beside the labs.

solutions/<assignment>/quiz.json names the bank and the bank folder (the instructor's record: the
grader never trusts a submission's metadata for either); solutions/<assignment>/<assignment>.ipynb
is the nbgrader source: a questions cell, an `answers` cell and one 1-point grade cell per question
holding no code at all. `autograder generate` writes the release into labs/, and personalize() one
copy per student, with that student's own questions and numbers.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import nbformat

from coursekit.quiz.bank import Bank, BankError, pool, resolve_bank, resolve_root
from coursekit.quiz.engine import Question, build_quiz, derive_seed
from coursekit.quiz.items import notebook_view
from coursekit.quiz.selftest import bank_problems

from autograder.quiz_spec import QUIZ_FILE, grade_id, quiz_spec

if TYPE_CHECKING:
    from autograder.course import Course

META = "course_quiz"                    # notebook and cell metadata key (student side reads it too)


def load_bank(bank_id: str, banks: Path | str) -> tuple[Bank, dict[str, Bank]]:
    return _checked_bank(bank_id, str(banks))


@lru_cache(maxsize=8)
def _checked_bank(bank_id: str, banks: str) -> tuple[Bank, dict[str, Bank]]:
    """Checked and self-tested once per command, not once per student. `bank_id` may be a former id
    (a quiz released before its bank was renamed): it finds the bank under its id now."""
    found, problems = bank_problems(bank_id, banks)
    if problems:     # a ValueError: the command prints every problem (file, item, message) and exits
        raise ValueError(f"bank {bank_id} under {banks} fails its checks:\n{BankError(problems)}")
    return resolve_bank(found, bank_id), found


def student_questions(bank_id: str, student: str, secret: str, banks: Path | str) -> list[Question]:
    """The student's draw and numeric variants: reproducible only with the instructor secret. Seeded and
    drawn with `bank_id` as the quiz record names it, never the bank's id now: a quiz released under a
    bank's former id keeps each student's questions after the rename."""
    bank, everything = load_bank(bank_id, banks)
    return build_quiz(bank, pool(bank, everything), derive_seed("graded", student, bank_id, secret=secret),
                      salt=bank_id)


def _cell_meta(role: str, **nbgrader: Any) -> dict:
    meta: dict[str, Any] = {META: {"role": role}}
    if nbgrader:
        meta["nbgrader"] = {"schema_version": 3, "task": False, **nbgrader}
    return meta


def answers_source(slots: list[tuple[int, str]]) -> str:
    lines = ["# Your answers: a letter for one-answer questions (\"B\"), a list of letters where several",
             "# are right ([\"A\", \"C\"]), a plain number for numeric ones (in the units asked for).",
             "# Only the values are read when your quiz is graded: nothing in this cell is run.",
             "answers = {"]
    lines += [f"    {n}: None,  # {hint}" for n, hint in slots]
    return "\n".join(lines + ["}"])


def write_source(course: Course, bank_id: str, assignment: str, banks: Path | str = "quizzes") -> Path:
    """solutions/<assignment>/: the quiz record and the nbgrader source notebook."""
    banks = resolve_root(banks).resolve()
    bank, _ = load_bank(bank_id, banks)
    folder = course.solutions / assignment
    folder.mkdir(parents=True, exist_ok=True)
    inside = banks.is_relative_to(course.root)
    # the id as given (a former one too): it seeds every student's questions, so releasing again with the
    # same command keeps the questions students already have
    record = {"bank": bank_id, "banks": str(banks.relative_to(course.root) if inside else banks),
              "questions": bank.show}
    (folder / QUIZ_FILE).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    nb = nbformat.v4.new_notebook()
    nb.metadata[META] = {"bank": bank_id, "assignment": assignment}
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells.append(nbformat.v4.new_markdown_cell(
        f"# {bank.title} (graded)\n\nThis notebook holds your own version of the questions: the numbers "
        "differ from student to student. Write your answers in the `answers` cell, save, and submit. "
        "You get no feedback here; your instructor grades the submission."))
    nb.cells.append(nbformat.v4.new_markdown_cell(
        "*Your questions are added here when your instructor personalizes this notebook.*",
        metadata=_cell_meta("questions")))
    nb.cells.append(nbformat.v4.new_code_cell(answers_source([(n, "your answer") for n in range(1, bank.show + 1)]),
                                              metadata=_cell_meta("answers")))
    for n in range(1, bank.show + 1):
        # A grade cell with nothing to run: it gives nbgrader's gradebook a 1-point item per question.
        # The score comes from the trusted grader, which reads the answers cell as data.
        nb.cells.append(nbformat.v4.new_code_cell(
            f"# Question {n} is scored from your answers cell when your instructor grades the quiz.",
            metadata=_cell_meta("score", grade=True, solution=False, locked=True, points=1, grade_id=grade_id(n))))
    path = folder / f"{assignment}.ipynb"
    nbformat.write(nb, path)
    return path


def question_markdown(n: int, q: Question) -> str:
    """One question as the student sees it: stem and options or units; never the key or feedback."""
    lines = [f"**{n}.** {q.stem}", *notebook_view(q.type).markdown(q)]
    return "\n\n".join(lines[:1]) + "\n\n" + "\n".join(lines[1:])


def answer_hint(q: Question) -> str:
    return notebook_view(q.type).answer_hint(q)


def personalize(course: Course, assignment: str, students: list[str], secret: str) -> list[Path]:
    """personalized/<student>/<assignment>/<assignment>.ipynb from the generated release in labs/."""
    spec = quiz_spec(course, assignment)
    released = course.labs / assignment / spec.notebook
    if not released.exists():
        raise FileNotFoundError(f"{released} not found: run `autograder generate {assignment}` first")
    paths = []
    for student in students:
        nb = nbformat.read(released, as_version=4)
        questions = student_questions(spec.bank, student, secret, spec.banks)
        for cell in nb.cells:
            role = cell.metadata.get(META, {}).get("role")
            if role == "questions":
                cell.source = f"Questions for **{student}**\n\n" + "\n\n---\n\n".join(
                    question_markdown(n, q) for n, q in enumerate(questions, 1))
            elif role == "answers":
                cell.source = answers_source([(n, answer_hint(q)) for n, q in enumerate(questions, 1)])
        nb.metadata[META]["student"] = student
        path = course.root / "personalized" / student / assignment / spec.notebook
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
        paths.append(path)
    return paths
