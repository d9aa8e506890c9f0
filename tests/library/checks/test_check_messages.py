"""A lab's visible test cells: a failure shows its teaching message, not a traceback through the
grader; a passing cell shows its "ok" lines and no stray value."""
from __future__ import annotations

import re

import nbformat
import pytest

from notebook_runner import execute_notebook
from pipeline_course import NB, SIGNATURES, env, notebook_text

pytestmark = pytest.mark.slow


def test_failing_and_passing_test_cells_read_as_teaching(course, tmp_path):
    path = tmp_path / NB
    path.write_text(notebook_text(course, impl_mean="wrong"))
    nb = nbformat.read(path, as_version=4)
    raising = f"{SIGNATURES['impl_add']}\n    return a + undefined_name"   # the learner's own bug
    nb.cells.append(nbformat.v4.new_code_cell(raising))
    add_test = next(c for c in nb.cells if "run_visible" in c.source and "add" in c.source)
    nb.cells.append(nbformat.v4.new_code_cell(add_test.source))
    nbformat.write(nb, path)
    executed, _ = execute_notebook(path, env=env(course), allow_errors=True)
    tests = [c for c in executed.cells if c.cell_type == "code" and "run_visible" in c.source]
    errors = [o for c in tests for o in c.outputs if o.output_type == "error"]
    assert len(errors) == 2, [c.outputs for c in tests]
    for error in errors:
        shown = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error.traceback))
        assert shown.startswith("Not yet: Task (")
        assert "checks/visible.py" not in shown and "Traceback" not in shown and len(shown.splitlines()) <= 4
    assert "sum divided by count" in "\n".join(errors[0].traceback)             # the case's hint
    assert "NameError" in "\n".join(errors[1].traceback) and "undefined_name" in "\n".join(errors[1].traceback)
    passing = [c for c in tests if not any(o.output_type == "error" for o in c.outputs)]
    assert passing and all(o.output_type == "stream" and o.text.startswith("ok ") for c in passing for o in c.outputs)
