"""Lab 2 (cluster plan), what only this lab has: the solution agrees with coursekit.calc, the checks
reject classic parallelism mistakes, the scenario plan is sound, and the measured all-reduce cell
confirms every result. The contract every lab keeps is in tests/content/test_labs_contract.py."""
from __future__ import annotations

import pytest

from coursekit import hardware
from coursekit.calc import cluster_plan, parallelism as par, training_run as run
from paths import ROOT

LAB = "lab2-cluster"
SOLUTION = ROOT / "solutions" / LAB / f"{LAB}.ipynb"


def test_solution_agrees_with_coursekit(solution):
    """The notebook's functions and the course's own (used by lessons and the scenario) are one formula."""
    for stage in range(4):
        assert solution["zero_memory_per_gpu"](70e9, 256, stage) == pytest.approx(par.zero_memory(70e9, 256, stage))
    for ckpt in (False, True):
        assert solution["activation_memory"](4096, 2, 8192, 64, 80, ckpt) == pytest.approx(
            par.activation_bytes(4096, 2, 8192, 64, 80, ckpt))
    assert solution["ring_allreduce_time"](3e8, 16, 5e-6, 50e9) == pytest.approx(par.ring_allreduce_seconds(3e8, 16, 5e-6, 50e9))
    assert solution["tp_comm_per_layer"](2, 2048, 8192, 8, 3e-6, 450e9) == pytest.approx(
        par.tp_layer_comm_seconds(2, 2048, 8192, 8, 3e-6, 450e9))
    assert solution["pipeline_bubble"](8, 32) == pytest.approx(par.pipeline_bubble_fraction(8, 32))
    assert solution["training_time"](100e9, 2e12, 2**22, 1024, 989e12, 0.4)["days"] == pytest.approx(
        run.training_days(100e9, 2e12, 1024, 989e12, 0.4))
    mine = solution["checkpoint_interval"](30.0, 5e4, 4096)
    mtbf = run.cluster_mtbf_hours(5e4, 4096) * 3600
    assert mine["interval_s"] == pytest.approx(run.young_interval(30.0, mtbf))
    assert mine["waste"] == pytest.approx(run.wasted_fraction(mine["interval_s"], 30.0, mtbf))


def test_grader_rejects_zero_stage1_that_shards_gradients(solution):
    from autograder.release.visible_cases import run_visible

    def shards_too_much(n_params, n_gpus, stage):
        return solution["zero_memory_per_gpu"](n_params, n_gpus, min(3, stage + 1) if stage else 0)

    with pytest.raises(AssertionError, match="ZeRO memory"):
        run_visible(LAB, "test_zero", shards_too_much)


def test_grader_rejects_bidirectional_bandwidth(solution):
    """Using NVLink's 900 GB/s headline as if it were one way halves the bandwidth term."""
    from autograder.release.visible_cases import run_visible

    def both_ways(message_bytes, n, alpha, bandwidth):
        return solution["ring_allreduce_time"](message_bytes, n, alpha, 2 * bandwidth)

    with pytest.raises(AssertionError, match="ring all-reduce"):
        run_visible(LAB, "test_ring", both_ways)


def test_grader_rejects_forward_only_tp_traffic(solution):
    from autograder.release.visible_cases import run_visible

    def forward_only(batch, seq, d_model, tp, alpha, bandwidth):
        return solution["tp_comm_per_layer"](batch, seq, d_model, tp, alpha, bandwidth) / 2

    with pytest.raises(AssertionError, match="tensor-parallel"):
        run_visible(LAB, "test_tp", forward_only)


def test_grader_rejects_bubble_over_microbatches_only(solution):
    """(p-1)/m is the bubble relative to the ideal time, not the idle share of the step."""
    from autograder.release.visible_cases import run_visible

    with pytest.raises(AssertionError, match="pipeline bubble"):
        run_visible(LAB, "test_bubble", lambda stages, microbatches: (stages - 1) / microbatches)


def test_scenario_plan_fits_and_keeps_tp_inside_a_node():
    chip = hardware.H100_SXM
    n = cluster_plan.gpus_for_days(chip, 30)
    rows = cluster_plan.layouts(chip, n)
    plan = cluster_plan.best_layout(rows)
    assert plan["fits"] and plan["tp"] <= cluster_plan.GPUS_PER_NODE and plan["days"] <= 30
    assert plan["cost_usd"] <= cluster_plan.BUDGET_USD
    # TP stretched over InfiniBand spends longer communicating than computing
    assert all(r["tp_comm_share"] > 1 for r in rows if r["tp"] > cluster_plan.GPUS_PER_NODE)
    # without recomputation, attention scores make activations too large for TP 8 at any PP tried
    assert not any(r["fits"] for r in rows if r["tp"] == 8 and not r["checkpointing"])


@pytest.mark.slow
def test_measured_allreduce_confirms_every_result(executed_notebooks):
    nb = executed_notebooks.get(SOLUTION)
    measured = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "measure")
    assert "every result checked: True" in "".join(o.get("text", "") for o in measured.outputs)


@pytest.mark.slow
def test_loopback_is_unusable_in_a_network_namespace_and_under_a_grader(monkeypatch):
    """Binding 127.0.0.1 works in a network namespace whose loopback is down (only connecting fails), so
    the measurement cell once waited 120 s there for workers that could never meet (issue 36)."""
    import shutil
    import subprocess
    import sys

    from coursekit.calc import collectives

    monkeypatch.delenv("COURSE_GRADING", raising=False)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    assert collectives.loopback_usable()                       # this machine's own loopback is up
    monkeypatch.setenv("COURSE_GRADING", "1")
    assert not collectives.loopback_usable()                   # a grader never measures
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1) to make a network namespace")
    probe = "from coursekit.calc import collectives as c; print(c._free_port() > 0, c._loopback_up())"
    done = subprocess.run(["unshare", "-n", sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0 and "Operation not permitted" in done.stderr:
        pytest.skip("unshare -n needs root here")
    assert done.stdout.split() == ["True", "False"], done.stderr      # the bind works; lo is down


@pytest.mark.slow
def test_a_submission_that_runs_every_cell_is_graded_in_the_sandbox(tmp_path):
    """An honest partial submission whose cell reads globals(): thinning then keeps every cell, the lab's
    all-reduce measurement included, as nbgrader runs it. It is graded on its work (it once failed on the
    120 s wall-clock limit, the measurement waiting for workers that could not connect: issue 36)."""
    import nbformat

    from autograder.judge.engine import grade_submission
    from autograder.spec import load_spec

    nb = nbformat.read(SOLUTION, as_version=4)
    for cell in nb.cells:
        grade_id = (cell.metadata.get("nbgrader") or {}).get("grade_id")
        if grade_id == "impl_zero":
            cell.source = "if 'math' not in globals():\n    import math\n\n" + cell.source
        elif grade_id == "impl_ckpt":
            cell.source = "def checkpoint_interval(checkpoint_seconds, gpu_mtbf_hours, n_gpus):\n    raise NotImplementedError"
    path = tmp_path / f"{LAB}.ipynb"
    nbformat.write(nb, path)
    spec = load_spec(LAB)
    result = grade_submission(path, spec, student_id="pat", secret=b"every-cell")
    tasks = {t.grade_id: t for t in result.tasks}
    assert result.status == "graded", result.reason
    assert tasks["test_ckpt"].points == 0 and all(t.passed for g, t in tasks.items() if g != "test_ckpt")
    assert result.score == spec.total_points - tasks["test_ckpt"].max_points
    assert not [f for f in result.flags if f.startswith(("network", "fork"))], result.flags
