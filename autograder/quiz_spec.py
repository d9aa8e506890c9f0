"""A graded quiz's spec: what the pipeline needs of a quiz assignment, beside a lab's (spec.py).

solutions/<assignment>/quiz.json, written by `autograder quiz release`, names the bank and its folder
and the number of questions; each question is one 1-point grade cell. Every stage asks here whether an
assignment is a quiz and what its spec is, so none of them needs the quiz package (autograder/quiz/,
the stage that writes, personalizes and scores quizzes) to do so.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class Course(Protocol):
    """What this module reads of autograder.course.Course: its folders. A protocol, so that course.py
    (above this floor) can import this module and not the other way round."""
    root: Path
    solutions: Path

QUIZ_FILE = "quiz.json"


@dataclass(frozen=True)
class QuizTask:
    grade_id: str
    points: float = 1.0


@dataclass(frozen=True)
class QuizSpec:
    """What the pipeline needs of an assignment (the same fields a LabSpec has), for a quiz."""
    lab_id: str
    notebook: str
    bank: str
    banks: Path
    tasks: tuple[QuizTask, ...]
    origin: Path

    @property
    def total_points(self) -> float:
        return float(sum(t.points for t in self.tasks))

    def solution_path(self) -> Path:
        return self.origin.parent / self.notebook


def grade_id(slot: int) -> str:
    return f"q{slot:02d}"


def is_quiz(course: Course, assignment: str) -> bool:
    return (course.solutions / assignment / QUIZ_FILE).is_file()


def quiz_spec(course: Course, assignment: str) -> QuizSpec:
    origin = course.solutions / assignment / QUIZ_FILE
    try:
        record = json.loads(origin.read_text(encoding="utf-8"))
        bank, banks, show = record["bank"], Path(record["banks"]), int(record["questions"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{origin}: not a quiz record written by `autograder quiz release` ({error})") from None
    banks = banks if banks.is_absolute() else course.root / banks
    tasks = tuple(QuizTask(grade_id(n)) for n in range(1, show + 1))
    return QuizSpec(assignment, f"{assignment}.ipynb", bank, banks, tasks, origin)
