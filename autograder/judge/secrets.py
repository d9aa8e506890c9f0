"""The instructor secret that hidden test inputs are drawn from.

A public copy of the repository has the specs and the solutions but not this secret, so it cannot
tell which inputs the hidden cases use. Seeds depend on the secret, the lab, the task, the case
index and whose draw it is (student and attempt), through the course's one seed scheme
(coursekit/seeds.py), the same one graded quizzes draw with.
"""
from __future__ import annotations

import os
import secrets as _random
from pathlib import Path

from coursekit.paths import course_root
from coursekit.seeds import derive_seed

SECRET_ENV = "COURSE_GRADING_SECRET"
SECRET_NAME = "instructor-secret"
OLD_SECRET_FILE = Path(__file__).resolve().parents[1] / SECRET_NAME   # where it lived before it moved under the root


def secret_file(root: Path | None = None) -> Path:
    """<course root>/instructor-secret: the secret lives with the rest of the instructor's material, so a
    private course root (`--root DIR` or COURSE_ROOT) keeps it out of the public checkout."""
    return Path(root or course_root()) / SECRET_NAME


def load_secret(create: bool = True, path: Path | None = None) -> bytes:
    """The secret from $COURSE_GRADING_SECRET, else from the file `secret_file()` (labs and quizzes alike).

    The file is created (mode 0600, 32 random bytes as hex) on an instructor's first use; it is in
    .gitignore and must never be committed or shipped to students. A secret made before the file moved
    under the root (autograder/instructor-secret) is still read, so regrading draws the same cases.
    """
    value = os.environ.get(SECRET_ENV)
    if value:
        return value.encode("utf-8")
    if path is None:
        path = secret_file()
        if not path.exists() and OLD_SECRET_FILE.exists() and course_root() == OLD_SECRET_FILE.parent.parent:
            path = OLD_SECRET_FILE
    if not path.exists():
        if not create:
            raise FileNotFoundError(f"{path}: no instructor secret (set {SECRET_ENV} or create this file)")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass                            # another grader process created it first: read theirs
        else:
            with os.fdopen(fd, "w") as handle:
                handle.write(_random.token_hex(32) + "\n")
            announce_new_secret(path)
    secret = path.read_bytes().strip()
    if not secret:
        raise ValueError(f"{path}: the instructor secret file is empty")
    return secret


def announce_new_secret(path: Path) -> None:
    """Said once, by the process that made the file: losing it silently would change every hidden case."""
    import sys

    print(f"autograder: created the instructor secret {path} (hidden test inputs are drawn from it).\n"
          f"  Back it up somewhere safe: without it, regrading draws other hidden inputs. Never commit it or\n"
          f"  give it to students; set {SECRET_ENV} instead of the file on other grading machines.",
          file=sys.stderr)


def case_seed(secret: bytes, lab_id: str, grade_id: str, index: int, draw: str = "") -> int:
    """The seed of one hidden case: coursekit.seeds' keyed scheme (the one quizzes draw with) over
    ("case", lab, task, index[, draw]). `draw` names whose cases these are (the engine: student and
    submission), so cases seen by one student, or in one attempt, say nothing about another's."""
    return derive_seed("case", lab_id, grade_id, index, *([draw] if draw else []), secret=secret)
