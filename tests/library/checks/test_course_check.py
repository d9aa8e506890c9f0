"""`course check`: a student's check runs without the grader, only the code the tasks need, and from
wherever the notebook is (labs/, a work copy, solutions/)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from coursekit.checks import selfcheck, visible
from paths import ROOT

LAB = "lab2-cluster"   # plain arithmetic: a check of it is quick
NO_GRADER = "import sys; sys.modules['autograder'] = None; from coursekit.app.cli import main; sys.exit(main(sys.argv[1:]))"
# Libraries a check of plain-arithmetic tasks has no use for: other commands' (site, quiz widgets, the
# Jupyter server) and the notebook's plots; importing them was most of what such a check took.
HEAVY = ("matplotlib", "torch", "ipywidgets", "nbclient", "nbformat", "jupyter_server", "yaml", "numpy")
REPORT_IMPORTS = NO_GRADER.replace("sys.exit(main(sys.argv[1:]))", "status = main(sys.argv[1:]); print('imported:', "
                                   f"sorted({{m.partition('.')[0] for m in sys.modules}} & set({HEAVY!r}))); sys.exit(status)")


def course_check(notebook: Path, tmp_path: Path, *extra: str, code: str = NO_GRADER,
                 environ: dict | None = None) -> subprocess.CompletedProcess:
    """`course check` in a process where importing autograder fails, as on a student's machine without it."""
    env = dict(os.environ if environ is None else environ, COURSE_PROGRESS_DIR=str(tmp_path / "progress"),
               COURSE_ROOT=str(ROOT))
    return subprocess.run([sys.executable, "-c", code, "check", str(notebook), *extra], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)


