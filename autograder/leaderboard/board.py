"""A lab's leaderboard, from the results store: who passed how much, and how fast the grader measured it.

Ranked by the grader's numbers only, never by anything a notebook reports: first the score (the
milestones passed), then the geometric mean of the grader's measured speed ratios over the tasks it
timed (reference engine seconds / learner seconds, judge/speed.py; above 1 is faster than the course's
reference). A task measured as too noisy to judge still has its median ratio, shown with a mark.

Names are opt-in: a learner appears by the display name set in their notebook's own
`LEADERBOARD_NAME = "..."` line, else as "anonymous". The line is matched as text and only its short string
literal is read, so no cell is ever parsed whole: a cell that also holds a 10,000-term sum (which sends
ast.parse into RecursionError) costs nothing (issue 51). The name is untrusted text: control characters
go, it is cut to 40 characters, and pages escape it. Two learners who chose the same name (compared
case- and width-folded) both show a number, "Ada [1]" and "Ada [2]", numbered by student id, so no row
can be taken for another's.
"""
from __future__ import annotations

import ast
import json
import math
import re
import unicodedata
from dataclasses import dataclass, field

from autograder import submitted
from autograder.course import Course
from autograder.record.status import current
from autograder.record.store import Row, Store

NAME_VARIABLE = "LEADERBOARD_NAME"
NAME_CHARS = 40
# `LEADERBOARD_NAME = "..."` alone on its line (a comment may follow); the literal is at most 200 characters
NAME_LINE = re.compile(r"""^%s[ \t]*=[ \t]*((?:[rRuU])?(?:"[^"\n\\]{0,200}(?:\\.[^"\n\\]{0,200}){0,20}"|'[^'\n\\]{0,200}(?:\\.[^'\n\\]{0,200}){0,20}'))[ \t]*(?:#[^\n]*)?$""" % NAME_VARIABLE, re.M)


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
        source = "".join(str(part) for part in source) if isinstance(source, list) else str(source)
        name = name_in(source)
        if name:
            return name
    return "anonymous"


def name_in(source: str) -> str:
    """The cleaned name a cell's `LEADERBOARD_NAME = "..."` line sets, or "" (the cell is never parsed)."""
    for found in NAME_LINE.finditer(source):
        try:
            value = ast.literal_eval(found.group(1))     # one short string literal: bounded work
        except (SyntaxError, ValueError):
            continue
        name = clean_name(value) if isinstance(value, str) else ""
        if name:
            return name
    return ""


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
    return rank(disambiguate(board))


def disambiguate(board: list[Standing]) -> list[Standing]:
    """Number the names two or more learners share ("Ada [1]", "Ada [2]", by student id); "anonymous"
    stays as it is, a choice not to be named."""
    groups: dict[str, list[Standing]] = {}
    for s in board:
        if s.name != "anonymous":
            groups.setdefault(unicodedata.normalize("NFKC", s.name).casefold(), []).append(s)
    for same in groups.values():
        if len(same) > 1:
            for n, s in enumerate(sorted(same, key=lambda s: s.student_id), 1):
                s.name = f"{s.name[:NAME_CHARS - 5]} [{n}]"
    return board


def rank(board: list[Standing]) -> list[Standing]:
    key = lambda s: (-s.score, -(s.speed or 0.0))   # noqa: E731  (the one ordering, used twice)
    board = sorted(board, key=lambda s: (key(s), s.student_id))
    for n, s in enumerate(board):
        s.rank = board[n - 1].rank if n and key(board[n - 1]) == key(s) else n + 1
    return board
