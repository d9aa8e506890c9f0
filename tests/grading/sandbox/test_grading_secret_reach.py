"""No process that runs student code has the grading secret (issue 13), shown from the outside for a
lab: a submission that dumps its environment and reads every likely secret place (the instructor
secret files, its parents' environments and command lines) and sends it all back in its failure
message is graded and given feedback through the real commands; the secret is in no autograded
notebook, feedback page, gradebook or log, while the probe's own output is (so it really ran).
The quiz side, where nothing a student wrote is run at all, is tests/grading/quiz/test_quiz_adversarial.py."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from paths import ROOT
from quiz_course import everything_written

LAB = "toy-pipeline"
SECRET = "lab-secret-never-shown-5d1e"

PROBE = '''def add(a, b):
    import glob, os
    seen = [repr(sorted(os.environ.items()))]
    places = ["/proc/self/environ", "/proc/%d/environ" % os.getppid(), "/proc/%d/cmdline" % os.getppid(),
              "/proc/1/environ", "/proc/1/cmdline", {secret_files}]
    places += glob.glob("/proc/[0-9]*/environ") + glob.glob("/proc/[0-9]*/cmdline")
    for place in places:
        try:
            with open(place, errors="replace") as handle:
                seen.append(place + "=" + handle.read(4000))
        except Exception as error:
            seen.append(place + ": " + type(error).__name__)
    raise AssertionError("PROBE-RAN " + " | ".join(seen)[:30000])'''


def run(course: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, COURSE_GRADING_SECRET=SECRET,
               COURSE_QUICK="1", COURSE_ROOT=str(course), COURSE_PROGRESS_DIR=str(course / ".progress"),
               PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    return subprocess.run([sys.executable, "-m", "autograder.cli", "--root", str(course), *args], cwd=course,
                          env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_a_lab_submission_cannot_reach_the_secret_through_the_real_commands(course):
    """`course`: a copy of the pipeline tests' toy course, its lab already generated (conftest.py)."""
    (course / "autograder").mkdir()
    (course / "autograder" / "instructor-secret").write_text(SECRET + "\n")    # where a course keeps it too
    nb = nbformat.read(course / "labs" / LAB / f"{LAB}.ipynb", as_version=4)
    files = [str(course / "autograder" / "instructor-secret"), str(ROOT / "autograder" / "instructor-secret")]
    for cell in nb.cells:
        if (cell.metadata.get("nbgrader") or {}).get("grade_id") == "impl_add":
            cell.source = PROBE.replace("{secret_files}", ", ".join(map(repr, files)))
    (course / "submitted" / "mallory" / LAB).mkdir(parents=True)
    nbformat.write(nb, course / "submitted" / "mallory" / LAB / f"{LAB}.ipynb")

    grade, feedback = run(course, "grade", LAB, "--workers", "1", "--no-progress"), run(course, "feedback", LAB)
    assert grade.returncode == 0 and feedback.returncode == 0, grade.stdout + grade.stderr + feedback.stdout
    shown = everything_written(course)
    assert "PROBE-RAN" in shown                     # the probe ran and its findings reached the student's view
    assert list(course.glob(f"feedback/mallory/{LAB}/*.html"))
    logs = grade.stdout + grade.stderr + feedback.stdout + feedback.stderr
    assert SECRET not in shown and SECRET not in logs
