"""Collect submissions from a folder or an LMS zip into submitted/<student>/<lab>/<notebook>.

Name mapping (first rule that applies; documented in docs/INSTRUCTORS.md):
1. Canvas bulk download `<namekey>[_late]_<canvas user id>_<submission id>_<file>.ipynb`
   (e.g. `doe_jane_12345_67890_lab1-roofline.ipynb`, also `<file>-1.ipynb` resubmission suffixes):
   with a roster, the row whose canvas_id is the user id (else whose name key matches);
   without one, the student id is the name key.
2. A folder per student: `<student>/<notebook>` or `<student>/<lab>/<notebook>` (nbgrader's layout).
3. A flat file `<student>.ipynb`, `<student>_<lab>.ipynb` or `<student>-<lab>.ipynb`.
With a roster (CSV with a student_id column and any of canvas_id, name, sis_user_id, sis_login_id,
section), a name from rules 2-3 may be any of a row's ids, and a name not on the roster is refused.

Refused, each with a message, while the rest carry on: entries that escape the target folder
(absolute paths, `..`), symlinks, files over the size cap, archive entries without a valid date,
names that match no rule or no roster row, ids outside the safe alphabet, and several files
mapping to one student (duplicates: the instructor decides which one counts).
"""
from __future__ import annotations

import csv
import datetime as dt
import os
import re
import stat
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable

from autograder import submitted
from autograder.course import SAFE_ID, Course

CANVAS = re.compile(r"^(?P<key>[A-Za-z0-9_]+?)(?P<late>_late|_LATE)?_(?P<uid>\d+)_(?P<sub>\d+)_(?P<file>.+)$")


@dataclass
class Entry:
    name: str                      # path inside the source, as given
    size: int
    mtime: float | None            # None: the archive records no valid date
    read: Callable[[int], bytes]   # read at most n bytes
    problem: str | None = None     # set when the entry is refused before mapping


@dataclass
class CollectReport:
    collected: list[tuple[str, str]] = field(default_factory=list)   # (student, entry)
    refused: list[tuple[str, str]] = field(default_factory=list)     # (entry, reason)
    ignored: list[tuple[str, str]] = field(default_factory=list)     # (entry, why), e.g. not a notebook
    late: list[tuple[str, str]] = field(default_factory=list)        # (student, submission time): LMS "late"
    replaced: dict[str, str] = field(default_factory=dict)           # student -> the earlier one's timestamp

    def render(self) -> str:
        lines = [f"replaced  {student}'s earlier submission (timestamp {self.replaced[student]}) <- {entry}"
                 if student in self.replaced else f"collected {student:<20} <- {entry}"
                 for student, entry in self.collected]
        lines += [f"late      {student:<20} submitted {when} (marked late by the LMS; with a due date in the "
                  "gradebook, grading applies the course's late penalty)" for student, when in self.late]
        lines += [f"REFUSED   {entry}: {reason}" for entry, reason in self.refused]
        lines += [f"ignored   {entry}: {why}" for entry, why in self.ignored]
        again = f" ({len(self.replaced)} replacing an earlier submission)" if self.replaced else ""
        lines.append(f"{len(self.collected)} collected{again}, {len(self.refused)} refused, {len(self.ignored)} ignored")
        return "\n".join(lines)


class Roster:
    """student_id -> LMS identities, from a CSV (header row required)."""

    def __init__(self, path: Path):
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            if not reader.fieldnames or "student_id" not in reader.fieldnames:
                raise ValueError(f"{path}: roster needs a header row with a student_id column "
                                 f"(optional: canvas_id, name, sis_user_id, sis_login_id, section)")
            self.rows = {}
            for line, row in enumerate(reader, 2):
                sid = (row.get("student_id") or "").strip()
                if not SAFE_ID.match(sid):
                    raise ValueError(f"{path}, line {line}: invalid student_id {sid!r}")
                self.rows[sid] = {k: (v or "").strip() for k, v in row.items() if k}
        self.by_canvas = {r["canvas_id"]: s for s, r in self.rows.items() if r.get("canvas_id")}
        self.by_alias: dict[str, str] = {}
        for sid, row in self.rows.items():
            for key in ("student_id", "sis_login_id", "sis_user_id", "canvas_id", "name"):
                if row.get(key):
                    self.by_alias.setdefault(_namekey(row[key]), sid)

    def lookup(self, alias: str, canvas_id: str | None = None) -> str | None:
        if canvas_id and canvas_id in self.by_canvas:
            return self.by_canvas[canvas_id]
        return self.by_alias.get(_namekey(alias))


