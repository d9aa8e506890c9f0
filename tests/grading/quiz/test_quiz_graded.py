"""Graded quizzes through the real commands: `autograder quiz release`, submissions as `collect` leaves
them, `autograder quiz grade` (answers read as data in the trusted process), then nbgrader's own
export, `autograder status/export`, resume, regrade after a resubmission, and item analytics."""
from __future__ import annotations

import csv
import io
import json
import re
import shutil

import nbformat
import pytest

from autograder.quiz.assignment import student_questions
from quiz_course import (BANK, BANKS, QUIZ, ROOT, SECRET, STUDENTS, answers_for, copy_course, hand_in, nbgrader_grades,
                         questions, run, status_rows)

pytestmark = pytest.mark.slow


@pytest.fixture
def course(quiz_template, tmp_path):
    return copy_course(quiz_template, tmp_path)


def text_of(path) -> str:
    return "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)


def test_release_gives_each_student_their_questions_and_no_key(course):
    released = (course / "labs" / QUIZ / f"{QUIZ}.ipynb").read_text()
    source = (course / "solutions" / QUIZ / f"{QUIZ}.ipynb").read_text()
    for text in (released, source):                     # nothing to run: no scorer, no hidden test, no secret
        assert "score_slot" not in text and "HIDDEN" not in text and "import" not in text and SECRET not in text
    for student in STUDENTS:
        text = text_of(course / "personalized" / student / QUIZ / f"{QUIZ}.ipynb")
        for q in questions(student):
            assert q.stem in text and q.explanation not in text
            assert not any(q.option_feedback[i] in text for i in range(len(q.item.options)))
        assert SECRET not in text
    assert [q.stem for q in questions("alice")] != [q.stem for q in questions("bob")]


def test_grade_agrees_with_nbgrader_status_and_export_and_resumes(course, tmp_path):
    right = {"alice": 15, "bob": 12, "carol": 4}
    for student, n in right.items():
        answers = answers_for(student, n)
        if n < 15:
            answers[15] = None                          # one left blank
        hand_in(course, student, answers=answers)
    out = run(course, "quiz", "grade", QUIZ, "--no-progress").stdout
    assert f"{QUIZ}: graded now 3, already graded 0" in out
    grades = nbgrader_grades(course)                    # nbgrader's own export reads the same gradebook
    assert {s: float(grades[(QUIZ, s)]["raw_score"]) for s in right} == {s: float(n) for s, n in right.items()}
    assert {grades[(QUIZ, s)]["status"] for s in right} == {"graded"}
    rows = status_rows(course)
    assert rows["alice"].startswith("graded") and "15/15" in rows["alice"] and "4/15" in rows["carol"]
    exported = list(csv.DictReader(io.StringIO(run(course, "export", "--lab", QUIZ).stdout)))
    assert {r["student_id"]: (r["state"], r["score"]) for r in exported} == {
        "alice": ("graded", "15"), "bob": ("graded", "12"), "carol": ("graded", "4")}
    report = run(course, "report", QUIZ, "--no-png").stdout
    assert f"== {QUIZ}: 3 submissions, 3 graded, 0 failed, 0 pending" in report and "q15" in report

    # Resumable: nothing changed, nothing is graded again; a resubmission is pending until graded.
    assert f"{QUIZ}: graded now 0, already graded 3" in run(course, "quiz", "grade", QUIZ, "--no-progress").stdout
    hand_in(course, "carol", answers=answers_for("carol", 15))
    assert status_rows(course)["carol"].startswith("pending")
    pending = nbgrader_grades(course)[(QUIZ, "carol")]  # nbgrader's export no longer shows the old score
    assert (pending["status"], pending["score"]) == ("pending", "")
    out = run(course, "grade", QUIZ, "--no-progress").stdout    # `autograder grade QUIZ` is the same grader
    assert f"{QUIZ}: graded now 1, already graded 2" in out
    assert float(nbgrader_grades(course)[(QUIZ, "carol")]["raw_score"]) == 15

    # The old entry point runs nothing of the grader's: it names the command to use instead.
    moved = run(course, "quiz", "grade", QUIZ, "--no-progress", module="coursekit.app.cli", check=False)
    assert moved.returncode == 2 and moved.stdout == "", moved.stdout + moved.stderr
    assert f"run `autograder quiz grade {QUIZ} --no-progress`" in moved.stderr

    out = run(course, "quiz", "analytics", QUIZ, "--plot", str(tmp_path / "items.png")).stdout
    assert "3 students" in out and "p correct" in out and "(blank)" in out
    assert (tmp_path / "items.png").stat().st_size > 5000


def test_keys_come_from_the_secret(course):
    """Graded under another secret, every draw changes, so right answers stop matching: the keys are
    recomputed from the secret on the trusted side, not read from anything the student holds."""
    hand_in(course, "alice", answers=answers_for("alice", 15))
    full = re.compile(r"alice\s+graded\s+15/15")
    assert full.search(run(course, "quiz", "grade", QUIZ, "--no-progress").stdout)
    other = run(course, "quiz", "grade", QUIZ, "--no-progress", secret="not-the-secret").stdout
    assert "graded now 1" in other and not full.search(other)


def test_release_refuses_a_broken_bank_with_the_file_named(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    done = run(course, "quiz", "release", "m9-broken", "--banks", str(BANKS.parent / "broken"), check=False)
    assert done.returncode != 0 and ".yaml" in done.stderr
    assert not (course / "solutions" / "m9-broken").exists()


def test_a_quiz_released_before_its_bank_was_renamed_grades_as_released(course, tmp_path):
    """The bank renamed after the release, its old id kept in `formerly`: quiz.json still names the old id,
    each student's questions are drawn and seeded with it as released, so the right answers still score;
    releasing by the old id finds the bank too."""
    banks = tmp_path / "banks"                     # the fixture banks, renamed where quiz.json looks for them
    shutil.copytree(BANKS, banks)
    bank_file = banks / "m9" / "module-test.yaml"
    bank_file.write_text(bank_file.read_text().replace("id: m9-module-test\n",
                                                       "id: m9-test\nformerly: [m9-module-test]\n", 1))
    record = course / "solutions" / QUIZ / "quiz.json"
    released = json.loads(record.read_text())
    assert released["bank"] == BANK == "m9-module-test"
    record.write_text(json.dumps({**released, "banks": str(banks)}))
    assert [q.stem for q in student_questions(BANK, "alice", SECRET, banks)] == [q.stem for q in questions("alice")]
    hand_in(course, "alice", answers=answers_for("alice", 15))
    assert re.search(r"alice\s+graded\s+15/15", run(course, "quiz", "grade", QUIZ, "--no-progress").stdout)
    run(course, "quiz", "release", BANK, "--assignment", "quiz-again", "--banks", str(banks), "--students", "alice")
    again = text_of(course / "personalized" / "alice" / "quiz-again" / "quiz-again.ipynb")
    assert all(q.stem in again for q in questions("alice"))
    assert json.loads((course / "solutions" / "quiz-again" / "quiz.json").read_text())["bank"] == BANK
