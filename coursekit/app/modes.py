"""Student mode and instructor mode of the course's JupyterLab: which of nbgrader's tools show.

Students use nbgrader's Assignments list and Validate button; the Formgrader, Create Assignment and
Courses panels are instructor tools. `course start` (student mode) adds the course's own config
folder, `coursekit/app/jupyter-student/`, to JUPYTER_CONFIG_PATH of the server it runs: its
`labconfig/page_config.json` disables those lab plugins (JupyterLab's own `disabledExtensions`)
and its `jupyter_server_config.json` switches off their server extensions and serves course material read-only (`coursekit/app/contents.py`). `course start
--instructor` leaves everything as installed. Nothing is written to the user's own Jupyter config.
"""
from __future__ import annotations

import os
from pathlib import Path

STUDENT_CONFIG = Path(__file__).resolve().parent / "jupyter-student"
MODES = ("student", "instructor")


def mode_env(mode: str, environ: dict[str, str]) -> dict[str, str]:
    """`environ` for a server in `mode`: the student config folder first on JUPYTER_CONFIG_PATH, or
    removed from it (an instructor server started from a student's terminal shows everything)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (modes: {', '.join(MODES)})")
    env = without_mode_config(environ)
    if mode == "student":
        rest = env.get("JUPYTER_CONFIG_PATH", "")
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(p for p in (str(STUDENT_CONFIG), rest) if p)
    return env


def without_mode_config(environ: dict[str, str]) -> dict[str, str]:
    """`environ` without the student config folder, for tools that report what is installed."""
    env = dict(environ)
    paths = [p for p in env.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep) if p and Path(p) != STUDENT_CONFIG]
    if paths:
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)
    else:
        env.pop("JUPYTER_CONFIG_PATH", None)
    return env
