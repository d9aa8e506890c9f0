"""What a test run builds once (tests/run_once.py, tests/notebook_runner.py) is built once across
pytest-xdist workers too: the second worker reuses the first one's folder or executed notebook, a
failed build is redone from a clean folder, and a notebook's failure is reported to every asker."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from notebook_runner import ExecutedNotebooks, NotebookFailed
from paths import TESTS
from run_once import Factory, built_once


@pytest.fixture
def as_worker(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")


def test_two_worker_processes_build_a_folder_once(tmp_path):
    builds = tmp_path / "builds.log"
    script = f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
from run_once import Factory, built_once
from pathlib import Path


def build(folder):
    with open({str(builds)!r}, "a") as log:
        log.write(sys.argv[1] + "\\n")
    (folder / "course").mkdir()
    return folder / "course"

print(built_once(Factory(Path({str(tmp_path / "run")!r}), sys.argv[1]), "template", build))
"""
    workers = [subprocess.Popen([sys.executable, "-c", script, name], stdout=subprocess.PIPE, text=True,
                                env={"PYTEST_XDIST_WORKER": name, "PATH": "/usr/bin:/bin"})
               for name in ("gw0", "gw1")]
    paths = {worker.communicate(timeout=120)[0].strip() for worker in workers}
    assert [worker.returncode for worker in workers] == [0, 0]
    assert len(builds.read_text().splitlines()) == 1
    assert paths == {str(tmp_path / "run" / "once-template" / "course")}


def test_a_build_that_failed_is_redone_from_a_clean_folder(tmp_path, as_worker):
    def broken(folder: Path) -> Path:
        (folder / "half-written").write_text("")
        raise RuntimeError("nbgrader failed")

    with pytest.raises(RuntimeError, match="nbgrader failed"):
        built_once(Factory(tmp_path, "gw0"), "template", broken)
    built = built_once(Factory(tmp_path, "gw1"), "template", lambda folder: folder)
    assert not (built / "half-written").exists()


def test_without_xdist_each_session_builds_its_own(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    first = built_once(Factory(tmp_path, "a"), "template", lambda folder: folder)
    assert first == tmp_path / "popen-a" / "template"


def _notebook(path: Path, code: str) -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path


@pytest.mark.slow
def test_a_notebook_runs_once_for_two_workers_and_so_does_its_failure(tmp_path, as_worker, monkeypatch):
    import notebook_runner

    monkeypatch.setattr(notebook_runner, "TIMES", tmp_path / "times.json")
    runs = tmp_path / "runs.log"
    good = _notebook(tmp_path / "good.ipynb", f"open({str(runs)!r}, 'a').write('ran\\n')\nprint('out', 6 * 7)")
    bad = _notebook(tmp_path / "bad.ipynb", f"open({str(runs)!r}, 'a').write('ran\\n')\n1 / 0")
    shared = tmp_path / "shared"
    first = ExecutedNotebooks(tmp_path / "w0", shared)
    second = ExecutedNotebooks(tmp_path / "w1", shared)
    assert first.get(good).cells[0].outputs[0].text == "out 42\n"
    assert second.get(good).cells[0].outputs[0].text == "out 42\n"
    with pytest.raises(NotebookFailed) as failed:
        first.get(bad)
    with pytest.raises(NotebookFailed) as again:
        second.get(bad)
    assert "ZeroDivisionError" in str(again.value) and str(again.value) == str(failed.value)
    assert runs.read_text() == "ran\nran\n"         # once each, by the first worker
