"""What reaches students is an allowlist (issue 27, "First, a leak"), through the real commands.

`autograder generate` releases a lab's notebook, its checks file and the data files its spec declares;
a graded quiz, its notebook alone. Never spec.py (the hidden-case generators), quiz.json, scratch
notebooks, notes or helpers beside the solution, whether the lab lives in a private instructor folder
or in a course root laid out like the checkout. `nbgrader release_assignment` (what the hub's
instructor and formgrader's Release run) copies to the exchange only the same files, whatever else
sits in labs/<lab>/.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from paths import ROOT
from private_course import LAB, NB, private_folder, run

SPEC_MARK = "def _add_case(rng)"          # a hidden-case generator: text of the toy lab's spec.py


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() or p.is_symlink()}


def strays(lab: Path) -> None:
    """What an instructor keeps beside a solution: none of it is for students."""
    (lab / "notes.txt").write_text("answer key: 42\n")
    (lab / "helper.py").write_text("SECRET_HELPER = 1\n")
    (lab / "scratch.ipynb").write_text((lab / NB).read_text() if (lab / NB).exists() else "{}")
    (lab / "hidden").mkdir()
    (lab / "hidden" / "cases.py").write_text("HIDDEN = [1, 2, 3]\n")
    (lab / ".env").write_text("TOKEN=x\n")


def declare(lab: Path, *data: str) -> None:
    spec = lab / "spec.py"
    text = spec.read_text()
    assert '    notebook="' in text
    spec.write_text(text.replace('    notebook="', f'    data={data!r},\n    notebook="', 1))


def exchange_release(course: Path, lab: str, exchange: Path, *, env_extra: dict | None = None,
                     ok: bool = True) -> subprocess.CompletedProcess:
    """`nbgrader release_assignment LAB` in the course root, to a private exchange."""
    env = {k: v for k, v in os.environ.items() if k != "COURSE_ROOT"}
    env.update(PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""), **(env_extra or {}))
    exchange.mkdir(exist_ok=True, mode=0o777)
    done = subprocess.run([sys.executable, "-m", "nbgrader", "release_assignment", lab, "--force",
                           f"--Exchange.root={exchange}"], cwd=course, env=env, capture_output=True, text=True,
                          timeout=300)
    assert (done.returncode == 0) == ok, done.stdout + done.stderr
    return done


def outbound(exchange: Path, lab: str) -> Path:
    return exchange / "llm-train-vs-infer" / "outbound" / lab


@pytest.mark.slow
def test_a_private_lab_releases_its_notebook_checks_and_declared_data_only(tmp_path):
    private = private_folder(tmp_path)
    lab = private / "solutions" / LAB
    strays(lab)
    (lab / "prices.csv").write_text("chip,usd\nh100,2.5\n")
    (lab / "data").mkdir()
    (lab / "data" / "trace.json").write_text("[1, 2]\n")
    declare(lab, "prices.csv", "data/trace.json")
    stale = private / "labs" / LAB
    (stale / "old").mkdir(parents=True)            # what a leaky generate left behind earlier
    (stale / "spec.py").write_text((lab / "spec.py").read_text())
    (stale / "old" / "quiz.json").write_text("{}")

    done = run(private, "autograder.cli", "--root", str(private), "generate")
    assert done.returncode == 0, done.stderr
    allowed = {NB, f"{LAB}.checks.json", "prices.csv", "data/trace.json"}
    assert files_under(stale) == allowed
    assert "spec.py" in done.stderr and "removed" in done.stderr      # the stale leak is named, then gone
    assert (stale / "data" / "trace.json").read_text() == "[1, 2]\n"
    assert not any(SPEC_MARK in p.read_text(errors="replace") for p in stale.rglob("*") if p.is_file())
    # only the lab's notebook is an nbgrader notebook of the assignment: not the scratch one
    with sqlite3.connect(private / "gradebook.db") as db:
        assert [r[0] for r in db.execute("select name from notebook")] == [LAB]

    # the exchange (what the hub's instructor and formgrader's Release run) gets the same files, even
    # after a file is dropped into labs/<lab>/ by hand, as formgrader's Generate would do
    (stale / "spec.py").write_text((lab / "spec.py").read_text())
    (stale / "notes.txt").write_text("answer key: 42\n")
    released = exchange_release(private, LAB, tmp_path / "exchange")
    assert files_under(outbound(tmp_path / "exchange", LAB)) == allowed
    assert "not released" in released.stdout + released.stderr and "spec.py" in released.stdout + released.stderr


@pytest.mark.slow
def test_a_lab_of_the_checkout_with_its_spec_beside_the_solution_leaks_nothing(tmp_path):
    """The issue's case: the checkout's Lab 1, its spec beside the solution notebook."""
    course = tmp_path / "course"
    lab = course / "solutions" / "lab1-roofline"
    shutil.copytree(ROOT / "solutions" / "lab1-roofline", lab)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    assert (lab / "spec.py").is_file()                  # the layout every lab has now (autograder/specs/ is gone)
    strays(lab)
    run(course, "autograder.cli", "--root", str(course), "generate", "lab1-roofline")
    release = course / "labs" / "lab1-roofline"
    assert files_under(release) == {"lab1-roofline.ipynb", "lab1-roofline.checks.json"}
    committed = ROOT / "labs" / "lab1-roofline"
    assert (release / "lab1-roofline.checks.json").read_text() == (committed / "lab1-roofline.checks.json").read_text()
    exchange_release(course, "lab1-roofline", tmp_path / "exchange")
    assert files_under(outbound(tmp_path / "exchange", "lab1-roofline")) == files_under(release)


@pytest.mark.slow
def test_a_lab_released_before_it_is_generated_is_refused_at_release_time(tmp_path):
    """Formgrader's Release (nbgrader release_assignment) of the committed labs/<lab>/ of a fresh course:
    the gradebook does not know the lab, so students would submit work the grader refuses. Refused now,
    with the fix, and nothing reaches the exchange; after `autograder generate` the same release works."""
    course = tmp_path / "course"
    shutil.copytree(ROOT / "solutions" / "lab1-roofline", course / "solutions" / "lab1-roofline")
    shutil.copytree(ROOT / "labs" / "lab1-roofline", course / "labs" / "lab1-roofline")
    shutil.copy(ROOT / "nbgrader_config.py", course)
    exchange = tmp_path / "exchange"
    refused = exchange_release(course, "lab1-roofline", exchange, ok=False)
    said = refused.stdout + refused.stderr
    assert "not releasing lab1-roofline" in said and "not in nbgrader's gradebook" in said, said
    assert "run `autograder generate lab1-roofline` first" in said
    assert not outbound(exchange, "lab1-roofline").exists() or not any(outbound(exchange, "lab1-roofline").iterdir())
    run(course, "autograder.cli", "--root", str(course), "generate", "lab1-roofline")
    exchange_release(course, "lab1-roofline", exchange)
    assert files_under(outbound(exchange, "lab1-roofline")) == {"lab1-roofline.ipynb", "lab1-roofline.checks.json"}


@pytest.mark.slow
def test_a_graded_quiz_releases_its_notebook_alone(quiz_template, tmp_path):
    from quiz_course import QUIZ, copy_course

    course = copy_course(quiz_template, tmp_path)
    source = course / "solutions" / QUIZ
    assert (source / "quiz.json").is_file()
    (source / "answer-key.csv").write_text("q01,B\n")
    (source / "spec.py").write_text("SPEC = None\n")
    (course / "labs" / QUIZ / "quiz.json").write_text((source / "quiz.json").read_text())   # an old leak
    done = run(course, "autograder.cli", "--root", str(course), "generate", QUIZ)
    assert files_under(course / "labs" / QUIZ) == {f"{QUIZ}.ipynb"}, done.stderr
    assert "quiz.json" in done.stderr
    (course / "labs" / QUIZ / "answer-key.csv").write_text("q01,B\n")
    exchange_release(course, QUIZ, tmp_path / "exchange")
    assert files_under(outbound(tmp_path / "exchange", QUIZ)) == {f"{QUIZ}.ipynb"}


@pytest.mark.parametrize("entry, problem", [
    ("../../nbgrader_config.py", "a path inside"), ("/etc/hostname", "a path inside"), ("spec.py", "never released"),
    ("scratch.ipynb", "never released"), ("missing.csv", "not found"), ("link.csv", "symbolic link"),
    ("hidden", "not a regular file"), ("via/prices.csv", "symbolic link"),
])
def test_a_declared_data_file_that_is_not_safe_to_release_is_refused_by_name(tmp_path, entry, problem):
    from autograder.course import Course
    from autograder.release.generate import ReleaseError, declared_data

    course = tmp_path / "course"
    lab = course / "solutions" / "demo"
    lab.mkdir(parents=True)
    (course / "nbgrader_config.py").write_text("")
    (lab / "prices.csv").write_text("x\n")
    (lab / "spec.py").write_text("")
    (lab / "scratch.ipynb").write_text("{}")
    (lab / "hidden").mkdir()
    (lab / "link.csv").symlink_to(lab / "prices.csv")
    (lab / "via").symlink_to(lab)
    with pytest.raises(ReleaseError, match=problem) as refused:
        declared_data(Course(course), "demo", (entry,))
    assert "demo" in str(refused.value) and "data" in str(refused.value)
    assert declared_data(Course(course), "demo", ("prices.csv",))[0].name == "prices.csv"
