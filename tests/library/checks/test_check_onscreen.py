"""The learner's check looks at what is on screen: in the notebook it checks the code as run; from a
terminal it says which saved version it checked and warns when the open notebook ran newer code."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request

import nbformat
import pytest

from notebook_runner import execute_notebook
from pipeline_course import BODIES, LAB, NB, SIGNATURES, cli, env, notebook_text

pytestmark = pytest.mark.slow


def outputs_text(nb) -> str:
    return "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))


def test_check_here_sees_a_fix_made_after_the_last_save(course, tmp_path):
    saved = tmp_path / NB
    saved.write_text(notebook_text(course, impl_mean="wrong"))          # the file holds the old, wrong mean
    assert "2/3 tasks pass" in cli(course, "check", str(saved), check=False).stdout
    nb = nbformat.read(saved, as_version=4)
    fixed = f"{SIGNATURES['impl_mean']}\n    {BODIES['impl_mean']['right']}"
    answer = next(c for c in nb.cells if (c.metadata.get("nbgrader") or {}).get("grade_id") == "impl_mean")
    answer.source = fixed                                                # fixed on screen and run, not saved
    nb.cells.append(nbformat.v4.new_code_cell("from coursekit.checks import check_here\ncheck_here()"))
    on_screen = tmp_path / "on-screen.ipynb"
    nbformat.write(nb, on_screen)
    executed, _ = execute_notebook(on_screen, env={**env(course), "JPY_SESSION_NAME": str(saved)}, allow_errors=True)
    shown = outputs_text(executed)
    assert "3/3 tasks pass" in shown and "Checked the code this kernel has run" in shown
    assert "(progress recorded)" in shown
    checks = json.loads((course / ".progress" / "progress.json").read_text())["labs"][LAB]["checks"]
    assert [(c["passed"], c["total"]) for c in checks][-1] == (3, 3)


def test_check_here_reports_each_task_as_its_test_cell_ran_it(course, tmp_path):
    """The grader judges a task at its test cell: a scratch version defined below it changes nothing,
    and check_here() says so, and that the function was defined again after its test cell ran."""
    nb = nbformat.reads(notebook_text(course), as_version=4)
    wrong = f"{SIGNATURES['impl_mean']}\n    {BODIES['impl_mean']['wrong']}"
    nb.cells += [nbformat.v4.new_code_cell(wrong),                       # scratch, below the test cell
                 nbformat.v4.new_code_cell("from coursekit.checks import check_here\ncheck_here(record=False)")]
    path = tmp_path / NB
    nbformat.write(nb, path)
    executed, _ = execute_notebook(path, env={**env(course), "JPY_SESSION_NAME": str(path)}, allow_errors=True)
    shown = outputs_text(executed)
    assert "3/3 tasks pass" in shown, shown
    assert "mean was defined again after that" in shown, shown
    assert "3/3 tasks pass" in cli(course, "check", str(path), check=False).stdout    # and the saved file


def test_terminal_check_warns_when_the_open_notebook_ran_newer_code(course, lab_server, tmp_path):
    folder = lab_server.root / f"check-{os.getpid()}-{time.monotonic_ns()}"
    folder.mkdir()
    path = folder / NB
    path.write_text(notebook_text(course))
    os.utime(path, (time.time() - 600, time.time() - 600))              # last saved ten minutes ago
    request = urllib.request.Request(lab_server.url("api/sessions"), method="POST",
                                     data=json.dumps({"path": f"{folder.name}/{NB}", "type": "notebook",
                                                      "kernel": {"name": "python3"}}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        session = json.load(response)
    try:
        runtime = lab_server.log.parent / "runtime"                     # where the server wrote its jpserver file
        env_extra = {"JUPYTER_RUNTIME_DIR": str(runtime)}
        done = cli_env(course, env_extra, "check", str(path))
        assert "3/3 tasks pass" in done.stdout
        assert f"Checked {path} as saved at" in done.stdout
        assert "WARNING: This notebook is open in Jupyter and its kernel ran code at" in done.stdout
        assert "(progress not recorded" in done.stdout
        os.utime(path, None)                                            # saved now: no warning, recorded
        done = cli_env(course, env_extra, "check", str(path))
        assert "WARNING" not in done.stdout and "(progress recorded)" in done.stdout
    finally:
        delete = urllib.request.Request(lab_server.url(f"api/sessions/{session['id']}"), method="DELETE")
        urllib.request.urlopen(delete, timeout=30).close()


def cli_env(course, extra: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder.cli", "--root", str(course), *args], cwd=course,
                          env={**env(course), **extra}, capture_output=True, text=True, timeout=600)


def test_check_here_says_a_defined_function_has_not_run(tmp_path):
    """Run All stopped before a task's cell: check_here() says that cell has not run, instead of asking
    the learner to define a function the notebook already defines."""
    from conftest import ROOT

    lab = ROOT / "labs" / "lab1-roofline" / "lab1-roofline.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from coursekit.checks import check_here\ncheck_here(record=False)")]
    path = tmp_path / "only-the-check.ipynb"
    nbformat.write(nb, path)
    env = {"COURSE_ROOT": str(ROOT), "COURSE_PROGRESS_DIR": str(tmp_path / "progress")}
    executed, _ = execute_notebook(path, env={**env, "JPY_SESSION_NAME": str(lab)})
    shown = outputs_text(executed)
    assert "the cell that defines matmul_intensity has not run in this kernel" in shown, shown
    assert "define a function named" not in shown


def test_every_lab_ends_with_a_check_cell_that_records_progress():
    from conftest import ROOT

    labs = sorted((ROOT / "labs").glob("*/*.ipynb"))
    assert len(labs) >= 5, labs                     # a moved folder must not make this pass on nothing
    for lab in labs:
        code = [c for c in nbformat.read(lab, as_version=4).cells if c.cell_type == "code"]
        # The check cell ends the tasks; only run_what_works (measurements for a learner still stuck) follows.
        last = code[-2] if "run_what_works(" in code[-1].source else code[-1]
        assert "check_here()" in last.source and "record=False" not in last.source, lab