def answer(code: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(code)
    cell.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": "impl"}
    return cell


def test_only_the_code_the_tasks_need_runs():
    cells = [nbformat.v4.new_code_cell("import math\nimport json; import csv\nTABLE = {'a': 2}\nraise SystemExit('setup')"),
             answer("def area(r):\n    return math.pi * r ** SQUARE * TABLE['a']"),
             nbformat.v4.new_code_cell("SQUARE = 2\n\n@functools.cache\ndef unused():\n    pass"),
             nbformat.v4.new_code_cell("%timeit area(3)\nplt.plot([area(r) for r in range(9)])")]
    units = selfcheck.needed_code(cells, {"area"})
    assert [(u.cell, u.source.strip()) for u in units] == [
        (0, "import math"), (0, "TABLE = {'a': 2}"), (1, cells[1].source), (2, "SQUARE = 2")]
    assert [u.cell for u in selfcheck.every_code_cell(cells)] == [0, 1, 2, 3]
    broken = [answer("return 1"), nbformat.v4.new_code_cell("def f(:")]      # run, so the check reports them
    assert [u.cell for u in selfcheck.needed_code(broken, {"area"})] == [0, 1]


@pytest.mark.slow
def test_work_copy_passes_without_the_grader_and_names_a_wrong_answer(tmp_path):
    work = tmp_path / "work" / LAB
    work.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / LAB / f"{LAB}.ipynb", work)
    done = course_check(work / f"{LAB}.ipynb", tmp_path)
    tasks = len(json.loads((ROOT / "labs" / LAB / f"{LAB}.checks.json").read_text())["tasks"])
    assert done.returncode == 0 and f"{tasks}/{tasks} tasks pass" in done.stdout, done.stdout + done.stderr

    nb = nbformat.read(work / f"{LAB}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if "def pipeline_bubble" in c.source)
    cell.source = "def pipeline_bubble(stages, microbatches):\n    return (stages - 1) / microbatches\n"
    nbformat.write(nb, work / f"{LAB}.ipynb")
    done = course_check(work / f"{LAB}.ipynb", tmp_path, "--every-cell")
    assert done.returncode == 1 and "FAIL  Task (pipeline bubble)" in done.stdout, done.stdout + done.stderr
    assert f"{tasks - 1}/{tasks} tasks pass" in done.stdout


def test_a_check_imports_only_what_its_tasks_need(tmp_path):
    """Lab 2's notebook imports pyplot and the course's calculators, the `course` command registers site
    and quiz commands: a check of its arithmetic tasks loads none of their libraries. It reads one small
    YAML file, the course outline, to file the check under the lab's module (17 ms of import)."""
    done = course_check(ROOT / "solutions" / LAB / f"{LAB}.ipynb", tmp_path, code=REPORT_IMPORTS)
    assert done.returncode == 0 and "imported: ['yaml']" in done.stdout, done.stdout + done.stderr

    nb = nbformat.read(ROOT / "solutions" / LAB / f"{LAB}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if "def pipeline_bubble" in c.source)
    cell.source = "import numpy\n" + cell.source             # an answer cell runs whole, its imports too
    nbformat.write(nb, tmp_path / f"{LAB}.ipynb")
    done = course_check(tmp_path / f"{LAB}.ipynb", tmp_path, code=REPORT_IMPORTS)
    assert done.returncode == 0 and "imported: ['numpy', 'yaml']" in done.stdout, done.stdout + done.stderr


@pytest.mark.slow
def test_torch_runs_one_thread_in_the_check_as_in_the_grader(tmp_path):
    """Tiny visible cases gain nothing from threads and, on a loaded machine, lose seconds waiting for
    them; the grader's workers run one thread too. A learner's own setting is kept."""
    nb = nbformat.read(ROOT / "solutions" / LAB / f"{LAB}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if "def pipeline_bubble" in c.source)
    cell.source = "import torch\nassert torch.get_num_threads() == 1, torch.get_num_threads()\n" + cell.source
    nbformat.write(nb, tmp_path / f"{LAB}.ipynb")
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    done = course_check(tmp_path / f"{LAB}.ipynb", tmp_path, environ=env)
    assert done.returncode == 0, done.stdout + done.stderr
    done = course_check(tmp_path / f"{LAB}.ipynb", tmp_path, environ={**env, "OMP_NUM_THREADS": "2"})
    assert done.returncode == 1 and "raised AssertionError: 2" in done.stdout, done.stdout + done.stderr


def test_the_released_lab_says_what_is_not_implemented(tmp_path):
    done = course_check(ROOT / "labs" / LAB / f"{LAB}.ipynb", tmp_path)
    assert done.returncode == 1 and "is not implemented yet" in done.stdout, done.stdout + done.stderr
    assert "not implemented yet ()" not in done.stdout     # nbgrader's stub raises NotImplementedError()


def test_a_broken_checks_file_is_an_error_naming_it(tmp_path, monkeypatch):
    folder = tmp_path / "labs" / "lab-x"
    folder.mkdir(parents=True)
    (folder / "lab-x.checks.json").write_text('{"tasks": [{"grade_id": "t"}]}')
    monkeypatch.setenv("COURSE_ROOT", str(tmp_path))
    with pytest.raises(ValueError, match=r"lab-x\.checks\.json: not a valid checks file"):
        visible.load_checks("lab-x")
    (folder / "lab-x.checks.json").write_text(json.dumps({"tasks": [{
        "grade_id": "t", "title": "T", "function": "f", "prepare": "os:system", "encode": "x:y", "compare": "x:y",
        "cases": []}]}))
    with pytest.raises(ValueError, match="may only name functions in coursekit"):
        visible.load_checks("lab-x")


def test_a_case_whose_right_answer_is_none_is_checked_not_refused(capsys):
    """Lab 4's "never breaks even" case: the checks file writes `expected: null` for it."""
    task = visible.load_checks("lab4-economics")["test_break_even"]
    never = next(c for c in task.cases if c.expected is None)
    single = visible.VisibleTask(task.grade_id, task.title, task.function, (never,), task.prepare, task.encode,
                                 task.compare, ())
    assert visible.run_task(single, lambda *args: None, want=visible.as_written) == 1
    with pytest.raises(visible.VisibleTestFailed, match="expected None, got 5"):
        visible.run_task(single, lambda *args: 5, want=visible.as_written)


def test_reads_in_magics_and_literal_evals_count_and_dynamic_reach_keeps_everything():
    """What an answer reads inside %%time, %time or an eval/exec of a literal keeps the statement
    binding it; globals(), vars(), __main__ or an eval of a computed string may read any name, so every
    statement runs. IPython's own `!command` and a model's .modules() are not such reads."""
    setup = nbformat.v4.new_code_cell("import math\nimport json\nSLOW = sum(range(10))\nQUICK = True")

    def kept(*answers: str) -> str:
        """What runs of the setup cell."""
        units = selfcheck.needed_code([setup, *[answer(a) for a in answers]], {"area"})
        return "".join(u.source for u in units if u.cell == 0)

    assert kept("def area(r):\n    return r") == ""                    # nothing of the setup is needed
    assert "import math" in kept("%%time\ndef area(r):\n    return math.pi * r * r")
    assert "import math" in kept("%time PI = math.pi\ndef area(r):\n    return PI * r * r")
    assert "QUICK" in kept("%%capture\nN = 3 if QUICK else 9\ndef area(r):\n    return r")
    assert "import math" in kept("def area(r):\n    return eval('math.pi') * r * r")
    assert "import math" in kept("exec('import cmath')\ndef area(r):\n    return math.pi")
    for dynamic in ("globals()['math'].pi", "vars()['math'].pi", "__import__('__main__').math.pi",
                    "eval(name).pi", "sys.modules['__main__'].math.pi"):
        assert "SLOW" in kept(f"import sys\nname = 'math'\ndef area(r):\n    return {dynamic}"), dynamic
    assert "SLOW" in kept("import __main__\ndef area(r):\n    return __main__.math.pi")
    assert "SLOW" not in kept("!echo hello\ndef area(r):\n    return len(list(r.modules()))")


def write_lab(tmp_path: Path, edit) -> Path:
    """Lab 2's solution with `edit(cells)` applied, saved as a student's copy."""
    nb = nbformat.read(ROOT / "solutions" / LAB / f"{LAB}.ipynb", as_version=4)
    edit(nb.cells)
    path = tmp_path / f"{LAB}.ipynb"
    nbformat.write(nb, path)
    return path


def place(cells, grade_id: str) -> int:
    return next(n for n, c in enumerate(cells) if (c.metadata.get("nbgrader") or {}).get("grade_id") == grade_id)


def test_each_task_is_checked_at_its_test_cell(tmp_path):
    """As the grader and nbgrader judge them: a stub or scratch version run below a test cell changes
    nothing, and a helper defined below its test cell is not there yet."""
    stub = "def pipeline_bubble(stages, microbatches):\n    raise NotImplementedError()"
    scratch = "def ring_allreduce_time(message_bytes, n, alpha, bandwidth):\n    return 0.0   # scratch"

    def edit(cells):
        cells.append(nbformat.v4.new_code_cell(stub))
        cells.append(nbformat.v4.new_code_cell(scratch))
        solution = cells[place(cells, "impl_ckpt")]
        helper = solution.source.replace("def checkpoint_interval(", "def young_daly(")
        solution.source = ("def checkpoint_interval(checkpoint_seconds, gpu_mtbf_hours, n_gpus):\n"
                           "    return young_daly(checkpoint_seconds, gpu_mtbf_hours, n_gpus)")
        cells.insert(place(cells, "test_ckpt") + 1, nbformat.v4.new_code_cell(helper))
        tp = cells.pop(place(cells, "impl_tp"))                    # an answer moved below its test cell
        cells.insert(place(cells, "test_tp") + 1, tp)

    done = course_check(write_lab(tmp_path, edit), tmp_path)
    tasks = len(json.loads((ROOT / "labs" / LAB / f"{LAB}.checks.json").read_text())["tasks"])
    assert f"{tasks - 2}/{tasks} tasks pass" in done.stdout, done.stdout + done.stderr
    assert "FAIL  Task (checkpoint interval)" in done.stdout and "young_daly" in done.stdout, done.stdout
    assert "tp_comm_per_layer is not defined when its test cell runs" in done.stdout, done.stdout


def test_an_edited_locked_cell_runs_as_released(tmp_path):
    """nbgrader's autograde puts a locked cell back as released, so the grader and the check do too: an
    answer that needs an import added to the (locked) setup cell fails, and the check says why."""
    def edit(cells):
        cells[place(cells, "setup")].source += "\nHALF = 0.5\n"
        bubble = cells[place(cells, "impl_bubble")]
        bubble.source = ("def pipeline_bubble(stages, microbatches):\n"
                         "    return HALF * 2 * (stages - 1) / (microbatches + stages - 1)")

    done = course_check(write_lab(tmp_path, edit), tmp_path)
    assert "FAIL  Task (pipeline bubble)" in done.stdout and "HALF" in done.stdout, done.stdout + done.stderr
    assert "cell 2 is locked and was changed: it runs as released" in done.stdout, done.stdout


def test_an_instructor_checking_a_submission_records_nothing_in_their_own_progress(tmp_path):
    """An instructor's `course check` of submitted/<student>/<lab>/: the result is the student's, so the
    instructor's own progress store is left alone (their own copy's check still records)."""
    submitted = tmp_path / "course" / "submitted" / "ada" / LAB
    submitted.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / LAB / f"{LAB}.ipynb", submitted)
    done = course_check(submitted / f"{LAB}.ipynb", tmp_path)
    assert done.returncode == 0 and "progress not recorded: this is a student's submission" in done.stdout, done.stdout
    assert not (tmp_path / "progress" / "progress.json").exists()
