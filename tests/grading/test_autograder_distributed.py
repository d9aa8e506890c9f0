"""`autograder grade --cluster`: real `dask scheduler` / `dask worker` processes on 127.0.0.1 grade
honest and hostile submissions with the same results as the local pool; a killed worker or a killed
client loses and duplicates nothing; a worker with other code is refused; a GPU lab goes only to a
worker declaring a GPU.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

from autograder.batch.distributed import DaskPool
from autograder.judge.engine import GradingPool, Limits
from autograder.spec import load_spec
from marks import needs_root
from paths import ROOT
from pipeline_course import HONEST, LAB, cli, comparable, env, notebook_text, store_rows, write_folder
from toy_lab import catalog
from waiting import wait_for

pytestmark = [pytest.mark.slow, needs_root]
DASK = Path(sys.executable).parent / "dask"
SECRET = b"distributed-suite-secret"
# Short limits, as in the adversarial suite; CPU-limit cases are left to it: on a loaded machine a busy loop may
# reach the wall clock first in one run and the CPU limit in the other.
LIMITS = Limits(wall_s=10, cpu_s=30, memory_mb=1280, output_kb=64)
# Honest work, broken files and hostile code (see tests/fixtures/autograder/submissions.py): including
# notebooks that exit, crash, hang, spin and kill the grading worker that runs them.
CHOSEN = ("honest", "partial", "unimplemented", "syntax_error", "not_json", "missing_cell", "rigged_eq",
          "forged_report", "sys_exit", "os_exit", "kill_self", "kill_grader", "segfault", "hang",
          "output_flood", "read_other_student")


@dataclass
class Cluster:
    folder: Path
    address: str = ""
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)

    def start(self, name: str, *args: str, environ: dict | None = None) -> None:
        home = self.folder / name
        home.mkdir()
        log = open(home / "log.txt", "wb")
        self.processes[name] = subprocess.Popen([str(DASK), *args], cwd=home, stdout=log, stderr=log,
                                                env=environ or _plain_env(), start_new_session=True)

    def kill(self, name: str) -> None:
        """SIGKILL the process and everything it started (a Dask worker and its grading workers)."""
        process = self.processes[name]
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=30)

    def log(self, name: str) -> str:
        return (self.folder / name / "log.txt").read_text(errors="replace")[-3000:]


def _plain_env() -> dict:
    """Workers get no instructor secret from their environment: the client ships what they need."""
    return {k: v for k, v in os.environ.items() if k != "COURSE_GRADING_SECRET"}


def _stale_copy(folder: Path) -> Path:
    """An autograder package that differs from this checkout's by one line, as an out-of-date worker has."""
    target = folder / "stale-code" / "autograder"
    shutil.copytree(ROOT / "autograder", target,
                    ignore=shutil.ignore_patterns("__pycache__", "instructor-secret"))
    with open(target / "engine.py", "a") as handle:
        handle.write("\n# an older release\n")
    return target.parent


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler, two workers (w2 declares a GPU) and a worker running other code, on loopback ports."""
    from distributed import Client

    folder = tmp_path_factory.mktemp("dask")
    found = Cluster(folder)
    scheduler_file = folder / "scheduler.json"
    # --local-directory: the workers' files (and the autograder's staging inside) go with the test's folder,
    # not into /tmp/dask-scratch-space, where SIGKILLed workers would leave them
    common = ("--nthreads", "1", "--no-dashboard", "--memory-limit", "0", "--scheduler-file", str(scheduler_file),
              "--local-directory", str(folder / "scratch"))
    try:
        found.start("scheduler", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                    "--scheduler-file", str(scheduler_file))
        wait_for(scheduler_file.exists, 60, "the scheduler file")
        found.address = json.loads(scheduler_file.read_text())["address"]
        found.start("w1", "worker", "--name", "w1", "--host", "127.0.0.1", *common)
        found.start("w2", "worker", "--name", "w2", "--host", "127.0.0.1", "--resources", "GPU=1", *common)
        stale = dict(_plain_env(), PYTHONPATH=str(_stale_copy(folder)))
        found.start("stale", "worker", "--name", "stale", "--host", "127.0.0.1", *common, environ=stale)
        with Client(found.address, timeout=30) as client:
            client.wait_for_workers(3, timeout=120)
        yield found
    finally:
        for name in reversed(list(found.processes)):
            found.kill(name)


def _without_time(result) -> dict:
    data = result.to_json()
    data.pop("seconds")
    return data


def test_hostile_and_honest_submissions_grade_the_same_on_dask_as_locally(cluster, tmp_path):
    paths = catalog.write_all(tmp_path, names=CHOSEN, jobs="/nonexistent")
    spec = load_spec(catalog.SPEC_FILE)
    with GradingPool(2, LIMITS) as pool:
        local = {name: pool.submit(path, spec, student_id=name, secret=SECRET) for name, path in paths.items()}
        local = {name: future.result() for name, future in local.items()}
    with DaskPool(cluster.address, limits=LIMITS) as pool:
        assert set(pool.refused) == {_address_of(pool, "stale")}
        assert "autograder" in next(iter(pool.refused.values()))
        futures = {name: pool.submit(path, spec, student_id=name, secret=SECRET) for name, path in paths.items()}
        remote = {name: future.result(timeout=600) for name, future in futures.items()}
        graded_by = {future.graded_by for future in futures.values()}
    assert graded_by <= {"w1", "w2"}
    for name in CHOSEN:
        assert _without_time(remote[name]) == _without_time(local[name]), name
    expected = {s.name: s for s in catalog.CATALOG}
    for name in CHOSEN:          # and "the same" is the right grade, not the same mistake
        assert (remote[name].status, remote[name].score) == (expected[name].status, expected[name].score), name
    assert remote["kill_grader"].score == catalog.FULL and "exit: calls os.kill()" in remote["kill_grader"].flags


def _address_of(pool: DaskPool, name: str) -> str:
    workers = pool.client.scheduler_info()["workers"]
    return next(address for address, info in workers.items() if info.get("name") == name)


def test_a_gpu_lab_goes_only_to_the_worker_declaring_a_gpu(cluster, tmp_path):
    lab = tmp_path / "gpu-lab"
    shutil.copytree(catalog.SPEC_FILE.parent, lab)                  # the lab's folder: notebook and spec
    source = catalog.SPEC_FILE.read_text().replace("SPEC = LabSpec(", "SPEC = LabSpec(gpu=True, ")
    assert "gpu=True" in source
    (lab / "spec.py").write_text(source)
    spec = load_spec(lab / "spec.py")
    paths = catalog.write_all(tmp_path, names=("honest", "partial", "unimplemented", "syntax_error"))
    with DaskPool(cluster.address, limits=LIMITS) as pool:
        futures = [pool.submit(path, spec, student_id=name, secret=SECRET) for name, path in paths.items()]
        results = [future.result(timeout=300) for future in futures]
    assert [f.graded_by for f in futures] == ["w2"] * 4
    assert [r.score for r in results] == [catalog.FULL, 4.0, 0.0, 5.0]


def _rows(course: Path) -> int:
    db = course / "autograded" / ".autograder" / "results.sqlite"
    if not db.exists():
        return 0
    try:
        return sqlite3.connect(db, timeout=5).execute("SELECT COUNT(*) FROM results").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _slow_notebook(course: Path, choices: dict) -> str:
    """Honest work that takes a second, so a killed worker is most likely mid-submission."""
    nb = nbformat.reads(notebook_text(course, **choices), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import time\ntime.sleep(1)"))
    return nbformat.writes(nb)


def test_killed_worker_and_killed_client_lose_and_duplicate_nothing(cluster, generated, tmp_path):
    """Mid-batch, worker w1 is killed, then the client: the rerun grades only what is missing, and
    every row, and the gradebook, equals a local sequential run's; `status` names the grader."""
    course = tmp_path / "course"
    shutil.copytree(generated, course)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for i in range(14):
        (inbox / f"s{i:02d}.ipynb").write_text(_slow_notebook(course, HONEST[list(HONEST)[i % len(HONEST)]]))
    cli(course, "collect", str(inbox), "--lab", LAB)
    clean = tmp_path / "clean"
    shutil.copytree(course, clean)
    cli(clean, "grade", LAB, "--workers", "2", "--no-progress")
    reference = comparable(store_rows(clean))
    assert len(reference) == 14

    client = subprocess.Popen([sys.executable, "-m", "autograder.cli", "--root", str(course), "grade", LAB,
                               "--cluster", cluster.address, "--no-progress"], cwd=course, env=env(course),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(lambda: _rows(course) >= 2 or client.poll() is not None, 300, "two graded rows")
        assert client.poll() is None, "the batch finished before the worker could be killed"
        cluster.kill("w1")                             # mid-batch, most likely mid-submission
        wait_for(lambda: _rows(course) >= 8 or client.poll() is not None, 300, "eight graded rows")
        assert client.poll() is None, "the batch finished before the client could be killed"
        os.killpg(client.pid, signal.SIGKILL)
    finally:
        if client.poll() is None:
            os.killpg(client.pid, signal.SIGKILL)
        client.wait()
    partial = store_rows(course)
    assert 8 <= len(partial) < 14
    done = cli(course, "grade", LAB, "--cluster", cluster.address, "--no-progress")
    assert f"graded now {14 - len(partial)}, already graded {len(partial)}" in done.stdout, done.stdout
    assert "GRADER ERROR" not in done.stdout
    assert comparable(store_rows(course)) == reference
    status = cli(course, "status", LAB).stdout
    assert "14 graded" in status
    lines = [line for line in status.splitlines() if line.strip().startswith(LAB)]
    assert len(lines) == 14 and all(line.split()[4] in ("w1", "w2") for line in lines), status
    graded_by = dict(sqlite3.connect(course / "autograded" / ".autograder" / "results.sqlite").execute(
        "SELECT student_id, worker FROM graders").fetchall())
    assert set(graded_by.values()) <= {"w1", "w2"} and len(graded_by) == 14


def test_local_cluster_grades_a_batch_like_the_local_pool(generated, tmp_path):
    course = tmp_path / "course"
    shutil.copytree(generated, course)
    cli(course, "collect", str(write_folder(course, tmp_path / "inbox", HONEST)), "--lab", LAB)
    clean = tmp_path / "clean"
    shutil.copytree(course, clean)
    cli(clean, "grade", LAB, "--workers", "2", "--no-progress")
    done = cli(course, "grade", LAB, "--cluster", "local", "--workers", "2", "--no-progress")
    assert "graded now 5" in done.stdout
    assert comparable(store_rows(course)) == comparable(store_rows(clean))


def test_an_unreachable_scheduler_is_a_clear_error():
    from autograder.judge.engine import GraderError

    with pytest.raises(GraderError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        DaskPool("tcp://127.0.0.1:9", timeout=2)


def test_a_submission_whose_worker_dies_on_every_try_fails_with_a_reason(tmp_path):
    """With no retries left (allowed-failures 0), a worker death ends the submission failed, once."""
    import dask
    import distributed  # noqa: F401  its defaults must be in dask's config first: setting a key of a
    # missing "distributed" section inserts the whole section, and leaving the `with` removes it, with
    # every default distributed had added meanwhile (found by a shuffled run, `-p randomly`)

    paths = catalog.write_all(tmp_path, names=("hang",))
    spec = load_spec(catalog.SPEC_FILE)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            DaskPool("local", 1, limits=Limits(wall_s=300)) as pool:
        future = pool.submit(paths["hang"], spec, student_id="hang", secret=SECRET)
        wait_for(lambda: any(pool.client.processing().values()), 120, "the task to start")
        (pid,) = pool.client.run(os.getpid).values()
        os.kill(pid, signal.SIGKILL)                   # the Dask worker process, mid-submission
        result = future.result(timeout=120)
    assert (result.status, result.score, result.tasks) == ("failed", 0.0, [])
    assert result.reason.startswith("crash: the grading worker died while running this notebook")
