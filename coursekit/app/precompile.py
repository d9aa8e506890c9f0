"""Byte-compile the environment once, at set-up, for servers that cannot write their own caches.

A hub's class accounts cannot write __pycache__ into the root-owned environment, so each of their
servers would compile JupyterLab's ~14k modules again at every start. `./course.sh test` and
`./course.sh hub` run this once after installing (`python -m coursekit.app.precompile`); it records
which install it compiled (`.course-compiled` beside the set-up stamp, `.course-setup`), so `course hub`
compiles the installed packages again only after a new install. The course's own two packages change
with every `git pull` and are few: they are compiled each time (about a second).

Not at `./course.sh start`: a learner's own server compiles each module on first import, which set-up
time does not pay for (benchmarks/RESULTS.md#set-up-times).
"""
from __future__ import annotations

import hashlib
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from coursekit.paths import course_root

SETUP_STAMP = Path(sys.prefix) / ".course-setup"      # written by course.sh after each install
COMPILED_STAMP = Path(sys.prefix) / ".course-compiled"


def _install_id() -> str:
    try:
        return hashlib.sha256(SETUP_STAMP.read_bytes()).hexdigest()[:16]
    except OSError:
        return "no set-up stamp"


def packages_compiled() -> bool:
    """Whether the installed packages were compiled after the latest install."""
    try:
        return COMPILED_STAMP.read_text().strip() == _install_id()
    except OSError:
        return False


def _compileall(*folders: str) -> None:
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", *folders], capture_output=True)


def precompile(announce: bool = False) -> bool:
    """Compile the course's packages, and the installed ones unless already done for this install;
    return whether the installed packages were compiled now (minutes the first time)."""
    course = [str(course_root() / "coursekit"), str(course_root() / "autograder")]
    if packages_compiled():
        _compileall(*course)
        return False
    if announce:   # 153 CPU-s measured on a 2-core machine (benchmarks/RESULTS.md, "Where the full run's CPU goes")
        print("byte-compiling the environment for servers that cannot write their own caches (class "
              "accounts), once per install: about 150 CPU-seconds, 75 s on 2 cores ...", flush=True)
    started = time.monotonic()
    _compileall(sysconfig.get_paths()["purelib"], *course)
    if announce:
        print(f"byte-compiled in {time.monotonic() - started:.0f} s", flush=True)
    try:
        COMPILED_STAMP.write_text(_install_id() + "\n")
    except OSError:
        pass           # a read-only environment: compiled all the same, checked again next time
    return True


if __name__ == "__main__":
    precompile(announce=True)
