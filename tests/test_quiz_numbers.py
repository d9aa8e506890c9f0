"""Numbers typed as people type them: read right, or refused with a message and no try used."""
from __future__ import annotations

import html
from pathlib import Path

import pytest

from coursekit import progress
from coursekit.quiz import load_all_banks, show_module_test, show_quiz
from coursekit.quiz.bank import pool
from coursekit.quiz.engine import build_quiz
from coursekit.quiz.numbers import UnreadableNumber, parse_number

GOOD = Path(__file__).resolve().parent / "fixtures" / "quiz" / "good"


@pytest.mark.parametrize("typed, units, value", [
    ("36,500", "", 36500), ("36 500", "", 36500), ("1,234,567", "", 1234567), ("1.234.567", "", 1234567),
    ("0,075", "", 0.075), ("2,5", "", 2.5), ("-2,5", "", -2.5), ("1,234.5", "", 1234.5), ("1.234,5", "", 1234.5),
    ("0.075", "", 0.075), (".5", "", 0.5), ("3.2e9", "", 3.2e9), ("1,5e3", "", 1500),
    ("140 GB", "GB", 140), ("140GB", "GB", 140), ("$0.002", "", 0.002), ("295 FLOP/byte", "FLOP/byte", 295),
])
def test_reads_what_people_type(typed, units, value):
    assert parse_number(typed, units) == pytest.approx(value)


@pytest.mark.parametrize("typed, units", [
    ("1.2.3", ""), ("36,50,0", ""), ("abc", ""), ("5 TB", "GB"), ("1e400", ""), ("12,345.6.7", ""), ("0,075,1", ""),
])
def test_refuses_what_it_would_have_to_guess(typed, units):
    with pytest.raises(UnreadableNumber, match="Could not read") as caught:
        parse_number(typed, units)
    assert repr(typed) in str(caught.value)


def numeric_seed(bank_id: str, banks) -> int:
    for seed in range(200):
        if any(q.type in ("numeric", "param") for q in build_quiz(banks[bank_id], pool(banks[bank_id], banks), seed)):
            return seed
    raise AssertionError(f"no seed of {bank_id} draws a numeric item")


@pytest.fixture
def numeric_view(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "progress"))
    monkeypatch.delenv("COURSE_STUDENT", raising=False)
    banks = load_all_banks(GOOD)
    quiz = show_quiz("m9-l1", root=GOOD, seed=numeric_seed("m9-l1", banks))
    index = next(i for i, v in enumerate(quiz.view.questions) if v.q.type in ("numeric", "param"))
    return quiz, quiz.view.questions[index], quiz.view.check_buttons[index]


def test_unreadable_answer_is_refused_without_using_a_try(numeric_view):
    quiz, view, button = numeric_view
    view.input.value = "36,50,0"
    button.click()
    shown = html.unescape(view.feedback.value)
    assert "Could not read '36,50,0'" in shown and "did not count as a try" in shown
    assert view.q.id not in quiz.view.tries and not button.disabled
    assert progress.quiz_attempts("m9-l1") == [] or not progress.quiz_attempts("m9-l1")[-1]["items"]


def test_separators_and_decimal_commas_are_graded_as_typed(numeric_view):
    quiz, view, button = numeric_view
    view.input.value = f"{view.q.answer * 10:,.4f}"            # grouped, and wrong: the value typed is graded
    button.click()
    assert "course-quiz-incorrect" in view.feedback.value and "Read your answer as" in view.feedback.value
    view.input.value = f"{view.q.answer:.4f}".replace(".", ",")  # a decimal comma, right
    button.click()
    assert "course-quiz-correct" in view.feedback.value, view.feedback.value
    record = progress.quiz_attempts("m9-l1")[-1]["items"][view.q.id]
    assert record["tries"] == 2
    assert record["responses"][0] == pytest.approx(view.q.answer * 10, rel=1e-6)


def test_module_test_is_not_submitted_with_an_unreadable_number(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "progress"))
    test = show_module_test("m9", root=GOOD)
    numeric = [v for v in test.view.questions if v.q.type in ("numeric", "param")]
    assert numeric, "the fixture module test draws a numeric item"
    for view in test.view.questions:
        view.set_response(view.q.correct_response())
    numeric[0].input.value = "twelve"
    assert test.view.submit(force=True) is None
    shown = html.unescape(test.view.result.value)
    assert "Not submitted" in shown and "Could not read 'twelve'" in shown
    numeric[0].set_response(numeric[0].q.correct_response())
    assert test.view.submit(force=True)["score"] == len(test.view.questions)
