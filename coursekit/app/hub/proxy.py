"""configurable-http-proxy, JupyterHub's reference proxy, installed from npm into a project-local folder.

Pinned, so a class gets the proxy the tests ran against; installed once (`npm install --prefix`), never
globally, so the machine's own Node packages are left alone. Two hubs starting at once (a class hub and
an LMS hub, two test workers) must not both install into the folder: one saw the other's half-written
node_modules and the proxy failed to start. The install holds a lock, and only a finished install (its
stamp file) counts; an unfinished one is removed and installed again.
"""
from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path

from coursekit.paths import course_root

PROXY_PACKAGE = "configurable-http-proxy@5.3.0"


def proxy_folder() -> Path:
    return course_root() / ".hub-proxy"


def ensure_proxy(folder: Path | None = None) -> Path:
    """The proxy executable, installed with npm on first use."""
    folder = folder or proxy_folder()
    executable = folder / "node_modules" / ".bin" / "configurable-http-proxy"
    stamp = folder / f".installed-{PROXY_PACKAGE}"
    if stamp.exists() and executable.exists():
        return executable
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm not found: install Node.js 20+ (Debian: apt-get install nodejs npm); "
                           "the hub's proxy, configurable-http-proxy, comes from the npm registry")
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)              # another hub may be installing: wait for it
        if stamp.exists() and executable.exists():
            return executable
        shutil.rmtree(folder / "node_modules", ignore_errors=True)     # an install that did not finish
        done = subprocess.run([npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", PROXY_PACKAGE],
                              capture_output=True, text=True)
        if done.returncode != 0 or not executable.exists():
            raise RuntimeError(f"npm install {PROXY_PACKAGE} into {folder} failed:\n{done.stderr[-2000:]}")
        stamp.write_text("")
    return executable
