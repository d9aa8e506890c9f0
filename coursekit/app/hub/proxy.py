"""configurable-http-proxy, JupyterHub's reference proxy, installed from npm into a project-local folder.

Pinned, so a class gets the proxy the tests ran against; installed once (`npm install --prefix`), never
globally, so the machine's own Node packages are left alone.
"""
from __future__ import annotations

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
    if executable.exists():
        return executable
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm not found: install Node.js 20+ (Debian: apt-get install nodejs npm); "
                           "the hub's proxy, configurable-http-proxy, comes from the npm registry")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", PROXY_PACKAGE],
                          capture_output=True, text=True)
    if done.returncode != 0 or not executable.exists():
        raise RuntimeError(f"npm install {PROXY_PACKAGE} into {folder} failed:\n{done.stderr[-2000:]}")
    return executable
