"""No two modules of `autograder` or `coursekit` import each other, directly or round a longer circle
(issue #27): a maintainer can read each package bottom-up. Every import counts: inside functions (they
run too) and under `if TYPE_CHECKING:` (a type-only import is still a dependency a reader must follow;
issue 53: let the types live on the floor below). Read from the source, not by importing.

Folded to the grader's stages (issue 41), imports go down the floors docs/DESIGN.md draws, never up
and never sideways: the stage folders are floors, not labels."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from paths import ROOT

PACKAGES = ("autograder", "coursekit")


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "node_modules" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules `name` imports: `from . import x` is module x when x is one, else the package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            subs = {f"{base}.{alias.name}" for alias in node.names} & known.keys()
            found |= subs or ({base} & known.keys())
    return found - {name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    known = modules()
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert len(graph) > 50
    assert not cycles(graph), "modules that import each other:\n" + "\n".join(" <-> ".join(c) for c in cycles(graph))


def test_type_only_and_deferred_imports_count(tmp_path):
    (tmp_path / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import b\n")
    (tmp_path / "b.py").write_text("def f():\n    import pkg.a\n")
    known = {"pkg.a": tmp_path / "a.py", "pkg.b": tmp_path / "b.py"}
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert graph == {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}
    assert cycles(graph) == [["pkg.a", "pkg.b"]]


def test_the_checker_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def floors() -> list[list[str]]:
    """The floors of autograder's stages, top to bottom, as docs/DESIGN.md draws them."""
    text = (ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- floors: top to bottom -->\s*```\n(.*?)```", text, re.S)
    assert block, "docs/DESIGN.md has no floors block"
    return [line.split() for line in block.group(1).splitlines() if line.strip()]


def stage(module: str) -> str:
    """autograder.judge.engine -> judge; autograder.course -> course."""
    return module.split(".")[1]


def upward_or_sideways(known: dict[str, Path], order: list[list[str]]) -> list[str]:
    level = {name: n for n, floor in enumerate(order) for name in floor}
    wrong = []
    for name, path in known.items():
        if not name.startswith("autograder."):
            continue
        for target in imports(name, path, known):
            if not target.startswith("autograder.") or stage(target) == stage(name):
                continue
            if level[stage(target)] <= level[stage(name)]:
                wrong.append(f"{name} -> {target} ({stage(name)} is on floor {level[stage(name)]}, "
                             f"{stage(target)} on floor {level[stage(target)]})")
    return wrong


def test_the_grader_stages_stand_on_the_floors_design_draws():
    known = modules()
    order = floors()
    drawn = {name for floor in order for name in floor}
    stages = {stage(name) for name in known if name.startswith("autograder.")}
    assert stages == drawn, f"stages not drawn: {sorted(stages - drawn)}; drawn, not stages: {sorted(drawn - stages)}"
    assert not upward_or_sideways(known, order), "\n".join(upward_or_sideways(known, order))


def test_the_floor_rule_catches_an_upward_and_a_sideways_import(tmp_path):
    record = tmp_path / "autograder" / "record"
    record.mkdir(parents=True)
    (record / "status.py").write_text("from autograder.batch.loop import run_batch\n")
    (tmp_path / "autograder" / "quiz.py").write_text("import autograder.lms\n")
    known = {"autograder.record.status": record / "status.py", "autograder.batch.loop": record / "status.py",
             "autograder.quiz": tmp_path / "autograder" / "quiz.py", "autograder.lms": tmp_path / "autograder" / "quiz.py"}
    found = upward_or_sideways(known, [["quiz", "lms"], ["batch"], ["record"]])
    assert any(line.startswith("autograder.record.status -> autograder.batch.loop") for line in found), found
    assert any(line.startswith("autograder.quiz -> autograder.lms") for line in found), found
