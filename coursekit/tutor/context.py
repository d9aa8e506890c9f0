"""What the tutor is told about where the learner is: the lab and task (or lesson), the task's text and
visible cases as released, the learner's own code for it, their last check's output and the hint rungs
they opened. Every file comes through allowlist.read_text; the kernel's namespace gives only the
learner's own function and the rungs coursekit.hints recorded as revealed.
"""
from __future__ import annotations

import inspect
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from coursekit.paths import course_root

from .allowlist import NotAllowed, read_text

LIMIT = 4000                      # characters per section: a small model's window, and a provider's bill
LAB_CALL = re.compile(r"run_visible\(\s*['\"]([^'\"]+)['\"]")
FAILED = re.compile(r"^\s*FAIL\s+(.+?):", re.M)


@dataclass
class Context:
    lab: str | None = None
    task: dict | None = None              # the released checks file's task: grade_id, title, function, cases
    lesson: str | None = None             # a lesson notebook's path, relative to the course
    sections: list[tuple[str, str]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)   # what was read, for `course tutor status` and tests
    functions: tuple[str, ...] = ()       # the lab's graded functions: the reply guard withholds them
    learner_code: str = ""
    next_hint: str | None = None          # what "just give me the code" gets instead

    def add(self, heading: str, text: str | None) -> None:
        if text and text.strip():
            text = text.strip()
            self.sections.append((heading, text if len(text) <= LIMIT else text[:LIMIT] + "\n[...cut]"))

    def render(self) -> str:
        where = f"Lab {self.lab}" if self.lab else f"Lesson {self.lesson}" if self.lesson else "The course"
        if self.task:
            where += f", {self.task['title']} (function `{self.task['function']}`)"
        return "\n\n".join([f"WHERE THE LEARNER IS: {where}"] + [f"## {h}\n{t}" for h, t in self.sections])


def _read(path: Path, ctx: Context) -> str | None:
    try:
        text = read_text(path)
    except FileNotFoundError:
        return None
    ctx.files.append(str(path))
    return text


def _notebook(path: Path, ctx: Context) -> dict | None:
    text = _read(path, ctx)
    return json.loads(text) if text else None


def _cells(notebook: dict, kind: str) -> list[dict]:
    return [c for c in notebook.get("cells", []) if c.get("cell_type") == kind]


def _source(cell: dict) -> str:
    return "".join(cell.get("source", ""))


def kernel_notebook(namespace: dict | None) -> Path | None:
    """The notebook this kernel serves (Jupyter names it in JPY_SESSION_NAME), if it is a file."""
    session = os.environ.get("JPY_SESSION_NAME") or (namespace or {}).get("__session__")
    return Path(session) if session and Path(session).is_file() else None


def lab_of(notebook: dict | None, namespace: dict | None) -> str | None:
    for source in [_source(c) for c in _cells(notebook or {}, "code")] + list(reversed((namespace or {}).get("In", []))):
        found = LAB_CALL.search(source)
        if found:
            return found.group(1)
    return None


def _task_text(released: dict | None, title: str) -> str:
    """The task's markdown in the released lab: its "### Task (...)" cell."""
    for cell in _cells(released or {}, "markdown"):
        if _source(cell).lstrip("# ").startswith(title):
            return _source(cell)
    return ""


def _learner_code(function: str, notebook: dict | None, namespace: dict | None) -> str:
    """The learner's function as their kernel last ran it, else as saved in their notebook."""
    fn = (namespace or {}).get(function)
    if callable(fn) and getattr(fn, "__module__", None) == "__main__":   # defined in a cell, not imported
        try:
            return inspect.getsource(fn)
        except (OSError, TypeError):
            pass
    pattern = re.compile(rf"^\s*def\s+{re.escape(function)}\s*\(", re.M)
    return "\n\n".join(_source(c) for c in _cells(notebook or {}, "code") if pattern.search(_source(c)))


