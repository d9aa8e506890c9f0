"""Graded mode: a lesson quiz or module test as an nbgrader assignment, keyed by an instructor secret.

Flow (each step is a plain nbgrader step or a small one of ours):
1. write_source(): an nbgrader *source* notebook: a questions cell, an `answers` cell, and one
   1-point grade cell per question whose body is a hidden test calling score_slot().
2. `nbgrader generate_assignment`: hidden tests are stripped from the student version.
3. personalize(): one copy of the release per student with that student's own questions and numbers
   (drawn with HMAC(secret, student)); no answer key, no feedback, no secret leaves the instructor.
4. Students fill `answers`; submissions are collected into submitted/<student>/<assignment>/.
5. `nbgrader autograde`: nbgrader restores the hidden tests; score_slot() recomputes the student's
   draw and keys from the student id (the autograded/<student>/<assignment> folder nbgrader runs
   the notebook in) and COURSE_GRADING_SECRET, and returns 1.0 or 0.0 as nbgrader partial credit.
"""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat

from .bank import BankError, Bank, pool, resolve_root
from .engine import Question, build_quiz, derive_seed, grade, parse_number, within
from .selftest import bank_problems

SECRET_ENV = "COURSE_GRADING_SECRET"   # shared with the lab autograder's hidden tests
STUDENT_ENV = "COURSE_GRADING_STUDENT"  # lets an instructor score outside nbgrader (never set by students)
META = "course_quiz"                    # notebook and cell metadata key


class GradingError(RuntimeError):
    pass


def grading_secret() -> str:
    secret = os.environ.get(SECRET_ENV, "")
    if not secret:
        raise GradingError(f"{SECRET_ENV} is not set: graded quizzes derive each student's questions and "
                           "keys from it. Export the course's instructor secret before releasing or grading.")
    return secret


def graded_seed(secret: str, student: str, bank_id: str) -> int:
    return derive_seed("graded", student, bank_id, secret=secret)


def _bank(bank_id: str, root) -> tuple[Bank, dict[str, Bank]]:
    banks, problems = bank_problems(bank_id, root)
    if problems:
        raise BankError(problems)
    return banks[bank_id], banks


def student_questions(bank_id: str, student: str, secret: str, root="quizzes") -> list[Question]:
    """The student's draw and numeric variants: reproducible only with the instructor secret."""
    bank, banks = _bank(bank_id, root)
    return build_quiz(bank, pool(bank, banks), graded_seed(secret, student, bank_id))


# --- 1. the nbgrader source notebook -------------------------------------------------------------

def _cell_meta(role: str, **nbgrader) -> dict:
    meta: dict[str, Any] = {META: {"role": role}}
    if nbgrader:
        meta["nbgrader"] = {"schema_version": 3, "task": False, **nbgrader}
    return meta


def answers_source(slots: list[tuple[int, str]]) -> str:
    lines = ["# Your answers: a letter for one-answer questions (\"B\"), a list of letters where several",
             "# are right ([\"A\", \"C\"]), a plain number for numeric ones (in the units asked for).",
             "answers = {"]
    lines += [f"    {n}: None,  # {hint}" for n, hint in slots]
    return "\n".join(lines + ["}"])


def write_source(bank_id: str, course_dir: Path | str, assignment: str | None = None, *, root="quizzes",
                 source_folder: str = "source") -> Path:
    """Write <course_dir>/<source_folder>/<assignment>/<assignment>.ipynb for nbgrader to generate."""
    bank, _ = _bank(bank_id, root)
    assignment = assignment or bank_id
    root_arg = "" if str(root) == "quizzes" else f", root={str(resolve_root(root))!r}"
    nb = nbformat.v4.new_notebook()
    nb.metadata[META] = {"bank": bank_id, "assignment": assignment}
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells.append(nbformat.v4.new_markdown_cell(
        f"# {bank.title} (graded)\n\nThis notebook holds your own version of the questions: the numbers "
        "differ from student to student. Write your answers in the `answers` cell, run it, save, and "
        "submit. You get no feedback here; your instructor grades the submission."))
    nb.cells.append(nbformat.v4.new_markdown_cell(
        "*Your questions are added here when your instructor personalizes this notebook.*",
        metadata=_cell_meta("questions")))
    nb.cells.append(nbformat.v4.new_code_cell(answers_source([(n, "your answer") for n in range(1, bank.show + 1)]),
                                              metadata=_cell_meta("answers")))
    for n in range(1, bank.show + 1):
        body = (f"# Question {n} is scored when your submission is graded.\n### BEGIN HIDDEN TESTS\n"
                f"from coursekit.quiz.graded import score_slot\nscore_slot({bank_id!r}, {n}, answers{root_arg})\n"
                "### END HIDDEN TESTS")
        nb.cells.append(nbformat.v4.new_code_cell(body, metadata=_cell_meta(
            "score", grade=True, solution=False, locked=True, points=1, grade_id=f"q{n:02d}")))
    path = Path(course_dir) / source_folder / assignment / f"{assignment}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def generate(course_dir: Path | str, assignment: str) -> None:
    """Run the real `nbgrader generate_assignment` in the course directory."""
    _nbgrader(course_dir, "generate_assignment", assignment, "--force")


