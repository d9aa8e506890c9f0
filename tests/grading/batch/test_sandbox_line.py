"""`autograder grade`'s last line tells the instructor where student code ran (autograder/batch/report.py):
sandboxed as root or in a user namespace, off with --unconfined, and who ran with a protection missing."""
from __future__ import annotations

from autograder.batch.report import sandbox_line
from autograder.record.store import Row


def row(student: str, *flags: str) -> Row:
    return Row("lab", student, "h" + student, "ctx", "graded", 1.0, 1.0, None, {"flags": list(flags)})


def test_the_line_says_where_student_code_ran():
    rows = [row("ada"), row("ben", "uses print")]
    assert sandbox_line(True, rows, euid=0).startswith("sandboxed as root")
    assert sandbox_line(True, rows, euid=1000).startswith("sandboxed in a user namespace")
    assert sandbox_line(True, rows, euid=1000).endswith("every protection in place")
    assert sandbox_line(False, rows).startswith("sandbox: OFF (--unconfined)")


def test_submissions_graded_with_a_protection_missing_are_named():
    rows = [row("ada"), row("ben", "sandbox: no network namespace (EPERM)"), row("cai", "sandbox: no seccomp")]
    line = sandbox_line(True, rows, euid=0)
    assert "2 with a protection missing" in line and line.endswith("ben, cai")
