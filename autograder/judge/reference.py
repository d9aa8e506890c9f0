"""Trusted reference functions, taken from the lab's solution notebook.

Only the solution cells (nbgrader metadata solution == true) run, in a fresh namespace: measurement
and plotting cells would make grading slow, and test cells would recurse into the grader. Top-level
import statements of the notebook's other code cells run first, so a solution cell may use a module
imported in a setup cell. `Task.reference` overrides the notebook.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, Callable

import nbformat

from autograder.spec import Case, LabSpec, Task
from coursekit.nbcells import is_answer_cell, nbgrader_meta

_NAMESPACES: dict[tuple[str, int], dict] = {}


def _python(source: str) -> str:
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def _imports(source: str) -> str:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    return "\n".join(ast.unparse(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom)))


def solution_namespace(path: Path) -> dict:
    """Execute the solution cells of the notebook at `path` once per process (per file version)."""
    path = Path(path).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"{path}: solution notebook not found (needed for the trusted reference)")
    key = (str(path), path.stat().st_mtime_ns)
    if key in _NAMESPACES:
        return _NAMESPACES[key]
    notebook = nbformat.read(path, as_version=4)
    namespace: dict[str, Any] = {"__name__": f"solution:{path.stem}"}
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    solution_cells = [cell for cell in code_cells if is_answer_cell(cell)]
    if not solution_cells:
        raise ValueError(f"{path}: no solution cells (code cells with nbgrader.solution == true)")
    setup = "\n".join(_imports(_python(cell.source)) for cell in code_cells
                      if not is_answer_cell(cell) and not nbgrader_meta(cell).get("grade"))
    try:
        exec(compile(setup, f"{path}:imports", "exec"), namespace)
    except Exception as error:
        raise RuntimeError(f"{path}: importing the setup cells' modules failed: {error!r}") from error
    for index, cell in enumerate(code_cells):
        if not is_answer_cell(cell):
            continue
        try:
            exec(compile(_python(cell.source), f"{path}:cell{index}", "exec"), namespace)
        except Exception as error:
            grade_id = nbgrader_meta(cell).get("grade_id", f"code cell {index}")
            raise RuntimeError(f"{path}: solution cell {grade_id} failed: {error!r}") from error
    _NAMESPACES[key] = namespace
    return namespace


def reference_function(spec: LabSpec, task: Task) -> Callable[..., Any]:
    if task.reference is not None:
        return task.reference
    namespace = solution_namespace(spec.solution_path())
    function = namespace.get(task.function)
    if not callable(function):
        raise KeyError(f"{spec.solution_path()}: the solution cells define no function {task.function!r} "
                       f"(task {task.grade_id})")
    return function


def reference_output(spec: LabSpec, task: Task, case: Case) -> Any:
    """The encoded reference output on `case`; arguments are prepared afresh so nothing is shared."""
    args, kwargs = task.prepare(case)
    encode = task.encode_reference or task.encode
    return encode(reference_function(spec, task)(*args, **kwargs))
