"""Student versions from solutions: nbgrader generate_assignment, outputs stripped, and the visible
checks written beside them as data (<lab>.checks.json), so students never need the grader.

What reaches labs/<lab>/ is an allowlist, not nbgrader's ignore list: the lab's own notebook, its
checks file and the data files its spec declares (`LabSpec.data`); a graded quiz, its notebook alone.
nbgrader copies every other file of solutions/<lab>/ into its release (spec.py with the hidden-case
generators, quiz.json, scratch notebooks, notes), so it writes into a private staging folder and only
the allowlist is copied out; anything else found in labs/<lab>/ (a leak from an older generate) is
removed, because `nbgrader release_assignment` hands the whole folder to the exchange.
"""
from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path, PurePosixPath

from coursekit.checks.visible import checks_name
from coursekit.app.nbtools import strip_notebook

from autograder.release.visible_cases import write_checks
from autograder.course import Course
from autograder.quiz_spec import QUIZ_FILE, is_quiz

NEVER_RELEASED = {"spec.py", QUIZ_FILE, "instructor-secret", "gradebook.db", "nbgrader_config.py"}


class ReleaseError(ValueError):
    """A lab's declared release files are not safe to give students (the message names the file)."""


def declared_data(course: Course, lab_id: str, data: tuple[str, ...]) -> list[PurePosixPath]:
    """The spec's data files as checked relative paths inside solutions/<lab>/: regular files only
    (no links, folders or devices), never escaping the folder, never the instructor's own files."""
    source = course.solutions / lab_id
    found = []
    for entry in data:
        rel = PurePosixPath(str(entry))
        where = f"{source / str(rel)} (declared in {lab_id}'s spec `data`)"
        if not str(entry) or rel.is_absolute() or ".." in rel.parts or str(rel) in (".", ""):
            raise ReleaseError(f"{where}: a data file must be a path inside solutions/{lab_id}/")
        if rel.name in NEVER_RELEASED or rel.suffix in (".ipynb", ".py", ".pyc"):
            raise ReleaseError(f"{where}: {rel.name} is never released to students "
                               "(notebooks, Python modules and the grader's files stay with the instructor)")
        path, parent = source, source
        for part in rel.parts:          # no link anywhere on the way: a link could point at anything
            path = path / part
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                raise ReleaseError(f"{where}: not found") from None
            if stat.S_ISLNK(mode):
                raise ReleaseError(f"{where}: {path} is a symbolic link; release a regular file")
            parent = path
        if not stat.S_ISREG(os.lstat(parent).st_mode):
            raise ReleaseError(f"{where}: not a regular file")
        found.append(rel)
    return found


def _allowed(course: Course, lab_id: str) -> tuple[str, list[PurePosixPath], bool]:
    """(notebook name, data files, whether a checks file goes along)."""
    spec = course.spec(lab_id)
    if is_quiz(course, lab_id):         # a graded quiz has no visible checks: it is judged as data
        return spec.notebook, [], False
    return spec.notebook, declared_data(course, lab_id, tuple(spec.data)), True


def release_files(course: Course, lab_id: str) -> set[PurePosixPath]:
    """Every path, relative to labs/<lab>/, that a student may receive: the allowlist."""
    notebook, data, with_checks = _allowed(course, lab_id)
    return {PurePosixPath(notebook), *data} | ({PurePosixPath(checks_name(lab_id))} if with_checks else set())


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def _prune(out: Path, keep: set[PurePosixPath]) -> list[Path]:
    """Remove everything under `out` that is not in `keep` (or a folder leading to one)."""
    folders = {parent for rel in keep for parent in rel.parents}
    removed = []
    for folder, dirs, files in os.walk(out):
        rel_folder = PurePosixPath(Path(folder).relative_to(out).as_posix())
        for name in sorted(files) + sorted(d for d in dirs if os.path.islink(os.path.join(folder, d))):
            rel = rel_folder / name if str(rel_folder) != "." else PurePosixPath(name)
            if rel not in keep:
                _remove(Path(folder) / name)
                removed.append(Path(folder) / name)
        for name in sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d))):
            rel = rel_folder / name if str(rel_folder) != "." else PurePosixPath(name)
            if rel not in folders:
                shutil.rmtree(Path(folder) / name)
                removed.append(Path(folder) / name)
        dirs[:] = [d for d in dirs if os.path.isdir(os.path.join(folder, d))
                   and not os.path.islink(os.path.join(folder, d))]
    return removed


def _copy(src: Path, dest: Path) -> None:
    """Copy a regular file without following a link at either end (temp file, then rename)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.")
    try:
        with open(src, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW)) as reader, os.fdopen(fd, "wb") as writer:
            shutil.copyfileobj(reader, writer)
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def generate(course: Course, lab_id: str, *, release: Path | None = None, db_url: str | None = None) -> list[Path]:
    """Generate labs/<lab>/ (or `release`/<lab>/ with its own gradebook, for freshness checks).

    Writing to the real labs/ also records the lab's cells in gradebook.db, which grading needs.
    Returns the notebook written; files removed from the release folder are named on stderr.
    """
    notebook, data, with_checks = _allowed(course, lab_id)
    out = (Path(release).resolve() if release is not None else course.labs) / lab_id
    with tempfile.TemporaryDirectory(prefix="autograder-generate-") as staging:
        # Only the lab's notebook is an nbgrader notebook of the assignment: a scratch notebook beside
        # it is neither released nor recorded in the gradebook.
        args = ["generate_assignment", lab_id, "--force", f"--CourseDirectory.release_directory={staging}",
                f"--CourseDirectory.notebook_id={Path(notebook).stem}"]
        if db_url is not None:
            args.append(f"--CourseDirectory.db_url={db_url}")
        course.nbgrader(*args)
        made = Path(staging) / lab_id / notebook
        if not made.is_file():
            raise RuntimeError(f"nbgrader generate_assignment {lab_id} wrote no {notebook} (is "
                               f"{course.solutions / lab_id / notebook} there?)")
        strip_notebook(made)            # committed student versions carry no outputs (docs/DESIGN.md)
        if with_checks:
            write_checks(course.spec(lab_id), made.parent)
        keep = release_files(course, lab_id)
        out.mkdir(parents=True, exist_ok=True)
        for path in _prune(out, keep):
            print(f"removed {path}: not part of {lab_id}'s release (only its notebook"
                  f"{', checks' if with_checks else ''} and declared data files are)", file=sys.stderr)
        _copy(made, out / notebook)
        if with_checks:
            _copy(made.parent / checks_name(lab_id), out / checks_name(lab_id))
        for rel in data:
            _copy(course.solutions / lab_id / str(rel), out / str(rel))
    return [out / notebook]
