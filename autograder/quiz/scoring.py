"""One written answer against the student's own question: right or wrong, and what was chosen."""
from __future__ import annotations

from typing import Any

from coursekit.quiz.engine import Question, grade
from coursekit.quiz.items import notebook_view
from coursekit.quiz.numbers import Reading

from autograder.quiz.answers import Unreadable


def to_response(q: Question, answer: Any) -> Any:
    """A student's written answer as an engine response; ValueError says what format was expected."""
    return notebook_view(q.type).read_written(q, answer)


def score_answer(q: Question, answer: Any) -> tuple[bool, Any, str]:
    """(correct, response, note) for one written answer; a blank or malformed answer scores zero with
    the reason, whatever the value (a 400-digit integer, a nested list): every answer ends scored.
    For a number typed as text the note says how it was read ("Read your answer as 730,000 ...")."""
    if answer is None:
        return False, None, "no answer"
    if isinstance(answer, Unreadable):              # read as data, but over a limit (answers.py)
        return False, None, f"unreadable answer: {answer.reason}"
    try:
        response = to_response(q, answer)
    except Exception as exc:            # noqa: BLE001 - a student's value never leaves the quiz pending
        return False, None, f"unreadable answer: {str(exc)[:200]}"
    how = ""
    if isinstance(response, Reading):
        response, how = response.value, response.how if isinstance(answer, str) else ""
    return grade(q, response).correct, response, how


def choice_label(q: Question, response: Any, answer: Any) -> list[str]:
    """What the student picked, in words analytics can count: option texts, or which number band."""
    if response is None:
        return ["(blank)" if answer is None else "(unreadable)"]
    return notebook_view(q.type).choice_label(q, response)
