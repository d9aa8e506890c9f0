"""What the tutor may read: deny by default. Every file the tutor's context comes from goes through
`read_text` here, and nothing else in coursekit.tutor opens a course file.

Allowed, and nothing else: notebooks (lessons in course/, released labs in labs/<lab>/, the learner's own
in work/ or wherever the kernel's notebook is), released visible cases (`<lab>.checks.json`, which
`autograder generate` writes into labs/<lab>/ and a lone lab carries beside its notebook), and the output of the learner's last check (coursekit.checks.last).
Refused whatever its folder: anything under a
folder named solutions, source, autograder, specs, release-private or .git; the grading secret
(instructor-secret); hint_texts.yaml (a ladder's unrevealed rungs: the tutor sees only the rungs the
learner opened, from coursekit.hints in the kernel); and any notebook holding an instructor's markers
(### BEGIN SOLUTION, ### BEGIN HIDDEN TESTS), wherever it was copied to.
"""
from __future__ import annotations

from pathlib import Path

DENIED_FOLDERS = {"solutions", "source", "autograder", "specs", ".git"}
DENIED_NAMES = {"instructor-secret", "hint_texts.yaml", "spec.py", "gradebook.db"}
INSTRUCTOR_MARKERS = ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS", "BEGIN HIDDEN TESTS")
ALLOWED_SUFFIXES = {".ipynb", ".json"}


class NotAllowed(PermissionError):
    """A file the tutor must not read; the message says which rule refused it."""


def why_denied(path: Path) -> str | None:
    """The rule that refuses `path` (resolved: a link into solutions/ is refused too), or None."""
    real = Path(path).resolve()
    if real.suffix not in ALLOWED_SUFFIXES:
        return f"only notebooks and checks files are read (not {real.suffix or 'a file without a suffix'})"
    if real.name in DENIED_NAMES:
        return f"{real.name} is instructor material"
    folders = DENIED_FOLDERS & {part.lower() for part in real.parts[:-1]}
    if folders:
        return f"it is under a {sorted(folders)[0]}/ folder"
    if real.suffix == ".json":
        if real.parent == _last_checks():
            return None
        if not real.name.endswith(".checks.json"):
            return "the only JSON files read are released visible checks (<lab>.checks.json) and last checks"
    return None


def _last_checks() -> Path:
    from coursekit.checks.last import folder

    return folder().resolve()


def read_text(path: Path) -> str:
    """The text of an allowed file; NotAllowed for anything else (checked again after reading: a
    notebook with an instructor's markers is refused whatever its name)."""
    reason = why_denied(path)
    if reason:
        raise NotAllowed(f"the tutor does not read {path}: {reason}")
    text = Path(path).resolve().read_text(encoding="utf-8")
    marker = next((m for m in INSTRUCTOR_MARKERS if m in text), None)
    if marker:
        raise NotAllowed(f"the tutor does not read {path}: it holds {marker!r}, an instructor's notebook")
    return text
