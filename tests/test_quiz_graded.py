"""Graded mode end to end with the real nbgrader and its exchange: generate and release, students
fetch, answer and submit, collect, autograde, export, then item analytics over the graded submissions.
Run on the fixture bank and on a real course bank (the M1 module test)."""
from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from coursekit.quiz import graded
from coursekit.quiz.cli import register

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "quiz"
GOOD = FIXTURES / "good"
SECRET = "test-instructor-secret"
BANK, ASSIGNMENT = "m9-module-test", "quiz-m9"
COURSE_ID = "quiz-round-trip"


def nbgrader(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"nbgrader {args} failed:\n{done.stdout}\n{done.stderr[-3000:]}"
    return done


def nbgrader_config(folder: Path, exchange: Path, **settings: str) -> Path:
    """nbgrader_config.py for one person's folder: the course id and a throwaway exchange and cache,
    so nothing touches the machine's /srv/nbgrader/exchange or the user's own nbgrader cache."""
    lines = ["c = get_config()", f"c.CourseDirectory.course_id = {COURSE_ID!r}",
             f"c.Exchange.root = {str(exchange)!r}", f"c.Exchange.cache = {str(folder / '.nbgrader-cache')!r}"]
    lines += [f"c.{key} = {value!r}" for key, value in settings.items()]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text("\n".join(lines) + "\n")
    return folder


def instructor_course(tmp_path: Path) -> Path:
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    course = tmp_path / "course"  # a throwaway course dir, separate from the repo's nbgrader_config.py
    return nbgrader_config(course, exchange, **{"CourseDirectory.root": str(course)})


def set_answers(nb, answers: dict) -> None:
    cell = next(c for c in nb.cells if c.metadata.get("course_quiz", {}).get("role") == "answers")
    cell.source = f"answers = {answers!r}"


def hand_in(tmp_path: Path, student: str, assignment: str, personalized: Path, answers: dict) -> Path:
    """The student's side: fetch the release from the exchange, save the personalized notebook the
    instructor handed out over the fetched one (same name), answer, and submit."""
    home = nbgrader_config(tmp_path / "students" / student, tmp_path / "exchange")
    nbgrader(home, "fetch_assignment", assignment)
    fetched = home / assignment / f"{assignment}.ipynb"
    assert fetched.exists()
    nb = nbformat.read(personalized, as_version=4)
    set_answers(nb, answers)
    nbformat.write(nb, fetched)
    nbgrader(home, "submit", assignment, "--student", student)
    return fetched


def notebook_text(path: Path) -> str:
    return "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)


def grades_csv(course: Path) -> dict[str, float]:
    nbgrader(course, "export")
    with open(course / "grades.csv") as handle:
        return {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)}


def written(q, correct: bool):
    """What a student would type: the key as letters/number, or a plausible wrong answer."""
    key = q.correct_response()
    if q.type == "single":
        pick = key if correct else next(i for i, o in enumerate(q.item.options) if not o.correct)
        return q.letter(pick)
    if q.type == "multi":
        picks = key if correct else key | {next(i for i, o in enumerate(q.item.options) if not o.correct)}
        return [q.letter(i) for i in sorted(picks)]
    return round(key, 6) if correct else key * 3


def cli(argv, capsys):
    parser = argparse.ArgumentParser(prog="course")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code = args.handler(args)
    return code, capsys.readouterr()


def all_right(questions) -> dict:
    return {n: written(q, True) for n, q in enumerate(questions, 1)}


