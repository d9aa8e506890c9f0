"""Hostile quiz submissions through the real commands (`autograder quiz grade`, `autograder feedback`):
each gains nothing, leaks nothing and ends graded or failed with a reason. Nothing in a submission is
run, so the grading secret has nowhere to go; these cases prove it from the outside."""
from __future__ import annotations

import re

import pytest

from autograder.quiz.assignment import student_questions
from autograder.quiz.scoring import score_answer
from quiz_course import BANKS, QUIZ, SECRET, answers_for, copy_course, everything_written, hand_in, run, status_rows

pytestmark = pytest.mark.slow

WRONG = "{1: 'Z'}"


def _no_answers_cell(nb):
    nb.cells = [c for c in nb.cells if c.metadata.get("course_quiz", {}).get("role") != "answers"]


def _claims_alice(nb):
    nb.metadata["course_quiz"].update(student="alice", bank="m9-l1")


# student -> (answers cell source, or a function of the student's right answers giving it; notebook
# edit; expected state; what the reason or score says)
CASES = {
    "rebinder": ("import autograder.quiz.scoring as s\ns.score_answer = lambda *a: (True, None, '')\n"
                 f"answers = {WRONG}", None, "failed", "only `answers = {...}` is allowed"),
    "printer": (f"import os\nprint(os.environ['COURSE_GRADING_SECRET'])\nanswers = {WRONG}", None, "failed",
                "only `answers = {...}` is allowed"),
    "exfiltrator": ("answers = {1: open('/proc/self/environ').read(), 2: __import__('os').environ}", None,
                    "failed", "not a plain dict of values"),
    "listmaker": ("answers = ['A', 'B']", None, "failed", "is a list, not a dict"),
    "hoarder": ("answers = {1: '" + "A" * 30_000 + "'}", None, "failed", "answers cell too large"),
    "nester": ("answers = {1: " + "[" * 10 + "]" * 10 + "}", None, "failed", "nested deeper than"),
    "abyss": ("answers = {1: " + "[" * 5000 + "]" * 5000 + "}", None, "failed", "not valid Python"),
    # one bad entry costs only itself (issue 36): the other 14 right answers still score
    "longword": (lambda right: f"answers = {({**right, 1: 'B' * 500})!r}", None, "graded", "14/15"),
    "strayer": (lambda right: f"answers = {({**{k: v for k, v in right.items() if k != 2}, '²': right[2]})!r}",
                None, "graded", "14/15"),
    "eraser": (None, _no_answers_cell, "failed", "missing answers cell"),
    "impostor": (None, _claims_alice, "graded", "scored on its own draw"),
    "badclock": (None, None, "graded", "timestamp"),
}


@pytest.fixture(scope="module")
def graded(quiz_template, tmp_path_factory):
    course = copy_course(quiz_template, tmp_path_factory.mktemp("quiz-adv"))
    for student, (source, edit, _, _) in CASES.items():
        answers = answers_for("alice", 15) if student == "impostor" else answers_for(student, 15)
        source = source(answers_for(student, 15)) if callable(source) else source
        hand_in(course, student, source, answers=answers, edit=edit,
                timestamp="the day before yesterday, 25:61" if student == "badclock" else None)
    (course / "submitted" / "garbled" / QUIZ).mkdir(parents=True)
    (course / "submitted" / "garbled" / QUIZ / f"{QUIZ}.ipynb").write_text('{"cells": [ not json')
    grade = run(course, "quiz", "grade", QUIZ, "--no-progress", check=False)
    feedback = run(course, "feedback", QUIZ, check=False)
    return {"course": course, "grade": grade, "feedback": feedback, "status": status_rows(course)}


@pytest.mark.parametrize("student", sorted(CASES))
def test_each_case_ends_with_a_state_and_a_reason(graded, student):
    _, _, state, says = CASES[student]
    line = graded["status"][student]
    assert line.startswith(state), line
    if state == "failed":
        assert says in line and "0/15" in line
    elif says == "14/15":
        assert says in line, line
        if student == "strayer":
            assert "answers cell: key '²' is not a question number" in line, line
    elif student == "impostor":
        # Alice's right answers, metadata naming Alice and another bank: scored on the submitter's own draw.
        mine = student_questions("m9-module-test", "impostor", SECRET, BANKS)
        expected = sum(score_answer(q, answers_for("alice", 15)[n])[0] for n, q in enumerate(mine, 1))
        assert expected < 15 and f"{expected}/15" in line
    else:
        assert "15/15" in line and "timestamp.txt unreadable" in line


def test_an_unreadable_notebook_fails_with_its_reason(graded):
    assert re.match(r"failed\s+0/15.*invalid notebook", graded["status"]["garbled"])


def test_the_secret_is_nowhere_a_student_or_a_log_can_see(graded):
    course = graded["course"]
    assert graded["grade"].returncode == 0, graded["grade"].stdout + graded["grade"].stderr
    assert graded["feedback"].returncode == 0, graded["feedback"].stdout + graded["feedback"].stderr
    assert list(course.glob(f"feedback/*/{QUIZ}/*.html"))
    logs = "".join(graded[k].stdout + graded[k].stderr for k in ("grade", "feedback"))
    assert SECRET not in logs and SECRET not in everything_written(course)
