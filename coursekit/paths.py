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
# each learner's own copy of the labs (`course work`, coursekit/app/work.py); labs/ is the release
WORK_FOLDER = "work"
