"""A private course folder's first steps, as `autograder --root DIR new` prints them (docs/AUTHORING.md):
each printed command works as printed, and the new lab tells students how to check it wherever it is."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.course import Course


@pytest.mark.slow
def test_new_prints_next_steps_that_work_in_the_private_folder(tmp_path):
    private = tmp_path / "my course"          # a space: the printed commands quote it
    env = {k: v for k, v in os.environ.items() if k not in {"COURSE_ROOT", "COURSE_GRADING_SECRET"}}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    done = subprocess.run([sys.executable, "-m", "autograder.cli", "--root", str(private), "new", "kv-lab",
                           "--module", "m6", "--module-title", "Serving memory"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    nextline = next(line for line in done.stdout.splitlines() if line.startswith("next:"))
    assert "coursekit.index" not in nextline, nextline     # a private folder has no start page to rebuild
    commands = re.findall(r"`(autograder [^`]+)`", nextline)
    assert [c.split()[-2] for c in commands] == ["validate", "generate"], nextline
    generate = subprocess.run(["bash", "-c", commands[-1]], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)
    assert generate.returncode == 0, generate.stdout + generate.stderr
    released = private / "labs" / "kv-lab" / "kv-lab.ipynb"
    assert released.is_file()

    cells = {(c.metadata.get("nbgrader") or {}).get("grade_id"): c.source
             for c in nbformat.read(released, as_version=4).cells}
    assert "`course check kv-lab.ipynb`" in cells["check_work_intro"], cells["check_work_intro"]
    assert "work/" not in cells["check_work_intro"]


def test_the_course_folder_is_found_from_where_the_instructor_stands(tmp_path, monkeypatch):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    below = tmp_path / "labs" / "some-lab"
    below.mkdir(parents=True)
    monkeypatch.delenv("COURSE_ROOT", raising=False)
    monkeypatch.chdir(below)
    assert Course.find().root == tmp_path.resolve()
    other = tmp_path / "other"
    other.mkdir()
    (other / "nbgrader_config.py").write_text("c = get_config()\n")
    monkeypatch.setenv("COURSE_ROOT", str(other))          # what the hub's JupyterLab sets wins
    assert Course.find().root == other.resolve()