def _pick_task(tasks: list[dict], task: str | None, check: str, question: str) -> dict | None:
    for t in tasks:                                   # named: by grade_id, function or title
        if task and task in (t["grade_id"], t["function"], t["title"]):
            return t
    if task:
        raise ValueError(f"no task {task!r} in this lab (tasks: {', '.join(t['function'] for t in tasks)})")
    for t in tasks:                                   # named in the question: its function, or its title's words
        name = re.sub(r"^Task \((.*)\)$", r"\1", t["title"]).lower()
        if re.search(rf"\b{re.escape(t['function'])}\b", question) or name in question.lower():
            return t
    failing = FAILED.findall(check)
    return next((t for t in tasks if t["title"] in failing), None)   # the first task the last check failed


def _cases(task: dict) -> str:
    return "\n".join(f"- case '{c['name']}': {task['function']}(*{c.get('args', [])}, **{c.get('kwargs', {})}) "
                     f"should give {c.get('expected')!r}" + (f"; hint: {c['hint']}" if c.get("hint") else "")
                     for c in task["cases"])


def _next_hint(task: dict | None, check: str) -> str | None:
    """The released hint of the case the last check failed on, else the task's first case hint."""
    if not task:
        return None
    failing = re.search(rf"{re.escape(task['title'])}, case '([^']+)'", check)
    hints = [c["hint"] for c in task["cases"] if c.get("hint") and (not failing or c["name"] == failing.group(1))]
    hints = hints or [c["hint"] for c in task["cases"] if c.get("hint")]
    return hints[0] if hints else None


def revealed_rungs() -> str:
    """The discussion-prompt rungs this kernel's learner opened (coursekit.hints.REVEALED), only those."""
    hints = sys.modules.get("coursekit.hints")
    opened = getattr(hints, "REVEALED", {}) if hints else {}
    return "\n\n".join("\n".join(rungs) for rungs in opened.values())


def assemble(question: str, *, lab: str | None = None, task: str | None = None, notebook: str | Path | None = None,
             namespace: dict | None = None) -> Context:
    """The context for `question`, asked from `notebook` (default: the kernel's) with the kernel's
    `namespace` (default: none)."""
    from coursekit.checks.last import last

    ctx = Context()
    path = Path(notebook) if notebook else kernel_notebook(namespace)
    mine = _notebook(path, ctx) if path and path.is_file() else None
    ctx.lab = lab or lab_of(mine, namespace)
    root = course_root()
    if ctx.lab:
        # a lab released through the hub or an LMS is in no labs/ here: the learner's copy has the same
        # scenario and task text (locked cells), so the tutor reads them there
        released = _notebook(root / "labs" / ctx.lab / f"{ctx.lab}.ipynb", ctx) or mine
        checks = _read(root / "labs" / ctx.lab / f"{ctx.lab}.checks.json", ctx)
        if checks is None and path:
            checks = _read(path.parent / f"{ctx.lab}.checks.json", ctx)
        tasks = json.loads(checks)["tasks"] if checks else []
        ctx.functions = tuple(t["function"] for t in tasks)
        done = last(ctx.lab, read=lambda p: _read(p, ctx) or "")
        check = done["text"] if done else ""
        ctx.task = _pick_task(tasks, task, check, question)
        intro = _cells(released or {}, "markdown")
        ctx.add("The lab's introduction (as released)", _source(intro[0]) if intro else "")
        if ctx.task:
            ctx.add("The task (as released)", _task_text(released, ctx.task["title"]))
            ctx.add("Its visible cases (the hidden cases are other inputs, not known here)", _cases(ctx.task))
            ctx.learner_code = _learner_code(ctx.task["function"], mine, namespace)
            ctx.add("The learner's code for this task", ctx.learner_code or "(not written yet)")
        ctx.add(f"The learner's last check ({done['how']}, {done['at']})" if done else "Last check", check or
                "(no check run yet)")
        ctx.next_hint = _next_hint(ctx.task, check)
    elif path and path.resolve().is_relative_to((root / "course").resolve()) and mine:
        ctx.lesson = str(path.resolve().relative_to(root.resolve()))
        ctx.add("The lesson's text", "\n\n".join(_source(c) for c in _cells(mine, "markdown")))
    ctx.add("Discussion hints the learner has opened", revealed_rungs())
    return ctx


__all__ = ["Context", "NotAllowed", "assemble"]
