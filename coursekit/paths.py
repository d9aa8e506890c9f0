"""Where the course's files live: the repository root, found from this package or COURSE_ROOT."""
from __future__ import annotations

import os
from pathlib import Path


def course_root() -> Path:
    """The folder holding course/, labs/, quizzes/ (COURSE_ROOT overrides, e.g. for tests)."""
    env = os.environ.get("COURSE_ROOT")
    if env:
        return Path(env).expanduser().resolve()
    return Path(__file__).resolve().parent.parent


START_PAGE = "course/index.ipynb"
