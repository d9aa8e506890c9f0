"""The pipeline tests' toy course (tests/fixtures/pipeline): a throwaway course root, its lab generated
by the real `autograder generate`, and the `autograder` command run there.

conftest.py generates it once per test run (the `generated` session fixture) and hands each test a
copy (`course`); the fixtures live there, not here, so that every module shares one generation.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "pipeline"
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