def _namekey(text: str) -> str:
    """Canvas's file-name key for a name: lower case, letters and digits only ("Doe, Jane" -> "doejane")."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _unsafe(name: str) -> str | None:
    posix = name.replace("\\", "/")
    if posix.startswith("/") or re.match(r"^[A-Za-z]:", posix):
        return "absolute path: it would escape the target folder"
    if ".." in PurePosixPath(posix).parts:
        return "'..' in the path: it would escape the target folder"
    return None


def entries_from_folder(folder: Path) -> list[Entry]:
    found = []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        base = Path(dirpath)
        for name in sorted(dirnames):
            if (base / name).is_symlink():
                rel = str((base / name).relative_to(folder))
                found.append(Entry(rel, 0, 0, _nothing, "symlink (refused: it could point anywhere)"))
        for name in sorted(filenames):
            path = base / name
            rel = str(path.relative_to(folder))
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                found.append(Entry(rel, 0, 0, _nothing, "symlink (refused: it could point anywhere)"))
            elif not stat.S_ISREG(info.st_mode):
                found.append(Entry(rel, 0, 0, _nothing, "not a regular file"))
            else:
                found.append(Entry(rel, info.st_size, info.st_mtime, _file_reader(path)))
    return found


def entries_from_zip(archive: zipfile.ZipFile) -> list[Entry]:
    found = []
    for info in archive.infolist():
        if info.is_dir():
            continue
        mode = info.external_attr >> 16
        problem = _unsafe(info.filename)
        if not problem and stat.S_ISLNK(mode):
            problem = "symlink (refused: it could point anywhere)"
        try:
            mtime = dt.datetime(*info.date_time, tzinfo=dt.timezone.utc).timestamp()
        except ValueError:         # a zeroed DOS date (month or day 0) or another impossible one
            mtime = None
        found.append(Entry(info.filename, info.file_size, mtime, _zip_reader(archive, info), problem))
    return found


def _nothing(n: int) -> bytes:
    return b""


def _file_reader(path: Path) -> Callable[[int], bytes]:
    def read(n: int) -> bytes:
        # checked by lstat when listed; opened so that a pipe or link swapped in since is never read
        try:
            return submitted.read(path, path.parent, n - 1)
        except submitted.Refused as refusal:
            raise OSError(str(refusal).removeprefix("refused: ")) from None
    return read


def _zip_reader(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Callable[[int], bytes]:
    def read(n: int) -> bytes:
        with archive.open(info) as handle:   # read at most n bytes: the header's size may lie (zip bombs)
            return handle.read(n)
    return read


def map_entry(name: str, lab_id: str, notebook: str, roster: Roster | None) -> tuple[str | None, str | None, str]:
    """(student_id, canvas user id, reason) for an entry path; student_id None when unmatched."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    base, stem = parts[-1], Path(notebook).stem
    match = CANVAS.match(base)
    if match and re.fullmatch(re.escape(stem) + r"(-\d+)?\.ipynb", match["file"]):
        key, uid = match["key"], match["uid"]
        if roster:
            sid = roster.lookup(key, uid)
            return (sid, uid, "") if sid else (None, uid, f"Canvas user {uid} ({key}) is not on the roster")
        return key, uid, ""
    if len(parts) >= 2:
        if base != notebook:
            return None, None, f"expected a notebook named {notebook} in a student folder"
        if len(parts) == 3 and parts[1] != lab_id:
            return None, None, f"folder {parts[1]!r} is not lab {lab_id}"
        if len(parts) > 3:
            return None, None, "nested too deep: use <student>/<notebook> or <student>/<lab>/<notebook>"
        alias = parts[0]
    else:
        alias = re.sub(rf"[_-]({re.escape(stem)}|{re.escape(lab_id)})$", "", Path(base).stem)
        if alias == stem:
            return None, None, "the file name names no student (expected <student>.ipynb or <student>_<lab>.ipynb)"
    if roster:
        sid = roster.lookup(alias)
        return (sid, None, "") if sid else (None, None, f"{alias!r} is not on the roster")
    return alias, None, ""