@pytest.mark.slow
def test_graded_round_trip_with_nbgrader(tmp_path, monkeypatch, capsys):
    course = instructor_course(tmp_path)
    monkeypatch.delenv(graded.SECRET_ENV, raising=False)
    code, out = cli(["quiz", "release", BANK, "--course-dir", str(course), "--assignment", ASSIGNMENT,
                     "--students", "alice", "--root", str(GOOD)], capsys)
    assert code == 1 and "COURSE_GRADING_SECRET is not set" in out.err

    monkeypatch.setenv(graded.SECRET_ENV, SECRET)
    students = ["alice", "bob", "carol"]
    code, out = cli(["quiz", "release", BANK, "--course-dir", str(course), "--assignment", ASSIGNMENT,
                     "--students", ",".join(students), "--root", str(GOOD)], capsys)
    assert code == 0, out.err
    released = (course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
    assert "score_slot" not in released and "HIDDEN" not in released     # the key code stays with the instructor
    nbgrader(course, "release_assignment", ASSIGNMENT)                   # into the exchange's outbound folder

    right_counts = {"alice": 15, "bob": 12, "carol": 4}
    fetched = {}
    for student in students:
        personal = course / "personalized" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        text = notebook_text(personal)
        questions = graded.student_questions(BANK, student, SECRET, GOOD)
        # Only this student's questions and numbers; no key, no feedback, no explanation, no secret.
        for q in questions:
            assert q.stem in text
            assert q.explanation not in text
            for i, o in enumerate(q.item.options):
                assert q.option_feedback[i] not in text
            if q.type in ("numeric", "param"):
                assert q.feedback["correct"] not in text
        assert SECRET not in text and "score_slot" not in text
        # The student answers: the first N right, the rest wrong, one left blank.
        answers = {n: written(q, n <= right_counts[student]) for n, q in enumerate(questions, 1)}
        if right_counts[student] < 15:
            answers[15] = None
        fetched[student] = hand_in(tmp_path, student, ASSIGNMENT, personal, answers)
    # Alice and Bob get different questions and numbers (the draw is keyed per student).
    a, b = (graded.student_questions(BANK, s, SECRET, GOOD) for s in ("alice", "bob"))
    assert [q.stem for q in a] != [q.stem for q in b]

    nbgrader(course, "collect", ASSIGNMENT)                               # exchange inbound -> submitted/
    assert {p.parent.name for p in course.glob(f"submitted/*/{ASSIGNMENT}")} == set(students)
    code, out = cli(["quiz", "grade", ASSIGNMENT, "--course-dir", str(course), "--root", str(GOOD)], capsys)
    assert code == 0, out.err
    assert "alice                15/15" in out.out and "carol                4/15" in out.out
    assert grades_csv(course) == {s: float(n) for s, n in right_counts.items()}

    code, out = cli(["quiz", "analytics", ASSIGNMENT, "--course-dir", str(course), "--root", str(GOOD),
                     "--plot", str(tmp_path / "items.png")], capsys)
    assert code == 0, out.err
    assert "3 students" in out.out and "p correct" in out.out and "(blank)" in out.out
    assert (tmp_path / "items.png").stat().st_size > 5000

    # Late work: Bob resubmits through the exchange (collected with --update, a newer timestamp), and
    # the instructor accepts Carol's emailed copy by saving it over her submission (same timestamp).
    # nbgrader would regrade Bob on its own but skip Carol; `course quiz grade` regrades both.
    nb = nbformat.read(fetched["bob"], as_version=4)
    set_answers(nb, all_right(b))
    nbformat.write(nb, fetched["bob"])
    nbgrader(fetched["bob"].parent.parent, "submit", ASSIGNMENT, "--student", "bob")
    nbgrader(course, "collect", "--update", ASSIGNMENT)
    carol = course / "submitted" / "carol" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(carol, as_version=4)
    set_answers(nb, all_right(graded.student_questions(BANK, "carol", SECRET, GOOD)))
    nbformat.write(nb, carol)
    code, out = cli(["quiz", "grade", ASSIGNMENT, "--course-dir", str(course), "--root", str(GOOD)], capsys)
    assert code == 0, out.err
    assert "bob                  15/15" in out.out and "carol                15/15" in out.out
    assert grades_csv(course) == {"alice": 15.0, "bob": 15.0, "carol": 15.0}

    # A wrong secret at grading time re-keys every student, so their right answers no longer match.
    shutil.rmtree(course / "autograded")
    monkeypatch.setenv(graded.SECRET_ENV, "not-the-secret")
    nbgrader(course, "autograde", ASSIGNMENT, "--force", "--student", "alice")
    assert grades_csv(course)["alice"] < 15


@pytest.mark.slow
def test_graded_round_trip_with_a_course_bank(tmp_path, monkeypatch, capsys):
    """The same path on the real M1 module test from quizzes/, with the default bank folder."""
    bank, assignment = "m1-module-test", "m1-test"
    course = instructor_course(tmp_path)
    monkeypatch.setenv(graded.SECRET_ENV, SECRET)
    code, out = cli(["quiz", "release", bank, "--course-dir", str(course), "--assignment", assignment,
                     "--students", "dev,kim"], capsys)
    assert code == 0, out.err
    nbgrader(course, "release_assignment", assignment)
    right = {"dev": 15, "kim": 11}
    for student, n_right in right.items():
        questions = graded.student_questions(bank, student, SECRET)
        answers = {n: written(q, n <= n_right) for n, q in enumerate(questions, 1)}
        personal = course / "personalized" / student / assignment / f"{assignment}.ipynb"
        assert all(q.stem in notebook_text(personal) for q in questions)
        hand_in(tmp_path, student, assignment, personal, answers)
    nbgrader(course, "collect", assignment)
    code, out = cli(["quiz", "grade", assignment, "--course-dir", str(course)], capsys)
    assert code == 0, out.err
    assert "dev                  15/15" in out.out and "kim                  11/15" in out.out
    assert grades_csv(course) == {"dev": 15.0, "kim": 11.0}
