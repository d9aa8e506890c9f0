"""The trust line: student material (course/, labs/, coursekit/) never imports the grader (autograder/).

Solution notebooks are instructor material, but `autograder generate` turns them into labs/, so their
code cells obey the rule too, except the `### BEGIN HIDDEN TESTS` blocks, which generation removes.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

from marks import per_lab
from paths import ROOT

GRADER = "autograder"
STUDENT_PY = ("course", "labs", "coursekit")
NOTEBOOK_FOLDERS = ("course", "labs", "solutions")
HIDDEN_BLOCK = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS", re.S)


def _is_grader(name: object) -> bool:
    return isinstance(name, str) and (name == GRADER or name.startswith(GRADER + "."))


def grader_imports(source: str) -> list[tuple[int, str]]:
    """(line, what) for every import of the grader: import/from statements, importlib.import_module(...)
    and __import__(...) with a literal name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, f"import {a.name}") for a in node.names if _is_grader(a.name)]
        elif isinstance(node, ast.ImportFrom) and not node.level and _is_grader(node.module):
            found.append((node.lineno, f"from {node.module} import ..."))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in {"import_module", "__import__"} and _is_grader(node.args[0].value):
                found.append((node.lineno, f"{name}({node.args[0].value!r})"))
    return found


def _python_files() -> list[Path]:
    return sorted(p for folder in STUDENT_PY for p in (ROOT / folder).rglob("*.py") if ".ipynb_checkpoints" not in p.parts)


def _notebooks() -> list[Path]:
    return sorted(p for folder in NOTEBOOK_FOLDERS for p in (ROOT / folder).rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts)


def notebook_violations(path: Path) -> list[str]:
    """'<file> cell N line M: <import>' for each grader import in the notebook's code cells."""
    problems, name = [], path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type != "code":
            continue
        source = TransformerManager().transform_cell(HIDDEN_BLOCK.sub("", cell.source))  # magics -> Python
        problems += [f"{name} cell {index} line {line}: {what}"
                     for line, what in grader_imports(source)]
    return problems


def test_the_rule_finds_every_form_of_import():
    sample = ("import autograder\nimport os, autograder.spec as s\nfrom autograder.release.visible_cases import run_visible\n"
              "import importlib\nimportlib.import_module('autograder.judge.hidden')\n__import__('autograder')\n"
              "from coursekit.checks import run_visible\nimport autograders_fan_club\nfrom . import autograder\n")
    assert [line for line, _ in grader_imports(sample)] == [1, 2, 3, 5, 6]


def test_the_rule_reads_notebook_cells_past_magics_but_not_hidden_blocks(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("%matplotlib inline\nfrom autograder.release.visible_cases import run_visible"),
        nbformat.v4.new_code_cell("x = 1\n### BEGIN HIDDEN TESTS\nfrom autograder.judge.hidden import check_task\n"
                                  "### END HIDDEN TESTS")])
    nbformat.write(nb, tmp_path / "sample.ipynb")
    assert notebook_violations(tmp_path / "sample.ipynb") == [
        f"{tmp_path / 'sample.ipynb'} cell 0 line 2: from autograder.release.visible_cases import ..."]


def test_student_python_never_imports_the_grader():
    files = _python_files()
    assert any(p.parts[-2:] == ("checks", "visible.py") for p in files)      # the scan sees coursekit
    problems = [f"{p.relative_to(ROOT)} line {line}: {what}"
                for p in files for line, what in grader_imports(p.read_text(encoding="utf-8"))]
    assert not problems, "student material imports the grader:\n" + "\n".join(problems)


def test_notebooks_never_import_the_grader():
    notebooks = _notebooks()
    assert {p.parent.parent.name for p in notebooks} >= {"labs", "solutions"}
    problems = [problem for path in notebooks for problem in notebook_violations(path)]
    assert not problems, "notebooks import the grader:\n" + "\n".join(problems)


@pytest.mark.float_sensitive
@pytest.mark.parametrize("lab", per_lab(sorted(p.name for p in (ROOT / "solutions").iterdir() if p.is_dir())))
def test_committed_visible_checks_match_the_spec(lab):
    """labs/<lab>/<lab>.checks.json is what `autograder generate` writes from the spec today."""
    from autograder.release.visible_cases import checks_data
    from autograder.spec import load_spec

    committed = ROOT / "labs" / lab / f"{lab}.checks.json"
    assert committed.is_file(), f"{committed} is missing: run `autograder generate {lab}`"
    spec = load_spec(lab)
    fresh = json.loads(json.dumps(checks_data(spec)))   # tuples become lists, as in the file
    stale = f"{committed} is stale: run `autograder generate {lab}` and commit it"
    on_disk = json.loads(committed.read_text(encoding="utf-8"))
    # everything but the expected outputs exactly; those with the tolerance the student's check uses
    # (a machine whose torch rounds differently must not call the file stale: tests/house/test_portable_floats.py)
    assert _without_expected(on_disk) == _without_expected(fresh), stale
    for task, disk_task, fresh_task in zip(spec.tasks, on_disk["tasks"], fresh["tasks"]):
        for disk_case, fresh_case in zip(disk_task["cases"], fresh_task["cases"]):
            message = task.compare(disk_case["expected"], fresh_case["expected"])
            assert message is None, f"{stale}: {task.grade_id}, case '{fresh_case['name']}': {message}"


def _without_expected(data: dict) -> dict:
    return {**data, "tasks": [{**task, "cases": [{k: v for k, v in case.items() if k != "expected"}
                                                  for case in task["cases"]]} for task in data["tasks"]]}
