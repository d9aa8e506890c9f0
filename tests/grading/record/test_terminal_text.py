"""What a submission wrote reaches the instructor's terminal with its control characters shown, never
obeyed (issue 51): an escape sequence in a flag or a reason cannot clear the screen, retitle the window
or hide the lines around it, in `autograder grade`'s summary, `status` or `report`."""
from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest

from pipeline_course import LAB, NB, generate_course

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\r\u202e"


def test_visible_shows_controls_and_keeps_text():
    from autograder.record.tables import table, visible

    assert visible("plain text, é, 5 µs") == "plain text, é, 5 µs"
    assert visible(ESCAPES) == "\\x1b]0;pwned\\x07\\x1b[2J\\r\\u202e"
    assert visible("two\nlines") == "two\nlines"
    assert "\x1b" not in table(["flag"], [[ESCAPES]])


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    from autograder.course import Course
    from autograder.record.store import Row, Store
    from autograder.submitted import submission_hash

    root = generate_course(tmp_path_factory.mktemp("terminal"))
    course = Course(root)
    for student, status in (("ada", "graded"), ("bob", "failed")):
        path = root / "submitted" / student / LAB / NB
        path.parent.mkdir(parents=True)
        nbformat.write(nbformat.read(root / "labs" / LAB / NB, as_version=4), path)
        sub = next(iter(course.submissions(LAB, student)))
        result = {"student_id": student, "lab_id": LAB, "status": status, "tasks": [],
                  "flags": [f"wrote to the terminal: {ESCAPES}"]}
        with Store(course.results_db) as store:
            store.put(Row(LAB, student, submission_hash(course, sub), "test", status, 0.0,
                          course.spec(LAB).total_points, f"crashed: {ESCAPES}" if status == "failed" else None,
                          result))
    return root


@pytest.mark.parametrize("command", [["status", LAB], ["report", LAB, "--no-png"]])
def test_status_and_report_print_escapes_as_text(course, command):
    done = subprocess.run([sys.executable, "-m", "autograder.cli", "--root", str(course), *command],
                          capture_output=True, text=True, timeout=300)
    out = done.stdout + done.stderr
    assert "pwned" in out, out                         # the flag is shown...
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out, repr(out)
    assert "\\x1b]0;pwned\\x07" in out                # ...as its escapes
