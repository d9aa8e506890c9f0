"""Numbers typed as people type them: read right, or refused with a message and no try used."""
from __future__ import annotations

import html
import math

import pytest

from coursekit import progress
from coursekit.quiz import load_all_banks, show_module_test, show_quiz
from coursekit.quiz.bank import pool
from coursekit.quiz.engine import build_quiz
from coursekit.quiz.numbers import UnreadableNumber, parse_number, read_number
from paths import ROOT, TESTS
from coursekit.quiz.engine import correct_response

GOOD = TESTS / "fixtures" / "quiz" / "good"


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
        view.set_response(correct_response(view.q))
    numeric[0].input.value = "twelve"
    assert test.view.submit(force=True) is None
    shown = html.unescape(test.view.result.value)
    assert "Not submitted" in shown and "Could not read 'twelve'" in shown
    numeric[0].set_response(correct_response(numeric[0].q))
    assert test.view.submit(force=True)["score"] == len(test.view.questions)


def test_the_number_reader_reads_the_same_in_python_and_the_browser():
    """The course website's port of this reader (coursekit/app/site/static/quiz-engine.js, run in node):
    read_number over every unit a bank uses and a table of spellings: the same value, the same
    'Read your answer as' line, or the same message why not."""
    from site_js import MALFORMED, node

    banks = load_all_banks(ROOT / "quizzes")
    units = sorted({it.units for b in banks.values() for it in b.items if it.type in ("numeric", "param")} | {""})
    texts = MALFORMED + ["36,500", "36500", "1,120 GB", "$0.002", "0.2 cents", "45%", "3.1e21 FLOPs", "3.1 x 10^21",
                         "140 gigabytes", "$2.5M per year", "2.5 million dollars a year", "12 ms", "1 hour", "8 x",
                         "8 times", "1.5 TB/s", "0,5", "1 234 567,89", "+5", "- 5", "$-5", "+$5", "5$"]
    cases = [[t, u] for u in units for t in texts]
    want = []
    for t, u in cases:
        try:
            r = read_number(t, u)
            want.append({"ok": True, "value": r.value, "how": r.how})
        except UnreadableNumber as exc:
            want.append({"ok": False, "message": str(exc)})
    got = node({"op": "read", "cases": cases})
    for (t, u), w, g in zip(cases, want, got):
        if w["ok"] and g["ok"]:
            assert math.isclose(w["value"], g["value"], rel_tol=1e-12, abs_tol=0), (t, u, w, g)
            assert w["how"] == g["how"], (t, u)
        else:
            assert w == g, (t, u, w, g)
    assert sum(w["ok"] for w in want) > 200 and sum(not w["ok"] for w in want) > 200


def test_percent_or_fraction_is_read_both_ways_and_a_factor_of_100_is_named():
    """M1 L1 asks MFU as a fraction: "39%" is read as 0.39; an item in % takes the fraction too, said how
    it was read; a percent typed bare where a fraction is asked gets the factor-of-100 line."""
    from coursekit.quiz.engine import grade, instantiate
    from coursekit.quiz.items.numeric.model import HUNDREDFOLD

    assert read_number("39%").value == pytest.approx(0.39)
    assert read_number("39 percent").how == "Read your answer as 0.39 (39%, as a fraction)."
    banks = load_all_banks(ROOT / "quizzes")
    items = {it.id: it for b in banks.values() for it in b.items}
    mfu = instantiate(items["m1-l1-mfu"], 0)
    assert grade(mfu, read_number(f"{mfu.answer * 100:.4f}%").value).correct
    slip = grade(mfu, mfu.answer * 100)
    assert not slip.correct and slip.feedback == HUNDREDFOLD
    percent = next(instantiate(it, 0) for it in items.values() if it.type in ("numeric", "param") and it.units == "%")
    outcome = grade(percent, percent.answer / 100)
    assert outcome.correct and "Read your answer as the fraction" in outcome.feedback, outcome.feedback
