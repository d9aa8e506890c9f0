"""`course start` for real, on a temporary git clone of the course, for the browser tests that check
what a student's own server does (saving, clean notebooks, student and instructor mode)."""
from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, free_port, serve

# scratch notebooks a test makes in the clone; git ignores them so `git status` shows the course only
SCRATCH = "scratch"


def clone_course(base: Path) -> Path:
    """A fresh clone of this repository's committed course, as a student gets it."""
    clone = base / "course-clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    with open(clone / ".git" / "info" / "exclude", "a") as exclude:
        exclude.write(f"/{SCRATCH}/\n")
    return clone


def git_status(clone: Path) -> str:
    return subprocess.run(["git", "-C", str(clone), "status", "--porcelain"], check=True,
                          capture_output=True, text=True).stdout


@contextlib.contextmanager
def course_start(clone: Path, base: Path, *options: str, autosave_s: int | None = None, jupyter_args=()):
    """Run `course start OPTIONS` serving `clone`; yield a LabServer. `autosave_s` shortens
    JupyterLab's autosave interval so a test sees what autosave would write; `jupyter_args` go to JupyterLab."""
    base.mkdir(parents=True, exist_ok=True)
    port, token = free_port(), secrets.token_hex(16)
    settings = base / "user-settings"
    if autosave_s is not None:
        plugin = settings / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings"
        plugin.parent.mkdir(parents=True, exist_ok=True)
        plugin.write_text(json.dumps({"autosave": True, "autosaveInterval": autosave_s}))
    progress = base / "progress"
    progress.mkdir(exist_ok=True)
    env = dict(os.environ, COURSE_ROOT=str(clone), COURSE_PROGRESS_DIR=str(progress),
               JUPYTER_RUNTIME_DIR=str(base / "runtime"), JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"),
               MPLBACKEND="module://matplotlib_inline.backend_inline")
    # the installed `course` script: `python -m coursekit.app.cli` in the clone would import the clone's copy
    command = [str(Path(sys.executable).parent / "course"), "start", "--no-browser", f"--port={port}", *options,
               "--", f"--ServerApp.token={token}", "--ip=127.0.0.1", *jupyter_args]
    with serve(command, env, base / "course-start.log", port, token, clone, progress) as server:
        yield server
