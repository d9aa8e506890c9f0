"""`course doctor` passes on a working install and names the fix when a piece is missing."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paths import ROOT


def doctor(env_extra: dict, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COURSE_PROGRESS_DIR": str(tmp_path / "progress"), **env_extra}
    return subprocess.run([sys.executable, "-m", "coursekit.app.cli", "doctor"], env=env,
                          capture_output=True, text=True, timeout=180)


@pytest.mark.slow
def test_doctor_passes_here(tmp_path):
    result = doctor({}, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All" in result.stdout and "checks passed" in result.stdout
    for piece in ("PyTorch", "labs will run on", "nbgrader lab extension", "widgets manager",
                  "nbgrader server extension", "course files", "course outline", "lab notebooks", "question banks",
                  "progress store", "(needs >=0.9.6,<0.10)"):
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


def lab_config(tmp_path: Path, disabled: dict) -> Path:
    """A Jupyter config folder whose page_config.json disables `disabled` (as a student's might)."""
    config = tmp_path / "jupyter-config"
    (config / "labconfig").mkdir(parents=True)
    (config / "labconfig" / "page_config.json").write_text(json.dumps({"disabledExtensions": disabled}))
    return config


@pytest.mark.slow
@pytest.mark.parametrize("disabled, label, detail, fix", [
    ("@jupyter-widgets/jupyterlab-manager", "widgets manager (lab extension)", "installed but disabled",
     "jupyter labextension enable @jupyter-widgets/jupyterlab-manager"),
    ("@jupyter/nbgrader:create-assignment", "nbgrader lab extension",
     "plugin disabled: @jupyter/nbgrader:create-assignment",
     "jupyter labextension enable @jupyter/nbgrader:create-assignment"),
])
def test_doctor_reports_a_disabled_extension_or_single_plugin(tmp_path, monkeypatch, disabled, label, detail, fix):
    from coursekit.app.doctor import check_lab_extensions

    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(lab_config(tmp_path, {disabled: True})))
    checks = {c.name: c for c in check_lab_extensions()}
    assert not checks[label].ok and checks[label].detail == detail and checks[label].fix == fix
    assert all(c.ok for name, c in checks.items() if name != label)  # only the one switched off


@pytest.mark.parametrize("dist, version", [("nbgrader", "0.9.5"), ("nbgrader", "0.10.0"),
                                           ("jupyterlab", "4.1.8"), ("jupyterlab", "5.0.0"),
                                           ("ipywidgets", "7.8.1"), ("ipywidgets", None)])
def test_doctor_enforces_the_pyproject_version_ranges(monkeypatch, dist, version):
    from coursekit.app import doctor

    real = doctor._version
    monkeypatch.setattr(doctor, "_version", lambda name: version if name == dist else real(name))
    checks = {c.name: c for c in doctor.check_packages()}
    assert set(checks) == {"jupyterlab", "nbgrader", "ipywidgets"}
    bad = checks[dist]
    assert not bad.ok and dist in bad.fix and str(version or "not installed") in bad.detail
    assert all(c.ok for name, c in checks.items() if name != dist)
    assert "(needs >=0.9.6,<0.10)" in checks["nbgrader"].detail  # read from pyproject via the installed metadata


def test_doctor_version_ranges_come_from_pyproject():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    from packaging.requirements import Requirement

    from coursekit.app.doctor import CHECKED_PACKAGES, required_ranges

    declared = [Requirement(line) for line in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]]
    ranges = required_ranges()  # a stale install (pyproject changed, not reinstalled) fails here
    assert all(ranges[r.name] == r.specifier for r in declared if r.name in CHECKED_PACKAGES)


def _fake_course(tmp_path: Path) -> Path:
    root = tmp_path / "fake-course"
    (root / "course" / "m1-x").mkdir(parents=True)
    shutil.copy(ROOT / "course" / "index.ipynb", root / "course" / "index.ipynb")
    (root / "course" / "m1-x" / "01-a.ipynb").write_text("{}")
    (root / "labs" / "lab1-x").mkdir(parents=True)
    (root / "labs" / "lab1-x" / "lab1-x.ipynb").write_text("{}")
    shutil.copytree(ROOT / "tests" / "fixtures" / "quiz" / "good", root / "quizzes")
    return root


def test_doctor_reports_missing_labs_folder(tmp_path):
    from coursekit.app.doctor import check_labs

    root = _fake_course(tmp_path)
    assert check_labs(root).ok
    shutil.rmtree(root / "labs")
    check = check_labs(root)
    assert not check.ok and str(root / "labs") in check.detail and "git checkout labs" in check.fix


