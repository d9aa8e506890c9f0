"""Grading runs leave no files behind in the temporary folder: not when they end normally, not on a
Dask cluster, not when a Dask worker or the grader itself is killed (autograder/sandbox/scratch.py)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from autograder.sandbox.scratch import private_folder, sweep
from hub_server import wait_for
from marks import needs_root
from pipeline_course import HONEST, LAB, cli, env, store_rows, write_folder


def dead_pid() -> int:
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def test_sweep_removes_only_dead_processes_folders(tmp_path):
    dead = tmp_path / f"autograder-jobs-{dead_pid()}-abc"
    live = tmp_path / f"autograder-jobs-{os.getpid()}-def"
    other = tmp_path / "autograder-jobs-notapid"
    for folder in (dead, live, other):
        folder.mkdir()
        (folder / "job.json").write_text("{}")
    assert sweep("autograder-jobs-", tmp_path) == [dead]
    assert not dead.exists() and live.exists() and other.exists()
    made = private_folder("autograder-jobs-", tmp_path)
    assert made.name.startswith(f"autograder-jobs-{os.getpid()}-") and oct(made.stat().st_mode & 0o777) == "0o700"


def grade(course: Path, temporary: Path, *args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "autograder.cli", "--root", str(course), "grade", LAB, *args],
                            cwd=course, env=dict(env(course), TMPDIR=str(temporary)), start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **popen)


def finish(process: subprocess.Popen, timeout: float = 600) -> str:
    out, _ = process.communicate(timeout=timeout)
    assert process.returncode == 0, out
    return out


def graded(course: Path) -> set[str]:
    return {row[1] for row in store_rows(course) if row[3] == "graded"}


@pytest.fixture
def temporary(course, tmp_path) -> Path:
    """The honest class collected, and an empty folder to be the grader's TMPDIR."""

    cli(course, "collect", str(write_folder(course, tmp_path / "inbox", HONEST)), "--lab", LAB)
    folder = tmp_path / "tmp"
    folder.mkdir()
    return folder


@pytest.mark.slow
@needs_root
def test_a_killed_grader_s_files_are_removed_by_the_next_run(course, temporary):
    first = grade(course, temporary, "--workers", "1")
    wait_for(lambda: list(temporary.glob("autograder-jobs-*")), 120, "the grader's job folder", interval=0.1)
    os.killpg(first.pid, signal.SIGKILL)
    first.communicate()
    assert list(temporary.glob("autograder-jobs-*"))          # SIGKILL: nothing could clean up
    finish(grade(course, temporary, "--workers", "1"))
    assert graded(course) == set(HONEST)
    assert list(temporary.iterdir()) == []


@pytest.mark.slow
@needs_root
def test_a_dask_run_with_a_killed_worker_leaves_nothing(course, temporary):
    run = grade(course, temporary, "--cluster", "local", "--workers", "2")

    def dask_worker():
        """A worker process that has started grading (its job folder exists)."""
        assert run.poll() is None, run.communicate()[0]
        if not list(temporary.glob("autograder-cluster-*/**/autograder-jobs-*")):
            return None
        workers = [p for p in psutil.Process(run.pid).children()
                   if "spawn_main" in " ".join(p.cmdline()) and "resource_tracker" not in " ".join(p.cmdline())]
        return workers[0] if workers else None

    victim = wait_for(dask_worker, 300, "a Dask worker grading", interval=0.1)
    for process in [victim, *victim.children(recursive=True)]:
        process.kill()
    finish(run)
    assert graded(course) == set(HONEST)
    assert list(temporary.iterdir()) == []
