"""Visible checks a student runs in the notebook: one line per passing case, a teaching message on failure.

The cases come from `<lab>.checks.json`, written next to the student's notebook by the instructor's
`autograder generate` (cases with their expected outputs, and the course functions that prepare,
encode and compare them). Nothing here needs the grader, the solutions or the hidden cases.
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from coursekit.paths import course_root

from .cases import Case
from .named import resolve, to_data
from .reach import call_watched


class VisibleTestFailed(AssertionError):
    """A visible case failed: the notebook shows the teaching message, not a traceback through the checks."""

    def _render_traceback_(self) -> list[str]:  # IPython's hook for an exception's own rendering
        return [f"\x1b[31mNot yet:\x1b[0m {line}" if n == 0 else line for n, line in enumerate(str(self).splitlines())]


class CasesPassed(int):
    """The number of cases that passed; as a cell's last value it shows nothing (the "ok" lines said it)."""

    def _ipython_display_(self) -> None:
        pass


@dataclass(frozen=True)
class VisibleTask:
    """One task's visible check: what a student's function is called with and compared against."""
    grade_id: str
    title: str
    function: str
    cases: tuple[Case, ...]
    prepare: Callable[[Case], tuple[tuple, dict]]
    encode: Callable[[Any], Any]
    compare: Callable[[Any, Any], str | None]
    forbids: tuple[str, ...]

    def to_data(self) -> dict:
        where = f"task {self.grade_id}"
        return {"grade_id": self.grade_id, "title": self.title, "function": self.function,
                "forbidden": list(self.forbids), "prepare": to_data(self.prepare, f"{where} prepare"),
                "encode": to_data(self.encode, f"{where} encode"), "compare": to_data(self.compare, f"{where} compare"),
                "cases": [{"name": c.name, "args": list(c.args), "kwargs": dict(c.kwargs), "hint": c.hint,
                           "expected": c.expected} for c in self.cases]}

    @classmethod
    def from_data(cls, data: dict) -> "VisibleTask":
        cases = tuple(Case(c["name"], tuple(c.get("args", ())), dict(c.get("kwargs", {})), c.get("hint", ""),
                           c.get("expected")) for c in data["cases"])
        return cls(data["grade_id"], data["title"], data["function"], cases, resolve(data["prepare"]),
                   resolve(data["encode"]), resolve(data["compare"]), tuple(data.get("forbidden", ())))


def checks_name(lab_id: str) -> str:
    return f"{lab_id}.checks.json"


def checks_file(lab_id: str) -> Path:
    """The course's release copy (labs/<lab>/ under the course root) first, so a learner's older copy in
    work/ never hides an update; else the one beside the running notebook (a lone downloaded lab)."""
    for path in (course_root() / "labs" / lab_id / checks_name(lab_id), Path.cwd() / checks_name(lab_id)):
        if path.is_file():
            return path
    raise FileNotFoundError(f"no visible checks for lab {lab_id!r}: {checks_name(lab_id)} is neither in "
                            f"{course_root() / 'labs' / lab_id} nor in {Path.cwd()} (the instructor's "
                            "`autograder generate` writes it next to the lab)")


_LOADED: dict[Path, tuple[float, dict]] = {}


def load_checks(lab_id: str) -> dict[str, VisibleTask]:
    """Every task's visible check by grade_id; a broken file is an error naming it."""
    path = checks_file(lab_id)
    stamp = path.stat().st_mtime
    if path not in _LOADED or _LOADED[path][0] != stamp:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            tasks = {t["grade_id"]: VisibleTask.from_data(t) for t in data["tasks"]}
        except (ValueError, KeyError, TypeError, AttributeError, ImportError) as error:
            raise ValueError(f"{path}: not a valid checks file ({type(error).__name__}: {error}); "
                             "regenerate it with `autograder generate`") from None
        _LOADED[path] = (stamp, tasks)
    return _LOADED[path][1]


