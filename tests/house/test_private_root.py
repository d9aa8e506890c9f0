"""A public course with a private instructor folder, through the real commands (docs/INSTRUCTORS.md).

The private folder is a course root of its own: nbgrader_config.py, and one folder per lab under
solutions/<lab>/ holding the solution notebook and spec.py (the hidden-case generator inside it).
The public package generates, grades and exports it with `--root`; the student checks a copy with
`course check`. Nothing private is read from or written into the public checkout.
"""
from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from paths import ROOT
from private_course import LAB, NB, private_folder, run

RIGHT = {"impl_add": "def add(a, b):\n    return a + b", "impl_scale": "def scale(xs, k):\n    return [x * k for x in xs]",
         "impl_mean": "def mean(xs):\n    return sum(xs) / len(xs)"}
WRONG_MEAN = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)"
SKIP = {".venv", "__pycache__", ".pytest_cache", "artifacts", ".ipynb_checkpoints"}


def checkout_state() -> tuple[str, dict[str, tuple[int, int]]]:
    """`git status --porcelain` and (size, mtime) of every file of the checkout but caches."""
    status = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout
    files = {}
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP and d != ".git"]
        for name in names:
            stat = os.stat(os.path.join(folder, name))
            files[os.path.join(folder, name)] = (stat.st_size, stat.st_mtime_ns)
    return status, files


def student_copy(private: Path, **bodies: str) -> str:
    nb = nbformat.read(private / "labs" / LAB / NB, as_version=4)
    for cell in nb.cells:
        grade_id = (cell.metadata.get("nbgrader") or {}).get("grade_id")
        if grade_id in RIGHT:
            cell.source = bodies.get(grade_id, RIGHT[grade_id])
    return nbformat.writes(nb)


@pytest.mark.slow
def test_private_folder_generates_grades_and_exports_without_touching_the_checkout(tmp_path):
    before = checkout_state()
    private = private_folder(tmp_path)
    grader = ("autograder.cli", "--root", str(private))

    run(private, *grader, "generate")
    release = private / "labs" / LAB
    assert (release / NB).is_file() and (release / f"{LAB}.checks.json").is_file()
    assert "BEGIN HIDDEN TESTS" not in (release / NB).read_text()

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "ada.ipynb").write_text(student_copy(private))
    (inbox / "ben.ipynb").write_text(student_copy(private, impl_mean=WRONG_MEAN))
    run(private, *grader, "collect", str(inbox), "--lab", LAB)
    graded = run(private, *grader, "grade", LAB, "--workers", "1", "--no-progress")
    assert (private / "instructor-secret").is_file(), graded.stdout + graded.stderr   # made under the root

    rows = {r["student_id"]: r for r in csv.DictReader(io.StringIO(run(private, *grader, "export").stdout))}
    assert rows["ada"]["score"] == "6" and rows["ben"]["score"] == "3", rows

    # The student's check of a work copy reads the private release's visible checks, not the grader.
    work = tmp_path / "work" / LAB
    work.mkdir(parents=True)
    (work / NB).write_text(student_copy(private, impl_mean=WRONG_MEAN))
    check = run(private, "coursekit.app.cli", "check", str(work / NB), env_extra={"COURSE_ROOT": str(private)})
    assert check.returncode == 1 and "PASS  Task (add)" in check.stdout and "FAIL  Task (mean)" in check.stdout

    assert checkout_state() == before, "the public checkout changed"
    assert not (ROOT / "instructor-secret").exists() and not (ROOT / "labs" / LAB).exists()


@pytest.mark.slow
def test_a_private_graded_quiz_bank_is_graded_and_exported_from_the_root(quiz_template, tmp_path):
    """The graded bank lives only in the private folder: the quiz record names it there, the grader
    reads its keys from there, and the checkout is neither read for it nor written."""
    import json

    from quiz_course import QUIZ, answers_for, copy_course, hand_in, run as grader


    before = checkout_state()
    private = copy_course(quiz_template, tmp_path)
    banks = private / "private-banks"
    shutil.copytree(ROOT / "tests" / "fixtures" / "quiz" / "good", banks)
    record = private / "solutions" / QUIZ / "quiz.json"
    data = json.loads(record.read_text())
    record.write_text(json.dumps({**data, "banks": "private-banks"}))   # relative: under the root

    hand_in(private, "alice", answers=answers_for("alice", 15))
    hand_in(private, "bob", answers=answers_for("bob", 5))
    grader(private, "grade", QUIZ, "--no-progress")
    rows = {r["student_id"]: r for r in csv.DictReader(io.StringIO(grader(private, "export").stdout))
            if r["lab_id"] == QUIZ}
    assert rows["alice"]["state"] == "graded" and float(rows["alice"]["score"]) > float(rows["bob"]["score"]), rows

    shutil.rmtree(banks)                       # the keys came from the private bank: without it, no grade
    hand_in(private, "carol", answers=answers_for("carol", 15))
    missing = grader(private, "grade", QUIZ, "--no-progress", check=False)
    assert "private-banks" in missing.stdout + missing.stderr
    assert checkout_state() == before, "the public checkout changed"
