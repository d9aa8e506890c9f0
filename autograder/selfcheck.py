"""`autograder check NOTEBOOK`: a self-paced learner's own check of a lab notebook.

Runs the notebook's code cells (test cells excepted) in an IPython shell in this process, then the
visible cases of every task through the spec (`autograder.check.run_visible`), and says which tasks
pass with the spec's teaching messages. It is the learner's own code on the learner's own machine,
so there is no sandbox and no hidden test here: grading proper is `autograder grade`.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

LAB_CALL = re.compile(r"run_visible\(\s*['\"]([^'\"]+)['\"]")


@dataclass(frozen=True)
class TaskCheck:
    grade_id: str
    title: str
    passed: bool
    message: str


def lab_of(notebook: dict, path: Path) -> str:
    """The lab id named by the notebook's run_visible(...) calls, else the file name's stem."""
    for cell in notebook["cells"]:
        found = LAB_CALL.search("".join(cell.get("source", "")))
        if found:
            return found.group(1)
    return path.stem


def _is_test(cell: dict) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader") or {}
    return bool(meta.get("grade")) and not meta.get("solution")


def run_check(path: Path) -> tuple[str, list[TaskCheck], list[str]]:
    """(lab id, per-task results, problems met while running the notebook's cells)."""
    from IPython.core.interactiveshell import InteractiveShell

    from .spec import load_spec

    os.environ.setdefault("COURSE_QUICK", "1")       # measurement cells take their small sizes
    os.environ.setdefault("MPLBACKEND", "Agg")
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    lab_id = lab_of(notebook, Path(path))
    load_spec(lab_id)                                # an unknown lab fails before any cell runs
    shell = InteractiveShell.instance()
    problems = []
    os.chdir(Path(path).resolve().parent)            # notebooks open files relative to their folder
    for index, cell in enumerate(notebook["cells"], 1):
        if cell.get("cell_type") != "code" or _is_test(cell):
            continue
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            outcome = shell.run_cell("".join(cell.get("source", "")), store_history=False, silent=True)
        error = outcome.error_before_exec or outcome.error_in_exec
        if error is not None and not isinstance(error, NotImplementedError):
            problems.append(f"cell {index} raised {type(error).__name__}: {error}")
    return lab_id, check_namespace(lab_id, shell.user_ns), problems


def check_namespace(lab_id: str, namespace: dict) -> list[TaskCheck]:
    """Every task's visible cases on the functions defined in `namespace`."""
    from .check import run_visible
    from .spec import load_spec

    checks = []
    for task in load_spec(lab_id).tasks:
        fn = namespace.get(task.function)
        if not callable(fn):
            checks.append(TaskCheck(task.grade_id, task.title, False, f"define a function named {task.function}"))
            continue
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                run_visible(lab_id, task.grade_id, fn)
        except AssertionError as error:
            checks.append(TaskCheck(task.grade_id, task.title, False, str(error)))
        except Exception as error:   # a broken check must not hide the other tasks' results
            checks.append(TaskCheck(task.grade_id, task.title, False, f"{type(error).__name__}: {error}"))
        else:
            cases = printed.getvalue().count("ok ")
            warning = next((l for l in printed.getvalue().splitlines() if l.startswith("warning: ")), "")
            checks.append(TaskCheck(task.grade_id, task.title, True,
                                    f"{cases} visible case(s) pass" + (f"; {warning}" if warning else "")))
    return checks


def record_progress(lab_id: str, passed: int, total: int) -> bool:
    """Record with coursekit.progress.record_lab_check when the course's progress module has it."""
    try:
        from coursekit import progress
    except ImportError:
        return False
    record = getattr(progress, "record_lab_check", None)
    if record is None:
        return False
    record(lab_id, passed, total)
    return True


def render(lab_id: str, checks: list[TaskCheck], problems: list[str]) -> str:
    lines = [f"{lab_id}: visible tests"]
    for c in checks:
        mark = "PASS" if c.passed else "FAIL"
        message = c.message.replace("\n", "\n         ")
        lines.append(f"  {mark}  {c.title}: {message}")
    if problems:
        lines.append("while running your cells:")
        lines += [f"  {p}" for p in problems]
    passed = sum(c.passed for c in checks)
    lines.append(f"{passed}/{len(checks)} tasks pass their visible cases. Hidden cases with other inputs "
                 "decide the grade: make sure your code is right in general, not only on these cases.")
    return "\n".join(lines)
