"""`autograder leaderboard LAB --publish`: put the board where the class hub shows it.

On a class hub the only folder everyone shares is nbgrader's exchange, so the board goes beside the
released assignments: <exchange root>/<course id>/leaderboard/LAB.{html,json}, readable by all and
writable by the instructor alone. The hub's leaderboard service (coursekit/app/hub/leaderboard.py) shows
it at /services/leaderboard/LAB to anyone logged in, and only if the files belong to an instructor: the
exchange root is world-writable, so a student could plant a folder there first; publishing refuses such a
folder by name.
"""
from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from jupyter_core.paths import jupyter_config_path
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from autograder.course import Course

FOLDER = "leaderboard"


def nbgrader_settings(course: Course) -> Config:
    """nbgrader's configuration as its own commands merge it: the Jupyter config path, then the course's."""
    merged = Config()
    for folder in [*reversed(jupyter_config_path()), str(course.root)]:
        if (Path(folder) / "nbgrader_config.py").is_file():
            merged.merge(PyFileConfigLoader("nbgrader_config.py", folder).load_config())
    return merged


def exchange_folder(course: Course) -> Path:
    """<exchange root>/<course id>/leaderboard, from the configuration nbgrader's release reads."""
    settings = nbgrader_settings(course)
    if "root" not in settings.Exchange:
        raise RuntimeError("no nbgrader exchange is configured (c.Exchange.root in nbgrader_config.py): "
                           "--publish is for a class hub, where `course hub` sets it; use --out for a folder")
    course_id = settings.CourseDirectory.course_id if "course_id" in settings.CourseDirectory else course.course_id
    return Path(settings.Exchange.root) / course_id / FOLDER


def _own_folder(folder: Path) -> None:
    """Make `folder` (and the course's folder above it) or check that it is ours and not writable by others."""
    for path in (folder.parent, folder):
        if not path.exists():
            path.mkdir(mode=0o755)
            os.chmod(path, 0o755)
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            raise RuntimeError(f"{path} is not a folder of yours (owner uid {info.st_uid}): someone else made it "
                               "in the shared exchange; remove it (as root) and publish again")
        if info.st_mode & 0o022:
            os.chmod(path, stat.S_IMODE(info.st_mode) & ~0o022)


def publish(files: list[Path], target: Path) -> list[Path]:
    """Copy the board's files into `target`, readable by everyone, replaced whole (never half-written)."""
    _own_folder(target)
    written = []
    for source in files:
        final = target / source.name
        partial = target / f".{source.name}.partial"
        shutil.copyfile(source, partial)
        os.chmod(partial, 0o644)
        os.replace(partial, final)
        written.append(final)
    return written
