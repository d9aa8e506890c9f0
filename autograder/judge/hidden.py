"""Hidden cases: drawn from the instructor secret, checked against the trusted reference.

`check_task` runs inside nbgrader's own kernel (the hidden-tests block of each test cell). That
kernel also runs the student's code, so it is the tamperable baseline; the engine
(`autograder.judge.engine`) judges the same cases outside the student's process.
"""
from __future__ import annotations

import random

from autograder.judge.secrets import case_seed, load_secret
from autograder.spec import Case, LabSpec, Task, load_spec


def hidden_cases(spec: LabSpec, task: Task, secret: bytes, draw: str = "") -> list[Case]:
    """The task's n_hidden cases; case i comes from a Random seeded with HMAC(secret, lab, task, i, draw).
    The engine draws per student and submission (`draw`); nbgrader's in-kernel check uses draw "". """
    if task.hidden is None:
        return []
    cases = []
    for index in range(task.n_hidden):
        rng = random.Random(case_seed(secret, spec.lab_id, task.grade_id, index, draw))
        case = task.hidden(rng)
        if not isinstance(case, Case):
            raise TypeError(f"{spec.lab_id}/{task.grade_id}: hidden(rng) returned "
                            f"{type(case).__name__}, expected autograder.spec.Case")
        cases.append(case)
    return cases


def check_task(lab_id: str, grade_id: str, namespace: dict) -> None:
    """Raise AssertionError naming the first hidden case where the student's function disagrees."""
    from autograder.judge.reference import reference_output

    spec = load_spec(lab_id)
    task = spec.task(grade_id)
    function = namespace.get(task.function)
    if not callable(function):
        raise AssertionError(f"{task.title}: define a function named {task.function!r} (not found)")
    cases = hidden_cases(spec, task, load_secret())
    for index, case in enumerate(cases, 1):
        label = f"hidden case {index}/{len(cases)} ({case.name})"
        args, kwargs = task.prepare(case)
        try:
            got = task.encode(function(*args, **kwargs))
        except Exception as error:
            raise AssertionError(f"{label}: {task.function} raised {type(error).__name__}: {error}") from error
        message = task.compare(got, reference_output(spec, task, case))
        if message:
            hint = f"\nHint: {case.hint}" if case.hint else ""
            raise AssertionError(f"{label}: {message}{hint}")
