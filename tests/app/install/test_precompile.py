"""The environment is byte-compiled once per install, at set-up, not at every hub start (issue 41:
three fresh-clone runs on a loaded machine errored while `course hub` compiled ~14k modules)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import coursekit.app.precompile as precompile
from paths import ROOT


def fake_environment(tmp_path, monkeypatch) -> Path:
    """A site-packages of one module, with the set-up stamp course.sh writes after an install."""
    purelib = tmp_path / "site-packages"
    purelib.mkdir()
    (purelib / "installed.py").write_text("VALUE = 1\n")
    monkeypatch.setattr(precompile, "SETUP_STAMP", tmp_path / ".course-setup")
    monkeypatch.setattr(precompile, "COMPILED_STAMP", tmp_path / ".course-compiled")
    monkeypatch.setattr(precompile.sysconfig, "get_paths", lambda: {"purelib": str(purelib)})
    (tmp_path / ".course-setup").write_text("[test,hub,site]:0123456789abcdef\n")
    return purelib


def compiled(purelib: Path) -> list[Path]:
    return sorted((purelib / "__pycache__").glob("installed.*.pyc"))


@pytest.mark.slow
def test_installed_packages_are_compiled_once_per_install(tmp_path, monkeypatch, capsys):
    purelib = fake_environment(tmp_path, monkeypatch)
    assert precompile.precompile(announce=True) is True
    assert compiled(purelib) and "once per install" in capsys.readouterr().out
    for pyc in compiled(purelib):
        pyc.unlink()
    assert precompile.precompile(announce=True) is False          # the same install: not again
    assert not compiled(purelib) and capsys.readouterr().out == ""
    (tmp_path / ".course-setup").write_text("[test,hub,site]:0123456789abcdef\n[hub]:fedcba9876543210\n")
    assert precompile.precompile() is True                         # a new install: compiled again
    assert compiled(purelib)


def test_course_sh_compiles_at_set_up_for_the_hub_and_the_tests():
    """The set-up steps of `./course.sh test` and `./course.sh hub` compile; `start` does not (a learner's
    own server compiles on import, and set-up time would pay for nothing)."""
    steps = {}
    for line in (ROOT / "course.sh").read_text().splitlines():
        line = line.strip()
        if line.startswith("make_venv;"):
            steps[len(steps)] = line
    by_command = dict(zip(("start", "test", "hub", "site"), steps.values()))
    assert "compile_env" in by_command["test"] and "compile_env" in by_command["hub"], by_command
    assert "compile_env" not in by_command["start"]
    done = subprocess.run(["bash", "-n", str(ROOT / "course.sh")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
