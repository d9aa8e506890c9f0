"""Infrastructure flags (`sandbox: ...`, the grading machine's state) go to the instructor, never into
a student's feedback; the flags a student's own notebook raised stay there, shown as text.

Graded for real with isolation off (the degraded mode a grader that is not root runs in), so every
result carries `sandbox: ...`; then the real `status`, `export`, `report` and `feedback`.
"""
from __future__ import annotations

import csv
import io
import subprocess
import sys

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from pipeline_course import LAB, NB, cli, env, notebook_text

# a key the static scan flags (`*SECRET*`), chosen by the student: the flag quotes it
PROBE = "SECRET<img src=x onerror=alert(1)>"


def grade_unconfined(course) -> None:
    script = ("from autograder.batch.lab import grade_lab; from autograder.course import Course; "
              "from autograder.judge.engine import Limits; from autograder.judge.secrets import load_secret; "
              f"grade_lab(Course.find({str(course)!r}), {LAB!r}, secret=load_secret(), workers=1, progress=False, "
              "limits=Limits(wall_s=120, isolate=False))")
    done = subprocess.run([sys.executable, "-c", script], cwd=course, env=env(course), capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_sandbox_flags_reach_the_instructor_and_no_student(course, tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "ada.ipynb").write_text(notebook_text(course))                 # honest
    nb = nbformat.reads(notebook_text(course), as_version=4)
    nb.cells.insert(1, new_code_cell(f"import os\nmode = os.environ.get({PROBE!r})"))
    (inbox / "ben.ipynb").write_text(nbformat.writes(nb))                   # reads a grading-looking variable
    cli(course, "collect", str(inbox), "--lab", LAB)
    grade_unconfined(course)

    status = cli(course, "status", LAB).stdout
    assert all("sandbox: isolation disabled" in line for line in status.splitlines() if line.startswith(LAB)), status
    rows = {r["student_id"]: r["flags"] for r in csv.DictReader(io.StringIO(cli(course, "export").stdout))}
    assert "sandbox:" in rows["ada"] and "sandbox:" in rows["ben"] and "env: reads SECRET" in rows["ben"], rows
    assert "sandbox: isolation disabled" in cli(course, "report", LAB).stdout

    cli(course, "feedback", LAB)
    pages = {s: (course / "feedback" / s / LAB / f"{LAB}.html").read_text() for s in ("ada", "ben")}
    assert all("sandbox" not in page for page in pages.values())
    assert "Flags raised by the grader" not in pages["ada"]                # nothing of ada's own to tell
    assert "Flags raised by the grader" in pages["ben"]
    assert "env: reads SECRET&lt;img src=x onerror=alert(1)&gt;" in pages["ben"]   # as text, whole
    graded = nbformat.read(course / "autograded" / "ben" / LAB / NB, as_version=4)
    assert "sandbox" not in graded.cells[0].source and "env: reads SECRET" in graded.cells[0].source


def test_a_failed_submission_keeps_its_reason_and_loses_only_infrastructure_flags():
    from autograder.record.autograded import _status_cell, student_flags

    result = {"status": "failed", "reason": "timeout after 120 s [see *notes*]",
              "flags": ["sandbox: not root: no network or mount namespace", "fork: starts a subprocess (os.fork)"]}
    assert student_flags(result) == ["fork: starts a subprocess (os.fork)"]
    source = _status_cell(result).source
    assert "sandbox" not in source and "fork: starts a subprocess \\(os.fork\\)" in source
    assert "timeout after 120 s \\[see \\*notes\\*\\]" in source                      # shown as written
