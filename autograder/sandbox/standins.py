"""Stand-ins for the course's reference code while a submission is graded (docs/SANDBOX.md, the reference rule).

A task's `forbidden` list names course code its function may not reach. A watch inside the student's
process can be switched off from there, so the grading child is not given that code at all: the trusted
side writes, for each course source file a lab's rules name, a stand-in whose forbidden functions only
raise `NotImplementedError("the course's own implementation of ... is not available while grading")`,
and the sandbox binds it over the real file (`Confinement.overlay`); compiled copies in `__pycache__`
are covered with an empty file. What the worker had already imported before it forked is replaced in
the child by `replace_in_memory` before any student code runs. Module-level data, classes and imports
stay, so `from coursekit.calc import roofline` still works; a lab whose setup needs a forbidden function
names it in `LabSpec.setup_uses`.

Only pure-Python course files under coursekit/ get stand-ins. `autograder` (in the default list) is the
grader itself: its task references live in solutions/, which the child never sees, and in the spec the
worker loaded, whose functions `replace_in_memory` replaces too (all but the prepare and encode steps
the child runs).
"""
from __future__ import annotations

import ast
import gc
import hashlib
import importlib
import json
import linecache
import os
import types
from pathlib import Path

COURSEKIT = Path(__file__).resolve().parents[2] / "coursekit"
MESSAGE = "the course's own implementation of {} is not available while grading"
HEADER = "# A grading stand-in: the course's reference code is not available while a submission is graded.\n"


def _resolve(rule: str) -> tuple[list[Path], str] | None:
    """(course source files a rule covers, the qualified name inside them or '' for all); None when the
    rule names no course file (a third-party module: the watch alone covers it)."""
    parts = rule.split(".")
    if parts[0] != "coursekit":
        return None
    base = COURSEKIT
    for i, part in enumerate(parts[1:], 1):
        if (base / part).is_dir():
            base = base / part
        elif (base / f"{part}.py").is_file():
            return [base / f"{part}.py"], ".".join(parts[i + 1:])
        else:
            return ([base / "__init__.py"] if (base / "__init__.py").is_file() else []), ".".join(parts[i:])
    return sorted(base.rglob("*.py")), ""


def _module(path: Path) -> str:
    return ".".join(("coursekit", *path.relative_to(COURSEKIT).with_suffix("").parts)).removesuffix(".__init__")


def plan(rules, keep=()) -> dict[str, dict]:
    """{real path of a course file: {"module", "names" (qualnames replaced; '' = all), "keep"}} for
    these forbidden rules, minus the functions and classes named in `keep` (a lab's setup_uses)."""
    files: dict[str, dict] = {}
    for rule in rules:
        found = _resolve(rule)
        for path in found[0] if found else []:
            entry = files.setdefault(str(path.resolve()), {"module": _module(path), "names": [], "keep": []})
            entry["names"] = sorted({*entry["names"], found[1]})
    for name in keep:
        found = _resolve(name)
        for path in found[0] if found else []:
            entry = files.get(str(path.resolve()))
            if entry is not None and found[1]:
                entry["keep"] = sorted({*entry["keep"], found[1]})
    return files


def replaced(entry: dict, qualname: str) -> bool:
    """Whether the function `qualname` of this file is a stand-in (a kept class keeps its methods)."""
    def under(name: str) -> bool:
        return not name or qualname == name or qualname.startswith(name + ".")
    return any(under(n) for n in entry["names"]) and not any(under(k) for k in entry["keep"] if k)


class _StandIn(ast.NodeTransformer):
    def __init__(self, entry: dict) -> None:
        self.entry, self.prefix = entry, []

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        self.prefix.append(node.name)
        node.body = [self.visit(child) for child in node.body]
        self.prefix.pop()
        _drop_docstring(node)
        return node

    def visit_FunctionDef(self, node):
        qualname = ".".join((*self.prefix, node.name))
        if replaced(self.entry, qualname):
            message = MESSAGE.format(f"{self.entry['module']}.{qualname}")
            node.body = [ast.Raise(exc=ast.Call(ast.Name("NotImplementedError", ast.Load()),
                                                [ast.Constant(message)], []), cause=None)]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef


def qualnames(path: str) -> set[str]:
    """Every class and function a course file defines at module or class level, by qualified name."""
    names: set[str] = set()

    def walk(body, prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(prefix + node.name)
                if isinstance(node, ast.ClassDef):
                    walk(node.body, f"{prefix}{node.name}.")
    walk(ast.parse(Path(path).read_text(encoding="utf-8")).body, "")
    return names


def _drop_docstring(node) -> None:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        node.body = body[1:] or [ast.Pass()]


def _computed_data(tree: ast.Module, module: str) -> None:
    """Module-level data computed by calling code (`GPU_MTBF_HOURS = run.gpu_mtbf_from_observed(...)`)
    becomes its value, as the trusted process computed it: the stand-in's functions would raise at import.
    Only plain values are written; anything else stays as it was."""
    real = None
    for node in tree.body:
        if not (isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None
                and any(isinstance(n, ast.Call) for n in ast.walk(node.value))):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name):
            continue
        real = real or importlib.import_module(module)
        value = getattr(real, targets[0].id, None)
        try:
            if ast.literal_eval(repr(value)) == value:
                node.value = ast.parse(repr(value), mode="eval").body
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass


def stand_in_source(path: str, entry: dict) -> str:
    """The file's source with each replaced function's body (docstring included) swapped for a raise."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"), filename=path)
    _computed_data(tree, entry["module"])
    tree = _StandIn(entry).visit(tree)
    _drop_docstring(tree)
    return HEADER + ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def write_overlay(files: dict[str, dict], folder: Path) -> tuple[tuple[str, str], ...]:
    """Write the stand-ins under `folder` (one subfolder per plan, reused); return (real path, stand-in)
    pairs for the sandbox, compiled copies in __pycache__ paired with an empty file."""
    key = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:16]
    where = folder / key
    pairs = []
    empty = where / "empty"
    if not where.is_dir():
        staging = folder / f".{key}-{os.getpid()}"
        staging.mkdir(parents=True, exist_ok=True)
        (staging / "empty").write_bytes(b"")
        for index, (path, entry) in enumerate(sorted(files.items())):
            (staging / f"{index}.py").write_text(stand_in_source(path, entry), encoding="utf-8")
        os.replace(staging, where)
    for index, path in enumerate(sorted(files)):
        pairs.append((path, str(where / f"{index}.py")))
        real = Path(path)
        for compiled in sorted((real.parent / "__pycache__").glob(f"{real.stem}.*.pyc")):
            pairs.append((str(compiled), str(empty)))
    return tuple(pairs)


# ---------------------------------------------------------------- in the grading child, before student code

def _raising(code: types.CodeType, message: str) -> types.CodeType:
    """A code object that raises `message`, named as `code` (the watch still names what was reached), with
    as many free variables as `code` so it fits the function's closure."""
    free = [f"_f{i}" for i in range(len(code.co_freevars))]
    binding = f"    {' = '.join(free)} = None\n" if free else ""
    use = f"        {', '.join(free)}\n" if free else ""
    source = (f"def _outer():\n{binding}    def _stand_in(*args, **kwargs):\n{use}"
              f"        raise NotImplementedError({message!r})\n    return _stand_in\n")
    outer = compile(source, code.co_filename, "exec").co_consts[0]
    inner = next(c for c in outer.co_consts if isinstance(c, types.CodeType))
    return inner.replace(co_name=code.co_name, co_qualname=code.co_qualname, co_filename=code.co_filename,
                         co_firstlineno=code.co_firstlineno)


def _spec_needs(spec) -> set:
    """The spec file's own functions the child runs: each task's prepare and encode, and the functions of
    that file they reach by name or closure."""
    origin = os.path.realpath(spec.origin) if getattr(spec, "origin", None) else None
    todo = [f for task in spec.tasks for f in (task.prepare, task.encode) if isinstance(f, types.FunctionType)]
    needed: set = set()
    while todo:
        function = todo.pop()
        if function in needed or os.path.realpath(function.__code__.co_filename) != origin:
            continue
        needed.add(function)
        codes, names = [function.__code__], set()
        while codes:
            code = codes.pop()
            names.update(code.co_names)
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        found = [function.__globals__.get(n) for n in names]
        todo += [f for f in found if isinstance(f, types.FunctionType)]
        todo += [f for cls in found if isinstance(cls, type) for f in vars(cls).values()   # a class of its own
                 if isinstance(f, types.FunctionType)]
        todo += [c.cell_contents for c in function.__closure__ or () if isinstance(c.cell_contents, types.FunctionType)]
    return needed


def replace_in_memory(files: dict[str, dict], spec=None) -> int:
    """Swap the code of every function object of a replaced course function in this process (imported
    before the fork: the spec's, the warm modules'), and of every function of the spec's own file but
    the prepare and encode steps the child runs (its references, hidden-case generators, expected-value
    helpers); forget cached source lines. Returns how many functions were replaced."""
    linecache.clearcache()
    if spec is not None and getattr(spec, "origin", None):
        files = dict(files, **{os.path.realpath(spec.origin): {"module": f"the spec of {spec.lab_id}",
                                                                "names": [""], "keep": []}})
    needed = _spec_needs(spec) if spec is not None else set()
    targets: dict[types.FunctionType, str] = {}
    paths: dict[str, str | None] = {}
    names = {os.path.basename(path) for path in files}       # realpath only for files that may match
    for obj in gc.get_objects():
        if type(obj) is not types.FunctionType or obj in needed:
            continue
        filename = obj.__code__.co_filename
        if filename not in paths:
            paths[filename] = os.path.realpath(filename) if os.path.basename(filename) in names else None
        entry = files.get(paths[filename]) if paths[filename] else None
        if entry is not None and replaced(entry, obj.__code__.co_qualname):
            targets[obj] = f"{entry['module']}.{obj.__code__.co_qualname}"
    for function, name in targets.items():
        function.__code__ = _raising(function.__code__, MESSAGE.format(name))
    return len(targets)
