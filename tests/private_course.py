"""A private instructor folder holding the pipeline fixture's toy lab under a name the checkout lacks, and
the public commands run against it from outside the checkout (the private-root and allowlist tests)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from paths import ROOT, TESTS

FIXTURE = TESTS / "fixtures" / "pipeline"
LAB = "private-toy"            # no lab of this name exists in the checkout: it can only come from the root
NB = f"{LAB}.ipynb"


def private_folder(base: Path) -> Path:
    """The pipeline fixture's toy lab, renamed and laid out as one folder per lab."""
    private = base / "private-course"
    lab = private / "solutions" / LAB
    lab.mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", private)
    text = (FIXTURE / "solutions" / "toy-pipeline" / "toy-pipeline.ipynb").read_text(encoding="utf-8")
    (lab / NB).write_text(text.replace("toy-pipeline", LAB), encoding="utf-8")
    spec = (FIXTURE / "solutions" / "toy-pipeline" / "spec.py").read_text(encoding="utf-8").replace("toy-pipeline", LAB)
    (lab / "spec.py").write_text(spec, encoding="utf-8")
    return private


def run(private: Path, *command: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in {"COURSE_ROOT", "COURSE_GRADING_SECRET"}}
    env.update(COURSE_QUICK="1", COURSE_PROGRESS_DIR=str(private.parent / "progress"), **(env_extra or {}),
               PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    done = subprocess.run([sys.executable, "-m", *command], cwd=private.parent, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode in (0, 1), f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done