def collect(course: Course, source: Path, lab_id: str, *, roster_path: Path | None = None,
            max_bytes: int = 20 * 2**20) -> CollectReport:
    from autograder.record.store import Store

    spec = course.spec(lab_id)
    roster = Roster(roster_path) if roster_path else None
    report = CollectReport()
    source = Path(source)
    archive = None
    if source.is_dir():
        entries = entries_from_folder(source)
    elif zipfile.is_zipfile(source):
        archive = zipfile.ZipFile(source)
        entries = entries_from_zip(archive)
    else:
        raise ValueError(f"{source}: neither a folder nor a zip archive")
    try:
        accepted: dict[str, list[tuple[Entry, str | None]]] = {}
        for entry in entries:
            base = PurePosixPath(entry.name.replace("\\", "/")).name
            if entry.problem:
                report.refused.append((entry.name, entry.problem))
            elif base.startswith(".") or "__MACOSX" in entry.name:
                report.ignored.append((entry.name, "hidden or system file"))
            elif not base.endswith(".ipynb"):
                report.ignored.append((entry.name, "not a notebook"))
            elif entry.size > max_bytes:
                report.refused.append((entry.name, f"oversized: {entry.size} bytes > cap {max_bytes} (--max-mb)"))
            elif entry.mtime is None:
                # Refused, not guessed: the date becomes timestamp.txt, which late penalties read.
                report.refused.append((entry.name, "invalid date in the archive (zeroed or impossible "
                                                   "month/day): its submission time is unknown; fix the "
                                                   "archive or collect the unpacked folder"))
            else:
                sid, uid, reason = map_entry(entry.name, lab_id, spec.notebook, roster)
                if sid is None:
                    report.refused.append((entry.name, f"unmatched name: {reason}"))
                elif not SAFE_ID.match(sid) or ".." in sid:
                    report.refused.append((entry.name, f"unmatched name: student id {sid!r} is not a safe id"))
                else:
                    accepted.setdefault(sid, []).append((entry, uid))
        identities = {}
        for sid, items in sorted(accepted.items()):
            if len(items) > 1:
                names = ", ".join(e.name for e, _ in items)
                for entry, _ in items:
                    report.refused.append((entry.name, f"duplicate: {len(items)} files map to student {sid} ({names})"))
                continue
            entry, uid = items[0]
            problem = _target_problem(course, sid, lab_id, spec.notebook)
            if problem:
                report.refused.append((entry.name, f"not collected: {problem}"))
                continue
            try:
                data = entry.read(max_bytes + 1)
            except (OSError, RuntimeError, zipfile.BadZipFile, EOFError) as error:   # encrypted, corrupt
                report.refused.append((entry.name, f"unreadable: {error}"))
                continue
            if len(data) > max_bytes:
                report.refused.append((entry.name, f"oversized: more than {max_bytes} bytes once unpacked"))
                continue
            earlier = _earlier(course.submitted / sid / lab_id, spec.notebook)
            if earlier is not None:
                report.replaced[sid] = earlier
            stamp = _write(course, sid, lab_id, spec.notebook, data, entry.mtime)
            report.collected.append((sid, entry.name))
            marker = CANVAS.match(PurePosixPath(entry.name.replace("\\", "/")).name)
            if marker and marker["late"]:
                report.late.append((sid, stamp))
            identity = dict(roster.rows[sid]) if roster else {}
            if uid:
                identity.setdefault("canvas_id", uid)
            if identity:
                identities[sid] = identity
        if identities:
            with Store(course.results_db) as store:
                known = store.roster()
                store.set_roster({sid: {**known.get(sid, {}), **{k: v for k, v in info.items() if v}}
                                  for sid, info in identities.items()})
    finally:
        if archive is not None:
            archive.close()
    return report


def _target_problem(course: Course, student: str, lab_id: str, notebook: str) -> str | None:
    """Why submitted/<student>/<lab>/ cannot take the file: a link or a non-folder on the way (writing
    through it would write elsewhere), or a folder where the notebook goes. A pipe, device or link in
    the notebook's (or timestamp's) place is simply replaced by the new file."""
    step = course.submitted
    for part in (student, lab_id):
        step = step / part
        try:
            mode = os.lstat(step).st_mode
        except FileNotFoundError:
            return None
        if not stat.S_ISDIR(mode):
            return f"{step.relative_to(course.root)} is not a plain folder (a link or a file): remove it first"
    for name in (notebook, "timestamp.txt"):
        if os.path.isdir(step / name) and not os.path.islink(step / name):
            return f"{(step / name).relative_to(course.root)} is a folder: remove it first"
    return None


def _earlier(folder: Path, notebook: str) -> str | None:
    """The timestamp of a submission already collected there ("unknown" without one), None if none."""
    if not (folder / notebook).is_file():
        return None
    try:
        return (folder / "timestamp.txt").read_text().strip() or "unknown"
    except OSError:
        return "unknown"


def _replace(folder: Path, name: str, data: bytes) -> None:
    """Write `folder`/`name` whole (temp file, then rename): a link or pipe there is replaced, never
    written through or opened."""
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, folder / name)


def _write(course: Course, student: str, lab_id: str, notebook: str, data: bytes, mtime: float) -> str:
    folder = course.submitted / student / lab_id
    folder.mkdir(parents=True, exist_ok=True)
    _replace(folder, notebook, data)
    # nbgrader's timestamp format: late penalties and the gradebook read it
    stamp = dt.datetime.fromtimestamp(mtime or 0, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    _replace(folder, "timestamp.txt", (stamp + "\n").encode())
    return stamp
