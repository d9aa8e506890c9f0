"""`autograder` typed in the course folder, as an nbgrader user does: no --root, no COURSE_ROOT.

The course root is the folder with nbgrader_config.py that the instructor stands in (or one above
it), never the package's checkout; `grade`'s summary states the batch's true median.
"""
from __future__ import annotations

import csv
import os
import sys
from pathlib import Path
import subprocess

import pytest

from pipeline_course import LAB, SECRET, write_folder

# points: add 1, scale 2, mean 3 -> scores 0, 0, 2, 5, 5, 5: the median of an even count is 3.5
ALL_WRONG = {"impl_add": "wrong", "impl_scale": "wrong", "impl_mean": "wrong"}
STUDENTS = {"ann": ALL_WRONG, "bob": ALL_WRONG, "cat": {"impl_add": "wrong", "impl_mean": "wrong"},
            "dan": {"impl_add": "wrong"}, "eve": {"impl_add": "wrong"}, "fay": {"impl_add": "wrong"}}


def autograder(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "COURSE_ROOT"}
    env.update(COURSE_GRADING_SECRET=SECRET, COURSE_QUICK="1", COURSE_PROGRESS_DIR=str(cwd / ".progress"),
               PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    done = subprocess.run([sys.executable, "-m", "autograder.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"autograder {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.mark.slow
def test_grade_in_the_course_folder_finds_it_and_reports_the_median(course):
    inbox = write_folder(course, course.parent / "inbox", STUDENTS)
    autograder(course, "collect", str(inbox), "--lab", LAB)
    # a folder below the root works too, as `git` and nbgrader find theirs
    done = autograder(course / "labs" / LAB, "grade", LAB, "--workers", "1", "--no-progress")
    assert "median 3.5," in done.stdout, done.stdout
    assert "mean 2.83" in done.stdout and "min 0, max 5" in done.stdout, done.stdout
    assert sorted(p.name for p in (course / "autograded").iterdir() if not p.name.startswith(".")) == sorted(STUDENTS)
    # plain `nbgrader export` with no roster: no id posing as a surname
    done = subprocess.run([sys.executable, "-m", "nbgrader", "export", "--to", str(course.parent / "nb.csv")],
                          cwd=course, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = list(csv.DictReader((course.parent / "nb.csv").open()))
    assert {(r["student_id"], r["last_name"], r["first_name"]) for r in rows} == {(s, "", "") for s in STUDENTS}
    # a second hand-in replaces the first, and the collection says so
    first = (course / "submitted" / "ann" / LAB / "timestamp.txt").read_text().strip()
    again = write_folder(course, course.parent / "again", {"ann": {}})
    said = autograder(course, "collect", str(again), "--lab", LAB).stdout
    assert f"replaced  ann's earlier submission (timestamp {first}) <- ann.ipynb" in said, said
    assert "1 collected (1 replacing an earlier submission)" in said, said
