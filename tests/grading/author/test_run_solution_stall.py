"""`autograder validate` takes a solution run whose every cell ran even when the kernel's clean-up after
it stalls (seen on a busy machine with Lab 4's solution: a minute, or for good), and still reports a run
that never got there. The real run is in test_authoring_validate.py; here the runner is a stand-in."""
import sys
import textwrap

from autograder.author import run_checks

STALLS_AFTER_LAST_CELL = """
import pathlib, sys, time
out = sys.argv[2]
pathlib.Path(out).write_text("{}")
pathlib.Path(out + ".done").write_text("1.25\\n")
time.sleep(3600)                       # the kernel's clean-up that never returns
"""
NEVER_FINISHES = "import time\ntime.sleep(3600)\n"


def run(tmp_path, monkeypatch, script: str, timeout: float):
    runner = tmp_path / "runner.py"
    runner.write_text(textwrap.dedent(script))
    monkeypatch.setattr(run_checks, "CLEAN_UP_GRACE_S", 0.2)
    done = tmp_path / "out.ipynb.done"
    command = [sys.executable, str(runner), "nb.ipynb", str(tmp_path / "out.ipynb"), "30"]
    return run_checks._run_solution(command, {}, done, timeout), done


def test_a_run_that_finished_its_cells_is_taken_though_its_clean_up_stalls(tmp_path, monkeypatch):
    (code, said), done = run(tmp_path, monkeypatch, STALLS_AFTER_LAST_CELL, timeout=600)
    assert (code, said) == (0, "") and float(done.read_text()) == 1.25


def test_a_run_that_never_finished_is_no_answer(tmp_path, monkeypatch):
    (code, said), done = run(tmp_path, monkeypatch, NEVER_FINISHES, timeout=1)
    assert code is None and said == "no answer from the kernel" and not done.exists()
