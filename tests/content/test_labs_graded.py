"""Every lab in labs/ is graded by the real engine (sandboxed worker, trusted judge): the solution gets
full marks and the untouched student version none, and an honest notebook raises no network or fork
flag (Lab 2's all-reduce measurement skips itself where the sandbox has no loopback). A new lab is
covered by adding it to the course, not by copying this file."""
from __future__ import annotations

import shutil

import pytest

from autograder.spec import load_spec
from coursekit.outline import lab_ids
from paths import ROOT

LABS = sorted(p.name for p in (ROOT / "labs").iterdir() if (p / f"{p.name}.ipynb").exists())


def test_every_lab_is_here():
    assert LABS and set(LABS) == set(lab_ids(ROOT)), "labs/ and the course outline (course/outline.yaml) differ"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One warm pool grades every lab's solution and student version, as an instructor's batch would
    (workers and their torch import are paid once, not once per lab)."""
    from autograder.judge.engine import GradingPool, Limits

    folder = tmp_path_factory.mktemp("graded")
    copies = {}
    for lab in LABS:
        for kind, src in (("solution", ROOT / "solutions" / lab / f"{lab}.ipynb"), ("student", ROOT / "labs" / lab / f"{lab}.ipynb")):
            dst = folder / kind / lab / f"{lab}.ipynb"
            dst.parent.mkdir(parents=True)
            shutil.copy(src, dst)
            copies[lab, kind] = dst
    with GradingPool(limits=Limits(wall_s=240)) as pool:
        futures = {key: pool.submit(path, load_spec(key[0]), student_id=key[1], secret=b"k") for key, path in copies.items()}
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_engine_gives_the_solution_full_marks_and_the_student_version_none(lab, graded):
    spec = load_spec(lab)
    full, none = graded[lab, "solution"], graded[lab, "student"]
    assert full.score == spec.total_points, [(t.grade_id, t.passed, t.message) for t in full.tasks]
    assert none.score == 0, [(t.grade_id, t.passed) for t in none.tasks]
    assert not [f for f in full.flags if f.startswith(("network", "fork"))], full.flags
