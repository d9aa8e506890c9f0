"""Is the saved notebook what the learner sees? `course check NOTEBOOK` reads the saved file;
`saved_version()` says which version that is, and `unsaved_work()` asks any running Jupyter server
whether the notebook is open with a kernel that ran a cell after the last save (then the check is of
an older version): the course's kernel records when it last ran one (coursekit/kernel_runs.py); a
kernel that only started ran nothing.
"""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

from ..kernel_runs import last_run

SLACK_S = 2.0  # a save and the kernel's idle message after it arrive within a moment of each other


def saved_version(path: Path) -> str:
    saved = datetime.fromtimestamp(path.stat().st_mtime)
    return f"Checked {path} as saved at {saved:%Y-%m-%d %H:%M:%S}."


def _sessions(server: dict) -> list[dict]:
    import urllib.request   # here: most checks find no running server, and this import is a tenth of a check

    url = f"{server['url'].rstrip('/')}/api/sessions?token={server.get('token', '')}"
    with urllib.request.urlopen(url, timeout=3) as response:
        return json.load(response)


def running_servers() -> list[dict]:
    """The server files of running Jupyter servers (jupyter_server's list_running_servers, without
    importing jupyter_server: that import alone costs seconds, longer than the rest of a check)."""
    try:
        from jupyter_core.paths import jupyter_runtime_dir
    except ImportError:
        return []
    servers = []
    for file in sorted(Path(jupyter_runtime_dir()).glob("jpserver-*.json")):
        try:
            info = json.loads(file.read_text(encoding="utf-8"))
            os.kill(int(info["pid"]), 0)           # a server that is gone leaves its file behind
        except (OSError, ValueError, KeyError, TypeError):
            continue
        servers.append({**info, "runtime_dir": str(file.parent)})   # where its kernels' files are
    return servers


def unsaved_work(path: Path) -> str | None:
    """A warning when a running Jupyter server has `path` open with a kernel active since its last save."""
    path, saved = path.resolve(), path.stat().st_mtime
    for server in running_servers():
        try:
            sessions = _sessions(server)
        except (OSError, ValueError):
            continue  # a stale server file, or a server we may not ask: nothing to say about it
        root = Path(server.get("root_dir") or server.get("notebook_dir") or "/")
        for session in sessions:
            if (root / session.get("path", "")).resolve() != path:
                continue
            kernel = session.get("kernel") or {}
            recorded, ran = last_run(Path(server["runtime_dir"]), kernel.get("id", ""))
            if not recorded:   # not the course's kernel: its last activity is all the server knows
                active = kernel.get("last_activity")
                ran = active and datetime.fromisoformat(active.replace("Z", "+00:00")).timestamp()
            if ran and ran > saved + SLACK_S:
                when = datetime.fromtimestamp(ran).astimezone(timezone.utc).astimezone()
                return (f"This notebook is open in Jupyter and its kernel ran code at {when:%H:%M:%S}, after the "
                        "last save: this check is of the saved file, which may not be what you see. Save "
                        "(Ctrl+S) and check again, or run `from coursekit.checks import check_here; check_here()` "
                        "in the notebook to check the code as you have run it.")
    return None
