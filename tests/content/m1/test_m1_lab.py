"""Lab 1 (roofline), what only this lab has: the solution agrees with coursekit.calc on hidden cases,
the checks reject its classic mistakes, and the notebook's markdown names one deliverable per task.
The contract every lab keeps is in tests/content/test_labs_contract.py."""
from __future__ import annotations

import nbformat
import pytest

from autograder.judge.hidden import hidden_cases
from autograder.judge.reference import reference_function, reference_output
from autograder.spec import load_spec
from coursekit.calc import memory, roofline
from paths import ROOT

LAB = "lab1-roofline"
SOLUTION = ROOT / "solutions" / LAB / f"{LAB}.ipynb"
SPEC = load_spec(LAB)


def test_every_task_has_one_deliverable():
    markdown = "\n".join(c.source for c in nbformat.read(SOLUTION, as_version=4).cells if c.cell_type == "markdown")
    assert markdown.count("**Deliverable:**") == len(SPEC.tasks)


def _calc_equivalent(task, args):
    """The same quantity from coursekit.calc, so the lab and the lessons teach one set of formulas."""
    from autograder.spec import spec_module

    STEP_KEYS, as_config = spec_module("lab1-roofline").STEP_KEYS, spec_module("lab1-roofline").as_config

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


def _wrong_intensity(m, k, n, bytes_per_element):      # forgets to count writing C
    return 2 * m * k * n / ((m * k + k * n) * bytes_per_element)


def _wrong_bpp(phase, weight_bytes, optimizer, master_weights):   # seed 004's 12 bytes: no master copy
    return float(weight_bytes) if phase == "inference" else float(2 * weight_bytes + 8)


@pytest.mark.parametrize("grade_id, fn, hint", [
    ("test_intensity", _wrong_intensity, "write C"),
    ("test_bpp", _wrong_bpp, "FP32 master"),
])
def test_visible_checks_reject_common_mistakes_with_a_teaching_message(grade_id, fn, hint):
    from autograder.release.visible_cases import run_visible

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
