"""The two packages' layout, as docs/DESIGN.md describes it: a reader tells the parts apart from the tree.

- coursekit/ is the library lessons and labs import; coursekit/app/ is the `course` command's own
  machinery. The library never imports app/, and no notebook does: a lesson or a lab runs the same
  whether or not the course was started with `course start`.
- autograder/ is one folder per grading stage, with only the command and the two contracts every stage
  shares at its top.
"""
from __future__ import annotations

import ast
from pathlib import Path

import nbformat

from paths import ROOT

APP = "coursekit.app"
STAGES = {"author", "release", "collect", "batch", "judge", "sandbox", "record", "lms", "quiz", "similarity",
          "leaderboard"}
AUTOGRADER_TOP = {"__init__.py", "cli.py", "course.py", "spec.py", "quiz_spec.py", "submitted.py"}   # the floor (docs/DESIGN.md)


def app_imports(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) for every import of coursekit.app in `source` (a module of `package`), relative
    imports resolved, imports inside functions included."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name == APP or a.name.startswith(APP + ".")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names = [f"{module}.{a.name}" for a in node.names]
            if any(n == APP or n.startswith(APP + ".") for n in [module, *names]):
                found.append((node.lineno, module))
    return found


def test_the_scan_finds_app_imports_however_written():
    sample = ("from coursekit.app.work import make_work_copies\nimport coursekit.app.doctor\n"
              "def f():\n    from ..app import cli\n    from . import app\n")
    assert [line for line, _ in app_imports(sample, "coursekit.quiz")] == [1, 2, 4]
    assert [line for line, _ in app_imports(sample, "coursekit")] == [1, 2, 5]     # `..app` leaves the package
    assert app_imports("from coursekit.paths import WORK_FOLDER\nfrom .bank import load\n", "coursekit.quiz") == []


def test_the_library_never_imports_the_course_command():
    bad = []
    library = sorted((ROOT / "coursekit").rglob("*.py"))
    assert len(library) > 50, library
    for path in library:
        rel = path.relative_to(ROOT)
        if rel.parts[1] == "app" or "node_modules" in rel.parts:
            continue
        package = ".".join(rel.with_suffix("").parts[:-1]) if path.name != "__init__.py" else ".".join(rel.parts[:-1])
        bad += [f"{rel}:{line} imports {module}" for line, module in app_imports(path.read_text(), package)]
    assert not bad, "the library (coursekit/ outside app/) imports the course command's machinery:\n" + "\n".join(bad)


def test_no_notebook_imports_the_course_command():
    bad = []
    notebooks = [p for folder in ("course", "labs", "solutions") for p in sorted((ROOT / folder).rglob("*.ipynb"))]
    assert len(notebooks) > 30, notebooks
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            lines = [line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!"))]
            try:
                found = app_imports("\n".join(lines), "")
            except SyntaxError:
                continue
            bad += [f"{path.relative_to(ROOT)} cell {index} imports {module}" for _, module in found]
    assert not bad, "\n".join(bad)


def test_the_course_command_machinery_lives_in_app():
    """What `course` runs (start, doctor, terminal, kernel, saving, work copies, torch wheel, progress,
    tutor, hub, site) is under coursekit/app/, not among the library's modules."""
    machinery = ["cli", "doctor", "terminal", "kernel", "saving", "contents", "modes", "work", "torch_wheel",
                 "progress_transfer", "progress_cli", "tutor_cli", "nbtools", "quiz_cli", "hub", "site"]
    for name in machinery:
        assert (ROOT / "coursekit" / "app" / f"{name}.py").exists() or (ROOT / "coursekit" / "app" / name).is_dir(), name
        assert not (ROOT / "coursekit" / f"{name}.py").exists() and not (ROOT / "coursekit" / name).exists(), name


def test_autograder_is_one_folder_per_stage():
    top = {p.name for p in (ROOT / "autograder").iterdir() if p.suffix == ".py"}
    folders = {p.name for p in (ROOT / "autograder").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert top == AUTOGRADER_TOP, f"modules at autograder/'s top beyond the command and the contracts: {top - AUTOGRADER_TOP}"
    assert folders == STAGES, f"stage folders differ from docs/DESIGN.md: {folders ^ STAGES}"
    design = (ROOT / "docs" / "DESIGN.md").read_text()
    for stage in STAGES - {"quiz"}:
        for module in sorted((ROOT / "autograder" / stage).glob("*.py")):
            if module.name != "__init__.py":
                assert module.name in design, f"docs/DESIGN.md's pipeline does not name autograder/{stage}/{module.name}"


def module_files() -> dict[str, Path]:
    """Every module of the two packages by dotted name (a package by its __init__.py)."""
    found = {}
    for top in ("coursekit", "autograder"):
        for path in (ROOT / top).rglob("*.py"):
            if "node_modules" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def defined_names(path: Path) -> set[str] | None:
    """The names a module defines at its top level (through if/try/with blocks), read from its source;
    None when any name may exist (a module __getattr__ or a star import)."""
    names: set[str] = set()

    def visit(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if node.name == "__getattr__":
                    raise LookupError
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
            elif isinstance(node, ast.Import):
                names.update(a.asname or a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if any(a.name == "*" for a in node.names):
                    raise LookupError
                names.update(a.asname or a.name for a in node.names)
            for field in ("body", "orelse", "finalbody"):
                if isinstance(node, (ast.If, ast.Try, ast.With)) and getattr(node, field, None):
                    visit(getattr(node, field))
            if isinstance(node, ast.Try):
                for handler in node.handlers:
                    visit(handler.body)

    try:
        visit(ast.parse(path.read_text(encoding="utf-8")).body)
    except LookupError:
        return None
    return names


def test_every_import_of_the_course_packages_resolves():
    """After a module moves, an import inside a function only fails when that function runs: read every
    `from coursekit... import` / `from autograder... import` in the packages, tests and benchmarks, and
    check the module exists and defines each imported name (or has it as a submodule). Read from the
    sources: importing every module into the test process cost seconds of torch and nbgrader start-up."""
    known = module_files()
    names = {name: defined_names(path) for name, path in known.items()}
    bad = []
    files = [p for folder in ("coursekit", "autograder", "tests", "benchmarks") for p in (ROOT / folder).rglob("*.py")
             if "node_modules" not in p.parts]
    assert len(files) > 200, len(files)
    for path in sorted(files):
        rel = path.relative_to(ROOT)
        package = ".".join(rel.parts[:-1]) if path.name == "__init__.py" else ".".join(rel.with_suffix("").parts[:-1])
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                parts = package.split(".")
                module = ".".join(parts[: len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if not module.startswith(("coursekit", "autograder")):
                continue
            if module not in known:
                bad.append(f"{rel}:{node.lineno} from {module}: no such module")
                continue
            for alias in node.names:
                has = names[module] is None or alias.name in names[module] or f"{module}.{alias.name}" in known
                if alias.name != "*" and not has:
                    bad.append(f"{rel}:{node.lineno} from {module} import {alias.name}: no such name")
    assert not bad, "\n".join(bad)


def test_the_import_reader_finds_a_missing_name_and_module(tmp_path):
    (tmp_path / "mod.py").write_text("import os\nif os.name:\n    A = 1\nelse:\n    def b(): pass\n"
                                     "try:\n    from x import C as D\nexcept ImportError:\n    E = None\n")
    assert defined_names(tmp_path / "mod.py") == {"os", "A", "b", "D", "E"}
    (tmp_path / "lazy.py").write_text("def __getattr__(name):\n    return name\n")
    assert defined_names(tmp_path / "lazy.py") is None
