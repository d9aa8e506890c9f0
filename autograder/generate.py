"""Student versions from solutions: nbgrader generate_assignment, outputs stripped, and the visible
checks written beside them as data (<lab>.checks.json), so students never need the grader."""
from __future__ import annotations

from pathlib import Path

from coursekit.nbtools import iter_notebooks, strip_notebook

from .check import write_checks
from .course import Course
from .quiz.assignment import is_quiz


def generate(course: Course, lab_id: str, *, release: Path | None = None, db_url: str | None = None) -> list[Path]:
    """Generate labs/<lab>/ (or `release`/<lab>/ with its own gradebook, for freshness checks).

    Writing to the real labs/ also records the lab's cells in gradebook.db, which grading needs.
    """
    args = ["generate_assignment", lab_id, "--force"]
    if release is not None:
        args.append(f"--CourseDirectory.release_directory={Path(release).resolve()}")
    if db_url is not None:
        args.append(f"--CourseDirectory.db_url={db_url}")
    course.nbgrader(*args)
    out = (Path(release).resolve() if release is not None else course.labs) / lab_id
    notebooks = list(iter_notebooks([out]))
    if not notebooks:
        raise RuntimeError(f"nbgrader generate_assignment {lab_id} wrote no notebook into {out}")
    for path in notebooks:
        strip_notebook(path)    # committed student versions carry no outputs (docs/DESIGN.md)
    if not is_quiz(course, lab_id):     # a graded quiz has no visible checks: it is judged as data
        write_checks(course.spec(lab_id), out)
    return notebooks
