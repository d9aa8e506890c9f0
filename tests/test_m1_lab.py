"""Lab 1 (roofline): spec vs solution, solution vs coursekit.calc, and both notebooks end to end."""
from __future__ import annotations

import random
from pathlib import Path

import nbformat
import pytest

from autograder.hidden import hidden_cases
from autograder.reference import reference_function, reference_output
from autograder.spec import load_spec
from coursekit.calc import memory, roofline

ROOT = Path(__file__).resolve().parent.parent
LAB = "lab1-roofline"
SOLUTION = ROOT / "solutions" / LAB / f"{LAB}.ipynb"
STUDENT = ROOT / "labs" / LAB / f"{LAB}.ipynb"
SPEC = load_spec(LAB)


def _grade_cells(path: Path) -> dict[str, nbformat.NotebookNode]:
    nb = nbformat.read(path, as_version=4)
    return {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade")}


def test_spec_tasks_match_the_notebook_test_cells():
    cells = _grade_cells(SOLUTION)
    assert set(cells) == {t.grade_id for t in SPEC.tasks}
    for task in SPEC.tasks:
        assert cells[task.grade_id].metadata["nbgrader"]["points"] == task.points
        assert f'run_visible("{LAB}", "{task.grade_id}", {task.function})' in cells[task.grade_id].source
    markdown = "\n".join(c.source for c in nbformat.read(SOLUTION, as_version=4).cells if c.cell_type == "markdown")
    for task in SPEC.tasks:
        assert f"{task.title} ({task.points:g} point" in markdown
    assert markdown.count("**Deliverable:**") == len(SPEC.tasks)


@pytest.mark.parametrize("task", SPEC.tasks, ids=lambda t: t.grade_id)
def test_visible_expected_equals_the_solution_reference(task):
    for case in task.visible:
        assert case.expected is not None, f"{task.grade_id}/{case.name}: visible cases show their expected value"
        assert task.compare(case.expected, reference_output(SPEC, task, case)) is None, case.name


def _calc_equivalent(task, args):
    """The same quantity from coursekit.calc, so the lab and the lessons teach one set of formulas."""
    from autograder.specs.lab1_roofline import STEP_KEYS, as_config

    if task.function == "matmul_intensity":
        return roofline.matmul_intensity(*args)
    if task.function in ("ridge_point", "attainable_flops", "classify"):
        return getattr(roofline, task.function)(*args)
    if task.function in ("decode_step", "prefill"):
        model, *rest = args
        full = getattr(roofline, task.function)(as_config(model), *rest)
        return {k: full[k] for k in STEP_KEYS}
    if task.function == "bytes_per_param":
        return memory.bytes_per_param(*args)
    raise AssertionError(f"no coursekit.calc equivalent for {task.function}")


@pytest.mark.parametrize("task", SPEC.tasks, ids=lambda t: t.grade_id)
def test_solution_agrees_with_coursekit_calc_on_hidden_cases(task):
    cases = hidden_cases(SPEC, task, b"test-secret")
    assert len(cases) == task.n_hidden
    for case in cases:
        want = task.encode(_calc_equivalent(task, case.args))
        assert task.compare(reference_output(SPEC, task, case), want) is None, case


def test_hidden_cases_depend_on_the_secret():
    task = SPEC.task("test_decode")
    assert hidden_cases(SPEC, task, b"one") != hidden_cases(SPEC, task, b"two")


def _wrong_intensity(m, k, n, bytes_per_element):      # forgets to count writing C
    return 2 * m * k * n / ((m * k + k * n) * bytes_per_element)


def _wrong_bpp(phase, weight_bytes, optimizer, master_weights):   # seed 004's 12 bytes: no master copy
    return float(weight_bytes) if phase == "inference" else float(2 * weight_bytes + 8)


@pytest.mark.parametrize("grade_id, fn, hint", [
    ("test_intensity", _wrong_intensity, "write C"),
    ("test_bpp", _wrong_bpp, "FP32 master"),
])
def test_visible_checks_reject_common_mistakes_with_a_teaching_message(grade_id, fn, hint):
    from autograder.check import run_visible

    with pytest.raises(AssertionError, match=hint):
        run_visible(LAB, grade_id, fn)


def test_decode_reference_rejects_using_query_heads_for_the_kv_cache():
    task = SPEC.task("test_decode")
    reference = reference_function(SPEC, task)

    def mha_kv(model, *rest):   # sizes the cache with query heads, as if there were no GQA
        out = dict(reference(model, *rest))
        out["kv_bytes"] *= model["n_heads"] / model["n_kv_heads"]
        return out

    gqa = next(c for c in task.visible if "GQA" in c.name)
    message = task.compare(task.encode(mha_kv(*gqa.args)), gqa.expected)
    assert message and "kv_bytes" in message


def test_student_version_has_no_solutions_or_hidden_tests():
    text = STUDENT.read_text()
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    assert text.count("raise NotImplementedError()") == len(SPEC.tasks)
    assert set(_grade_cells(STUDENT)) == {t.grade_id for t in SPEC.tasks}


GRADING_ENV = {"COURSE_QUICK": "1", "COURSE_GRADING_SECRET": "m1-lab-test-secret"}


@pytest.mark.slow
def test_solution_notebook_passes_every_test_cell():
    from notebook_runner import execute_notebook

    nb, seconds = execute_notebook(SOLUTION, env=GRADING_ENV)
    assert seconds < 90
    for grade_id, cell in _grade_cells_from(nb).items():
        assert not [o for o in cell.outputs if o.get("output_type") == "error"], grade_id
        text = "".join(o.get("text", "") for o in cell.outputs)
        assert text.count("ok ") == len(SPEC.task(grade_id).visible), grade_id


@pytest.mark.slow
def test_student_version_fails_every_graded_cell_until_implemented():
    from notebook_runner import execute_notebook

    nb, _ = execute_notebook(STUDENT, env=GRADING_ENV, allow_errors=True)
    for grade_id, cell in _grade_cells_from(nb).items():
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        assert errors, f"{grade_id} passed without an implementation"
        assert "not implemented yet" in errors[0]["evalue"], errors[0]["evalue"]


def _grade_cells_from(nb) -> dict:
    return {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")}
