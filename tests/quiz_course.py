"""A throwaway course root with the fixture quiz bank released as a graded quiz, and helpers to hand
in submissions and run the real `autograder` command there (used by the graded-quiz tests). The
released template is the `quiz_template` session fixture in conftest.py; tests work on copies."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from autograder.quiz.assignment import META, student_questions
from paths import ROOT
from coursekit.quiz.engine import correct_response

BANKS = ROOT / "tests" / "fixtures" / "quiz" / "good"
BANK, QUIZ = "m9-module-test", "quiz-m9"
SECRET = "quiz-test-instructor-secret-7f3a"
STUDENTS = ("alice", "bob", "carol")


def env(course: Path, secret: str = SECRET) -> dict:
    return dict(os.environ, COURSE_GRADING_SECRET=secret, COURSE_ROOT=str(course), COURSE_QUICK="1",
                COURSE_PROGRESS_DIR=str(course / ".progress"),
                PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))


def run(course: Path, *args: str, check: bool = True, module: str = "autograder.cli",
        secret: str = SECRET) -> subprocess.CompletedProcess:
    """`autograder --root COURSE ARGS` (or another module's command) as a student's instructor runs it."""
    command = [sys.executable, "-m", module, *(["--root", str(course)] if module == "autograder.cli" else []), *args]
    done = subprocess.run(command, cwd=course, env=env(course, secret), capture_output=True, text=True, timeout=600)
    if check and done.returncode != 0:
        raise AssertionError(f"{module} {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


def release(folder: Path) -> Path:
    """A course root with QUIZ released from the fixture bank and personalized for STUDENTS."""
    course = folder / "course"
    course.mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    run(course, "quiz", "release", BANK, "--assignment", QUIZ, "--banks", str(BANKS), "--students", ",".join(STUDENTS))
    return course


def copy_course(template: Path, folder: Path) -> Path:
    target = folder / "course"
    shutil.copytree(template, target)      # nbgrader_config.py derives every path from its own folder
    return target


def questions(student: str):
    return student_questions(BANK, student, SECRET, BANKS)


def written(q, correct: bool):
    """What a student would type: the key as letters or a number, or a plausible wrong answer."""
    key = correct_response(q)
    if q.type == "single":
        return q.letter(key if correct else next(i for i, o in enumerate(q.item.options) if not o.correct))
    if q.type == "multi":
        picks = key if correct else key | {next(i for i, o in enumerate(q.item.options) if not o.correct)}
        return [q.letter(i) for i in sorted(picks)]
    return round(key, 6) if correct else key * 3


def answers_for(student: str, right: int) -> dict:
    """The first `right` questions answered right, the others wrong."""
    return {n: written(q, n <= right) for n, q in enumerate(questions(student), 1)}


def hand_in(course: Path, student: str, answers_cell: str | None = None, *, answers: dict | None = None,
            timestamp: str | None = "2026-11-20 10:00:00.000000 UTC", edit=None) -> Path:
    """submitted/<student>/QUIZ/QUIZ.ipynb from the student's personalized copy, as `collect` leaves it."""
    personal = course / "personalized" / (student if (course / "personalized" / student).is_dir() else STUDENTS[0])
    nb = nbformat.read(personal / QUIZ / f"{QUIZ}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get(META, {}).get("role") == "answers")
    cell.source = answers_cell if answers_cell is not None else f"answers = {answers!r}"
    if edit:
        edit(nb)
    folder = course / "submitted" / student / QUIZ
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{QUIZ}.ipynb"
    nbformat.write(nb, path)
    if timestamp is not None:
        (folder / "timestamp.txt").write_text(timestamp + "\n")
    return path


def nbgrader_grades(course: Path) -> dict[tuple[str, str], dict]:
    """Plain `nbgrader export`'s rows, keyed by (assignment, student id)."""
    import csv

    done = subprocess.run([sys.executable, "-m", "nbgrader", "export", "--to", str(course / "grades.csv")],
                          cwd=course, env=env(course), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    with open(course / "grades.csv") as handle:
        return {(row["assignment"], row["student_id"]): row for row in csv.DictReader(handle)}


def status_rows(course: Path, assignment: str = QUIZ) -> dict[str, str]:
    """`autograder status`'s table as {student: the rest of the student's line}."""
    rows = {}
    for line in run(course, "status", assignment).stdout.splitlines():
        cells = line.split(None, 2)
        if len(cells) == 3 and cells[0] == assignment:
            rows[cells[1]] = cells[2]
    return rows


def everything_written(course: Path) -> str:
    """All text a student could get back or an instructor could forward: autograded notebooks,
    feedback, the gradebook and the results store (as bytes decoded leniently)."""
    parts = []
    for folder in ("autograded", "feedback"):
        for path in (course / folder).rglob("*"):
            if path.is_file():
                parts.append(path.read_bytes().decode("utf-8", "replace"))
    for db in (course / "gradebook.db",):
        if db.exists():
            parts.append(db.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)
