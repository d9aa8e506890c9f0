"""`course doctor`: check that everything the course needs is installed, enabled and readable.

Each check returns (ok, what was found, how to fix it). The command prints every result and exits
non-zero if any check failed, so a student can paste its output into a help request.
"""
from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .paths import START_PAGE, course_root

SETUP_FIX = "run ./course.sh start (it installs everything into .venv)"


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def check_python() -> Check:
    version = platform.python_version()
    ok = sys.version_info >= (3, 10)
    return Check("Python", ok, f"{version} at {sys.executable}", "" if ok else "install Python 3.11 and rerun ./course.sh start")


def check_torch() -> Check:
    try:
        import torch

        from .device import describe_device, pick_device

        device = pick_device(verbose=False)
        return Check("PyTorch", True, f"{torch.__version__}; labs will run on {describe_device(device)}")
    except Exception as exc:  # an import failure is the finding, whatever its type
        return Check("PyTorch", False, f"cannot import torch: {exc}", SETUP_FIX)


def check_packages() -> list[Check]:
    wanted = {"jupyterlab": "4", "nbgrader": "0.9", "ipywidgets": "8"}
    checks = []
    for dist, major in wanted.items():
        found = _version(dist)
        ok = found is not None and found.startswith(major)
        detail = found or "not installed"
        fix = "" if ok else f"{SETUP_FIX}; the course needs {dist} {major}.x"
        checks.append(Check(dist, ok, detail, fix))
    return checks


def _jupyter(*args: str) -> str:
    """Output (stdout+stderr, colours removed) of `jupyter ...` run with this interpreter."""
    result = subprocess.run([sys.executable, "-m", "jupyter", *args], capture_output=True, text=True, timeout=60)
    return re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)


def check_lab_extensions() -> list[Check]:
    listing = _jupyter("labextension", "list")
    checks = []
    for name, label in [("@jupyter/nbgrader", "nbgrader lab extension"),
                        ("@jupyter-widgets/jupyterlab-manager", "widgets manager (lab extension)")]:
        line = next((l for l in listing.splitlines() if name in l), "")
        if not line:
            checks.append(Check(label, False, "not installed", SETUP_FIX))
        elif "disabled" in line:
            checks.append(Check(label, False, "installed but disabled", f"jupyter labextension enable {name}"))
        else:
            checks.append(Check(label, True, " ".join(line.split())))
    return checks


def check_server_extension() -> Check:
    listing = _jupyter("server", "extension", "list")
    lines = [l for l in listing.splitlines() if l.strip().startswith("nbgrader")]
    if not lines:
        return Check("nbgrader server extension", False, "not found", SETUP_FIX)
    if any("disabled" in l for l in lines):
        return Check("nbgrader server extension", False, "disabled", "jupyter server extension enable nbgrader")
    return Check("nbgrader server extension", True, "enabled")


def check_course_files(root: Path) -> Check:
    start = root / START_PAGE
    try:
        lessons = sorted((root / "course").glob("m*/*.ipynb"))
        json.loads(start.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Check("course files", False, f"{start} not found", "run the course from its repository (or set COURSE_ROOT to it)")
    except (OSError, ValueError) as exc:
        return Check("course files", False, f"cannot read {start}: {exc}", f"check permissions of {root / 'course'} or restore it with git checkout")
    if not lessons:
        return Check("course files", False, f"no lesson notebooks under {root / 'course'}", "restore course/ with git checkout")
    unreadable = [p for p in lessons if not os.access(p, os.R_OK)]
    if unreadable:
        return Check("course files", False, f"unreadable: {', '.join(map(str, unreadable[:3]))}", "fix the permissions (chmod u+r)")
    return Check("course files", True, f"{len(lessons)} lesson notebooks under {root / 'course'}")


def _progress_dir() -> Path:
    try:
        from .progress import store_path

        return Path(store_path()).parent
    except ImportError:  # progress store not available in this checkout
        return Path(os.environ.get("COURSE_PROGRESS_DIR", Path.home() / ".course-progress"))


def check_progress_writable() -> Check:
    folder = _progress_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".doctor-", delete=True) as handle:
            handle.write(b"ok")
            handle.flush()
    except OSError as exc:
        return Check("progress store", False, f"{folder} is not writable: {exc.strerror or exc}",
                     "set COURSE_PROGRESS_DIR to a writable folder, or fix that folder's permissions")
    return Check("progress store", True, f"{folder} is writable")


def run_checks(root: Path | None = None) -> list[Check]:
    root = root or course_root()
    return [check_python(), check_torch(), *check_packages(), *check_lab_extensions(),
            check_server_extension(), check_course_files(root), check_progress_writable()]


def main(root: Path | None = None) -> int:
    checks = run_checks(root)
    width = max(len(c.name) for c in checks)
    for c in checks:
        print(f"{'ok ' if c.ok else 'BAD'}  {c.name:<{width}}  {c.detail}")
        if not c.ok:
            print(f"     {'':<{width}}  fix: {c.fix}")
    failed = [c for c in checks if not c.ok]
    print(f"\n{len(checks) - len(failed)} of {len(checks)} checks passed." if failed else f"\nAll {len(checks)} checks passed.")
    return 1 if failed else 0