@dataclass(frozen=True)
class TestCellRun:
    """What a task's test cell saw when it last ran in this kernel: the function and the outcome."""
    fn: Callable[..., Any]
    passed: bool
    message: str


# (lab, grade_id) -> its test cell's last run in this kernel: `check_here()` reports that, as the grader
# judges each task at its test cell.
AT_TEST_CELL: dict[tuple[str, str], TestCellRun] = {}


class _Tee(io.StringIO):
    """Keeps what the checks print and passes it on to the notebook."""

    def __init__(self, out) -> None:
        super().__init__()
        self.out = out

    def write(self, text: str) -> int:
        self.out.write(text)
        return super().write(text)


def run_visible(lab_id: str, grade_id: str, fn: Callable[..., Any]) -> int:
    """Run the task's visible cases on `fn`; print "ok <case>" for each, raise VisibleTestFailed
    (an AssertionError that IPython shows as its message alone) on the first miss."""
    tasks = load_checks(lab_id)
    if grade_id not in tasks:
        raise KeyError(f"{checks_file(lab_id)} has no task {grade_id!r}")
    printed = _Tee(sys.stdout)
    try:
        with contextlib.redirect_stdout(printed):
            passed = run_task(tasks[grade_id], fn, want=as_written)
    except AssertionError as error:
        AT_TEST_CELL[(lab_id, grade_id)] = TestCellRun(fn, False, str(error))
        raise
    AT_TEST_CELL[(lab_id, grade_id)] = TestCellRun(fn, True, passed_message(printed.getvalue()))
    return passed


def passed_message(printed: str) -> str:
    """A passing task's line in a check, from what its cases printed."""
    warning = next((line for line in printed.splitlines() if line.startswith("warning: ")), "")
    return f"{printed.count('ok ')} visible case(s) pass" + (f"; {warning}" if warning else "")


def as_written(case: Case) -> Any:
    """A checks file writes every case's expected output, null included: a task whose right answer is
    None (e.g. "never breaks even") has `expected` None, not missing."""
    return case.expected


def run_task(task: VisibleTask, fn: Callable[..., Any], want: Callable[[Case], Any] | None = None) -> int:
    """`fn` on each of the task's cases; `want(case)` gives the expected output of a case that has none
    (the instructor's side computes it from the reference). Returns the number of cases that passed."""
    if not callable(fn):
        raise VisibleTestFailed(f"{task.title}: {task.function} should be a function, got {type(fn).__name__}")
    for case in task.cases:
        args, kwargs = task.prepare(case)
        try:
            output, reached = call_watched(fn, args, kwargs, task.forbids)
        except NotImplementedError as error:
            said = f" ({error})" if str(error) else ""    # a bare `raise NotImplementedError` says nothing
            raise VisibleTestFailed(f"{task.title}, case '{case.name}': {task.function} is not implemented yet"
                                    f"{said}") from None
        except Exception as error:
            where = traceback.extract_tb(error.__traceback__)[-1]   # the learner's line, not the check's
            raise VisibleTestFailed(f"{task.title}, case '{case.name}': {task.function} raised "
                                    f"{type(error).__name__}: {error}\n  at line {where.lineno}: {where.line}") from error
        try:
            got = task.encode(output)
        except TypeError as error:
            raise VisibleTestFailed(f"{task.title}, case '{case.name}': the result cannot be checked: {error}") from None
        if case.expected is None and want is None:
            raise AssertionError(f"{task.title}: visible case '{case.name}' has no expected output")
        message = task.compare(got, case.expected if case.expected is not None else want(case))
        if message:
            hint = f"\nHint: {case.hint}" if case.hint else ""
            raise VisibleTestFailed(f"{task.title}, case '{case.name}': {message}{hint}")
        print(f"ok {case.name}")
        if reached:
            print(f"warning: {task.function} calls {reached}, the course's own code for this task: "
                  "the grader scores this task 0 until you write it yourself")
    return CasesPassed(len(task.cases))
