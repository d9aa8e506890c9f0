"""The trusted side's own limits (issue 30): thinning, IPython transformation and the static scan run
in the grader's process, so a notebook too large for them fails with a reason before they start, and
their CPU time on one notebook is bounded (Limits.analysis_s, checked inside the work, the same verdict
however busy the machine is: issue 36); the batch carries on either way."""
from __future__ import annotations

import csv
import io

import nbformat
import pytest

from autograder.judge import engine
from autograder.judge.engine import GradingPool, Limits
from pipeline_course import LAB, NB, cli, notebook_text

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


def _many_cells(course, tmp_path, n: int):
    """The toy lab with n extra cells of a small function each (issue 36 had 4,700): under every size limit."""
    from autograder.spec import load_spec

    path = tmp_path / NB
    path.write_text(with_cells(course, *(f"def f{i}(x):\n    y = x + {i}\n    return y * 2\nr{i} = f{i}(1)"
                                          for i in range(n))))
    return path, load_spec(course / "solutions" / "toy-pipeline" / "spec.py")


def test_the_budget_is_checked_inside_the_thinning_not_between_stages(course, tmp_path):
    """A clock that gains a second at every reading: the budget of 20 "seconds" runs out after about 20
    checks, raised from inside the thinning of a 300-cell notebook (it once ran 6 s past its limit,
    being checked between stages only)."""
    from autograder.judge.budget import Budget, OverBudget

    path, spec = _many_cells(course, tmp_path, 300)
    readings = iter(range(10**6))
    budget = Budget(20, clock=lambda: float(next(readings)))
    with pytest.raises(OverBudget, match="too slow to analyse.*20 s of CPU time") as raised:
        with budget:
            engine.read_job(path, spec, budget.check)
    assert next(readings) < 30                                     # stopped at the first check past 20
    assert "needed_code" in {entry.name for entry in raised.traceback}


def _burners(count: int):
    """`count` processes spinning on a core each (ended by the caller, and by themselves after 5 minutes),
    returned once each has said it runs."""
    import subprocess
    import sys

    spin = "import sys, time\nprint('spinning', flush=True)\nend = time.monotonic() + 300\nwhile time.monotonic() < end:\n    pass"
    procs = [subprocess.Popen([sys.executable, "-c", spin], stdout=subprocess.PIPE, text=True) for _ in range(count)]
    for proc in procs:
        assert proc.stdout.readline().strip() == "spinning"
    return procs


@pytest.mark.slow
def test_the_same_notebook_gets_the_same_verdict_on_a_quiet_and_a_busy_host(course, tmp_path):
    """The analysis budget is CPU time of the analysing thread: with two spinning processes per core
    beside it (the thread then gets a fraction of a core, and its wall-clock time grows several-fold),
    a budget three times the notebook's CPU cost still analyses it, and one a quarter of it still
    refuses it, as on the quiet host."""
    import time

    from autograder.judge.budget import OverBudget

    path, spec = _many_cells(course, tmp_path, 800)
    start = time.thread_time()
    engine.analyse(path, spec, 10**9)
    cost = time.thread_time() - start                              # this notebook's CPU cost, quiet

    def verdict(cpu_s: float) -> str:
        try:
            engine.analyse(path, spec, cpu_s)
        except OverBudget as refused:
            return str(refused).split(":")[0]
        return "analysed"

    quiet = [verdict(3 * cost), verdict(cost / 4)]
    procs = _burners(2 * engine.usable_cores())
    try:
        busy = [verdict(3 * cost), verdict(cost / 4)]
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
    assert quiet == busy == ["analysed", "too slow to analyse"]
