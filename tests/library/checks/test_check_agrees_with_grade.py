"""A visible case's typed `expected` that is not the reference's: the student's `course check` and the
grader say the same (both judge by the typed value), and `validate` says it once, from the author's side.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from pipeline_course import LAB, NB, cli, env, notebook_text


@pytest.mark.slow
def test_a_mistyped_expected_fails_the_check_and_the_grade_alike(course):
    spec = course / "solutions" / LAB / "spec.py"
    spec.write_text(spec.read_text().replace("expected=5)", "expected=6)"))     # add(2, 3) typed as 6
    cli(course, "generate", LAB)
    inbox = course.parent / "inbox"
    inbox.mkdir()
    (inbox / "ada.ipynb").write_text(notebook_text(course))     # every answer right

    mine = course.parent / "mine" / NB
    mine.parent.mkdir()
    mine.write_text(notebook_text(course))
    checks = course / "labs" / LAB / f"{LAB}.checks.json"      # released beside the notebook
    (mine.parent / checks.name).write_text(checks.read_text())
    check = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "check", str(mine)], cwd=mine.parent,
                           env=env(course), capture_output=True, text=True, timeout=300)
    said = check.stdout + check.stderr
    assert check.returncode != 0 and "expected 6, got 5" in said, said

    cli(course, "collect", str(inbox), "--lab", LAB)
    cli(course, "grade", LAB, "--workers", "1", "--no-progress")
    cli(course, "export", "-o", str(course.parent / "grades.csv"))
    grades = (course.parent / "grades.csv").read_text()
    ada = next(line for line in grades.splitlines() if line.startswith("ada,"))
    assert ",5," in ada and ",6," in ada, ada     # add's point lost in the grade as in the check: 5 of 6
