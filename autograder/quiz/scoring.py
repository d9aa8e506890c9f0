"""One written answer against the student's own question: right or wrong, and what was chosen."""
from __future__ import annotations

import re
from typing import Any

from coursekit.quiz.engine import Question, grade, parse_number, within


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
    return parse_number(answer)


def score_answer(q: Question, answer: Any) -> tuple[bool, Any, str]:
    """(correct, response, note) for one written answer; a blank or malformed answer scores zero."""
    if answer is None:
        return False, None, "no answer"
    try:
        response = to_response(q, answer)
    except (ValueError, TypeError, IndexError, KeyError) as exc:
        return False, None, f"unreadable answer: {exc}"
    return grade(q, response).correct, response, ""


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
