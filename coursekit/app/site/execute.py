"""Executed copies of the course's notebooks for the website, made once and reused while unchanged.

Each copy records a hash of its source and of the code it imports (`coursekit/`, the banks), so a
warm build re-executes only what changed; the committed notebooks are never touched.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

from coursekit.app.kernel_client import kernel_config

HASH_KEY = "course_site_source_hash"


class ExecutionFailed(RuntimeError):
    pass


def code_fingerprint(root: Path) -> str:
    """What every notebook's output depends on besides its own source: the library and the banks
    (not coursekit/app/, the `course` command, which no notebook imports: tests/house/test_package_layout.py)."""
    digest = hashlib.sha256()
    for folder in ("coursekit", "quizzes"):
        for path in sorted((root / folder).rglob("*")):
            rel = path.relative_to(root)
            if path.is_file() and path.suffix in (".py", ".yaml", ".yml") and rel.parts[:2] != ("coursekit", "app"):
                digest.update(rel.as_posix().encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def source_hash(notebook: Path, fingerprint: str) -> str:
    return hashlib.sha256(notebook.read_bytes() + fingerprint.encode()).hexdigest()


def is_current(copy: Path, wanted: str) -> bool:
    if not copy.exists():
        return False
    try:
        return nbformat.read(copy, as_version=4).metadata.get(HASH_KEY) == wanted
    except Exception:  # noqa: BLE001 - a half-written or corrupt copy is simply made again
        return False


def execute(notebook: Path, *, allow_errors: bool, env: dict, timeout: int = 600) -> nbformat.NotebookNode:
    """Run every cell with the notebook's own folder as working directory (as JupyterLab does)."""
    nb = nbformat.read(notebook, as_version=4)
    sockets = tempfile.TemporaryDirectory(prefix="course-site-kernel-")
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=allow_errors,
                            resources={"metadata": {"path": str(notebook.parent)}},
                            config=kernel_config(Path(sockets.name)))
    saved = dict(os.environ)
    os.environ.update(env)  # the kernel inherits this environment
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError) as exc:
        message = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))[-1500:]
        raise ExecutionFailed(f"{notebook}: a cell failed while building the site:\n{message}") from None
    finally:
        os.environ.clear()
        os.environ.update(saved)
        sockets.cleanup()
    return nb


def executed_copy(notebook: Path, copy: Path, fingerprint: str, *, allow_errors: bool, env: dict) -> bool:
    """Write the executed notebook to `copy` unless an up-to-date one is there; True if it ran."""
    wanted = source_hash(notebook, fingerprint)
    if is_current(copy, wanted):
        return False
    nb = execute(notebook, allow_errors=allow_errors, env=env)
    nb.metadata[HASH_KEY] = wanted
    copy.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, copy)
    return True
