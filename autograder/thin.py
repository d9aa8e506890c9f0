"""Grading pays only for what grading needs: the lab's own measurement and plotting cells are not judged.

A code cell of the submission whose source is exactly one of the solution notebook's ordinary code
cells (neither a solution nor a test cell: setup, measurement, plots, hints) runs as its definitions
only: imports, function and class definitions and assignments. Loops, `with` blocks and bare
expressions (timing runs, `plt.plot(...)`, `hint_ladder(...)`) are dropped. The trusted reference
runs the solution the same way (imports plus solution cells, autograder.reference), so every name a
solution cell needs is still defined. A cell the student wrote or edited runs whole.
"""
from __future__ import annotations

import ast
import json
from functools import lru_cache
from pathlib import Path

from coursekit.nbcells import is_answer_cell, nbgrader_meta

KEPT = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign,
        ast.AnnAssign, ast.AugAssign)


@lru_cache(maxsize=16)
def _instructor_cells(solution: str, mtime_ns: int) -> frozenset[str]:
    try:
        notebook = json.loads(Path(solution).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return frozenset()
    found = set()
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "code" and not is_answer_cell(cell) and not nbgrader_meta(cell).get("grade"):
            source = cell.get("source", "")
            found.add("".join(source) if isinstance(source, list) else source)
    return frozenset(found)


def definitions_only(source: str) -> str:
    """The top-level statements of `source` that define names (IPython magics keep the cell whole)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return source
    return "\n".join(ast.get_source_segment(source, node) or "" for node in tree.body if isinstance(node, KEPT))


def thin(cells: list[tuple[int, str]], solution: Path) -> list[tuple[int, str]]:
    try:
        known = _instructor_cells(str(solution), solution.stat().st_mtime_ns)
    except OSError:
        return cells
    return [(index, definitions_only(source) if source in known else source) for index, source in cells]
