"""The trusted side's own limits (issue 30): thinning, IPython transformation and the static scan run
in the grader's process, so a notebook too large for them fails with a reason before they start, and
their time on one notebook is bounded (Limits.analysis_s); the batch carries on either way."""
from __future__ import annotations

import csv
import io

import nbformat
import pytest

from autograder.judge import engine
from autograder.judge.engine import GradingPool, Limits
from test_autograder_pipeline import LAB, NB, cli, notebook_text

pytestmark = pytest.mark.timeout(420)


def with_cells(course, *sources: str) -> str:
    nb = nbformat.reads(notebook_text(course), as_version=4)
    nb.cells += [nbformat.v4.new_code_cell(source) for source in sources]
    return nbformat.writes(nb)


@pytest.mark.slow
def test_notebooks_too_large_to_analyse_fail_with_a_reason_and_the_batch_carries_on(course, tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "ada.ipynb").write_text(notebook_text(course))
    lines = engine.MAX_CODE_LINES + 1                                   # one-line statements, ~18 MB in the issue
    (inbox / "lin.ipynb").write_text(with_cells(course, "\n".join(f"v{i} = {i}" for i in range(lines))))
    (inbox / "chr.ipynb").write_text(with_cells(course, "s = '" + "x" * (engine.MAX_CODE_CHARS + 1) + "'"))
    (inbox / "cel.ipynb").write_text(with_cells(course, *([""] * (engine.MAX_CELLS + 1))))
    cli(course, "collect", str(inbox), "--lab", LAB)
    done = cli(course, "grade", LAB, "--workers", "1", "--no-progress", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {r["student_id"]: r for r in csv.DictReader(io.StringIO(cli(course, "export").stdout))}
    assert rows["ada"]["state"] == "graded" and rows["ada"]["score"] == "6"
    assert rows["lin"]["state"] == "failed" and "too large to grade" in rows["lin"]["reason"], rows["lin"]
    assert "lines of code (limits" in rows["lin"]["reason"]
    assert rows["chr"]["state"] == "failed" and "characters" in rows["chr"]["reason"], rows["chr"]
    assert rows["cel"]["state"] == "failed" and "cells" in rows["cel"]["reason"], rows["cel"]


def test_the_trusted_analysis_has_a_time_budget(course, tmp_path):
    """No budget at all: the analysis of even an honest notebook stops with the reason, before any
    student code runs; the default budget grades it."""
    from autograder.spec import load_spec

    spec = load_spec(course / "solutions" / "toy-pipeline" / "spec.py")
    path = tmp_path / NB
    path.write_text(with_cells(course, "\n".join(f"w{i} = {i}" for i in range(2000))))
    with GradingPool(1, Limits(analysis_s=0)) as pool:
        result = pool.grade(path, spec, "ada", b"secret")
    assert result.status == "failed" and result.reason.startswith("too slow to analyse"), result
    assert pool.worker_uids == []                                      # no student code ran
