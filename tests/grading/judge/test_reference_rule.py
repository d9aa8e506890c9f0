"""The reference rule holds structurally (docs/SANDBOX.md): the grading child has no copy of the course's
reference code for a graded task, so switching the call watch off from inside the student's process, or
computing somewhere it cannot see, finds only a stand-in that raises. Each route of issue 36 (and the
pasted source read at run time) is graded for real through the engine on Lab 1 and scores 0 for
ridge_point; the lab's other tasks keep their marks. The earlier routes (a thread, a pool, another module
name, the watch rebound, the hook lifted) are in tests/grading/test_autograder_adversarial_batch.py."""
from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest

from hostile_code import ROUTES, UNAVAILABLE
from paths import ROOT


LOCAL_ONLY = "sandbox: the course's reference code is replaced in the grading process only"


def _notebook(folder: Path, name: str, source: str) -> Path:
    nb = nbformat.read(ROOT / "solutions" / "lab1-roofline" / "lab1-roofline.ipynb", as_version=4)
    for cell in nb.cells:
        if (cell.metadata.get("nbgrader") or {}).get("grade_id") == "impl_ridge":
            cell.source = source
    path = folder / name / "lab1-roofline.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Every route graded by one pool, as a batch would grade them."""
    from autograder.judge.engine import GradingPool
    from autograder.spec import load_spec

    folder = tmp_path_factory.mktemp("routes")
    spec = load_spec("lab1-roofline")
    with GradingPool(2) as pool:
        futures = {how: pool.submit(_notebook(folder, f"route{i}", source), spec, student_id=f"rex{i}",
                                    secret=b"reference-rule") for i, (how, source) in enumerate(ROUTES.items())}
        return {how: future.result() for how, future in futures.items()}


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="the allowlist root needs root (see docs/SANDBOX.md)")
@pytest.mark.parametrize("how", list(ROUTES))
def test_no_route_finds_the_course_reference(graded, how):
    result = graded[how]
    tasks = {t.grade_id: t for t in result.tasks}
    assert result.status == "graded", result.reason
    ridge = tasks["test_ridge"]
    assert ridge.points == 0, ridge.message
    # the function got the stand-in (or, from the compiled copy, nothing at all): never the reference
    assert UNAVAILABLE in ridge.message or "KeyError: 'ridge_point'" in ridge.message, ridge.message
    assert all(t.passed for g, t in tasks.items() if g != "test_ridge"), [t.message for t in result.tasks]
    assert LOCAL_ONLY not in " ".join(result.flags), result.flags


@pytest.mark.slow
def test_without_the_allowlist_the_reference_is_still_gone_from_the_process_and_that_is_flagged(tmp_path):
    """Degraded mode (no namespaces, as a non-root grader runs): what the worker imported before the fork
    is replaced in memory, so the watch's closure route still scores 0; the result says the files stay."""
    from autograder.judge.engine import grade_submission
    from autograder.sandbox.policy import Limits
    from autograder.spec import load_spec

    how = "the watch's switch turned off through its closure"
    path = _notebook(tmp_path, "degraded", ROUTES[how])
    result = grade_submission(path, load_spec("lab1-roofline"), student_id="rex", secret=b"reference-rule",
                              limits=Limits(isolate=False))
    ridge = {t.grade_id: t for t in result.tasks}["test_ridge"]
    assert result.status == "graded" and ridge.points == 0 and UNAVAILABLE in ridge.message, ridge.message
    assert any(f.startswith(LOCAL_ONLY) for f in result.flags), result.flags
