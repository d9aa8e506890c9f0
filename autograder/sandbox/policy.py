"""What a grading child may see and use: the sandbox's policy, deny by default (docs/SANDBOX.md).

The child sees only the system trees, the interpreter with its packages and the checkout's
student-side code (`allowed_paths`); everything an instructor owns is hidden again by name
(`default_hidden`) in case the allowlist is unavailable; its environment is built from nothing
(`child_environment`); its resources are capped by `Limits`. How these are enforced is confine.py.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from autograder.sandbox.protocol import GRADING_ENVIRONMENT

WORKDIR = "/tmp/work"               # inside the child's private /tmp
# What every child sees besides its interpreter and the course's student-side code: system programs,
# libraries and configuration (public anyway), and the CPU list that numpy and torch read.
SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys/devices/system/cpu")
DEVICES = ("null", "zero", "full", "random", "urandom")
STUDENT_SIDE = ("coursekit", "autograder", "labs")   # of the checkout; never solutions/, .git, course data


@dataclass
class Limits:
    wall_s: float = 120
    wall_stretch: float = 4       # on a loaded machine wall_s grows with the load per usable core, up to this
    cpu_s: float = 120
    memory_mb: int = 3072
    max_procs: int = 64           # per uid: each worker runs its children as its own uid
    output_kb: int = 512          # stdout + stderr together
    network: bool = False
    isolate: bool = True          # False: no namespaces or uid drop (only to test the degraded mode)
    allowlist: bool = True        # False: the child sees the host minus the hidden paths (the fallback)
    scratch_mb: int = 256         # total a submission may write (its /tmp, /var/tmp and /dev/shm)
    analysis_s: float = 30        # CPU seconds of the trusted side's own work on one notebook (thinning,
                                  # IPython transformation, static scan); past it the submission fails


def child_environment(workdir: str = WORKDIR) -> dict[str, str]:
    """The whole environment student code sees: nothing of the grader's, no secret."""
    return {**GRADING_ENVIRONMENT, "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": workdir, "TMPDIR": workdir, "MPLCONFIGDIR": os.path.join(workdir, ".matplotlib")}


def allowed_paths() -> tuple[str, ...]:
    """The host trees a grading child sees besides SYSTEM_TREES: the interpreter with its packages and
    the checkout's student-side code (a virtual environment inside the checkout is kept too)."""
    checkout = Path(__file__).resolve().parents[2]
    interpreter = {str(Path(p).resolve()) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return tuple(sorted(interpreter | {str(checkout / name) for name in STUDENT_SIDE}))


def needed_paths() -> tuple[str, ...]:
    """What a grading child must still see: the interpreter, its packages and this checkout's code."""
    paths = {str(Path(p).resolve()) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    paths.add(str(Path(__file__).resolve().parents[2]))
    return tuple(sorted(paths))


def git_dirs(path: Path) -> list[Path]:
    """The git metadata of the repository holding `path`: solution notebooks are tracked, so their
    blobs sit in .git/objects. A worktree's or submodule's .git is a file naming its real git dir,
    which shares the main repository's objects (its `commondir`): all of them are returned."""
    for folder in (path, *path.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return [dot_git]
        if dot_git.is_file():
            found = [dot_git]
            text = dot_git.read_text(errors="replace").strip()
            if text.startswith("gitdir:"):
                gitdir = (folder / text[len("gitdir:"):].strip()).resolve()
                common = gitdir / "commondir"
                found += [gitdir, (gitdir / common.read_text().strip()).resolve() if common.is_file() else gitdir]
            return found
    return []


def default_hidden(course_root: Path, notebook: Path, solution: Path, extra=()) -> tuple[tuple[str, str], ...]:
    """Paths no student may read: solutions, secrets, gradebook, everyone's submissions and outputs,
    and the git history of the course and of this code checkout."""
    hidden: list[tuple[Path, str]] = [
        (course_root / "solutions", "solutions"), (course_root / "source", "solutions"),
        (course_root / "submitted", "submissions"), (course_root / "autograded", "autograded notebooks"),
        (course_root / "feedback", "feedback"), (course_root / "gradebook.db", "gradebook"),
        (course_root / "autograder" / "instructor-secret", "instructor secret"),
        (course_root / "instructor-secret", "instructor secret"),
        (solution.parent, "solutions"), (notebook.parent, "submissions"),
        (Path("/root"), "home folders"), (Path("/home"), "home folders"),
    ]
    # nbgrader layouts put every student's copy under .../submitted/<student>/...: hide the lot,
    # and the gradebook and outputs beside it when the course lives somewhere other than the repo.
    for parent in notebook.parents:
        if parent.name == "submitted":
            hidden += [(parent, "submissions"), (parent.parent / "autograded", "autograded notebooks"),
                       (parent.parent / "feedback", "feedback"), (parent.parent / "gradebook.db", "gradebook"),
                       (parent.parent / "source", "solutions")]
    checkout = Path(__file__).resolve().parents[2]
    for root in (course_root, checkout, solution, notebook):
        hidden += [(path, "git repository") for path in git_dirs(root)]
    # extra: paths, or (path, label) pairs (Dask grading ships the client's labelled list)
    hidden += [(Path(p), "instructor paths") if isinstance(p, (str, os.PathLike)) else (Path(p[0]), p[1])
               for p in extra]
    seen, result = set(), []
    for path, label in hidden:
        key = str(path.resolve())
        if key not in seen:
            seen.add(key)
            result.append((key, label))
    return tuple(result)
