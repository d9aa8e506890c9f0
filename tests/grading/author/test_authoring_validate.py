"""`autograder validate` finds every mistake it promises to, on a deliberately broken lab in a temporary
private folder, and passes the template `autograder new` writes (docs/AUTHORING.md)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.course import Course
from autograder.author.new import ensure_course_root, new_lab
from paths import ROOT

LAB = "broken-lab"


def _meta(grade_id, *, solution=False, grade=False, points=0):
    meta = {"grade": grade, "grade_id": grade_id, "locked": not solution, "schema_version": 3, "solution": solution}
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}


def _task(name, answer, *, hidden_block=None):
    code = nbformat.v4.new_code_cell
    hidden = hidden_block or ("### BEGIN HIDDEN TESTS\nfrom autograder.judge.hidden import check_task\n"
                              f'check_task("{LAB}", "test_{name}", globals())\n### END HIDDEN TESTS')
    return [code(answer, metadata=_meta(f"impl_{name}", solution=True)),
            code(f'from coursekit.checks import run_visible\nrun_visible("{LAB}", "test_{name}", {name})\n{hidden}',
                 metadata=_meta(f"test_{name}", grade=True, points=1))]


ANSWERS = {   # one fault per task
    "double": "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION",        # wrong expected
    "halve": "def halve(x):\n    ### BEGIN SOLUTION\n    return x / 2\n    ### END SOLUTION",          # rng ignored
    "inverse": "def inverse(x):\n    ### BEGIN SOLUTION\n    return 1 / x\n    ### END SOLUTION",      # x = 0 drawn
    "square": "def square(x):\n    return x * x\n    ### BEGIN SOLUTION\n    ### END SOLUTION",       # stub passes
    "absolute": "def absolute(x):\n    ### BEGIN SOLUTION\n    return x if x >= 0 else -x\n    ### END SOLUTION",
    "scaled": "CONFIG = {'scale': 1}\n\n\ndef scaled(x):\n    ### BEGIN SOLUTION\n    return x * CONFIG['scale']\n"
              "    ### END SOLUTION",
    "negate": "import socket\n\n\ndef negate(x):\n    socket.gethostname()\n    ### BEGIN SOLUTION\n    return -x\n"
              "    ### END SOLUTION",     # hidden-test typo, and a socket every honest student would be flagged for
}

SPEC = '''
from autograder.spec import Case, LabSpec, Task


def pos(rng):
    return Case("positive", (rng.randint(1, 100),))


def same(rng):
    return Case("always 4", (4,))


def maybe_zero(rng):
    return Case("small", (rng.randint(0, 2),))

SPEC = LabSpec(lab_id="broken-lab", notebook="broken-lab.ipynb", budget_s=BUDGET, tasks=(
    Task("test_double", "Task (double)", 1, "double", visible=(Case("two", (2,), expected=EXPECTED),), hidden=pos),
    Task("test_halve", "Task (halve)", 1, "halve", visible=(Case("two", (2,)),), hidden=same),
    Task("test_inverse", "Task (inverse)", 1, "inverse", visible=(Case("two", (2,)),), hidden=maybe_zero, n_hidden=8),
    Task("test_square", "Task (square)", 1, "square", visible=(Case("three", (3,)),), hidden=pos),
    Task("test_absolute", "Task (absolute)", 1, "absolute", visible=(Case("three", (3,)),), hidden=pos,
         wrong=("def absolute(x):\\n    return x", "def absolute(x):\\n    return -x")),
    Task("test_scaled", "Task (scaled)", 1, "scaled", visible=(Case("three", (3,)),), hidden=pos),
    Task("test_negate", "Task (negate)", 1, "negate", visible=(Case("three", (3,)),), hidden=pos),
))
'''


def broken_lab(root: Path, *, expected: int, budget: float) -> None:
    folder = root / "solutions" / LAB
    folder.mkdir(parents=True, exist_ok=True)
    cells = [nbformat.v4.new_markdown_cell("# A broken lab", metadata=_meta("intro"))]
    for name, answer in ANSWERS.items():
        typo = ("### BEGIN HIDDEN TEST\nfrom autograder.judge.hidden import check_task\n"
                f'check_task("{LAB}", "test_negate", globals())\n### END HIDDEN TEST') if name == "negate" else None
        impl, test = _task(name, answer, hidden_block=typo)
        cells.append(impl)
        if name == "scaled":     # a measurement cell that changes state the grader's thinning skips
            cells.append(nbformat.v4.new_code_cell("CONFIG.update(scale=3)", metadata=_meta("measure")))
        cells.append(test)
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    nbformat.write(nb, folder / f"{LAB}.ipynb")
    (folder / "spec.py").write_text(SPEC.replace("EXPECTED", str(expected)).replace("BUDGET", str(budget)))


def autograder(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"COURSE_ROOT", "COURSE_GRADING_SECRET"}}
    env["COURSE_PROGRESS_DIR"] = str(root.parent / "progress")
    return subprocess.run([sys.executable, "-m", "autograder.cli", "--root", str(root), *args], cwd=root.parent,
                          env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_validate_names_every_problem_of_a_broken_lab(tmp_path):
    root = tmp_path / "private"
    ensure_course_root(root)
    broken_lab(root, expected=4, budget=600)
    generated = autograder(root, "generate", LAB)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    broken_lab(root, expected=5, budget=0.01)     # after generate: labs/ is now stale, the budget too small
    done = autograder(root, "validate", LAB, "--seeds", "5")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith(f"{LAB} [")]

    def found(check, task, *words):
        hits = [line for line in lines if line.startswith(f"{LAB} [{check}] {task} ")
                and all(word in line for word in words) and "Fix: " in line]
        assert hits, f"no [{check}] {task} {words} in:\n" + "\n".join(lines)

    # the typed expected is off: one line, from the author's side, with its fix (nothing else on that task)
    found("spec", "test_double", "visible 'two'", "the spec says 5, the reference gives 4", "correct `expected`")
    assert len([line for line in lines if "] test_double " in line]) == 1, lines
    found("draws", "test_halve", "two students get the same hidden cases")
    found("spec", "test_inverse", "hidden", "ZeroDivisionError")
    found("stubs", "test_square", "already passes")
    found("wrong", "test_absolute", "wrong answer 1", "return x", "passes", "algebraically equal")
    found("nbgrader", "test_scaled", "the grader says pass but plain nbgrader autograde says")
    found("leak", "-", "check_task(")
    found("current", "-", f"{LAB}.checks.json")
    found("budget", "-", "over its budget_s=0.01")
    found("flags", "-", "validate-ada", "network: imports socket")
    # the right things are not reported: a wrong answer that fails, tasks without a fault
    assert not any("wrong answer 2" in line for line in lines), lines
    assert not any(f"] {task} " in line for line in lines for task in ("test_negate",) if "[leak]" not in line)
    assert not (root / "instructor-secret").exists(), "validate drew from the instructor's secret"


@pytest.mark.slow
def test_the_template_validates_clean_in_a_private_folder(tmp_path):
    root = tmp_path / "private"
    ensure_course_root(root)
    made = new_lab(Course.find(root), "fresh-lab", "m1", "A first module")
    assert [p.name for p in made] == ["fresh-lab.ipynb", "spec.py", "outline.yaml"]
    with pytest.raises(FileExistsError, match="already exists"):
        new_lab(Course.find(root), "fresh-lab", "m1")
    done = autograder(root, "validate", "fresh-lab", "--seeds", "5")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "fresh-lab: valid" in done.stdout


def test_new_refuses_an_unsafe_lab_id(tmp_path):
    root = tmp_path / "private"
    ensure_course_root(root)
    with pytest.raises(ValueError, match="invalid lab id"):
        new_lab(Course.find(root), "../escape", "m1", "A first module")
    assert not (root / "solutions").exists() or not any((root / "solutions").iterdir())
    assert not (root / "course").exists()      # nor recorded in an outline


@pytest.mark.slow
@pytest.mark.parametrize("lab", Course.find(ROOT).lab_ids())
def test_the_course_labs_validate_clean(lab):
    """Every lab of the course passes every check (3 secrets here; instructors' default is 20): the real
    engine gives its solution full marks with no network or process flag, its student version none."""
    env = {k: v for k, v in os.environ.items() if k not in {"COURSE_ROOT", "COURSE_GRADING_SECRET"}}
    done = subprocess.run([sys.executable, "-m", "autograder.cli", "validate", lab, "--seeds", "3"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0 and f"{lab}: valid" in done.stdout, done.stdout + done.stderr


def test_new_in_a_private_folder_sets_its_own_course_id(tmp_path):
    root = tmp_path / "Optics Lab 2027"
    done = autograder(root, "new", "fresh-lab", "--module", "m1", "--module-title", "A first module")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "course id 'optics-lab-2027'" in done.stdout
    # nbgrader reads the same id from the config it will load (its exchange and gradebook are filed under it)
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    assert config.CourseDirectory.course_id == "optics-lab-2027" == Course.find(root).course_id
    other = tmp_path / "other"
    ensure_course_root(other, "phys-101")
    assert Course.find(other).course_id == "phys-101"
    assert Course.find(ROOT).course_id == "llm-train-vs-infer"
