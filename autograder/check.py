"""Visible checks a student runs in the notebook: one line per passing case, a teaching message on failure."""
from __future__ import annotations

import traceback
from typing import Any, Callable

from autograder.reach import call_watched
from autograder.spec import load_spec


class VisibleTestFailed(AssertionError):
    """A visible case failed: the notebook shows the teaching message, not a traceback through the grader."""

    def _render_traceback_(self) -> list[str]:  # IPython's hook for an exception's own rendering
        return [f"\x1b[31mNot yet:\x1b[0m {line}" if n == 0 else line for n, line in enumerate(str(self).splitlines())]


class CasesPassed(int):
    """The number of cases that passed; as a cell's last value it shows nothing (the "ok" lines said it)."""

    def _ipython_display_(self) -> None:
        pass


def run_visible(lab_id: str, grade_id: str, fn: Callable[..., Any]) -> int:
    """Run the task's visible cases on `fn`; print "ok <case>" for each, raise VisibleTestFailed
    (an AssertionError that IPython shows as its message alone) on the first miss.

    Expected outputs come from each case's `expected` (shown to students); a case without one is
    compared with the trusted reference, which needs the solution notebook (instructors only).
    Returns the number of cases that passed.
    """
    spec = load_spec(lab_id)
    task = spec.task(grade_id)
    if not callable(fn):
        raise VisibleTestFailed(f"{task.title}: {task.function} should be a function, got {type(fn).__name__}")
    for case in task.visible:
        args, kwargs = task.prepare(case)
        try:
            output, reached = call_watched(fn, args, kwargs, task.forbids)
        except NotImplementedError as error:
            raise VisibleTestFailed(f"{task.title}, case '{case.name}': {task.function} is not implemented yet "
                                 f"({error})") from None
        except Exception as error:
            where = traceback.extract_tb(error.__traceback__)[-1]   # the learner's line, not the grader's
            raise VisibleTestFailed(f"{task.title}, case '{case.name}': {task.function} raised "
                                    f"{type(error).__name__}: {error}\n  at line {where.lineno}: {where.line}") from error
        try:
            got = task.encode(output)
        except TypeError as error:
            raise VisibleTestFailed(f"{task.title}, case '{case.name}': the result cannot be checked: {error}") from None
        if case.expected is not None:
            want = case.expected
        else:
            from autograder.reference import reference_output

            if not spec.solution_path().exists():
                raise AssertionError(f"{spec.lab_id}: visible case '{case.name}' has no expected output and "
                                     f"the solution notebook ({spec.solution_path()}) is not here to compute it; "
                                     "the lab's spec should give `expected` for every visible case")
            want = reference_output(spec, task, case)
        message = task.compare(got, want)
        if message:
            hint = f"\nHint: {case.hint}" if case.hint else ""
            raise VisibleTestFailed(f"{task.title}, case '{case.name}': {message}{hint}")
        print(f"ok {case.name}")
        if reached:
            print(f"warning: {task.function} calls {reached}, the course's own code for this task: "
                  "the grader scores this task 0 until you write it yourself")
    return CasesPassed(len(task.visible))
