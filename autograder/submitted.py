"""Reading what lies under submitted/: regular files only, checked before anything is read.

Submissions arrive through `collect`, nbgrader's exchange, or cp, rsync and tar, so submitted/ may
hold a named pipe (reading it waits forever), a link to a device that never stops giving bytes
(/dev/zero), a folder with the notebook's name, or a link to an instructor file. Every command that
reads a file there (grade, status, export, report, feedback, collect, quiz grading and analytics)
goes through this module: each step of the path is checked with lstat, the file is opened with
O_NOFOLLOW | O_NONBLOCK (a pipe swapped in after the check cannot block), checked again on the open
descriptor, and read up to a cap. A refusal is a reason, never an exception that stops a batch.
"""
from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path

MAX_NOTEBOOK_BYTES = 20 * 2**20        # the engine's limit: a bigger notebook fails "too large"
SIDECAR_BYTES = 4096                    # timestamp.txt, submission_secret.txt


class Refused(Exception):
    """The path is not a regular file reached without links; the message says what it is."""

    def __init__(self, reason: str, kind: str):
        super().__init__(reason)
        self.kind = kind                # short, stable: part of the results key of a refused submission


def _kind(mode: int) -> tuple[str, str]:
    for test, words, kind in ((stat.S_ISLNK, "a symbolic link", "symlink"), (stat.S_ISDIR, "a folder", "folder"),
                              (stat.S_ISFIFO, "a named pipe", "fifo"), (stat.S_ISCHR, "a character device", "device"),
                              (stat.S_ISBLK, "a block device", "device"), (stat.S_ISSOCK, "a socket", "socket")):
        if test(mode):
            return words, kind
    return "not a regular file", "special"


def check(path: Path, base: Path) -> None:
    """Raise Refused unless every step from `base` to `path` is a real folder and `path` a regular
    file; FileNotFoundError when something is missing (callers report a missing notebook)."""
    path, base = Path(path), Path(base)
    where = path.relative_to(base.parent) if path.is_relative_to(base.parent) else path
    step = base
    parts = path.relative_to(base).parts
    for i, part in enumerate(parts):
        step = step / part
        mode = os.lstat(step).st_mode
        last = i == len(parts) - 1
        if stat.S_ISLNK(mode):
            shown = step.relative_to(base.parent) if step.is_relative_to(base.parent) else step
            raise Refused(f"refused: {shown} is a symbolic link (submit the file itself)", "symlink")
        if not last and not stat.S_ISDIR(mode):
            raise Refused(f"refused: {step} is not a folder", "not-a-folder")
        if last and not stat.S_ISREG(mode):
            words, kind = _kind(mode)
            raise Refused(f"refused: {where} is {words}, not a regular file", kind)


def _open(path: Path) -> int:
    """A descriptor of the regular file at `path`: never follows a final link, never blocks."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as error:
        if error.errno == errno.ELOOP:      # the last step became a link
            raise Refused(f"refused: {path.name} is a symbolic link (submit the file itself)", "symlink") from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):       # swapped in after check(): still never read
        os.close(fd)
        words, kind = _kind(mode)
        raise Refused(f"refused: {path.name} is {words}, not a regular file", kind)
    return fd


def read(path: Path, base: Path, limit: int = MAX_NOTEBOOK_BYTES) -> bytes:
    """At most `limit` + 1 bytes of the regular file (callers treat more than `limit` as too large)."""
    check(path, base)
    with os.fdopen(_open(Path(path)), "rb") as handle:
        return handle.read(limit + 1)


def read_text(path: Path, base: Path, limit: int = SIDECAR_BYTES) -> str | None:
    """A small text file beside a submission (timestamp.txt), or None when it is missing, refused,
    unreadable or longer than `limit`."""
    try:
        data = read(path, base, limit)
    except (OSError, Refused):
        return None
    return None if len(data) > limit else data.decode("utf-8", errors="replace")


def digest(path: Path, base: Path, limit: int = MAX_NOTEBOOK_BYTES) -> str:
    """The results key of a submission: SHA-256 of its bytes; for what is never read, a stable marker
    (`missing`, `refused:fifo`, ...) so status shows the stored refusal and a fixed file is pending
    again; a file over `limit` is keyed by size, time and inode, not hashed (it fails as too large), and a
    hard-linked file by its inode)."""
    try:
        check(path, base)
        fd = _open(Path(path))
    except FileNotFoundError:
        return "missing"
    except Refused as refused:
        return f"refused:{refused.kind}"
    except OSError as error:
        return f"unreadable:{error.errno}"
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if info.st_nlink > 1:
            # a hard link: it may be an instructor file that changes under grading (the gradebook), so its
            # key is the inode, never the bytes, and the refusal stored for it stays current (issue 51)
            return f"hardlink:{info.st_dev}:{info.st_ino}"
        if info.st_size > limit:
            return f"oversize:{info.st_size}:{info.st_mtime_ns}:{info.st_ino}"
        sha = hashlib.sha256()
        left = limit + 1
        while left > 0 and (chunk := handle.read(min(1 << 20, left))):
            sha.update(chunk)
            left -= len(chunk)
        return sha.hexdigest() if left > 0 else f"oversize:{info.st_size}:{info.st_mtime_ns}:{info.st_ino}"


def submission_hash(course, sub) -> str:
    """The results key of a course's submission (`Course`, `Submission`) as it is now (`digest`: never
    blocks, never follows a link; a refused or missing notebook gets a stable marker instead of a hash)."""
    return digest(sub.notebook, course.submitted)


UNREADABLE_TIMESTAMP = "timestamp.txt unreadable: the submission time is the file's date (check lateness by hand)"


def submission_time(notebook: Path, base: Path) -> tuple[float | None, str | None]:
    """When the notebook was submitted, and a flag when that rests on a guess; read once, alike for labs
    and quizzes. The time is its timestamp.txt (nbgrader's, read only if a small regular file), else the
    notebook's own date (without following a link). A timestamp.txt that is there but does not parse gives
    the flag, since late penalties then rest on the file's date."""
    stamp = notebook.parent / "timestamp.txt"
    flag = None
    if os.path.lexists(stamp):
        text = read_text(stamp, base)
        try:
            from dateutil.parser import parse

            if text is None:
                raise ValueError("not a small regular file")
            return parse(text[:100].strip()).timestamp(), None
        except (ValueError, OverflowError):
            flag = UNREADABLE_TIMESTAMP
    try:
        return notebook.lstat().st_mtime, flag
    except OSError:
        return None, flag
