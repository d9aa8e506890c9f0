"""The contract every lab keeps with its spec, checked for every lab the course has (found from
solutions/, specs loaded by id wherever they live): the notebook's test cells are the spec's tasks,
visible expectations are the reference's outputs, the solution passes visible and hidden cases and
every test cell, and the generated student version hides the solution and fails every graded cell.
The real engine's grade of each lab (solution full marks for two students, no network or process flag,
the student version and every listed wrong answer failing) is `autograder validate`'s, tested on every
lab in tests/grading/author/test_authoring_validate.py. A new lab is covered by adding it to the course. Lab-specific behaviour stays in tests/content/m*/test_m*_lab.py."""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder.course import Course
from autograder.judge.hidden import hidden_cases
from autograder.judge.reference import reference_output, solution_namespace
from coursekit.outline import lab_ids
from marks import per_lab
from notebook_runner import grade_cells
from paths import ROOT

COURSE = Course.find(ROOT)
LABS = COURSE.lab_ids()
TASKS = [(lab, task.grade_id) for lab in LABS for task in COURSE.spec(lab).tasks]
SECRET = b"contract-test-secret"


def paths(lab: str) -> tuple[Path, Path]:
    """The lab's solution notebook and its generated student version."""
    spec = COURSE.spec(lab)
    return spec.solution_path(), COURSE.labs / lab / spec.notebook


@pytest.fixture(scope="module")
def namespaces():
    """Each solution's functions, loaded once per lab (solution_namespace runs its code cells)."""
    loaded: dict[str, dict] = {}

    def get(lab: str) -> dict:
        if lab not in loaded:
            loaded[lab] = solution_namespace(paths(lab)[0])
        return loaded[lab]
    return get


def test_the_course_has_labs():
    assert LABS and set(LABS) == set(lab_ids(ROOT)), "solutions/ and the course outline (course/outline.yaml) differ"
    released = {p.name for p in (ROOT / "labs").iterdir() if (p / f"{p.name}.ipynb").exists()}
    assert released == set(LABS), "labs/ and the course outline (course/outline.yaml) differ"


@pytest.mark.parametrize("lab", LABS)
def test_spec_tasks_are_the_notebook_test_cells(lab):
    spec = COURSE.spec(lab)
    nb = nbformat.read(paths(lab)[0], as_version=4)
    cells = grade_cells(nb)
    assert list(cells) == [t.grade_id for t in spec.tasks]
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for task in spec.tasks:
        assert cells[task.grade_id].metadata["nbgrader"]["points"] == task.points, task.grade_id
        assert task.function in cells[task.grade_id].source, f"{task.grade_id} does not test {task.function}"
        assert f"{task.title} ({task.points:g} point" in markdown, task.title


def judged_live(task, case) -> bool:
    """A visible case with no expected value that a task's trusted reference judges at check time
    (Lab 3 compares against the model itself); elsewhere None is a real expected value."""
    return case.expected is None and task.reference is not None


def _call(task, function, case):
    args, kwargs = task.prepare(case)
    return task.encode(function(*args, **kwargs))


@pytest.mark.parametrize("lab, grade_id", TASKS)
def test_visible_expected_equals_the_reference(lab, grade_id):
    spec = COURSE.spec(lab)
    task = spec.task(grade_id)
    for case in task.visible:
        if judged_live(task, case):
            continue
        assert task.compare(case.expected, reference_output(spec, task, case)) is None, case.name


@pytest.mark.parametrize("lab, grade_id", per_lab(TASKS))
def test_solution_passes_visible_and_hidden_cases(lab, grade_id, namespaces):
    spec = COURSE.spec(lab)
    task = spec.task(grade_id)
    function = namespaces(lab)[task.function]
    hidden = hidden_cases(spec, task, SECRET)
    assert len(hidden) == (task.n_hidden if task.hidden else 0)
    for case in task.visible:
        want = reference_output(spec, task, case) if judged_live(task, case) else case.expected
        assert task.compare(_call(task, function, case), want) is None, case.name
    for case in hidden:
        want = reference_output(spec, task, case)
        assert task.compare(_call(task, function, case), want) is None, case.name


@pytest.mark.parametrize("lab", LABS)
def test_hidden_cases_depend_on_the_secret(lab):
    spec = COURSE.spec(lab)
    drawn = [t for t in spec.tasks if t.hidden is not None]
    assert drawn, f"{lab} has no hidden cases"
    assert any(hidden_cases(spec, t, b"one") != hidden_cases(spec, t, b"two") for t in drawn)


@pytest.mark.parametrize("lab", LABS)
def test_student_version_has_no_solutions_or_hidden_tests(lab):
    spec = COURSE.spec(lab)
    student = paths(lab)[1]
    assert student.exists(), f"run: autograder generate {lab}"
    text = student.read_text()
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    assert list(grade_cells(nbformat.read(student, as_version=4))) == [t.grade_id for t in spec.tasks]


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_solution_notebook_passes_every_test_cell(lab, executed_notebooks):
    spec = COURSE.spec(lab)
    cells = grade_cells(executed_notebooks.get(paths(lab)[0]))
    assert list(cells) == [t.grade_id for t in spec.tasks]
    for grade_id, cell in cells.items():
        assert not [o for o in cell.outputs if o.get("output_type") == "error"], grade_id
        shown = "".join(o.get("text", "") for o in cell.outputs)
        assert shown.count("ok ") >= len(spec.task(grade_id).visible), f"{grade_id}: {shown!r}"


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_student_version_fails_every_graded_cell_until_implemented(lab, executed_notebooks):
    nb = executed_notebooks.get(paths(lab)[1], allow_errors=True)
    for grade_id, cell in grade_cells(nb).items():
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        assert errors, f"{grade_id} passed without an implementation"
        assert "not implemented yet" in errors[0]["evalue"], errors[0]["evalue"]   # a teaching message
