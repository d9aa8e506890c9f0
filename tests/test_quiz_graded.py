"""Graded mode end to end with the real nbgrader: generate, students answer, collect, autograde, export,
then item analytics over the graded submissions."""
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


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"nbgrader {args} failed:\n{done.stdout}\n{done.stderr[-3000:]}"
    return done


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


@pytest.mark.slow
def test_graded_round_trip_with_nbgrader(tmp_path, monkeypatch, capsys):
    course = tmp_path / "course"          # a throwaway course dir, separate from the repo's nbgrader_config.py
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        "c.CourseDirectory.course_id = 'quiz-round-trip'\n")
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

    right_counts = {"alice": 15, "bob": 12, "carol": 4}
    expected = {}
    for student in students:
        personal = course / "personalized" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        nb = nbformat.read(personal, as_version=4)
        text = nbformat.writes(nb)
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
        expected[student] = right_counts[student]
        cell = next(c for c in nb.cells if c.metadata.get("course_quiz", {}).get("role") == "answers")
        cell.source = f"answers = {answers!r}"
        # collect: what `nbgrader collect` does, into submitted/<student>/<assignment>/
        dest = course / "submitted" / student / ASSIGNMENT
        dest.mkdir(parents=True)
        nbformat.write(nb, dest / f"{ASSIGNMENT}.ipynb")
    # Alice and Bob get different questions and numbers (the draw is keyed per student).
    a, b = (graded.student_questions(BANK, s, SECRET, GOOD) for s in ("alice", "bob"))
    assert [q.stem for q in a] != [q.stem for q in b]

    code, out = cli(["quiz", "grade", ASSIGNMENT, "--course-dir", str(course), "--root", str(GOOD)], capsys)
    assert code == 0, out.err
    assert "alice                15/15" in out.out and "carol                4/15" in out.out
    nbgrader(course, "export")
    with open(course / "grades.csv") as handle:
        grades = {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)}
    assert grades == {s: float(n) for s, n in expected.items()}

    code, out = cli(["quiz", "analytics", ASSIGNMENT, "--course-dir", str(course), "--root", str(GOOD),
                     "--plot", str(tmp_path / "items.png")], capsys)
    assert code == 0, out.err
    assert "3 students" in out.out and "p correct" in out.out and "(blank)" in out.out
    assert (tmp_path / "items.png").stat().st_size > 5000

    # A wrong secret at grading time re-keys every student, so their right answers no longer match.
    shutil.rmtree(course / "autograded")
    monkeypatch.setenv(graded.SECRET_ENV, "not-the-secret")
    nbgrader(course, "autograde", ASSIGNMENT, "--force", "--student", "alice")
    nbgrader(course, "export")
    with open(course / "grades.csv") as handle:
        alice = next(r for r in csv.DictReader(handle) if r["student_id"] == "alice")
    assert float(alice["score"]) < 15
