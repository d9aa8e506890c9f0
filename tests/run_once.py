"""Work done once per test run, even when pytest-xdist splits the run over several worker processes.

Each xdist worker is a pytest session of its own, so a session fixture would build its folder (or run
its notebook) once per worker. `built_once` builds it once for the whole run in a folder all workers
share (the run's base temp folder, as pytest-xdist's documentation suggests), under a file lock; the
other workers wait for it and reuse it. Without xdist it is a plain `mktemp`.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

DONE = ".built-for-this-run"     # written last: a folder without it is a build that failed midway


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) across processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run_folder(factory: pytest.TempPathFactory) -> Path | None:
    """The folder every worker of this xdist run shares, or None when the run has one process."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    return factory.getbasetemp().parent


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Path]) -> Path:
    """`build(folder)` once per run; every caller gets what the first build returned."""
    shared = run_folder(factory)
    if shared is None:
        return build(factory.mktemp(name))
    folder = shared / f"once-{name}"
    with locked(shared / f"once-{name}.lock"):
        done = folder / DONE
        if done.exists():
            return Path(done.read_text())
        shutil.rmtree(folder, ignore_errors=True)      # a worker's build that failed: start clean
        folder.mkdir()
        result = build(folder)
        done.write_text(str(result))
        return result


class Factory:
    """The part of pytest's TempPathFactory that run_once uses: a worker's base temp inside the run's.
    tests/house/test_run_once.py plays several workers with it, in this process and in others."""

    def __init__(self, run: Path, worker: str):
        self.base = run / f"popen-{worker}"
        self.base.mkdir(parents=True, exist_ok=True)

    def getbasetemp(self) -> Path:
        return self.base

    def mktemp(self, name: str) -> Path:
        folder = self.base / name
        folder.mkdir()
        return folder
