"""Lab 6 handed in by two students and graded for real, once per test run (the `lab6_class` fixture).

A real Lab 6 grading runs every milestone's engine in the sandbox and times each passing one against the
course's reference: about a minute of CPU per submission. The tests that read one such grading share it:
the nbgrader differential (tests/grading/test_grading_vs_nbgrader.py grades the untouched copy with
plain `nbgrader autograde` and compares gradebooks) and the leaderboard (tests/grading/leaderboard/
test_leaderboard.py measures the top entry again, in a copy).

    fran            the solution, opting in to the leaderboard as "Fast Fran"
    no-speculation  the solution with its last milestone left as the released stub
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from paths import ROOT

LAB, NB = "lab6-serving", "lab6-serving.ipynb"
SECRET = "lab6-class-secret"
LEADER = "Fast Fran"
MILESTONES = ("test_paged", "test_batching", "test_chunked", "test_speculative")
STUB_IN = {"fran": None, "no-speculation": "impl_speculative"}     # student -> the answer left unanswered


def env(course: Path) -> dict:
    """The environment a class's grading has: its secret, quick mode, this course's root and progress."""
    return dict(os.environ, COURSE_GRADING_SECRET=SECRET, COURSE_QUICK="1", COURSE_ROOT=str(course),
                COURSE_PROGRESS_DIR=str(course / ".progress"), PYTHONWARNINGS="ignore",
                PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))


def autograder(course: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "autograder.cli", "--root", str(course), *args], cwd=course,
                          env=env(course), capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, f"autograder {' '.join(args)}:\n{done.stdout}{done.stderr}"
    return done.stdout


def expected_scores() -> dict[tuple[str, str], float]:
    """(student, grade_id) -> the score both graders must give: 3 points a milestone, none for a stub."""
    return {(student, g): 0.0 if g == stub.replace("impl_", "test_") else 3.0
            for student, stub in ((s, STUB_IN[s] or "") for s in STUB_IN) for g in MILESTONES}


def build(folder: Path) -> Path:
    """`folder`/course (generated, handed in, graded) and `folder`/ungraded (the same before grading)."""
    course = folder / "course"
    shutil.copytree(ROOT / "solutions" / LAB, course / "solutions" / LAB,
                    ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    shutil.copy(ROOT / "nbgrader_config.py", course)
    autograder(course, "generate", LAB)
    solution = nbformat.read(course / "solutions" / LAB / NB, as_version=4)
    released = {c.metadata["nbgrader"]["grade_id"]: c.source
                for c in nbformat.read(course / "labs" / LAB / NB, as_version=4).cells}
    for student, stub in STUB_IN.items():
        nb = nbformat.from_dict(solution)
        for cell in nb.cells:
            grade_id = cell.metadata["nbgrader"]["grade_id"]
            if grade_id == stub:
                cell.source = released[grade_id]
            if student == "fran" and grade_id == "impl_paged":
                cell.source += f"\n\nLEADERBOARD_NAME = {LEADER!r}\n"
        (course / "submitted" / student / LAB).mkdir(parents=True)
        nbformat.write(nb, course / "submitted" / student / LAB / NB)
    shutil.copytree(course, folder / "ungraded")
    autograder(course, "grade", LAB, "--no-progress")
    return folder
