"""`run_what_works(lab)`: a learner stuck on a task still sees the lab's measurements (issue #31).

Run All stops at the first failing test cell; the lab's last cell then runs the cells that did not run,
test cells left out, on the learner's functions, and says which unfinished task each skipped cell needs.
"""
from __future__ import annotations

import json

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from coursekit.app.kernel_client import kernel_config
from coursekit.what_works import given_cells
from paths import ROOT

LABS = sorted(p.name for p in (ROOT / "labs").iterdir() if (p / f"{p.name}.ipynb").is_file())


def _grade_id(cell) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id", "")


@pytest.mark.parametrize("lab", LABS)
def test_every_lab_ends_with_the_cell_and_it_leaves_tests_out(lab):
    nb = nbformat.read(ROOT / "labs" / lab / f"{lab}.ipynb", as_version=4)
    ids = [_grade_id(cell) for cell in nb.cells]
    assert ids.index("what_works") > ids.index("check_work"), f"{lab}: the cell must come after the check"
    assert f'run_what_works("{lab}")' in nb.cells[ids.index("what_works")].source
    cells, tasks = given_cells(json.loads(nbformat.writes(nb)))
    names = {name for name, _, _ in cells}
    graded = {_grade_id(c) for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")}
    assert graded and not names & graded, f"{lab}: test cells must never run here"
    assert not names & {"check_work", "what_works"}
    assert tasks, f"{lab}: the task functions are what a skipped cell names"


def _solution_source(lab: str, grade_id: str) -> str:
    nb = nbformat.read(ROOT / "solutions" / lab / f"{lab}.ipynb", as_version=4)
    return next(c.source for c in nb.cells if _grade_id(c) == grade_id)


def _text(cell) -> str:
    return "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")


def _stuck(lab: str, done: tuple[str, ...], tmp_path, monkeypatch):
    """Run All on the student version with the tasks in `done` written as the solution writes them (Run All
    stops at the first failing test), an unsaved edit of the first done task's function run on screen,
    then the lab's what_works cell. Returns (where Run All stopped, notebook, the cell, kept, history)."""
    nb = nbformat.read(ROOT / "labs" / lab / f"{lab}.ipynb", as_version=4)
    for cell in nb.cells:
        if _grade_id(cell) in done:
            cell.source = _solution_source(lab, _grade_id(cell))
    ids = [_grade_id(cell) for cell in nb.cells]
    for name, value in {"COURSE_QUICK": "1", "COURSE_PROGRESS_DIR": str(tmp_path / "progress"),
                        "MPLBACKEND": "module://matplotlib_inline.backend_inline"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("COURSE_GRADING", raising=False)
    saved = tmp_path / "work" / lab / f"{lab}.ipynb"      # the learner's saved copy, as Jupyter names it
    saved.parent.mkdir(parents=True)
    nbformat.write(nb, saved)
    monkeypatch.setenv("JPY_SESSION_NAME", str(saved))
    client = NotebookClient(nb, timeout=300, kernel_name="python3", config=kernel_config(tmp_path),
                            resources={"metadata": {"path": str(ROOT / "labs" / lab)}})
    edited_fn = given_cells(json.loads(nbformat.writes(nb)))[0]
    first = sorted(next(d for n, _, d in edited_fn if n == done[0]))[0]
    with client.setup_kernel():
        stopped = None
        for index, cell in enumerate(nb.cells):          # Run All: stops at the first failing cell
            if cell.cell_type != "code":
                continue
            try:
                client.execute_cell(cell, index)
            except CellExecutionError:
                stopped = ids[index]
                break
        # An edit on screen, run but not saved: run_what_works must not replace it with the saved cell.
        probe = [nbformat.v4.new_code_cell(f"{first}.edited = True\nlen(In)"),
                 nbformat.v4.new_code_cell(f"(getattr({first}, 'edited', False), len(In))")]
        nb.cells.append(probe[0])
        client.execute_cell(probe[0], len(nb.cells) - 1)
        cell = nb.cells[ids.index("what_works")]
        client.execute_cell(cell, ids.index("what_works"))
        nb.cells.append(probe[1])
        client.execute_cell(probe[1], len(nb.cells) - 1)
    history = int(probe[0].outputs[0]["data"]["text/plain"])
    kept, count = eval(probe[1].outputs[0]["data"]["text/plain"])
    assert kept, f"the learner's own (unsaved) {first} was replaced"
    assert count == history + 2, "the cells run_what_works ran went into the learner's history"  # its cell + the probe
    return stopped, nb, ids, _text(cell), cell


@pytest.mark.slow
def test_lab1_stuck_on_task_three_still_measures_this_machine(tmp_path, monkeypatch):
    stopped, nb, ids, text, cell = _stuck("lab1-roofline", ("impl_intensity", "impl_ridge"), tmp_path, monkeypatch)
    assert stopped == "test_attainable"
    assert not nb.cells[ids.index("measure")].outputs, "Run All never reached the measurements"
    assert "Nothing was skipped." in text, text      # Lab 1's measurements use the course's model, not the tasks
    images = [out for out in cell.outputs if out.output_type == "display_data" and "image/png" in out.get("data", {})]
    assert images, "the measured roofline's figure shows"


def test_lab4_stuck_on_break_even_runs_what_works_and_names_what_is_missing(tmp_path, monkeypatch):
    stopped, nb, ids, text, cell = _stuck("lab4-economics", ("impl_cost", "impl_bill", "impl_throughput"),
                                          tmp_path, monkeypatch)
    assert stopped == "test_break_even"
    assert "[skipped] cell 'scenario' needs break_even_day (NotImplementedError" in text, text
    assert "[skipped] cell 'tco_scenario' needs three_year_tco (NotImplementedError" in text, text
    assert "[skipped] cell 'discuss2' (NameError: name 'ranking' is not defined)" in text, text
    finish = text.split("Finish ")[1]
    assert "break_even_day" in finish and "cost_per_million_tokens" not in finish, text


@pytest.mark.slow
def test_under_grading_it_runs_nothing(monkeypatch, tmp_path):
    monkeypatch.setenv("COURSE_GRADING", "1")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        'from coursekit.what_works import run_what_works\nrun_what_works("lab1-roofline")')])
    client = NotebookClient(nb, timeout=120, kernel_name="python3", config=kernel_config(tmp_path),
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    assert _text(nb.cells[0]).startswith("run_what_works: not run while grading"), _text(nb.cells[0])
