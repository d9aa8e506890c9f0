"""One number reader for the lesson widget and the graded quiz (issues 30 and 31).

The same table of typed answers goes through both paths: the widget (a real ipywidgets QuestionView,
as a learner types into it) and the graded path (the answers cell read as data, then scored by
autograder/quiz/scoring.py). Both read each entry as the same number and say how, or both refuse it.
Then values that used to leave a graded submission pending go through the real `autograder grade`.
"""
from __future__ import annotations

import csv
import io

import nbformat
import pytest

from autograder.quiz.answers import parse_answers
from autograder.quiz.scoring import score_answer
from coursekit.quiz.bank import Item
from coursekit.quiz.engine import Question
from coursekit.quiz.numbers import UnreadableNumber, with_units
from coursekit.quiz.widgets import QuestionView

# typed, the question's units, the value it is read as (None: refused)
TABLE = [
    ("36,500", "", 36500), ("36 500", "", 36500), ("1.234.567", "", 1234567), ("0,075", "", 0.075),
    ("2,5", "", 2.5), ("1.234,5", "", 1234.5), ("1,234.5", "", 1234.5), ("-2,5", "", -2.5), ("3.2e9", "", 3.2e9),
    ("1,5e3", "", 1500), (".5", "", 0.5), ("٧٣٠", "", 730), ("36\u202f500", "", 36500),
    ("140 GB", "GB", 140), ("140GB", "GB", 140), ("140 gigabytes", "GB", 140), ("$0.002", "", 0.002),
    ("295 FLOP/byte", "FLOP/byte", 295), ("12%", "%", 12), ("12 percent", "%", 12), ("3.5x", "x", 3.5),
    ("4 milliseconds", "ms", 4), ("2 hrs", "hours", 2), ("1,200 tokens/s", "tokens/s", 1200),
    ("1,200 tokens per second", "tokens/s", 1200),
    # issue 31: units, currency signs and scale words
    ("73,000 thousand dollars", "thousand dollars per year", 73000), ("73,000", "thousand dollars per year", 73000),
    ("$73M", "thousand dollars per year", 73000), ("$73 million per year", "thousand dollars per year", 73000),
    ("$1,250 per day", "$ per day", 1250), ("$1,250 a day", "$ per day", 1250), ("1250/day", "$ per day", 1250),
    ("1,250 dollars daily", "$ per day", 1250), ("$730k", "$ per year", 730000), ("730 thousand", "$ per year", 730000),
    ("730K $ per year", "$ per year", 730000), ("730,000 $ per year", "$ per year", 730000),
    ("7B", "billion parameters", 7), ("7 billion parameters", "billion parameters", 7),
    ("7,000 million", "billion parameters", 7), ("2 B", "bytes per parameter", 2),
    ("2.5 per M tokens", "$ per million tokens", 2.5), ("$2.50 per million tokens", "$ per million tokens", 2.5),
    ("3.1e21 FLOPs", "x 10^21 FLOPs", 3.1), ("3.1", "x 10^21 FLOPs", 3.1),
    # issue 36: the Arabic decimal separator (U+066B) beside Arabic-Indic digits, and only as a decimal point
    ("٧٣٠٫٥", "", 730.5), ("٠٫٠٧٥", "", 0.075), ("1,234٫5", "", 1234.5), ("١٢٫٥ %", "%", 12.5),
    ("1٫2٫3", "", None), ("1٫234,5", "", None), ("1.2٫3", "", None),
    # refused: a guess would be needed, or the units are other units
    ("1.2.3", "", None), ("36,50,0", "", None), ("abc", "", None), ("5 TB", "GB", None), ("1e400", "", None),
    ("12,345.6.7", "", None), ("0,075,1", "", None), ("1 2", "", None), ("€5", "$ per day", None),
    ("5 per hour", "$ per day", None), ("140 GB", "", None), ("9" * 150, "", None), ("$$5", "", None),
    ("twelve", "%", None), ("-$-5", "", None),
]


def question(units: str, answer: float) -> Question:
    item = Item(id="t-num", type="numeric", stem="How much?", explanation="", source="", file="t.yaml", bank_id="t",
                answer={"fn": "math:fabs", "args": {"x": answer}}, tolerance={"rel": 1e-9}, units=units)
    return Question(item=item, seed=0, params={}, names={}, stem="How much?", explanation="", answer=float(answer))


