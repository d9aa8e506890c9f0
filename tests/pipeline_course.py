"""The pipeline tests' toy course (tests/fixtures/pipeline): a throwaway course root, its lab generated
by the real `autograder generate`, and the `autograder` command run there.

conftest.py generates it once per test run (the `generated` session fixture) and hands each test a
copy (`course`); the fixtures live there, not here, so that every module shares one generation.
Below them, the students' side: notebooks filled right or wrong per task, and the grader's stored rows.
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import nbformat

from paths import ROOT, TESTS

FIXTURE = TESTS / "fixtures" / "pipeline"
LAB = "toy-pipeline"
NB = f"{LAB}.ipynb"
SECRET = "pipeline-test-secret"


def env(course: Path) -> dict:
    return dict(os.environ, COURSE_GRADING_SECRET=SECRET,
                COURSE_QUICK="1", COURSE_ROOT=str(course), COURSE_PROGRESS_DIR=str(course / ".progress"),
                PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))


def cli(course: Path, *args: str, check: bool = True, timeout: float = 600) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "autograder.cli", "--root", str(course), *args], cwd=course,
                          env=env(course), capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"autograder {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


def generate_course(folder: Path) -> Path:
    """`folder`/course with the toy lab's sources and its student version generated."""
    course = folder / "course"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copytree(FIXTURE / "solutions", course / "solutions")
    cli(course, "generate")
    assert (course / "labs" / LAB / NB).exists()
    return course


def copy_course(generated: Path, folder: Path) -> Path:
    target = folder / "course"
    shutil.copytree(generated, target)
    # nbgrader_config.py derives every path from its own folder, so the copy is self-contained
    return target


# Function bodies per task; "wrong" variants are honest mistakes (they run, they are just wrong).
BODIES = {
    "impl_add": {"right": "return a + b", "wrong": "return a - b"},
    "impl_scale": {"right": "return [x * k for x in xs]", "wrong": "return [x * k + 1 for x in xs]"},
    "impl_mean": {"right": "return sum(xs) / len(xs)", "wrong": "return sum(xs) / (len(xs) + 1)"},
}
SIGNATURES = {"impl_add": "def add(a, b):", "impl_scale": "def scale(xs, k):", "impl_mean": "def mean(xs):"}


def notebook_text(course: Path, **choices: str) -> str:
    """The released notebook with each solution cell filled per `choices` (impl id -> right/wrong)."""
    nb = nbformat.read(course / "labs" / LAB / NB, as_version=4)
    for cell in nb.cells:
        grade_id = (cell.metadata.get("nbgrader") or {}).get("grade_id")
        if grade_id in BODIES:
            cell.source = f"{SIGNATURES[grade_id]}\n    {BODIES[grade_id][choices.get(grade_id, 'right')]}"
    return nbformat.writes(nb)


HONEST = {  # student -> solution choices; correct and partially correct work
    "ada": {},
    "ben": {"impl_add": "wrong"},
    "cai": {"impl_scale": "wrong", "impl_mean": "wrong"},
    "dee": {"impl_add": "wrong", "impl_scale": "wrong", "impl_mean": "wrong"},
    "eli": {"impl_mean": "wrong"},
}


def write_folder(course: Path, folder: Path, students: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for student, choices in students.items():
        (folder / f"{student}.ipynb").write_text(notebook_text(course, **choices))
    return folder


def store_rows(course: Path) -> list[tuple]:
    db = sqlite3.connect(course / "autograded" / ".autograder" / "results.sqlite")
    try:
        return db.execute("SELECT lab_id, student_id, submission_hash, status, score, reason, result_json "
                          "FROM results ORDER BY student_id").fetchall()
    finally:
        db.close()


def comparable(rows: list[tuple]) -> list[tuple]:
    """Rows without the timing field, which legitimately differs between runs."""
    out = []
    for lab, student, digest, status, score, reason, result in rows:
        result = json.loads(result)
        result.pop("seconds", None)
        out.append((lab, student, digest, status, score, reason, json.dumps(result, sort_keys=True)))
    return out


def gradebook_scores(course: Path) -> dict[tuple[str, str], float]:
    """(student, grade cell) -> auto_score from nbgrader's gradebook."""
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "llm-train-vs-infer") as gb:
        for submission in gb.assignment_submissions(LAB):
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    scores[(submission.student.id, grade.cell.name)] = grade.auto_score
    return scores