def _nbgrader(course_dir, *args: str) -> subprocess.CompletedProcess:
    # nbgrader shells out to `alembic` from PATH; put this interpreter's scripts first so an
    # unactivated virtual environment still works.
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course_dir, capture_output=True, text=True,
                          env=env)
    if done.returncode != 0:
        raise GradingError(f"nbgrader {' '.join(args)} failed in {course_dir} (exit {done.returncode}):\n"
                           f"{done.stdout[-2000:]}{done.stderr[-3000:]}")
    return done


# --- 3. one notebook per student --------------------------------------------------------------------

def question_markdown(n: int, q: Question) -> str:
    """One question as the student sees it: stem and options or units; never the key or feedback."""
    lines = [f"**{n}.** {q.stem}"]
    if q.type in ("single", "multi"):
        lines.append("*(choose one)*" if q.type == "single" else "*(choose all that apply)*")
        lines += [f"- **{q.letter(i)}.** {text}" for i, text in q.choices()]
    else:
        lines.append(f"*(a number{', in ' + q.item.units if q.item.units else ''})*")
    return "\n\n".join(lines[:1]) + "\n\n" + "\n".join(lines[1:])


def answer_hint(q: Question) -> str:
    if q.type == "single":
        return 'one letter, e.g. "B"'
    if q.type == "multi":
        return 'a list of letters, e.g. ["A", "C"]'
    return f"a number{' in ' + q.item.units if q.item.units else ''}"


def personalize(course_dir: Path | str, assignment: str, students: list[str], *, root="quizzes",
                release_folder: str = "release", out_folder: str = "personalized") -> list[Path]:
    """Write <out_folder>/<student>/<assignment>/<assignment>.ipynb from the generated release."""
    secret = grading_secret()
    course_dir = Path(course_dir)
    released = course_dir / release_folder / assignment / f"{assignment}.ipynb"
    if not released.exists():
        raise GradingError(f"{released} not found: run nbgrader generate_assignment {assignment} first")
    paths = []
    for student in students:
        nb = nbformat.read(released, as_version=4)
        bank_id = nb.metadata.get(META, {}).get("bank")
        if not bank_id:
            raise GradingError(f"{released} has no {META}.bank metadata: it was not written by write_source")
        questions = student_questions(bank_id, student, secret, root)
        for cell in nb.cells:
            role = cell.metadata.get(META, {}).get("role")
            if role == "questions":
                cell.source = f"Questions for **{student}**\n\n" + "\n\n---\n\n".join(
                    question_markdown(n, q) for n, q in enumerate(questions, 1))
            elif role == "answers":
                cell.source = answers_source([(n, answer_hint(q)) for n, q in enumerate(questions, 1)])
        nb.metadata[META]["student"] = student
        path = course_dir / out_folder / student / assignment / f"{assignment}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
        paths.append(path)
    return paths


# --- 5. scoring at grading time ----------------------------------------------------------------------

def current_student(assignment: str | None = None) -> str:
    """Who is being graded: nbgrader runs each submission in autograded/<student>/<assignment>/."""
    if os.environ.get(STUDENT_ENV):
        return os.environ[STUDENT_ENV]
    if os.environ.get("NBGRADER_EXECUTION") != "autograde":
        raise GradingError("score_slot runs during `nbgrader autograde` (or with COURSE_GRADING_STUDENT set)")
    here = Path.cwd()
    if assignment and here.name != assignment:
        raise GradingError(f"cannot tell the student: expected to run in .../<student>/{assignment}, not {here}")
    return here.parent.name


