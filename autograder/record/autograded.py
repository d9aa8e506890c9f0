"""Write nbgrader's autograded/<student>/<lab>/<notebook>: the submission with the judge's verdicts.

Each test cell gets the student-version source back (students cannot edit locked cells away) and
one output carrying the trusted judge's message, in the form nbgrader's own `determine_grade`
reads: a stream for a full pass, an `execute_result` holding the points for partial credit, an
error for no credit. So `nbgrader generate_feedback` and the formgrader show the same score the
pipeline recorded. Other code cells lose their outputs: the judge never ran a kernel for them.
"""
from __future__ import annotations

import html
import json
import os
import re
import tempfile
from pathlib import Path

import nbformat
from nbformat.v4 import new_markdown_cell, new_output

from coursekit.nbcells import nbgrader_meta

from autograder import submitted as submitted_files
from autograder.course import Course


def _grade_id(cell) -> str | None:
    return nbgrader_meta(cell).get("grade_id")


def _verdict_output(task: dict):
    if task["passed"]:
        return new_output("stream", name="stdout", text=f"passed ({_fmt(task['points'])} points): {task['message'] or 'all cases match the reference'}\n")
    if task["points"] > 0:
        return new_output("execute_result", data={"text/plain": _fmt(task["points"])}, execution_count=None)
    lines = (task["message"] or "failed").splitlines() or ["failed"]
    return new_output("error", ename="AssertionError", evalue=lines[0], traceback=lines)


def _fmt(x: float) -> str:
    return f"{x:g}"


INFRASTRUCTURE = "sandbox:"     # the grading machine's state, not the student's doing: for the instructor


def student_flags(result: dict) -> list[str]:
    """The flags a student's own feedback shows: what their notebook did (status, report and export
    keep every flag)."""
    return [f for f in result.get("flags", []) if not f.startswith(INFRASTRUCTURE)]


def _literal(text: str) -> str:
    """`text` shown as written in a markdown cell: no tag, link or emphasis of its own (a flag can
    quote a path or name the student chose)."""
    text = html.escape(" ".join(text.split()), quote=False)       # one line: no block of its own
    return re.sub(r"([\\`*_{}\[\]()#+!|~$<>-])", r"\\\1", text)


def _status_cell(result: dict):
    lines = []
    if result["status"] == "failed":
        lines.append(f"**Grading failed:** {_literal(result['reason'] or 'failed')}. Every task scores 0 until this is fixed.")
    if student_flags(result):
        lines.append("**Flags raised by the grader:** " + "; ".join(map(_literal, student_flags(result))))
    cell = new_markdown_cell("\n\n".join(lines))
    cell.metadata["autograder"] = {"status": result["status"]}
    return cell


def _readable(course: Course, path: Path):
    """The submission as nbformat reads it, or None when it cannot be shown safely: a link or anything
    but a regular file (never read, autograder/submitted.py), bytes that do not parse, or text no file
    can store (a lone surrogate)."""
    try:
        raw = submitted_files.read(path, course.submitted)
        if len(raw) > submitted_files.MAX_NOTEBOOK_BYTES:
            return None
        nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
        nbformat.writes(nb).encode("utf-8")
        return nb
    except Exception:                         # noqa: BLE001 - RecursionError, UnicodeEncodeError, bad JSON...
        return None


def build(course: Course, lab_id: str, notebook_name: str, submitted: Path, result: dict):
    """The autograded notebook for `result` (a SubmissionResult.to_json() dict)."""
    release = course.labs / lab_id / notebook_name
    released = nbformat.read(release, as_version=4)
    nb = _readable(course, submitted) or released      # unreadable submission: show the verdicts on the release
    locked = {_grade_id(c): c.source for c in released.cells if _grade_id(c)}
    tasks = {t["grade_id"]: t for t in result["tasks"]}
    seen, ids = set(), set()
    for cell in nb.cells:
        grade_id = _grade_id(cell)
        if grade_id is not None and (grade_id not in locked or grade_id in ids):
            # a grade cell the release does not have (or a copy) is not nbgrader's: its feedback would
            # stop at a MissingEntry. The judge ignored it; so does the gradebook.
            del cell.metadata["nbgrader"]
            grade_id = None
        if grade_id is not None:
            ids.add(grade_id)
        if cell.cell_type != "code":
            continue
        cell.outputs, cell.execution_count = [], None
        if grade_id in locked and grade_id not in seen and (cell.metadata.get("nbgrader") or {}).get("grade"):
            seen.add(grade_id)
            cell.source = locked[grade_id]
            task = tasks.get(grade_id)
            if task is not None:
                cell.outputs = [_verdict_output(task)]
            elif result["status"] == "failed":
                cell.outputs = [new_output("error", ename="GradingFailed", evalue=result["reason"] or "failed",
                                           traceback=[result["reason"] or "failed"])]
    if result["status"] == "failed" or student_flags(result):
        nb.cells.insert(0, _status_cell(result))
    return nb


def _target(course: Course, lab_id: str, notebook_name: str, student: str) -> Path:
    return course.autograded / student / lab_id / notebook_name


def stamp(course: Course, lab_id: str, notebook_name: str, student: str) -> str | None:
    """The stamp `write` left in the student's autograded notebook (None: no readable notebook)."""
    try:
        data = json.loads(_target(course, lab_id, notebook_name, student).read_bytes())
        return data["metadata"]["autograder"]["stamp"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write(course: Course, lab_id: str, notebook_name: str, submitted: Path, result: dict, stamp: str = "") -> Path:
    """Build and atomically replace autograded/<student>/<lab>/<notebook>; `stamp` (which submission
    and result it shows) goes into the notebook's metadata."""
    nb = build(course, lab_id, notebook_name, submitted, result)
    nb.metadata["autograder"] = {"stamp": stamp}
    target = _target(course, lab_id, notebook_name, result["student_id"])
    target.parent.mkdir(parents=True, exist_ok=True)
    text = nbformat.writes(nb).encode("utf-8")   # before any file exists: nothing is left half-written
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=TMP_PREFIX, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    # as nbgrader's autograde does: feedback carries these, and `nbgrader release_feedback` needs them
    for sidecar in ("timestamp.txt", "submission_secret.txt"):
        text = submitted_files.read_text(submitted.parent / sidecar, course.submitted)   # small regular files only
        if text is not None:
            (target.parent / sidecar).write_text(text)
    return target


TMP_PREFIX = ".autograded-"


def sweep_temp_files(course: Course, lab_id: str) -> int:
    """Remove what a crashed run left half-written (only this lab's, only our own temp names)."""
    removed = 0
    for pattern in (f"{TMP_PREFIX}*.tmp", "tmp*.tmp"):       # today's names and those of earlier versions
        for path in course.autograded.glob(f"*/{lab_id}/{pattern}"):
            path.unlink(missing_ok=True)
            removed += 1
    return removed
