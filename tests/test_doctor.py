"""`course doctor` passes on a working install and names the fix when a piece is missing."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def doctor(env_extra: dict, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COURSE_PROGRESS_DIR": str(tmp_path / "progress"), **env_extra}
    return subprocess.run([sys.executable, "-m", "coursekit.cli", "doctor"], env=env,
                          capture_output=True, text=True, timeout=180)


@pytest.mark.slow
def test_doctor_passes_here(tmp_path):
    result = doctor({}, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All" in result.stdout and "checks passed" in result.stdout
    for piece in ("PyTorch", "labs will run on", "nbgrader lab extension", "widgets manager",
                  "nbgrader server extension", "course files", "progress store"):
        assert piece in result.stdout


@pytest.mark.slow
def test_doctor_reports_disabled_extensions(tmp_path):
    config = tmp_path / "jupyter-config"
    (config / "labconfig").mkdir(parents=True)
    (config / "labconfig" / "page_config.json").write_text(json.dumps({"disabledExtensions": {"@jupyter/nbgrader": True}}))
    (config / "jupyter_server_config.json").write_text(json.dumps({"ServerApp": {"jpserver_extensions": {"nbgrader": False}}}))
    result = doctor({"JUPYTER_CONFIG_DIR": str(config)}, tmp_path)
    assert result.returncode == 1
    assert "BAD  nbgrader lab extension" in result.stdout
    assert "fix: jupyter labextension enable @jupyter/nbgrader" in result.stdout
    assert "fix: jupyter server extension enable nbgrader" in result.stdout


def _fake_course(tmp_path: Path) -> Path:
    root = tmp_path / "fake-course"
    (root / "course" / "m1-x").mkdir(parents=True)
    shutil.copy(ROOT / "course" / "index.ipynb", root / "course" / "index.ipynb")
    (root / "course" / "m1-x" / "01-a.ipynb").write_text("{}")
    return root


def test_doctor_reports_corrupt_course_folder(tmp_path):
    from coursekit.doctor import check_course_files

    root = _fake_course(tmp_path)
    assert check_course_files(root).ok
    (root / "course" / "index.ipynb").write_text("{not json")
    check = check_course_files(root)
    assert not check.ok and "cannot read" in check.detail and "index.ipynb" in check.detail
    shutil.rmtree(root / "course")
    check = check_course_files(root)
    assert not check.ok and "not found" in check.detail and check.fix


def test_doctor_reports_unwritable_progress_store(tmp_path, monkeypatch):
    from coursekit.doctor import check_progress_writable

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(blocker / "progress"))
    check = check_progress_writable()
    assert not check.ok and "not writable" in check.detail and "COURSE_PROGRESS_DIR" in check.fix


def test_doctor_command_exit_code_follows_checks(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    result = doctor({"COURSE_PROGRESS_DIR": str(blocker / "p")}, tmp_path)
    assert result.returncode == 1 and "BAD  progress store" in result.stdout
