"""The grader's session keyring never reaches student code (issue 51): a grading child joins a new, empty
session keyring before the student's code runs, as root and in the non-root user namespace, so a graded
notebook can neither read the grader's keys (Kerberos tickets in `KEYRING:` caches, tokens) nor plant one
that stays after grading.

The grader runs under KEYRING_WRAPPER: a process that joins a fresh session keyring of its own, puts a
"grader-token" key there, checks it can find it, runs the grader, and exits 3 if a key named "planted"
is in its keyring afterwards. The probe cell exits with status 1 + (1 if it found the grader's key).
"""
from __future__ import annotations

import os
import subprocess
import sys

import nbformat
import pytest

from pipeline_course import LAB, NB, env, notebook_text, store_rows
from test_sandbox_userns import NOBODY, course, exit_bits, grade  # noqa: F401 - the non-root grading fixture

pytestmark = pytest.mark.slow

KEYRING_WRAPPER = """
import ctypes, platform, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
KEYCTL = {"x86_64": 250, "aarch64": 219}[platform.machine()]
ADD_KEY = {"x86_64": 248, "aarch64": 217}[platform.machine()]
SESSION = ctypes.c_int(-3)
assert libc.syscall(KEYCTL, 1, None) >= 0                       # a new session keyring for this test
assert libc.syscall(ADD_KEY, b"user", b"grader-token", b"kerberos", 8, SESSION) >= 0
assert libc.syscall(KEYCTL, 10, SESSION, b"user", b"grader-token", 0) >= 0      # the search can find it
code = subprocess.run(sys.argv[1:]).returncode
planted = libc.syscall(KEYCTL, 10, SESSION, b"user", b"planted", 0) >= 0
sys.exit(3 if planted else code)
"""

PROBE_KEYS = """import ctypes, os, platform
libc = ctypes.CDLL(None, use_errno=True)
KEYCTL = {"x86_64": 250, "aarch64": 219}[platform.machine()]
ADD_KEY = {"x86_64": 248, "aarch64": 217}[platform.machine()]
found = libc.syscall(KEYCTL, 10, ctypes.c_int(-3), b"user", b"grader-token", 0) >= 0
libc.syscall(ADD_KEY, b"user", b"planted", b"x", 1, ctypes.c_int(-3))
"""


def probe_notebook(root, setup: str, body: str) -> str:
    """The toy lab's notebook whose add() returns what `body` computes in the sandbox."""
    nb = nbformat.reads(notebook_text(root), as_version=4)
    for cell in nb.cells:
        if (cell.metadata.get("nbgrader") or {}).get("grade_id") == "impl_add":
            cell.source = f"{setup}\ndef add(a, b):\n    {body}"
    return nbformat.writes(nb)


@pytest.fixture
def wrapper(tmp_path):
    path = tmp_path / "keyring_wrapper.py"
    path.write_text(KEYRING_WRAPPER)
    path.chmod(0o644)
    tmp_path.chmod(0o755)
    return path


@pytest.mark.skipif(os.geteuid() != 0, reason="the root path needs root")
def test_a_graded_notebook_as_root_finds_no_key_of_the_grader_and_leaves_none(tmp_path, wrapper):
    from pipeline_course import generate_course

    root = generate_course(tmp_path)
    folder = root / "submitted" / "kim" / LAB
    folder.mkdir(parents=True)
    (folder / NB).write_text(probe_notebook(root, PROBE_KEYS, "return 1 if found else 0"))
    done = subprocess.run([sys.executable, str(wrapper), sys.executable, "-m", "autograder.cli", "--root",
                           str(root), "grade", LAB, "--workers", "1", "--no-progress"],
                          cwd=root, env=env(root), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"exit {done.returncode} (3: a key was planted)\n{done.stdout}\n{done.stderr}"
    (row,) = [r for r in store_rows(root) if r[1] == "kim"]
    assert "got 0" in row[6], row[6]                   # the visible case: add() returned 0, nothing found


def test_a_notebook_graded_without_root_finds_no_key_of_the_grader_and_leaves_none(course):
    cell = PROBE_KEYS + "os._exit(1 + int(found))\n"
    wrapper = course / "out" / "keyring_wrapper.py"               # where nobody can read it
    wrapper.write_text(KEYRING_WRAPPER)
    wrapper.chmod(0o644)
    run_as = ("runuser", "-u", NOBODY.pw_name, "--", sys.executable, str(wrapper))
    assert exit_bits(grade(course, [cell], wrapper=run_as)) == 0       # grade() fails on exit 3 (planted)
    assert exit_bits(grade(course, [cell], wrapper=run_as, isolate=False)) == 0
