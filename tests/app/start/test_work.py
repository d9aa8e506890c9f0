"""`course work`: the learner's lab copies are made once, kept, and never touched by course updates."""
from __future__ import annotations

import shutil
import subprocess

from coursekit.app.cli import main
from coursekit.app.work import make_work_copies
from paths import ROOT


def course_copy(tmp_path):
    root = tmp_path / "course"
    shutil.copytree(ROOT / "labs", root / "labs")
    return root


def test_work_copies_are_made_once_and_kept(tmp_path, monkeypatch, capsys):
    root = course_copy(tmp_path)
    monkeypatch.setenv("COURSE_ROOT", str(root))
    assert main(["work"]) == 0
    out = capsys.readouterr().out
    assert "made  work/lab1-roofline/lab1-roofline.ipynb" in out
    mine = root / "work" / "lab1-roofline" / "lab1-roofline.ipynb"
    assert mine.read_bytes() == (root / "labs" / "lab1-roofline" / "lab1-roofline.ipynb").read_bytes()
    mine.write_text(mine.read_text().replace("Roofline", "Roofline (my notes)"))
    (root / "labs" / "lab1-roofline" / "lab1-roofline.ipynb").write_text("{}")   # a course update lands
    assert main(["work", "lab1-roofline", "lab2-cluster"]) == 0
    out = capsys.readouterr().out
    assert ("kept  work/lab1-roofline/lab1-roofline.ipynb (the released lab has changed since your copy was made: "
            "compare it with labs/lab1-roofline/lab1-roofline.ipynb)") in out
    assert "kept  work/lab2-cluster/lab2-cluster.ipynb\n" in out          # its release did not change
    assert "(my notes)" in mine.read_text()


def test_unknown_lab_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COURSE_ROOT", str(course_copy(tmp_path)))
    assert main(["work", "lab9-nope"]) == 1
    assert "no lab named lab9-nope" in capsys.readouterr().err


def test_work_folder_is_ignored_by_git():
    ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", "work/lab1-roofline/lab1-roofline.ipynb"])
    assert ignored.returncode == 0


def test_every_lab_gets_a_copy(tmp_path):
    root = course_copy(tmp_path)
    copies = make_work_copies(root)
    assert {c.lab_id for c in copies} == {p.name for p in (ROOT / "labs").iterdir() if p.is_dir()}
    assert all(c.made and c.notebook.is_file() for c in copies)
