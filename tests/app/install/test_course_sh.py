"""./course.sh's first set-up says what it is doing before each step (torch, then JupyterLab and
the rest), which torch build it installs, and when it is done."""
from __future__ import annotations

import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

from paths import ROOT

STEPS = ["==> installing the course into",
         "==> installing torch",
         "==> installing JupyterLab, nbgrader, ipywidgets, matplotlib and the course package",
         "==> set-up done"]


@pytest.mark.slow
def test_first_set_up_announces_each_step(tmp_path):
    """A fresh COURSE_VENV that sees this environment's packages (an executable .pth line), so each
    pip step runs for real but finds everything installed: the messages are those of a first set-up."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "ensurepip", "--default-pip"], check=True, capture_output=True)
    purelib = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "course-test.pth").write_text(f"import site; site.addsitedir({site.getsitepackages()[0]!r})\n")
    env = {k: v for k, v in os.environ.items() if k not in ("COURSE_TORCH", "VIRTUAL_ENV")}
    env["COURSE_VENV"] = str(venv)
    process = subprocess.Popen(["./course.sh", "start", "--help"], cwd=ROOT, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=1)
    lines = [line.rstrip() for line in process.stdout]   # read as streamed
    assert process.wait(timeout=600) == 0, "\n".join(lines)
    announced = [next((i for i, l in enumerate(lines) if l.startswith(step)), None) for step in STEPS]
    assert None not in announced and announced == sorted(announced), "\n".join(lines)
    assert any("CPU build" in l for l in lines if l.startswith("==> installing torch")), "\n".join(lines)
    assert "usage: course start" in "\n".join(lines)   # then it hands over to `course start`


def test_hub_after_the_test_set_up_installs_nothing_again(tmp_path):
    """A venv set up with [test,hub,site] has the [hub] extra: `./course.sh hub` goes straight to `course hub`
    (it reinstalled both pip steps before). A venv of stubs: any pip step would run the stub python and fail."""
    import hashlib

    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    for name, text in (("python", 'echo "python was run: $*"; exit 3'), ("course", 'echo "course $*"')):
        (venv / "bin" / name).write_text(f"#!/bin/sh\n{text}\n")
        (venv / "bin" / name).chmod(0o755)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + (ROOT / "constraints-cpu.txt").read_bytes())
    (venv / ".course-setup").write_text(f"[test,hub,site]:{digest.hexdigest()[:16]}\n")
    env = {**os.environ, "COURSE_VENV": str(venv)}
    done = subprocess.run(["./course.sh", "hub", "stop", "--data", "/srv/x"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "course hub stop --data /srv/x\n", done.stdout + done.stderr
    (venv / ".course-setup").write_text(f"[hub]:{digest.hexdigest()[:16]}\n")     # [site] is not in [hub]
    site = subprocess.run(["./course.sh", "site"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert site.returncode != 0 and "==> installing the course into" in site.stdout, site.stdout + site.stderr
