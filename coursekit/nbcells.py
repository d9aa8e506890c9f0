"""What a notebook cell is to nbgrader, defined once for every step that reads a lab notebook: the
student's check, generation, the trusted reference, the grading engine and its thinning.

Cells are nbformat nodes or plain dicts (the engine reads submissions as raw JSON, which may be hostile:
anything that is not the expected shape reads as "no nbgrader metadata").
"""
from __future__ import annotations

from typing import Any


def nbgrader_meta(cell: Any) -> dict:
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    found = meta.get("nbgrader") if isinstance(meta, dict) else None
    return found if isinstance(found, dict) else {}


def is_answer_cell(cell: Any) -> bool:
    """A cell the student writes in (nbgrader `solution: true`)."""
    return nbgrader_meta(cell).get("solution") is True


def is_test_cell(cell: Any) -> bool:
    """An autograded test cell (nbgrader `grade: true`, not an answer cell)."""
    meta = nbgrader_meta(cell)
    return meta.get("grade") is True and meta.get("solution") is not True
