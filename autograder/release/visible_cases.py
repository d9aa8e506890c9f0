"""The instructor's side of the visible checks: a spec's visible cases as the data students get.

`checks_data` is what `autograder generate` writes to labs/<lab>/<lab>.checks.json (every case with
its expected output; a case the spec leaves without one gets the reference's). `run_visible` runs a
spec's visible cases straight from the spec (tests and fixture specs), through the same code as the
student's `coursekit.checks.run_visible`.
"""
from __future__ import annotations

import json
import math
import struct
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from coursekit.checks.visible import checks_name, run_task

from autograder.spec import Case, LabSpec, Task, load_spec


def _reference(spec: LabSpec, task: Task) -> Callable[[Case], Any]:
    def want(case: Case) -> Any:
        from autograder.judge.reference import reference_output

        if not spec.solution_path().exists():
            raise AssertionError(f"{spec.lab_id}: visible case '{case.name}' has no expected output and "
                                 f"the solution notebook ({spec.solution_path()}) is not here to compute it")
        if task.float64_expected:
            with _float64():
                return _to_float32(reference_output(spec, task, case))
        return reference_output(spec, task, case)
    return want


@contextmanager
def _float64():
    """torch computes in float64 inside: BLAS kernels and thread counts then disagree only in the last
    bits of a double, which rounding to float32 removes (float32 inputs are cast up exactly)."""
    import torch

    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(before)


def _to_float32(value: Any) -> Any:
    """Every float in encoded data rounded to the nearest float32: the precision a student's run has."""
    if isinstance(value, float):
        return struct.unpack("f", struct.pack("f", value))[0] if math.isfinite(value) else value
    if isinstance(value, dict):
        return {key: _to_float32(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_to_float32(item) for item in value]
    return value


def run_visible(lab_id: str | Path, grade_id: str, fn: Callable[..., Any]) -> int:
    """The spec's visible cases of one task on `fn` (a lab id or a spec module path)."""
    spec = load_spec(lab_id)
    task = spec.task(grade_id)
    return run_task(task.visible_task(), fn, want=_reference(spec, task))


def checks_data(spec: LabSpec) -> dict:
    """Every task's visible check as plain data, expected outputs filled in."""
    tasks = []
    for task in spec.tasks:
        want = _reference(spec, task)
        cases = tuple(c if c.expected is not None else replace(c, expected=want(c)) for c in task.visible)
        tasks.append(replace(task.visible_task(), cases=cases).to_data())
    return {"lab": spec.lab_id, "tasks": tasks}


def write_checks(spec: LabSpec, folder: Path) -> Path:
    """labs/<lab>/<lab>.checks.json; sorted keys and one task per line keep diffs readable."""
    path = Path(folder) / checks_name(spec.lab_id)
    data = checks_data(spec)
    lines = ",\n".join("    " + json.dumps(task, sort_keys=True) for task in data["tasks"])
    path.write_text(f'{{"lab": {json.dumps(spec.lab_id)}, "tasks": [\n{lines}\n]}}\n', encoding="utf-8")
    return path
