"""Exercises with worked answers: predict a number, commit it, then reveal the worked answer.

    from coursekit.exercises import exercise
    exercise("m1-l2-train-70b")

Each lesson's exercises are data in coursekit/exercises/lessons/<lesson>.yaml (format: bank.py); their
answers and every number in their texts are computed by coursekit when loaded. In JupyterLab the cell
shows a widget (view.py) that records each reveal in the progress store; on the website the same
output is a self-contained HTML form (page.py).
"""
from __future__ import annotations

from pathlib import Path

from .bank import FOLDER, Exercise, ExerciseError, all_exercises, compare, get

__all__ = ["Exercise", "ExerciseError", "all_exercises", "compare", "exercise", "get", "lesson_exercises"]


def lesson_exercises(lesson: str, folder: Path = FOLDER) -> list[Exercise]:
    """A lesson's exercises in their file's order ("m1-l2")."""
    return [ex for ex in all_exercises(folder).values() if ex.lesson == lesson]


def _record(ex: Exercise, prediction: float, off: float, close: bool) -> None:
    from .. import progress

    progress.record_exercise(ex.id, lesson=ex.lesson, prediction=prediction, answer=ex.answer, off_pct=off, close=close)


def exercise(exercise_id: str, *, record: bool = True):
    """The exercise `exercise_id` as the cell's output (returns its view; the last line of a cell shows it)."""
    from .view import ExerciseView

    return ExerciseView(get(exercise_id), on_reveal=_record if record else None)
