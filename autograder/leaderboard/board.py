"""A lab's leaderboard, from the results store: who passed how much, and how fast the grader measured it.

Ranked by the grader's numbers only, never by anything a notebook reports: first the score (the
milestones passed), then the geometric mean of the grader's measured speed ratios over the tasks it
timed (reference engine seconds / learner seconds, judge/speed.py; above 1 is faster than the course's
reference). A task measured as too noisy to judge still has its median ratio, shown with a mark.

Names are opt-in: a learner appears by the display name set in their notebook's own
`LEADERBOARD_NAME = "..."` (read from the source as data, never run), else as "anonymous". The name is
untrusted text: control characters go, it is cut to 40 characters, and pages escape it.
"""
from __future__ import annotations

import ast
import json
import math
import unicodedata
from dataclasses import dataclass, field

from autograder import submitted
from autograder.course import Course
from autograder.record.status import current
from autograder.record.store import Row, Store

NAME_VARIABLE = "LEADERBOARD_NAME"
NAME_CHARS = 40


@dataclass
class Standing:
    student_id: str
    name: str                     # the opt-in display name, or "anonymous"
    score: float
    max_score: float
    ratios: dict[str, float]      # grade_id -> the grader's median ratio
    noisy: list[str] = field(default_factory=list)     # tasks whose pairs' spread was over the limit
    rank: int = 0
    rerun: bool = False           # measured again before publishing

    @property
    def speed(self) -> float | None:
        """Geometric mean of the measured ratios (None if no task was timed)."""
        values = [r for r in self.ratios.values() if r > 0]
        return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def display_name(course: Course, student_id: str, lab_id: str) -> str:
    """The name the learner opted in with, from their submitted notebook's source; "anonymous" if none."""
    try:
        sub = next(s for s in course.submissions(lab_id, student_id))
        text = submitted.read_text(sub.notebook, course.submitted, submitted.MAX_NOTEBOOK_BYTES)
        cells = json.loads(text or "{}").get("cells", [])
    except (StopIteration, ValueError, AttributeError, OSError):
        return "anonymous"
    for cell in cells if isinstance(cells, list) else []:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if NAME_VARIABLE not in source:
            continue
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == NAME_VARIABLE
                                                     for t in node.targets)
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                name = clean_name(node.value.value)
                if name:
                    return name
    return "anonymous"


def clean_name(text: str) -> str:
    """Printable characters only (no controls, no bidi overrides), spaces collapsed, at most NAME_CHARS."""
    kept = "".join(c for c in text if unicodedata.category(c)[0] != "C")
    return " ".join(kept.split())[:NAME_CHARS]


def standing(course: Course, row: Row) -> Standing | None:
    """A graded row's place on the board (None when the grader timed none of its tasks)."""
    measured = row.result.get("speed") or {}
    ratios = {g: float(m["ratio"]) for g, m in measured.items() if isinstance(m, dict) and "ratio" in m}
    if row.status != "graded" or not ratios:
        return None
    noisy = sorted(g for g, m in measured.items() if isinstance(m, dict) and m.get("noisy"))
    return Standing(row.student_id, display_name(course, row.student_id, row.lab_id), row.score, row.max_score,
                    ratios, noisy)


def standings(course: Course, lab_id: str) -> list[Standing]:
    """Every graded, timed submission of the lab as it is now, ranked (ties share a rank)."""
    with Store(course.results_db) as store:
        rows = [e.row for e in current(course, store, lab_id) if e.row is not None]
    board = [s for s in (standing(course, row) for row in rows) if s is not None]
    return rank(board)


def rank(board: list[Standing]) -> list[Standing]:
    key = lambda s: (-s.score, -(s.speed or 0.0))   # noqa: E731  (the one ordering, used twice)
    board = sorted(board, key=lambda s: (key(s), s.student_id))
    for n, s in enumerate(board):
        s.rank = board[n - 1].rank if n and key(board[n - 1]) == key(s) else n + 1
    return board
