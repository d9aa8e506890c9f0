"""labs/ is generated from solutions/ and never edited: regenerate and compare with what is committed."""
from __future__ import annotations

import subprocess

import pytest

import nbformat

from autograder.course import Course
from autograder.release.generate import generate, release_files

ROOT_COURSE = Course.find()
LABS = ROOT_COURSE.lab_ids()


def _comparable(path):
    """Cell types, sources and metadata: what a student sees and what nbgrader checks."""
    nb = nbformat.read(path, as_version=4)
    return [(c.cell_type, c.source, dict(c.metadata)) for c in nb.cells], dict(nb.metadata)


def test_there_is_something_to_check():
    # A checkout without labs would make the freshness test vacuous.
    assert LABS, f"no labs under {ROOT_COURSE.solutions}"


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_committed_student_version_matches_solutions(lab, tmp_path):
    fresh = generate(ROOT_COURSE, lab, release=tmp_path / "release", db_url=f"sqlite:///{tmp_path / 'gb.db'}")
    for path in fresh:
        committed = ROOT_COURSE.labs / lab / path.name
        assert committed.exists(), f"{committed} is missing: run `autograder generate {lab}` and commit labs/{lab}"
        assert _comparable(committed) == _comparable(path), (
            f"{committed} is stale relative to solutions/{lab}: run `autograder generate {lab}` and commit the result")
    extra = {p.name for p in (ROOT_COURSE.labs / lab).glob("*.ipynb")} - {p.name for p in fresh}
    assert not extra, f"labs/{lab} has notebooks that solutions/{lab} does not generate: {sorted(extra)}"
    # students get the allowlist and nothing else: in the fresh release and in what is committed
    allowed = {str(p) for p in release_files(ROOT_COURSE, lab)}
    made = tmp_path / "release" / lab
    assert {p.relative_to(made).as_posix() for p in made.rglob("*") if not p.is_dir()} == allowed
    tracked = subprocess.run(["git", "ls-files", "--", f"labs/{lab}"], cwd=ROOT_COURSE.root, capture_output=True,
                             text=True, check=True).stdout.split()
    assert {t.removeprefix(f"labs/{lab}/") for t in tracked} == allowed, f"labs/{lab} holds files no student should get"


@pytest.mark.parametrize("lab", LABS)
def test_every_cell_but_solutions_is_locked(lab):
    """Students edit solution cells only: every other cell carries nbgrader metadata with locked=True in
    solutions/, so the generated student version marks it read-only and nbgrader restores it at grading."""
    for path in sorted((ROOT_COURSE.solutions / lab).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        unlocked = [i for i, c in enumerate(nb.cells)
                    if not (c.metadata.get("nbgrader") or {}).get("solution")
                    and not (c.metadata.get("nbgrader") or {}).get("locked")]
        assert not unlocked, f"{path}: cells {unlocked} are neither solution cells nor locked"
        ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells]
        assert len(ids) == len(set(ids)), f"{path}: duplicate grade_id"
    for path in sorted((ROOT_COURSE.labs / lab).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        editable = [i for i, c in enumerate(nb.cells)
                    if not c.metadata["nbgrader"].get("solution") and c.metadata.get("editable", True)]
        assert not editable, f"{path}: cells {editable} are editable in the student version"