def to_response(q: Question, answer: Any) -> Any:
    """A student's written answer as an engine response; ValueError says what format was expected."""
    if q.type == "single":
        if not isinstance(answer, str):
            raise ValueError(f"expected one letter, got {answer!r}")
        return q.index_of_letter(answer)
    if q.type == "multi":
        if isinstance(answer, str):  # "A, C", "A C" and "AC" all mean A and C
            letters = [x for x in re.split(r"[\s,;]+", answer) if x]
            if len(letters) == 1 and letters[0].isalpha():
                letters = list(letters[0])
        elif isinstance(answer, (list, tuple, set)):
            letters = list(answer)
        else:
            raise ValueError(f"expected a list of letters, got {answer!r}")
        return frozenset(q.index_of_letter(str(x)) for x in letters)
    return parse_number(answer)


def score_answer(q: Question, answer: Any) -> tuple[bool, Any, str]:
    """(correct, response, note) for one written answer; a blank or malformed answer scores zero."""
    if answer is None:
        return False, None, "no answer"
    try:
        response = to_response(q, answer)
    except (ValueError, TypeError) as exc:
        return False, None, f"unreadable answer: {exc}"
    return grade(q, response).correct, response, ""


_GRADING_CACHE: dict[tuple, list[Question]] = {}


def score_slot(bank_id: str, slot: int, answers: dict, root="quizzes") -> float:
    """nbgrader partial credit for question `slot`: 1.0 if right, else 0.0."""
    # One kernel runs all of a submission's grade cells: check the bank and draw the questions once.
    key = (bank_id, current_student(), grading_secret(), str(root))
    if key not in _GRADING_CACHE:
        _GRADING_CACHE[key] = student_questions(bank_id, key[1], key[2], root)
    questions = _GRADING_CACHE[key]
    if not 1 <= slot <= len(questions):
        raise GradingError(f"question {slot} does not exist (the quiz has {len(questions)})")
    answer = answers.get(slot, answers.get(str(slot))) if isinstance(answers, dict) else None
    correct, _, note = score_answer(questions[slot - 1], answer)
    if note:
        print(f"Question {slot}: {note}")
    return 1.0 if correct else 0.0


# --- reading graded submissions (for analytics) --------------------------------------------------------

def read_answers(path: Path | str) -> dict:
    """The literal `answers = {...}` dict from a submitted notebook's answers cell (never executed)."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code" or cell.metadata.get(META, {}).get("role") != "answers":
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "answers" for t in node.targets):
                try:
                    value = ast.literal_eval(node.value)
                except ValueError as exc:
                    raise GradingError(f"{path}: the answers cell is not a plain dict of values ({exc})") from None
                return value if isinstance(value, dict) else {}
    raise GradingError(f"{path}: no answers cell (metadata {META}.role = answers) found")


def graded_responses(course_dir: Path | str, assignment: str, *, root="quizzes",
                     folder: str = "autograded") -> list[dict]:
    """One record per (student, question): item id, correct, the option(s) or number chosen."""
    secret = grading_secret()
    records = []
    for path in sorted(Path(course_dir, folder).glob(f"*/{assignment}/{assignment}.ipynb")):
        student = path.parent.parent.name
        bank_id = nbformat.read(path, as_version=4).metadata.get(META, {}).get("bank")
        if not bank_id:
            raise GradingError(f"{path}: no {META}.bank metadata")
        answers = read_answers(path)
        for n, q in enumerate(student_questions(bank_id, student, secret, root), 1):
            answer = answers.get(n, answers.get(str(n)))
            correct, response, note = score_answer(q, answer)
            records.append({"student": student, "slot": n, "item": q.id, "type": q.type, "correct": correct,
                            "choice": _choice_label(q, response, answer)})
    return records


def _choice_label(q: Question, response: Any, answer: Any) -> list[str]:
    """What the student picked, in words analytics can count: option texts, or which number band."""
    if response is None:
        return ["(blank)" if answer is None else "(unreadable)"]
    if q.type == "single":
        return [q.item.options[response].text]
    if q.type == "multi":
        return [q.item.options[i].text for i in sorted(response)] or ["(none)"]
    if within(response, q.answer, q.item.tolerance):
        return ["correct value"]
    for k, (value, _) in enumerate(q.mistakes, 1):
        if within(response, value, q.item.tolerance):
            return [f"mistake {k}"]
    return ["other value"]
