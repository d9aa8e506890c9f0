"""Visible checks a student runs in the notebook: one line per passing case, a teaching message on failure."""
from __future__ import annotations

from typing import Any, Callable

from autograder.reach import call_watched
from autograder.spec import load_spec


def run_visible(lab_id: str, grade_id: str, fn: Callable[..., Any]) -> int:
    """Run the task's visible cases on `fn`; print "ok <case>" for each, raise AssertionError on the first miss.

    Expected outputs come from each case's `expected` (shown to students); a case without one is
    compared with the trusted reference, which needs the solution notebook (instructors only).
    Returns the number of cases that passed.
    """
    spec = load_spec(lab_id)
    task = spec.task(grade_id)
    if not callable(fn):
        raise AssertionError(f"{task.title}: {task.function} should be a function, got {type(fn).__name__}")
    for case in task.visible:
        args, kwargs = task.prepare(case)
        try:
            output, reached = call_watched(fn, args, kwargs, task.forbids)
        except NotImplementedError as error:
            raise AssertionError(f"{task.title}, case '{case.name}': {task.function} is not implemented yet "
                                 f"({error})") from None
        except Exception as error:
            raise AssertionError(f"{task.title}, case '{case.name}': {task.function} raised "
                                 f"{type(error).__name__}: {error}") from error
        try:
            got = task.encode(output)
        except TypeError as error:
            raise AssertionError(f"{task.title}, case '{case.name}': the result cannot be checked: {error}") from None
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
            raise AssertionError(f"{task.title}, case '{case.name}': {message}{hint}")
        print(f"ok {case.name}")
        if reached:
            print(f"warning: {task.function} calls {reached}, the course's own code for this task: "
                  "the grader scores this task 0 until you write it yourself")
    return len(task.visible)
