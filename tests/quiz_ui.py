"""Answering lesson quizzes in a browser, shared by the JupyterLab tests that click through them: the
fixture banks, the selector of the items on screen, a seed that draws a known item type first, and a wrong
answer to any item."""
from __future__ import annotations

from coursekit.quiz.bank import pool
from coursekit.quiz.engine import build_quiz
from paths import TESTS
from coursekit.quiz.engine import correct_response

GOOD = TESTS / "fixtures" / "quiz" / "good"
# Visible ones only: the session's workspace reopens notebooks of earlier tests in background tabs.
QUIZ_ITEMS = ".course-quiz .course-quiz-item:visible"


def first_single_choice_seed(banks) -> int:
    """A seed whose first drawn question is single choice (clicked as a radio button) and which also
    shows a multi-select one (so the screenshots show checkboxes too)."""
    bank = banks["m9-l1"]
    for seed in range(200):
        types = [q.type for q in build_quiz(bank, pool(bank, banks), seed)]
        if types[0] == "single" and "multi" in types:
            return seed
    raise AssertionError("no seed draws single first and a multi-select item")


def wrong_response(q):
    if q.type == "single":
        return next(i for i, o in enumerate(q.item.options) if not o.correct)
    if q.type == "multi":
        return correct_response(q) | {next(i for i, o in enumerate(q.item.options) if not o.correct)}
    return q.answer * 10