def test_doctor_reports_missing_or_broken_banks(tmp_path):
    from coursekit.app.doctor import check_banks

    root = _fake_course(tmp_path)
    assert check_banks(root).ok, check_banks(root)
    shutil.copytree(ROOT / "tests" / "fixtures" / "quiz" / "broken" / "m9", root / "quizzes" / "m8")
    check = check_banks(root)
    assert not check.ok and ".yaml" in check.detail and "more)" in check.detail
    assert "course quiz check" in check.fix
    shutil.rmtree(root / "quizzes")
    check = check_banks(root)
    assert not check.ok and "not found" in check.detail


def test_doctor_reports_a_broken_exercise_file_by_name(tmp_path):
    from coursekit.app.doctor import check_exercises
    from coursekit.exercises.bank import FOLDER

    assert check_exercises().ok, check_exercises()
    for path in FOLDER.glob("*.yaml"):
        shutil.copy(path, tmp_path)
    (tmp_path / "m1-l2.yaml").write_text((FOLDER / "m1-l2.yaml").read_text().replace("memory.", "nosuchmodule.", 1))
    check = check_exercises(tmp_path)
    assert not check.ok and "m1-l2.yaml" in check.detail and "exercises/bank.py" in check.fix, check
    assert not check_exercises(tmp_path / "empty").ok


def test_doctor_reports_corrupt_course_folder(tmp_path):
    from coursekit.app.doctor import check_course_files

    root = _fake_course(tmp_path)
    assert check_course_files(root).ok
    (root / "course" / "index.ipynb").write_text("{not json")
    check = check_course_files(root)
    assert not check.ok and "cannot read" in check.detail and "index.ipynb" in check.detail
    shutil.rmtree(root / "course")
    check = check_course_files(root)
    assert not check.ok and "not found" in check.detail and check.fix


def test_doctor_reports_unwritable_progress_store(tmp_path, monkeypatch):
    from coursekit.app.doctor import check_progress_writable

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(blocker / "progress"))
    check = check_progress_writable()
    assert not check.ok and "not writable" in check.detail and "COURSE_PROGRESS_DIR" in check.fix


@pytest.mark.slow
def test_doctor_command_exit_code_follows_checks(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    result = doctor({"COURSE_PROGRESS_DIR": str(blocker / "p")}, tmp_path)
    assert result.returncode == 1 and "BAD  progress store" in result.stdout


def test_doctor_prints_each_check_as_it_finishes(monkeypatch, capsys):
    from coursekit.app import doctor

    seen_before_banks = []

    def banks(root):
        seen_before_banks.append(capsys.readouterr().out)   # what the learner already sees
        return doctor.Check("question banks", True, "stub for this test")

    monkeypatch.setattr(doctor, "check_banks", banks)
    monkeypatch.setattr(doctor, "check_lab_extensions", lambda: [])
    monkeypatch.setattr(doctor, "check_server_extension", lambda: doctor.Check("nbgrader server extension", True, "x"))
    doctor.main()
    assert "Checking the course's installation" in seen_before_banks[0]
    assert "ok   Python" in seen_before_banks[0] and "terminal commands" in seen_before_banks[0]


# The command as a learner runs it, its output read through a pipe: a later check (the question banks)
# is held until the test opens a gate, so the lines already on screen are provably printed before the
# run ends, not flushed all at once at exit.
HELD_BANKS = """
import pathlib, sys, time
from coursekit.app import doctor
gate, real = pathlib.Path(sys.argv[1]), doctor.check_banks
def held(root):
    while not gate.exists():
        time.sleep(0.05)
    return real(root)
doctor.check_banks = held
sys.exit(doctor.main())
"""


@pytest.mark.slow
def test_doctor_streams_results_through_a_pipe_before_it_ends(tmp_path):
    import threading

    from waiting import wait_for

    gate = tmp_path / "gate"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}   # stdout a plain, buffered pipe
    env["COURSE_PROGRESS_DIR"] = str(tmp_path / "progress")
    proc = subprocess.Popen([sys.executable, "-c", HELD_BANKS, str(gate)], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True)
    reader.start()
    try:   # the check just before the held one reaches the pipe while the doctor is still running
        wait_for(lambda: any("lab notebooks" in line for line in lines), 120, "the lab notebooks check's line")
        assert proc.poll() is None, "the doctor ended before its held check ran"
        shown = "".join(lines)
        assert shown.startswith("Checking the course's installation") and "ok   Python" in shown, shown
        assert "ok   question banks" not in shown and "BAD  question banks" not in shown   # held
    finally:
        gate.touch()
        proc.wait(timeout=180)
        reader.join(timeout=30)
    assert proc.returncode == 0 and "ok   question banks" in "".join(lines), "".join(lines)
