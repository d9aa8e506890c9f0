"""Grading pays only for what grading needs: the lab's own measurement and plotting cells are not judged.

The judge calls each task's function on hidden cases, so the child runs the code those functions
need and nothing else, chosen as the student's own check chooses it (coursekit.checks.selfcheck's
`needed_code`; locked cells already put back as released, as nbgrader does, by the engine): every cell
the student wrote or changed runs whole, and from the cells that are
exactly the solution notebook's ordinary code cells (setup, measurement, plots, hints: neither an
answer nor a test cell) only the top-level statements that bind a name a graded function, a student
cell or another kept statement reads. Reads count wherever the code makes them: in a magic's body
(%%time, %%capture, %time), in an eval/exec of a literal; code that reaches the namespace by a name
computed at run time (globals(), vars(), __main__, eval of a computed string) keeps every statement.
A training run or a timing sweep whose result no graded function reads is not run. The trusted
reference runs the solution the same way (imports plus solution cells, autograder.judge.reference). A
notebook whose code cannot be analysed runs whole. Each task is judged at its test cell's place
(autograder.sandbox.harness), so what runs below a test cell never changes that task's grade.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from autograder.judge.budget import OverBudget
from coursekit.checks.selfcheck import needed_code
from coursekit.nbcells import is_answer_cell, locked_sources, nbgrader_meta

WHOLE = {"nbgrader": {"solution": True}}   # read by needed_code as "run this cell whole"


@lru_cache(maxsize=16)
def _locked(solution: str, mtime_ns: int) -> dict[str, tuple[str, str]]:
    try:
        return locked_sources(json.loads(Path(solution).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return {}


def locked_cells(solution: Path) -> dict[str, tuple[str, str]]:
    """grade_id -> (cell type, source) of the lab's locked cells, which a submission runs as released."""
    try:
        return _locked(str(solution), solution.stat().st_mtime_ns)
    except OSError:
        return {}


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


def thin(cells: list[tuple[int, str]], solution: Path, functions: set[str], check=None) -> list[tuple[int, str]]:
    """The (cell index, source) pairs to run so that `functions` are defined as the whole notebook would;
    `check` is called as the analysis goes (the engine's CPU budget: OverBudget passes through)."""
    try:
        known = _instructor_cells(str(solution), solution.stat().st_mtime_ns)
    except OSError:
        return cells
    as_cells = [{"cell_type": "code", "source": source, "metadata": {} if source in known else WHOLE}
                for _, source in cells]
    try:
        units = needed_code(as_cells, set(functions), check)
    except OverBudget:
        raise
    except Exception:               # noqa: BLE001 - hostile code (nesting, size) that cannot be analysed runs whole
        return cells
    kept: dict[int, list[str]] = {}
    for unit in units:
        kept.setdefault(unit.cell, []).append(unit.source)
    return [(cells[n][0], "".join(parts) if cells[n][1] in known else cells[n][1])   # a student's cell as written
            for n, parts in sorted(kept.items())]
