"""One written answer against the student's own question: right or wrong, and what was chosen."""
from __future__ import annotations

import re
from typing import Any

from coursekit.quiz.engine import Question, grade, within
from coursekit.quiz.numbers import Reading, read_number


def to_response(q: Question, answer: Any) -> Any:
    """A student's written answer as an engine response; ValueError says what format was expected."""
    if q.type == "single":
        if not isinstance(answer, str):
            raise ValueError(f"expected one letter, got {str(answer)[:40]!r}")
        return q.index_of_letter(answer)
    if q.type == "multi":
        if isinstance(answer, str):  # "A, C", "A C" and "AC" all mean A and C
            letters = [x for x in re.split(r"[\s,;]+", answer) if x]
            if len(letters) == 1 and letters[0].isalpha():
                letters = list(letters[0])
        elif isinstance(answer, (list, tuple, set)):
            letters = list(answer)
        else:
            raise ValueError(f"expected a list of letters, got {str(answer)[:40]!r}")
        return frozenset(q.index_of_letter(str(x)) for x in letters)
    return read_number(answer, q.item.units)      # the lesson widget's reader: one parser for both


def score_answer(q: Question, answer: Any) -> tuple[bool, Any, str]:
    """(correct, response, note) for one written answer; a blank or malformed answer scores zero with
    the reason, whatever the value (a 400-digit integer, a nested list): every answer ends scored.
    For a number typed as text the note says how it was read ("Read your answer as 730,000 ...")."""
    if answer is None:
        return False, None, "no answer"
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
