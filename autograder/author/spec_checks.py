"""validate's checks of the spec alone, before any notebook runs: `uses` (setup_uses names forbidden course
code), `spec` (visible cases plain data, expected values the reference's, hidden cases drawable and
judged by the task's compare), `draws` (hidden cases differ between students and attempts)."""
from __future__ import annotations

import json
import re

from autograder.author.report import Report
from autograder.spec import LabSpec, Task


def _plain(value):
    return json.loads(json.dumps(value))


def _is_plain(case) -> bool:
    try:
        return _plain({"a": list(case.args), "k": case.kwargs}) == {"a": list(case.args), "k": case.kwargs}
    except (TypeError, ValueError):
        return False


def _compare(task: Task, got, want) -> str | None:
    try:
        return task.compare(got, want)
    except Exception as error:  # noqa: BLE001 - a compare that crashes is the spec's problem to report
        return f"compare raised {type(error).__name__}: {error}"


def _spec_says(message: str) -> str:
    """compare(typed, reference) says "PATH: expected REFERENCE, got TYPED": told from the author's side."""
    found = re.match(r"(?s)(.*?): expected (.*), got (.*)$", message)
    if not found:
        return f"its expected value is not the reference's: {message}"
    where, reference, typed = found.groups()
    at = "" if where == "output" else f" at {where.removeprefix('output')}"
    return f"the spec says {typed}{at}, the reference gives {reference}"


def setup_uses_problems(spec: LabSpec) -> list[str]:
    """What is wrong with the lab's `setup_uses`: a name no rule forbids (it is real in the child anyway)
    or one that names no function or class of the course's code."""
    from autograder.sandbox import standins

    problems = []
    files = standins.plan(spec.forbids)
    for name in spec.setup_uses:
        found = standins._resolve(name)
        if not found or not found[0] or not found[1]:
            problems.append(f"{name!r} names no function or class of the course's code (coursekit/)")
            continue
        path, inner = str(found[0][0].resolve()), found[1]
        if path not in files or not standins.replaced(dict(files[path], keep=[]), inner):
            problems.append(f"{name!r} is not forbidden by any task: it needs no setup_uses entry")
        elif inner not in standins.qualnames(path):
            problems.append(f"{name!r}: {found[0][0].name} defines no {inner}")
    return problems


def check_spec(spec: LabSpec, report: Report, seeds: int) -> set[str]:
    """Report the spec's problems; return the tasks the engine cannot grade (no cases or no reference)."""
    from autograder.judge.engine import _plain as as_sent
    from autograder.judge.hidden import hidden_cases
    from autograder.judge.reference import reference_output

    broken: set[str] = set()
    for task in spec.tasks:
        def reference(case, label, twice=True):
            try:
                first = reference_output(spec, task, as_sent(case))
                again = reference_output(spec, task, as_sent(case)) if twice else first
            except Exception as error:  # noqa: BLE001 - a spec that crashes is the author's problem to report
                broken.add(task.grade_id)
                report.add("spec", task.grade_id, label, f"the reference raised {type(error).__name__}: {error}",
                           "make the case valid input for the solution's function (or fix the solution)")
                return None
            message = _compare(task, again, first)
            if message:
                report.add("spec", task.grade_id, label, f"the reference disagrees with itself ({message})",
                           "make the solution deterministic (seed every random draw) or loosen compare")
            return first

        if not task.visible:
            report.add("spec", task.grade_id, "-", "no visible cases", "give students at least one visible Case")
        for case in task.visible:
            label = f"visible '{case.name}'"
            if not _is_plain(case):
                broken.add(task.grade_id)
                report.add("spec", task.grade_id, label, "its args are not plain JSON data (tuples become lists, "
                           "objects do not survive)", "pass lists, numbers, strings and dicts; build objects in prepare")
                continue
            want = reference(case, label)
            if want is not None and case.expected is not None:
                message = _compare(task, _plain(case.expected), want)
                if message:
                    report.expected_off.add(task.grade_id)
                    report.add("spec", task.grade_id, label, _spec_says(message),
                               "correct `expected` (or leave it None: generate fills in the reference's)")
        if task.hidden is None:
            report.add("spec", task.grade_id, "-", "no hidden-case generator",
                       "add hidden=<function of a random.Random returning a Case>")
            continue
        for seed in range(seeds):
            try:
                cases = hidden_cases(spec, task, f"validate-{seed}".encode(), "student\0attempt")
            except Exception as error:  # noqa: BLE001 - a spec that crashes is the author's problem to report
                broken.add(task.grade_id)
                report.add("spec", task.grade_id, f"hidden, seed {seed}", f"drawing failed: {error!r}",
                           "hidden(rng) must return a Case for every rng")
                break
            bad = [c for c in cases if not _is_plain(c)]
            if bad:
                broken.add(task.grade_id)
                report.add("spec", task.grade_id, f"hidden '{bad[0].name}' (seed {seed})", "its args are not plain "
                           "JSON data", "draw lists, numbers, strings and dicts; build objects in prepare")
                break
            # determinism is checked on the visible cases and the first seed's hidden ones
            if not all(reference(c, f"hidden '{c.name}' (seed {seed})", twice=seed == 0) is not None for c in cases):
                break
    return broken


def check_draws(spec: LabSpec, report: Report) -> None:
    from autograder.judge.hidden import hidden_cases

    secret = b"validate-draws"
    for task in spec.tasks:
        if task.hidden is None:
            continue
        try:
            drawn = {who: [(c.args, c.kwargs) for c in hidden_cases(spec, task, secret, who)]
                     for who in ("ada\0first", "ben\0first", "ada\0second")}
        except Exception:  # noqa: BLE001 - reported by check_spec
            continue
        if drawn["ada\0first"] == drawn["ben\0first"]:
            report.add("draws", task.grade_id, "hidden", "two students get the same hidden cases",
                       "draw every argument from the rng passed to hidden(rng), not from constants or `random`")
        elif drawn["ada\0first"] == drawn["ada\0second"]:
            report.add("draws", task.grade_id, "hidden", "a new attempt gets the same hidden cases",
                       "draw every argument from the rng passed to hidden(rng)")
        if task.n_hidden < 1:
            report.add("draws", task.grade_id, "hidden", "n_hidden is below 1", "draw at least one hidden case")
