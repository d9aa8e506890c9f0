"""Terminals opened from `course start` find `course` and `autograder`.

JupyterLab's terminals run `$SHELL -l` when the server has no tty (a desktop launcher, a pipe),
and a login shell sources /etc/profile, which resets PATH: the virtual environment's scripts
disappear even if the server's PATH had them. `course start` therefore puts the scripts folder
first on PATH and asks for an interactive, non-login shell, which keeps the PATH it inherits.
`course doctor` runs that same shell to prove both commands resolve.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

COMMANDS = ("course", "autograder")


def scripts_dir() -> Path:
    """Where this environment's console scripts (course, autograder) live, e.g. .venv/bin."""
    return Path(sysconfig.get_path("scripts"))


def terminal_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """`environ` with the scripts folder first on PATH (and VIRTUAL_ENV set when it is a venv)."""
    env = dict(os.environ if environ is None else environ)
    scripts = str(scripts_dir())
    rest = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != scripts]
    env["PATH"] = os.pathsep.join([scripts, *rest])
    if sys.prefix != sys.base_prefix:
        env["VIRTUAL_ENV"] = sys.prefix
    return env


def shell_command(environ: dict[str, str] | None = None) -> list[str]:
    """The user's shell, interactive but not a login shell (a login shell would reset PATH)."""
    env = os.environ if environ is None else environ
    return [env.get("SHELL") or shutil.which("sh") or "/bin/sh", "-i"]


def jupyter_args() -> list[str]:
    """Options for the JupyterLab that `course start` runs."""
    return [f"--ServerApp.terminado_settings={json.dumps({'shell_command': shell_command()})}"]


def resolve_in_terminal(environ: dict[str, str] | None = None) -> dict[str, str | None]:
    """Where each course command resolves in the shell a course terminal runs (None: not found)."""
    env = terminal_env(environ)
    script = "; ".join(f'echo "{name}=$(command -v {name})"' for name in COMMANDS)
    result = subprocess.run([*shell_command(env), "-c", script], env=env, stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=30)
    found = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    return {name: found.get(name) or None for name in COMMANDS}


def outside_shell_hint() -> str:
    scripts = scripts_dir()
    return f"in a shell outside JupyterLab: source {scripts / 'activate'} (or run {scripts / 'course'} ...)"
