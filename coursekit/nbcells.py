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


def locked_sources(notebook: Any) -> dict[str, tuple[str, str]]:
    """grade_id -> (cell type, source) of every locked cell of a lab's notebook that is not a test cell
    (setup, measurements, text): nbgrader's autograde puts these back in a submission whatever the
    student did to them. Test cells are left out: graders judge those tasks themselves, and a
    solution's test cells hold its hidden tests."""
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    found = {}
    for cell in cells if isinstance(cells, list) else []:
        meta = nbgrader_meta(cell)
        if meta.get("locked") is True and meta.get("solution") is not True and meta.get("grade") is not True \
                and isinstance(meta.get("grade_id"), str):
            source = cell.get("source", "")
            found[meta["grade_id"]] = (cell.get("cell_type"), "".join(source) if isinstance(source, list) else source)
    return found


def as_autograded(cells: list, locked: dict[str, tuple[str, str]]) -> list:
    """The cells as nbgrader's autograde runs them: a cell carrying a locked cell's grade_id gets that
    cell's type and source back (an edited setup cell runs as released), every other cell as it is."""
    out = []
    for cell in cells:
        grade_id = nbgrader_meta(cell).get("grade_id")
        if grade_id in locked and isinstance(cell, dict):
            cell_type, source = locked[grade_id]
            cell = {**cell, "cell_type": cell_type, "source": source}
        out.append(cell)
    return out
