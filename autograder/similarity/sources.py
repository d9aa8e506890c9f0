"""What the similarity report compares: each student's own code cells, read only through
submitted.py's safe reader; the course's reference code (the solution notebook's answer cells
and the coursekit functions a task forbids); and the boilerplate left out of every match (the released
starter notebook and the rest of the course library the lab imports).

A submission that cannot be read or parsed is skipped with a reason, never an exception.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import json
import pkgutil
import types
from dataclasses import dataclass, field
from pathlib import Path

from coursekit.nbcells import is_answer_cell, nbgrader_meta

from autograder import submitted
from autograder.course import Course
from autograder.similarity.fingerprint import Token, tokens
from autograder.spec import LabSpec

MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
MAX_CODE_CHARS = 2_000_000     # a lab's answers are kilobytes; tokenizing megabytes costs minutes per student


@dataclass
class Cell:
    label: str              # "impl_softmax", "cell 7" (index in its notebook) or a function's dotted name
    source: str
    toks: list[Token] = field(default_factory=list)


@dataclass
class Doc:
    name: str               # student id, or what the reference is
    kind: str               # "student" or "reference"
    cells: list[Cell]


def _source(cell: dict) -> str | None:
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    return source if isinstance(source, str) else None


def student_cells(notebook: object) -> list[Cell]:
    """Every code cell of the submission, whatever its metadata says (a student can mark a cell of
    their own as a test cell): cells left as released are dropped later, as starter code."""
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise ValueError("no list of cells")
    found = []
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = _source(cell)
        if source and source.strip():
            grade_id = nbgrader_meta(cell).get("grade_id")
            found.append(Cell(grade_id if isinstance(grade_id, str) else f"cell {index + 1}", source))
    return found


def read_student(course: Course, student: str, path: Path) -> Doc:
    """One student's document; raises ValueError with the reason it is skipped."""
    try:
        data = submitted.read(path, course.submitted)
    except FileNotFoundError:
        raise ValueError("no notebook submitted") from None
    except submitted.Refused as refused:
        raise ValueError(str(refused)) from None
    except OSError as error:
        raise ValueError(f"unreadable: {error.strerror or error}") from None
    if len(data) > submitted.MAX_NOTEBOOK_BYTES:
        raise ValueError(f"too large: over {submitted.MAX_NOTEBOOK_BYTES // 2**20} MB")
    try:
        notebook = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8") from None
    except RecursionError:
        raise ValueError("invalid JSON: nested too deeply") from None
    except ValueError as error:
        raise ValueError(f"invalid JSON: {str(error)[:120]}") from None
    cells = student_cells(notebook)
    size = sum(len(cell.source) for cell in cells)
    if size > MAX_CODE_CHARS:       # skipped in plain sight: padding a notebook never hides it quietly
        raise ValueError(f"too much code to compare: {size:,} characters in code cells "
                         f"(limit {MAX_CODE_CHARS:,}); read it yourself")
    return Doc(student, "student", cells)


def _notebook(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def starter_cells(course: Course, spec: LabSpec) -> list[Cell]:
    """Every code cell of the released student notebook (labs/<lab>/), the given code of the lab."""
    path = course.labs / spec.lab_id / spec.notebook
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: run `autograder generate {spec.lab_id}` first")
    return [Cell(f"starter cell {i + 1}", _source(c) or "") for i, c in enumerate(_notebook(path)["cells"])
            if c.get("cell_type") == "code"]


def solution_docs(spec: LabSpec) -> list[Doc]:
    """The solution notebook's answer cells, one reference per cell, markers removed."""
    docs = []
    for cell in _notebook(spec.solution_path())["cells"]:
        if cell.get("cell_type") == "code" and is_answer_cell(cell):
            text = "\n".join(line for line in (_source(cell) or "").split("\n") if line.strip() not in MARKERS)
            label = nbgrader_meta(cell).get("grade_id", "answer")
            docs.append(Doc(f"solution notebook, {label}", "reference", [Cell(label, text)]))
    return docs


def _resolve(dotted: str) -> object | None:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except Exception:           # noqa: BLE001  a module that cannot be imported here is not compared
            continue
        for name in parts[cut:]:
            found = getattr(found, name, None)
        return found
    return None


def _functions(obj: object, seen: set[str]) -> list[tuple[str, object]]:
    """(dotted name, function) for a function, a class's own methods, or every function of a module
    or package defined there (not the names it imports)."""
    if isinstance(obj, types.ModuleType):
        found = []
        for name, value in sorted(vars(obj).items()):
            defined_here = getattr(value, "__module__", None) == obj.__name__
            if defined_here and (inspect.isfunction(value) or inspect.isclass(value)):
                found += _functions(value, seen)
        for info in pkgutil.iter_modules(getattr(obj, "__path__", None) or []):
            module = _resolve(f"{obj.__name__}.{info.name}")
            found += _functions(module, seen) if isinstance(module, types.ModuleType) else []
        return found
    if inspect.isclass(obj):
        return [f for value in vars(obj).values() if inspect.isfunction(value) for f in _functions(value, seen)]
    function = inspect.unwrap(obj) if callable(obj) else None
    name = f"{getattr(function, '__module__', '')}.{getattr(function, '__qualname__', '')}"
    if not inspect.isfunction(function) or name in seen:
        return []
    seen.add(name)
    return [(name, function)]


def library_docs(names: list[str], seen: set[str]) -> list[Doc]:
    """One document per course-library function that `names` (dotted: modules, functions, methods) cover."""
    docs = []
    for dotted in names:
        if not dotted.startswith("coursekit"):
            continue                # the grader's own code is never something a student pastes as an answer
        for name, function in _functions(_resolve(dotted), seen):
            try:
                source = inspect.getsource(function)
            except (OSError, TypeError):
                continue
            docs.append(Doc(name, "reference", [Cell(name, source)]))
    return docs


def imported_modules(cells: list[Cell]) -> list[str]:
    """The coursekit modules a notebook's code cells import."""
    found = []
    for cell in cells:
        try:
            tree = ast.parse("\n".join(l for l in cell.source.split("\n") if not l.lstrip().startswith(("%", "!"))))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not node.level:
                found.append(node.module or "")
            elif isinstance(node, ast.Import):
                found += [a.name for a in node.names]
    # the package itself would bring every module, the course command's included: only named modules count
    return sorted({m for m in found if m.startswith("coursekit.") and not m.startswith("coursekit.app")})


def tokenize_all(docs: list[Doc]) -> None:
    """Tokens of every cell; a cell many students share (a setup cell as released) is tokenized once."""
    seen: dict[str, list[Token]] = {}
    for doc in docs:
        for cell in doc.cells:
            cell.toks = seen.get(cell.source) or seen.setdefault(cell.source, tokens(cell.source))
