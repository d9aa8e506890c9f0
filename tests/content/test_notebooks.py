"""Every committed notebook is clean nbformat 4, and every lesson and solution runs headless."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from notebook_runner import NotebookFailed, execute_notebook, run_env
from paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "notebooks"


def committed_notebooks() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "*.ipynb"], cwd=ROOT, capture_output=True, text=True).stdout
    tracked = [ROOT / line for line in out.split()]
    # Untracked notebooks in the course folders count too, so a new lesson is checked before commit.
    found = {p for folder in ("course", "labs", "solutions") for p in (ROOT / folder).rglob("*.ipynb")
             if ".ipynb_checkpoints" not in p.parts}
    return sorted(set(tracked) | found)


LESSONS = sorted((ROOT / "course").glob("*/*.ipynb")) + [ROOT / "course" / "index.ipynb"]
# Solution notebooks run once, in tests/content/test_labs_contract.py. Execution times land in
# tests/artifacts/notebook-times.json (budgets are measured there and in benchmarks, not asserted).


def ids(paths):
    return [p.relative_to(ROOT).as_posix() for p in paths]


def test_there_are_notebooks():
    assert (ROOT / "course" / "index.ipynb").exists()
    assert committed_notebooks()


@pytest.mark.parametrize("path", committed_notebooks(), ids=ids(committed_notebooks()))
def test_notebook_is_valid_and_stripped(path):
    try:
        nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
        nbformat.validate(nb)
    except Exception as exc:  # noqa: BLE001 - any parse or schema error is the finding
        pytest.fail(f"{path.relative_to(ROOT)} is not valid nbformat: {exc}")
    assert nb.nbformat == 4, f"{path.relative_to(ROOT)} is nbformat {nb.nbformat}, expected 4"
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    assert not dirty, (f"{path.relative_to(ROOT)} has outputs or execution counts in cells {dirty}: "
                       "run python -m coursekit.app.nbtools strip")


@pytest.mark.slow
def test_notebooks_run_on_cpu(tmp_path):
    nb, _ = execute_notebook(FIXTURES / "device.ipynb", env=run_env(tmp_path))
    text = "".join(o.get("text", "") for o in nb.cells[1].outputs)
    assert "COURSE_DEVICE = cpu" in text and "Labs will run on cpu" in text


@pytest.mark.slow
def test_a_failure_names_the_notebook_and_the_cell(tmp_path):
    path = FIXTURES / "fails-in-cell-3.ipynb"
    with pytest.raises(NotebookFailed) as failed:
        execute_notebook(path, env=run_env(tmp_path))
    message = str(failed.value)
    assert message.startswith(f"{path}: cell 3 of 4 failed:")
    assert "raise ValueError('fixture failure on purpose')" in message      # the cell's source
    assert "ValueError: fixture failure on purpose" in message             # and the error it raised


@pytest.mark.slow
@pytest.mark.parametrize("path", LESSONS, ids=ids(LESSONS))
def test_lesson_executes(path, executed_notebooks):
    executed_notebooks.get(path)


def test_start_page_is_up_to_date():
    result = subprocess.run([sys.executable, "-m", "coursekit.index", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_start_page_links_every_lesson_lab_and_test():
    text = (ROOT / "course" / "index.ipynb").read_text()
    for lesson in sorted((ROOT / "course").glob("m*/*.ipynb")):
        assert lesson.relative_to(ROOT / "course").as_posix() in text, f"start page does not link {lesson}"
    for lab in sorted((ROOT / "labs").glob("*/*.ipynb")):   # each in the learner's own copy, as everywhere
        assert f"../work/{lab.parent.name}/{lab.name}" in text, f"start page does not link work/ for {lab}"
        assert f"course check work/{lab.parent.name}/{lab.name}" in text
    assert "../labs/" not in text and "course check labs/" not in text
    # a self-paced learner is told where the worked solutions are, and to try first
    assert "`solutions/<lab>/<lab>.ipynb` with File > Open from Path" in text and "Try each lab first" in text


@pytest.mark.slow
def test_executed_start_page_shows_the_progress_summary(tmp_path, monkeypatch):
    from coursekit import progress

    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path))
    progress.record_quiz("m1-l1", module="m1", seed=1, shown=["a", "b", "c"], item_id="a", response=0, correct=True)
    progress.record_lab_check("lab1-roofline", 2, 5)
    nb, _ = execute_notebook(ROOT / "course" / "index.ipynb", env=run_env(tmp_path))
    cell = next(c for c in nb.cells if c.cell_type == "code" and "show_progress()" in c.source)
    html = "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs)
    assert "course-progress-table" in html, cell.outputs
    assert "quiz: 1 of 3 questions answered right" in html                 # every item, with its meaning
    assert "(lab1-roofline)</a></td><td>2 of 5 tasks pass their visible tests" in html and "not started" in html
    assert str(tmp_path) in html                                 # the store it read is named
