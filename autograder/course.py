"""The nbgrader course directory the pipeline works in, and running nbgrader's own apps there.

Layout (from `nbgrader_config.py` at the course root):
    solutions/<lab>/<lab>.ipynb            source (instructor versions)
    labs/<lab>/<lab>.ipynb                 release (student versions, generated)
    submitted/<student>/<lab>/<nb>.ipynb   collected submissions
    autograded/<student>/<lab>/<nb>.ipynb  graded copies, test cells carry the judge's messages
    feedback/<student>/<lab>/<nb>.html     per-student feedback
    gradebook.db                           nbgrader's gradebook (scores mirrored there)
    autograded/.autograder/results.sqlite  the pipeline's own results store (see store.py)
    autograded/.autograder/reports/        report figures
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from coursekit.paths import course_root

from autograder.quiz_spec import is_quiz, quiz_spec
from autograder.spec import LabSpec, load_spec

COURSE_ID_LINE = re.compile(r"^c\.CourseDirectory\.course_id = ['\"]([^'\"]+)['\"]", re.MULTILINE)

# Student and lab ids become folder names and gradebook keys: keep them to a safe alphabet so a
# hostile name can never walk out of submitted/ or collide after case folding.
SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$")


def check_id(kind: str, value: str) -> str:
    if not SAFE_ID.match(value) or ".." in value:
        raise ValueError(f"invalid {kind} {value!r}: use letters, digits and _ . @ - (no leading dot, at most 100)")
    return value


def _root_above(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        try:
            if (candidate / "nbgrader_config.py").is_file():
                return candidate
        except OSError:                     # a folder above that this account may not look into
            return None
    return None


@dataclass(frozen=True)
class Submission:
    student_id: str
    lab_id: str
    notebook: Path


@dataclass(frozen=True)
class Course:
    root: Path

    @classmethod
    def find(cls, root: str | Path | None = None) -> "Course":
        """--root, else COURSE_ROOT, else the folder the instructor stands in (or one above it) with
        nbgrader_config.py, as nbgrader finds its course, else this checkout."""
        if root:
            path = Path(root).expanduser().resolve()
        elif os.environ.get("COURSE_ROOT"):
            path = course_root()
        else:
            path = _root_above(Path.cwd().resolve()) or course_root()
        if not (path / "nbgrader_config.py").exists():
            raise FileNotFoundError(f"{path / 'nbgrader_config.py'} not found: run from the course root or pass --root")
        return cls(path)

    solutions = property(lambda self: self.root / "solutions")
    labs = property(lambda self: self.root / "labs")
    submitted = property(lambda self: self.root / "submitted")
    autograded = property(lambda self: self.root / "autograded")
    feedback = property(lambda self: self.root / "feedback")
    gradebook = property(lambda self: self.root / "gradebook.db")
    # Dot folders are skipped by nbgrader (CourseDirectory.ignore), so they never look like students.
    state = property(lambda self: self.root / "autograded" / ".autograder")
    results_db = property(lambda self: self.state / "results.sqlite")
    reports = property(lambda self: self.state / "reports")
    db_url = property(lambda self: f"sqlite:///{self.gradebook}")

    @property
    def course_id(self) -> str:
        """nbgrader_config.py's course id (a private course has its own), as nbgrader's commands read it."""
        config = self.root / "nbgrader_config.py"
        found = COURSE_ID_LINE.search(config.read_text(encoding="utf-8")) if config.exists() else None
        return found.group(1) if found else "llm-train-vs-infer"

    def _assignment_folders(self) -> list[Path]:
        if not self.solutions.is_dir():
            return []
        return sorted(p for p in self.solutions.iterdir()
                      if p.is_dir() and not p.name.startswith(".") and any(p.glob("*.ipynb")))

    def lab_ids(self) -> list[str]:
        """Labs that have a solution notebook folder (graded quizzes, with a quiz.json, are not labs)."""
        return [p.name for p in self._assignment_folders() if not (p / "quiz.json").exists()]

    def quiz_ids(self) -> list[str]:
        """Graded quizzes released with `autograder quiz release` (solutions/<quiz>/quiz.json)."""
        return [p.name for p in self._assignment_folders() if (p / "quiz.json").exists()]

    def resolve_labs(self, lab: str | None, *, quizzes: bool = False) -> list[str]:
        """`lab` alone (a lab or a quiz), or every lab (and every quiz with `quizzes`)."""
        labs, known = self.lab_ids(), self.lab_ids() + self.quiz_ids()
        if lab is None:
            return sorted(known) if quizzes else labs
        if lab not in known:
            raise ValueError(f"no lab {lab!r} in {self.solutions} (labs: {', '.join(known) or 'none'})")
        return [lab]

    def spec(self, lab_id: str) -> LabSpec:
        """The lab's spec: solutions/<lab>/spec.py under this root, else in this checkout; a quiz's
        record stands in for the spec of a graded quiz (the same fields)."""
        return quiz_spec(self, lab_id) if is_quiz(self, lab_id) else load_spec(lab_id, self.root)

    def submissions(self, lab_id: str, student: str | None = None) -> list[Submission]:
        """Every submitted/<student>/<lab>/<notebook>, sorted by student id."""
        found = []
        if not self.submitted.is_dir():
            return found
        notebook = self.spec(lab_id).notebook
        for folder in sorted(self.submitted.iterdir()):
            if not folder.is_dir() or (student and folder.name != student) or not SAFE_ID.match(folder.name):
                continue
            path = folder / lab_id / notebook
            if path.exists() or (folder / lab_id).is_dir():
                found.append(Submission(folder.name, lab_id, path))  # a missing notebook fails with a reason
        return found

    def students(self) -> list[str]:
        if not self.submitted.is_dir():
            return []
        return sorted(p.name for p in self.submitted.iterdir() if p.is_dir() and SAFE_ID.match(p.name))

    def env(self) -> dict[str, str]:
        """Environment for nbgrader subprocesses: the venv's bin first (nbgrader shells out to `alembic`)."""
        bindir = str(Path(sys.executable).parent)
        env = dict(os.environ, COURSE_ROOT=str(self.root), COURSE_QUICK="1")
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        env.pop("COURSE_GRADING_SECRET", None)   # no nbgrader step the pipeline runs needs it
        return env

    def nbgrader(self, *args: str, check: bool = True, quiet: bool = True) -> subprocess.CompletedProcess:
        """Run `nbgrader ARGS` in the course root (so it reads the course's nbgrader_config.py)."""
        command = [sys.executable, "-m", "nbgrader", *args]
        done = subprocess.run(command, cwd=self.root, env=self.env(), text=True,
                              stdout=subprocess.PIPE if quiet else None, stderr=subprocess.STDOUT if quiet else None)
        if check and done.returncode != 0:
            tail = (done.stdout or "")[-3000:]
            raise RuntimeError(f"nbgrader {' '.join(args)} failed (exit {done.returncode}) in {self.root}:\n{tail}")
        return done


def ensure_alembic_on_path() -> None:
    """nbgrader's Gradebook runs the `alembic` executable; make the venv's copy findable in-process too."""
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