@pytest.mark.parametrize("typed, units, value", TABLE, ids=[f"{t[:20]}|{u}" for t, u, _ in TABLE])
def test_widget_and_graded_quiz_read_the_same_number(typed, units, value):
    q = question(units, value if value is not None else 1.0)
    view = QuestionView(q, 1)
    view.input.value = typed
    answers = parse_answers(f"answers = {{1: {typed!r}}}")
    correct, response, note = score_answer(q, answers[1])
    if value is None:
        with pytest.raises(UnreadableNumber):
            view.response()
        assert not correct and response is None and note.startswith("unreadable answer: ")
        return
    assert view.response() == pytest.approx(value, rel=1e-12)
    assert response == pytest.approx(value, rel=1e-12) and correct, (typed, units, response, note)
    assert note == view.read_as(view.response()) and note.startswith("Read your answer as ")
    if units:
        assert with_units(f"{value:,.10g}", units) in note      # "$730,000 per year", never "730,000 $ per year"


def test_a_number_written_as_a_literal_is_in_the_question_s_units():
    q = question("thousand dollars per year", 73000)
    assert score_answer(q, 73000)[:2] == (True, 73000.0) and score_answer(q, 73000.0)[0]
    assert score_answer(q, True)[2].startswith("unreadable answer: Expected a number")
    assert "401 digits" in score_answer(q, 10**400)[2]
    assert score_answer(q, [1, 2])[2].startswith("unreadable answer")
    assert score_answer(q, float("nan"))[2].startswith("unreadable answer")


@pytest.mark.parametrize("source, reason", [
    ("answers = {'³': 'A'}", "key '³' is not a question number"),
    ("answers = {'١': 'A'}", "key '١' is not a question number"),
    (f"answers = {{{'9' * 400}: 'A'}}", "key an integer of 400 digits is not a question number"),
    ("answers = {1.0: 'A'}", "key 1.0 is not a question number"),
])
def test_keys_that_are_not_plain_question_numbers_are_never_guessed(source, reason):
    answers = parse_answers(source)
    assert dict(answers) == {} and answers.stray == [reason]


@pytest.mark.slow
def test_no_answer_value_leaves_a_graded_quiz_pending(quiz_template, tmp_path):
    """Through `autograder grade`: each ends graded or failed with a reason, and a rerun has nothing to do."""
    from quiz_course import QUIZ, answers_for, copy_course, hand_in, questions, run

    course = copy_course(quiz_template, tmp_path)
    right = answers_for("alice", 15)
    numeric = [n for n, q in enumerate(questions("alice"), 1) if q.type in ("numeric", "param")]
    assert numeric, "the fixture bank draws no numeric question for alice"
    typed = dict(right)
    for n in numeric:                         # typed as a person would: a decimal comma and grouping
        typed[n] = f"{right[n]:,.6f}".replace(",", " ").replace(".", ",")
    hand_in(course, "alice", answers_cell=f"answers = {typed!r}")
    huge = answers_for("bob", 15)
    huge[next(n for n, q in enumerate(questions("bob"), 1) if q.type in ("numeric", "param"))] = 10 ** 400
    hand_in(course, "bob", answers_cell=f"answers = {huge!r}")
    hand_in(course, "carol", answers_cell="answers = {'³': 'A', 1: 'B'}")

    def not_text(nb):
        cell = next(c for c in nb.cells if c.metadata.get("course_quiz", {}).get("role") == "answers")
        cell.source = [1, 2, 3]
    hand_in(course, "dan", answers=right, edit=not_text)

    done = run(course, "grade", QUIZ, "--no-progress", check=False)
    assert done.returncode == 0 and "GRADER ERROR" not in done.stdout, done.stdout + done.stderr
    rows = {r["student_id"]: r for r in csv.DictReader(io.StringIO(run(course, "export").stdout)) if r["lab_id"] == QUIZ}
    assert rows["alice"]["state"] == "graded" and float(rows["alice"]["score"]) == 15, rows["alice"]
    assert rows["bob"]["state"] == "graded" and float(rows["bob"]["score"]) == 14, rows["bob"]
    assert rows["carol"]["state"] == "graded" and float(rows["carol"]["score"]) <= 1, rows["carol"]   # '³' set aside
    assert rows["dan"]["state"] == "failed" and "not text" in rows["dan"]["reason"]
    graded = nbformat.read(course / "autograded" / "alice" / QUIZ / f"{QUIZ}.ipynb", as_version=4)
    assert "Read your answer as" in nbformat.writes(graded)          # says how the typed number was read
    assert "graded now 0" in run(course, "grade", QUIZ, "--no-progress").stdout


@pytest.mark.parametrize("units, shown", [("$ per year", "$730,000 per year"), ("$", "$730,000"),
                                          ("%", "730,000%"), ("GB", "730,000 GB"), ("", "730,000")])
def test_the_reading_writes_money_and_percent_as_a_reader_would(units, shown):
    from coursekit.quiz.numbers import read_number

    assert read_number("730000", units).how.startswith(f"Read your answer as {shown}")
