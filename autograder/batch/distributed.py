"""Grading on a Dask cluster: each submission is one Dask task that runs the engine's own
`GradingPool.grade` on a worker, so the sandbox and the trusted judge are exactly the local ones.

    with DaskPool("tcp://host:8786", limits) as pool:          # or "local": a LocalCluster here
        future = pool.submit(notebook, spec, student_id="alice", secret=secret)
        result = future.result()                                # the same SubmissionResult as locally
        future.graded_by                                        # the Dask worker that graded it

What a task carries to a worker that shares no filesystem with the instructor: the submission's
bytes, the spec module (unless it ships inside the autograder package) and the solution notebook
the trusted references come from, the limits, and the secret. The Dask worker is trusted like the
local engine process: it never runs student code itself, its grading pool forks a sandboxed child
per submission, and the secret and solution are hidden from that child as they are locally.

A worker whose code or library versions differ from the instructor's gets no task (`refused`).
A worker that dies mid-submission: Dask reruns the task on another worker; if the submission keeps
killing workers, Dask gives up (KilledWorker) and it is failed with a reason. Results are stored by
the caller (grade.py) only when a task returns, so nothing is counted twice.
"""
from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import functools
import hashlib
import platform
import shutil
import sys
import threading
import uuid
from dataclasses import astuple, replace
from importlib import metadata
from pathlib import Path

from autograder import submitted
from autograder.judge.engine import GraderError, GradingPool, Limits
from autograder.judge.results import SubmissionResult
from autograder.sandbox.policy import default_hidden
from autograder.sandbox.scratch import private_folder
from autograder.spec import REPO_ROOT, LabSpec, load_spec

PACKAGE = Path(__file__).resolve().parents[1]                # the autograder package
VERSIONED = ("torch", "numpy", "ipython", "distributed", "nbformat")
WORKER_DIED = "crash: the grading worker died while running this notebook"


# ---------------------------------------------------------------- same code everywhere

def _source_digest() -> str:
    """The autograder and coursekit sources: a worker with other code could grade differently."""
    digest = hashlib.sha256()
    for package in (PACKAGE, PACKAGE.parent / "coursekit"):
        for path in sorted(package.rglob("*.py")):
            digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def fingerprint() -> dict[str, str]:
    """What must match between the instructor's machine and a worker (runs on both)."""
    return dict(_fingerprint())


@functools.lru_cache(maxsize=1)
def _fingerprint() -> tuple:
    """Computed once per process: the code a process runs is the code it loaded at start."""
    found = {"python": platform.python_version(), "autograder": _source_digest()}
    for name in VERSIONED:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "absent"
    return tuple(sorted(found.items()))


def differences(mine: dict, theirs: dict) -> str:
    keys = sorted(set(mine) | set(theirs))
    return ", ".join(f"{k} {theirs.get(k, 'absent')} (here {mine.get(k, 'absent')})"
                     for k in keys if mine.get(k) != theirs.get(k))


# ---------------------------------------------------------------- the worker side

_STATE: dict = {}
_STATE_LOCK = threading.Lock()


def _staging(worker) -> Path:
    """This worker process's private folder for shipped specs, solutions and submissions (its grading
    pool's job files sit beside it): inside the Dask worker's own local directory, which Dask removes
    when the worker closes and purges when a later worker finds it left by a killed one."""
    with _STATE_LOCK:
        if "staging" not in _STATE:
            _STATE["staging"] = private_folder("autograder-dask-", worker.local_directory)
        return _STATE["staging"]


def _pool(limits: Limits, hide: tuple, threads: int, scratch: Path) -> GradingPool:
    """One warm pool per worker process (per limits), sized to the worker's threads; reused by every task."""
    key = (astuple(limits), hide)
    with _STATE_LOCK:
        pools = _STATE.setdefault("pools", {})
        if key not in pools:
            pools[key] = GradingPool(threads, limits, hide=hide, scratch=scratch)
            atexit.register(pools[key].close)
        return pools[key]


