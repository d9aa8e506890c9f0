"""On a class hub a student's account reads the lessons it learns from, never the answers: neither the
checkout's solutions/ (the course their servers read lessons and banks from) nor an instructor's copy."""
from __future__ import annotations

import pytest

from paths import ROOT


pytestmark = pytest.mark.slow


def test_a_student_cannot_reach_any_solutions(hub):
    solution = next((ROOT / "solutions").rglob("*.ipynb"))
    for path in (ROOT / "solutions", solution, hub.course / "solutions"):
        done = hub.as_user("ada", "cat" if path.suffix else "ls", str(path))
        assert done.returncode != 0 and "Permission denied" in done.stderr, (path, done.stdout[:200])
    lesson = next((ROOT / "course").rglob("*.ipynb"))
    assert hub.as_user("ada", "cat", str(lesson)).returncode == 0          # what the student learns from
