"""A learner's check of what is on screen, not only of what was last saved.

`check_here()` runs in the notebook's own kernel: it reports each task as its test cell last ran it
(the grader judges a task at its test cell), and checks a task whose test cell has not run on its
function as it is now. `course check NOTEBOOK` reads the saved file; `saved_version()` says which
version that is, and `unsaved_work()` asks any running Jupyter server whether the notebook is open
with a kernel that ran a cell after the last save (then the check is of an older version): the course's
kernel records when it last ran one (coursekit/kernel_runs.py); a kernel that only started ran nothing.
"""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

from ..kernel_runs import last_run
from .last import remember
from .selfcheck import DEF, LAB_CALL, check_namespace, lab_of, record_progress, render
from .visible import AT_TEST_CELL

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


def _notebook_of_kernel(namespace: dict) -> dict | None:
    """The saved notebook this kernel serves (Jupyter names its file), or None."""
    session = os.environ.get("JPY_SESSION_NAME") or namespace.get("__session__")
    if session and Path(session).is_file():
        try:
            return json.loads(Path(session).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
    return None


def _defined_in(notebook: dict | None) -> frozenset:
    """Names of the functions the notebook's code cells define (at the start of a line)."""
    if not notebook:
        return frozenset()
    sources = ("".join(c.get("source", "")) for c in notebook.get("cells", []) if c.get("cell_type") == "code")
    return frozenset(name for source in sources for name in DEF.findall(source))


def _lab_in_kernel(namespace: dict) -> str | None:
    """The lab of the notebook this kernel serves: its file (Jupyter names it), else cells it ran."""
    notebook = _notebook_of_kernel(namespace)
    if notebook is not None:
        session = os.environ.get("JPY_SESSION_NAME") or namespace.get("__session__")
        try:
            return lab_of(notebook, Path(session))
        except (OSError, ValueError):
            pass
    for source in reversed(namespace.get("In", [])):
        found = LAB_CALL.search(source)
        if found:
            return found.group(1)
    return None


def check_here(lab_id: str | None = None, *, record: bool = True) -> int:
    """Each task as its test cell last ran in this kernel, else its function checked as it is now;
    returns tasks passed."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        raise RuntimeError("check_here() runs inside a notebook; from a terminal use `course check NOTEBOOK`")
    lab_id = lab_id or _lab_in_kernel(shell.user_ns)
    if lab_id is None:
        raise ValueError("cannot tell which lab this is: name it, e.g. check_here('lab1-roofline')")
    seen = {grade_id: fn for (lab, grade_id), fn in AT_TEST_CELL.items() if lab == lab_id}
    checks = check_namespace(lab_id, shell.user_ns, _defined_in(_notebook_of_kernel(shell.user_ns)), seen)
    report = render(lab_id, checks, [])
    print(report)
    remember(lab_id, report, "check_here()")
    print("Checked the code this kernel has run, as it is now (unsaved edits included once run).")
    passed = sum(c.passed for c in checks)
    if record and record_progress(lab_id, passed, len(checks)):
        print("(progress recorded)")
    if passed < len(checks) and _tutor_on(lab_id):
        print("Stuck? Ask the course's tutor about this check: `from coursekit.tutor import tutor; tutor()`")
    return passed


def _tutor_on(lab_id: str) -> bool:
    """A tutor is configured and not turned off for this lab (a broken configuration: say nothing here;
    the tutor itself names the problem when asked)."""
    from coursekit.tutor.config import TutorConfigError, load

    try:
        config = load()
    except TutorConfigError:
        return False
    return config is not None and lab_id not in config.off_for