def _unpack_spec(bundle: dict, root: Path) -> LabSpec:
    """The spec as the client loaded it, with the shipped solution notebook as its reference."""
    folder = root / "labs" / bundle["digest"]
    if not folder.is_dir():
        part = root / "labs" / f".{bundle['digest']}-{uuid.uuid4().hex}"
        part.mkdir(parents=True)
        if bundle["module"] is not None:
            (part / bundle["module_name"]).write_bytes(bundle["module"])
        (part / bundle["notebook"]).write_bytes(bundle["solution"])
        try:
            part.rename(folder)            # atomic: a concurrent task sees all of it or none
        except OSError:
            shutil.rmtree(part, ignore_errors=True)
    spec = load_spec(bundle["lab_id"] if bundle["module"] is None else folder / bundle["module_name"])
    return replace(spec, solution=str(folder / bundle["notebook"]))


def grade_on_worker(payload: dict) -> tuple[dict, str]:
    """The Dask task: grade one submission with the engine; returns (result, the worker's name)."""
    from distributed import get_worker

    worker = get_worker()
    theirs = fingerprint()
    if theirs != payload["fingerprint"]:
        raise GraderError(f"worker {worker.address} runs other code than the instructor: "
                          f"{differences(payload['fingerprint'], theirs)}; install the same versions there")
    root = _staging(worker)
    spec = _unpack_spec(payload["bundle"], root)
    pool = _pool(payload["limits"], (str(root),) + tuple(payload["hide"]), worker.state.nthreads,
                 Path(worker.local_directory))
    folder = root / "submissions" / uuid.uuid4().hex
    folder.mkdir(parents=True)
    notebook = folder / spec.notebook
    try:
        notebook.write_bytes(payload["notebook"])
        result = pool.grade(notebook, spec, payload["student_id"], payload["secret"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return result.to_json(), str(worker.name)


# ---------------------------------------------------------------- the instructor side

def _bundle(spec: LabSpec) -> dict:
    """The reference material a worker needs: the spec module (when it has a file) and the solution."""
    packaged = spec.origin is None
    module = None if packaged else Path(spec.origin).read_bytes()
    solution = spec.solution_path().read_bytes()
    digest = hashlib.sha256((spec.lab_id.encode() + b"\0" + (module or b"") + b"\0" + solution)).hexdigest()[:16]
    return {"lab_id": spec.lab_id, "module": module, "module_name": Path(spec.origin or "spec.py").name,
            "notebook": spec.notebook, "solution": solution, "digest": digest}


def start_local_cluster(workers: int, scratch: Path):
    """A Dask cluster on this machine: one single-threaded worker process per grading worker, with
    its files in `scratch` (not Dask's shared dask-scratch-space), which the caller removes."""
    from distributed import LocalCluster

    # memory_limit=0: the sandbox limits each submission; Dask must not pause or kill a worker for it
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                        dashboard_address=":0", memory_limit=0, local_directory=str(scratch))


class DaskPool:
    """GradingPool's interface (`submit` returns a concurrent.futures.Future) over a Dask cluster."""

    def __init__(self, address: str, workers: int | None = None, limits: Limits = Limits(), hide: tuple = (),
                 timeout: float = 60) -> None:
        import dask
        from distributed import Client

        from autograder.judge.engine import usable_cores

        self.limits, self.hide = limits, tuple(hide)
        # a local cluster's every file lives here, removed on close even if a worker was killed
        self.scratch = private_folder("autograder-cluster-") if address == "local" else None
        # while the pool lives, every part of a local cluster (a killed worker's replacement too) takes
        # its temporary folder from here, not /tmp/dask-scratch-space
        self._settings = dask.config.set({"temporary-directory": str(self.scratch)}) if self.scratch else None
        self.cluster = start_local_cluster(workers or usable_cores(), self.scratch) if self.scratch else None
        try:
            self.client = Client(self.cluster or address, timeout=timeout)
        except OSError as error:
            self._close_cluster()
            raise GraderError(f"cannot reach the Dask scheduler at {address}: {error}") from None
        self.mine = fingerprint()
        self.accepted, self.refused = self._check_workers()
        self._bundles: dict[tuple, dict] = {}

    def _check_workers(self) -> tuple[list[str], dict[str, str]]:
        """Split the connected workers into those running this code and those refused (with why)."""
        try:
            self.client.wait_for_workers(1, timeout=60)
        except (TimeoutError, asyncio.TimeoutError):       # one class from Python 3.11 on
            self.close()
            raise GraderError("no Dask worker joined the scheduler within 60 s: start `dask worker ADDRESS`") from None
        accepted, refused = [], {}
        for address, found in self.client.run(fingerprint, on_error="return").items():
            if isinstance(found, BaseException):
                refused[address] = f"cannot check its version ({type(found).__name__}: {found})"
            elif found != self.mine:
                refused[address] = f"other versions: {differences(self.mine, found)}"
            else:
                accepted.append(address)
        for address, why in refused.items():
            print(f"autograder: refusing Dask worker {address}: {why}", file=sys.stderr)
        if not accepted:
            detail = "; ".join(f"{a}: {why}" for a, why in refused.items())
            self.close()
            raise GraderError(f"no Dask worker runs the instructor's autograder version ({detail}); "
                              "install the same versions on the workers")
        return sorted(accepted), refused

    def __enter__(self) -> "DaskPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.client.close()
        self._close_cluster()

    def _close_cluster(self) -> None:
        if self.cluster is not None:
            self.cluster.close()
        if self.scratch is not None:
            self._settings.__exit__(None, None, None)
            shutil.rmtree(self.scratch, ignore_errors=True)
        self.cluster = self.scratch = None             # closing twice is harmless

    def _hidden(self, notebook: Path, spec: LabSpec) -> tuple:
        """What local grading would hide, labelled the same, for a worker on a shared filesystem (the
        submission itself is a staged copy there; its own folder is left out so the list, and the
        worker's warm pool, stay the same for the whole batch)."""
        notebook = notebook.resolve()
        return tuple((path, label) for path, label in default_hidden(REPO_ROOT, notebook, spec.solution_path(), self.hide)
                     if path != str(notebook.parent))

    def submit(self, notebook: Path, spec: LabSpec, *, student_id: str,
               secret: bytes) -> concurrent.futures.Future:
        key = (spec.origin, spec.lab_id)
        if key not in self._bundles:
            self._bundles[key] = _bundle(spec)      # small: inlined in each task, so no worker's loss loses it
        payload = {"notebook": submitted.read(Path(notebook), Path(notebook).parent), "student_id": student_id, "secret": secret,
                   "bundle": self._bundles[key], "limits": self.limits, "hide": self._hidden(Path(notebook), spec),
                   "fingerprint": self.mine}
        task = self.client.submit(grade_on_worker, payload, key=f"grade-{spec.lab_id}-{student_id}-{uuid.uuid4().hex[:8]}",
                                  workers=self.accepted, allow_other_workers=False,
                                  resources={"GPU": 1} if spec.gpu else None)
        out: concurrent.futures.Future = concurrent.futures.Future()
        out.graded_by = None
        task.add_done_callback(lambda done: _settle(done, out, spec, student_id))
        return out


def _settle(task, out: concurrent.futures.Future, spec: LabSpec, student_id: str) -> None:
    """Turn a finished Dask task into the caller's future: a result, a worker-death failure, or an error."""
    from distributed import KilledWorker

    try:
        result, out.graded_by = task.result()
        out.set_result(SubmissionResult.from_json(result))
    except KilledWorker:
        # Dask already retried it on other workers (distributed.scheduler.allowed-failures): the
        # submission itself takes workers down, so it fails like a local worker death does.
        out.set_result(SubmissionResult(student_id, spec.lab_id, "failed", f"{WORKER_DIED} (on every retry)",
                                        max_score=float(spec.total_points)))
    except BaseException as error:         # noqa: BLE001 - the grader's problem: the caller leaves it pending
        out.set_exception(error)

